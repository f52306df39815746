"""The two framings the sidecar speaks (SPEC §1): one compact JSON object per
line (its default), or LSP-style Content-Length headers."""
import asyncio
import json
from typing import Any, Dict, List, Optional

NEWLINE = "newline"
CONTENT_LENGTH = "content-length"

# A reply is one line and lines are not bounded (a bash result can be
# megabytes): asyncio's default 64 KiB stream limit would fail on an
# ordinary read_file.
STREAM_LIMIT = 1 << 30


class NotJSON(ValueError):
    """A stdout frame that is not JSON (a usage text, before the sidecar is ready)."""

    def __init__(self, text: str):
        super().__init__(f"the sidecar wrote a line that is not JSON: {text[:200]}")
        self.text = text


def flag(framing: str) -> List[str]:
    """The command-line flags that select framing on the sidecar."""
    if framing == NEWLINE:
        return []
    if framing == CONTENT_LENGTH:
        return ["--framing", CONTENT_LENGTH]
    raise ValueError(f"framing must be {NEWLINE!r} or {CONTENT_LENGTH!r}, not {framing!r}")


def encode(framing: str, msg: Dict[str, Any]) -> bytes:
    # json.dumps escapes every newline inside strings: one line.
    body = json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if framing == NEWLINE:
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read(framing: str, stream: asyncio.StreamReader) -> Optional[Any]:
    """Reads one message; None at EOF. Raises NotJSON for a frame that is not
    JSON (the next read goes on after it)."""
    while True:
        if framing == NEWLINE:
            try:
                line = await stream.readuntil(b"\n")
            except asyncio.IncompleteReadError as e:
                line = e.partial
                if not line.strip():
                    return None
            body = line.strip()
            if not body:
                continue
        else:
            body = await _read_content_length(stream)
            if body is None:
                return None
        try:
            return json.loads(body)
        except ValueError:
            raise NotJSON(body.decode("utf-8", "replace")) from None


async def _read_content_length(stream: asyncio.StreamReader) -> Optional[bytes]:
    length = None
    while True:
        try:
            header = await stream.readuntil(b"\n")
        except asyncio.IncompleteReadError:
            return None
        header = header.strip()
        if not header:
            if length is None:
                continue
            break
        name, _, value = header.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    try:
        return await stream.readexactly(length)
    except asyncio.IncompleteReadError:
        return None
