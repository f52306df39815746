"""Finding the steerable-sidecar binary: what the host was told (the binary
argument), what its environment says (STEERABLE_SIDECAR_BIN), then PATH. A
named path that is wrong is an error at once — falling back to another
binary would run a version the host did not ask for."""
import os
import shutil
from typing import Mapping, NamedTuple, Optional

from .errors import BinaryNotFoundError

BINARY_ENV = "STEERABLE_SIDECAR_BIN"
EXE = "steerable-sidecar.exe" if os.name == "nt" else "steerable-sidecar"


class FoundBinary(NamedTuple):
    path: str
    source: str
    """"binary", "STEERABLE_SIDECAR_BIN" or "PATH"."""


def find_binary(binary: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> FoundBinary:
    """Returns the binary to spawn: ``binary`` when given, else
    $STEERABLE_SIDECAR_BIN, else steerable-sidecar on PATH."""
    env = os.environ if env is None else env
    if binary:
        return _named(os.fspath(binary), "binary", "the binary argument")
    from_env = env.get(BINARY_ENV)
    if from_env:
        return _named(from_env, BINARY_ENV, BINARY_ENV)
    path = env.get("PATH", "")
    dirs = [d for d in path.split(os.pathsep) if os.path.isabs(d)]  # a relative entry depends on the cwd
    found = shutil.which(EXE, path=os.pathsep.join(dirs)) if dirs else None
    if found:
        return FoundBinary(os.path.abspath(found), "PATH")
    tried = [
        "the binary argument: not given",
        f"{BINARY_ENV}: not set",
        f"PATH: no {EXE} in {'any of its directories' if path else 'it (PATH is empty)'}",
    ]
    raise BinaryNotFoundError(
        "steerable-sidecar binary not found; looked at:\n  " + "\n  ".join(tried) + "\n"
        f"Pass binary=\"/path/to/steerable-sidecar\", set {BINARY_ENV}, put it on PATH, "
        "or build it with `make build` (bin/steerable-sidecar).",
        tried,
    )


def _named(path: str, source: str, what: str) -> FoundBinary:
    full = os.path.abspath(path)
    why = _not_executable(full)
    if why:
        raise BinaryNotFoundError(
            f"steerable-sidecar binary {path!r} (from {what}) {why}; "
            f"build it with `make build` (bin/steerable-sidecar) or point {what} at the binary",
            [f"{what}: {full} {why}"],
        )
    return FoundBinary(full, source)


def _not_executable(path: str) -> str:
    if not os.path.exists(path):
        return "does not exist"
    if not os.path.isfile(path):
        return "is not a file"
    if os.name != "nt" and not os.access(path, os.X_OK):
        return "is not executable (chmod +x it)"
    return ""
