"""MCP stdio framing, sans I/O: newline-delimited JSON or ``Content-Length`` frames, detected.

MCP's stdio transport is newline-delimited JSON; some clients (and the Go bridge, which accepts
both) frame messages as LSP does, ``Content-Length: N`` headers, a blank line, then N bytes. The
first non-blank byte the client sends decides (``{`` or ``[``: lines; ``C``/``c``: headers), and
the answers go out in the same framing.

:class:`StdioFrameDecoder` turns bytes into message bodies (``feed`` then iterate ``messages``);
:func:`encode_frame` turns a body into bytes for the detected mode. A frame over
``max_message_bytes`` or a header block that is not ``Content-Length`` framing is a
:class:`FramingError` for that message; the decoder skips it and goes on. After a frame whose
length was wrong, the next body and header read as one header block: the decoder starts again
at that block's last ``Content-Length``, so one bad frame costs the frames it overlapped, not
the rest of the session.
"""

from __future__ import annotations

from collections import deque
from typing import Final, Literal

__all__ = ["MAX_MESSAGE_BYTES", "FramingError", "Mode", "StdioFrameDecoder", "encode_frame"]

Mode = Literal["lines", "headers"]
#: The largest message accepted, in bytes.
MAX_MESSAGE_BYTES: Final = 16 * 1024 * 1024
_MAX_HEADER_BYTES: Final = 8192


class FramingError(Exception):
    """One message could not be read; the decoder has skipped it."""


def encode_frame(body: bytes, mode: Mode | None) -> bytes:
    """``body`` framed for ``mode`` (newline-delimited until a mode is known)."""
    if mode == "headers":
        return b"Content-Length: %d\r\n\r\n" % len(body) + body
    return body + b"\n"


class StdioFrameDecoder:
    """Bytes in, message bodies (or :class:`FramingError`) out, in order."""

    def __init__(self, *, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.mode: Mode | None = None
        self.max_message_bytes = max_message_bytes
        self._buffer = bytearray()
        self._out: deque[bytes | FramingError] = deque()
        self._skipping_line = False
        self._discard = 0

    def feed(self, data: bytes) -> None:
        self._buffer += data
        self._parse()

    def whole_lines(self, data: bytes) -> list[bytes] | None:
        """The messages of ``data`` when the framing is lines, nothing is held and ``data`` ends
        a line: what :meth:`feed` would decode from it; None otherwise. The decoder is left as
        it was either way (it holds nothing after whole lines), so ``data`` can still be fed."""
        if (
            self.mode != "lines"
            or self._buffer
            or self._out
            or self._skipping_line
            or not data.endswith(b"\n")
        ):
            return None
        return [line for raw in data.split(b"\n") if (line := raw.strip())]

    def messages(self) -> list[bytes | FramingError]:
        """What was decoded since the last call (bodies, or errors for skipped messages)."""
        out = list(self._out)
        self._out.clear()
        return out

    def _parse(self) -> None:
        if self.mode is None:
            stripped = self._buffer.lstrip(b" \t\r\n")
            del self._buffer[: len(self._buffer) - len(stripped)]
            if not self._buffer:
                return
            self.mode = "headers" if bytes(self._buffer[:1]) in (b"C", b"c") else "lines"
        if self.mode == "lines":
            self._lines()
        else:
            self._headers()

    def _lines(self) -> None:
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > self.max_message_bytes:
                    self._buffer.clear()
                    if not self._skipping_line:
                        self._out.append(FramingError("a line longer than the limit; skipped"))
                    self._skipping_line = True
                return
            line = bytes(self._buffer[:end]).strip()
            del self._buffer[: end + 1]
            if self._skipping_line:
                self._skipping_line = False
                continue
            if line:
                self._out.append(line)

    def _headers(self) -> None:
        while True:
            if self._discard:
                dropped = min(self._discard, len(self._buffer))
                del self._buffer[:dropped]
                self._discard -= dropped
                if self._discard:
                    return
            stripped = self._buffer.lstrip(b"\r\n")
            del self._buffer[: len(self._buffer) - len(stripped)]
            end, gap = self._header_end()
            if end < 0:
                if len(self._buffer) > _MAX_HEADER_BYTES:
                    self._buffer.clear()
                    self._out.append(FramingError("a header block without an end; dropped"))
                return
            headers = bytes(self._buffer[:end]).decode("latin-1")
            length = None
            for line in headers.splitlines():
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    try:
                        length = int(value.strip())
                    except ValueError:
                        length = None
            if length is None or length < 0:
                # after a wrong length the stream is out of step: a body and the next header
                # read as one header block. Start again at that block's last header instead of
                # dropping it with every frame after it
                resync = headers.lower().rfind("content-length", 1)
                del self._buffer[: resync if resync > 0 else end + gap]
                self._out.append(FramingError("a frame without a valid Content-Length; skipped"))
                continue
            if length > self.max_message_bytes:
                del self._buffer[: end + gap]
                self._out.append(FramingError(f"a {length}-byte frame is over the limit"))
                self._discard = length
                continue
            if len(self._buffer) < end + gap + length:
                return
            body = bytes(self._buffer[end + gap : end + gap + length])
            del self._buffer[: end + gap + length]
            self._out.append(body)

    def _header_end(self) -> tuple[int, int]:
        crlf = self._buffer.find(b"\r\n\r\n")
        lf = self._buffer.find(b"\n\n")
        if crlf >= 0 and (lf < 0 or crlf <= lf):
            return crlf, 4
        return (lf, 2) if lf >= 0 else (-1, 0)
