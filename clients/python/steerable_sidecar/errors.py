"""The errors the client raises. Each says what happened and, where the host
can do something about it, what to do."""
from typing import Any, List, Optional, Sequence

CANCELLED = -32800
"""The code of a cancelled request ($/cancelRequest, or shutdown)."""
METHOD_NOT_FOUND = -32601
"""The code of an unknown method; also this client's answer to a reverse request it has no handler for."""
INTERNAL_ERROR = -32603


class SidecarError(Exception):
    """Base class of every error this client raises. ``stderr`` holds the
    sidecar's last stderr lines for errors that end with its process."""

    def __init__(self, message: str, stderr: Sequence[str] = ()):
        super().__init__(message)
        self.stderr: List[str] = list(stderr)


class RpcError(SidecarError):
    """The sidecar's JSON-RPC error reply to a request: an envelope problem,
    a cancellation (-32800), a busy queue (-32003), a plugin in the wrong
    state (-32010)… A tool that runs and fails is not one: it is a
    ToolResult with success false."""

    def __init__(self, method: str, code: int, message: str, data: Any = None):
        super().__init__(message)  # the sidecar's own words
        self.method = method
        self.code = code
        self.data = data
        kind = data.get("kind") if isinstance(data, dict) else None
        self.kind: Optional[str] = kind if isinstance(kind, str) else None


class SidecarExitError(SidecarError):
    """The sidecar's process ended: before it was ready (its own boot error
    is the message), while requests were pending (each of them raises this),
    or it was killed."""

    def __init__(self, message: str, returncode: Optional[int], before_ready: bool, stderr: Sequence[str] = ()):
        super().__init__(message, stderr)
        self.returncode = returncode
        """The exit code; negative -N when signal N killed it (as subprocess reports)."""
        self.before_ready = before_ready


class BinaryNotFoundError(SidecarError):
    """No steerable-sidecar binary where the client looked; ``tried`` lists
    every place, in order, with why it did not do."""

    def __init__(self, message: str, tried: Sequence[str]):
        super().__init__(message)
        self.tried: List[str] = list(tried)
