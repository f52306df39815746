"""steerable_sidecar: spawn steerable-sidecar from a Python host (an eval
harness, a CLI, a test) and drive it with asyncio. Standard library only.

    async with spawn_sidecar("/path/to/workspace", on_ask_user=answer) as sc:
        result = await sc.invoke("read_file", {"path": "README.md"})
"""
from .binary import BINARY_ENV, FoundBinary, find_binary
from .client import ExitInfo, Sidecar, spawn_sidecar
from .errors import CANCELLED, METHOD_NOT_FOUND, BinaryNotFoundError, RpcError, SidecarError, SidecarExitError
from .logs import LogEntry, default_logger, parse_log_line, to_logging

__all__ = [
    "BINARY_ENV", "CANCELLED", "METHOD_NOT_FOUND", "BinaryNotFoundError", "ExitInfo", "FoundBinary", "LogEntry",
    "RpcError", "Sidecar", "SidecarError", "SidecarExitError", "default_logger", "find_binary", "parse_log_line",
    "spawn_sidecar", "to_logging",
]
