"""The sidecar's stderr: zerolog JSON lines (or text: boot errors, a Go
panic, --log-format console). The client always drains it — a host that
does not loses log lines — and hands each line, parsed, to a logger."""
import json
import logging
import sys
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional


@dataclass
class LogEntry:
    """One stderr line of the sidecar."""

    level: str
    """zerolog's level ("debug", "info", "warn", "error", "fatal", "panic"), or "text" for a line that is not JSON."""
    message: str
    raw: str
    pid: int
    time: Optional[str] = None
    fields: Dict[str, Any] = field(default_factory=dict)
    """The line's other fields (tool, callId, error, …)."""


Logger = Callable[[LogEntry], None]

_SEVERE = {"error", "fatal", "panic", "text"}


def default_logger(entry: LogEntry) -> None:
    """Writes errors and text lines (a boot error, a panic) to sys.stderr,
    prefixed with the sidecar's pid. Warnings — a failed tool call is one,
    and a model misspelling a tool is routine — and debug and info lines are
    dropped. Pass ``logger=to_logging`` to route every line into the logging
    module, your own callable, or ``None`` to drop everything."""
    if entry.level not in _SEVERE:
        return
    fields = " " + json.dumps(entry.fields, ensure_ascii=False) if entry.fields else ""
    prefix = "" if entry.level == "text" else entry.level + ": "
    sys.stderr.write(f"steerable-sidecar[{entry.pid}] {prefix}{entry.message}{fields}\n")


_LEVELS = {
    "trace": logging.DEBUG, "debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING,
    "error": logging.ERROR, "fatal": logging.CRITICAL, "panic": logging.CRITICAL, "text": logging.ERROR,
}


def to_logging(entry: LogEntry) -> None:
    """A logger that sends every line to the ``steerable_sidecar.sidecar``
    logger of the logging module, at the matching level, with the line's
    fields as ``extra={"sidecar": {...}}``."""
    log = logging.getLogger("steerable_sidecar.sidecar")
    log.log(_LEVELS.get(entry.level, logging.INFO), "%s", entry.message,
            extra={"sidecar": {"pid": entry.pid, "time": entry.time, **entry.fields}})


def parse_log_line(raw: str, pid: int) -> LogEntry:
    """Turns one stderr line into a LogEntry."""
    if raw.startswith("{"):
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            level = str(obj.pop("level", "info"))
            message = str(obj.pop("message", ""))
            time = obj.pop("time", None)
            return LogEntry(level, message, raw, pid, time if isinstance(time, str) else None, obj)
    return LogEntry("text", raw, raw, pid)


class Tail:
    """The last stderr lines (bounded in lines and characters), for the
    messages of errors that end with the process."""

    def __init__(self, max_lines: int = 40, max_chars: int = 16 * 1024):
        self._lines: Deque[str] = deque()
        self._chars = 0
        self._max_lines = max_lines
        self._max_chars = max_chars

    def push(self, line: str) -> None:
        if len(line) > self._max_chars:
            line = line[: self._max_chars] + "…"
        self._lines.append(line)
        self._chars += len(line)
        while len(self._lines) > self._max_lines or (self._chars > self._max_chars and len(self._lines) > 1):
            self._chars -= len(self._lines.popleft())

    def get(self) -> List[str]:
        return list(self._lines)


def boot_error(lines: Iterable[str]) -> str:
    """Picks the lines that say why the sidecar did not start: its text lines
    and error-level JSON lines, in order, up to a usage block."""
    picked: List[str] = []
    for raw in lines:
        e = parse_log_line(raw, 0)
        if e.level == "text":
            if raw.lower().startswith("usage:"):
                break
            if raw.strip():
                picked.append(raw)
        elif e.level in ("error", "fatal", "panic"):
            err = e.fields.get("error")
            picked.append(f"{e.message}: {err}" if err else e.message)
    return "\n".join(picked[:12])
