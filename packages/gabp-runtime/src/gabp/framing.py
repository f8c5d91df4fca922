"""Sans-IO Content-Length framing for GABP.

GABP messages travel as frames::

    Content-Length: <bytes in body>\\r\\n
    Content-Type: application/json\\r\\n
    \\r\\n
    <body>

This module turns bytes into frame bodies (:class:`FrameDecoder`) and bodies into bytes
(:func:`encode_frame`). It does no I/O: the caller reads from a socket or pipe, feeds what it
read, and gets back the complete bodies, in order. The caller decodes JSON.

Receiving rules:

* Header lines end with CRLF, and the header block ends with an empty line (CRLFCRLF).
  Bare LF or bare CR line endings are rejected as malformed: the protocol fixes CRLF, every
  known peer sends it, and one strict rule means one way to find where a body starts.
* Header names are case-insensitive. Exactly one ``Content-Length`` is required; its value is
  a plain decimal byte count (at most 20 digits, no sign, no spaces inside). ``Content-Type``
  is optional and its value is ignored, as are unknown headers.
* Header bytes are printable ASCII (plus horizontal tab); anything else is malformed.
* The header block (including its terminating CRLFCRLF) may hold at most ``max_header_bytes``,
  and a declared body at most ``max_body_bytes``. A declared length above the limit is refused
  as soon as the header is parsed, before any of the body is buffered.
* ``lenient_headers=True`` takes what a known lenient peer (Lib.GAB) takes where the length is
  still certain: a header line without a colon is skipped, a repeated ``Content-Length`` with
  the same value is taken once, and the value may carry a leading ``+``. Two different values
  stay an error: which one is meant cannot be known.
* A Content-Length stream cannot resynchronise after a bad frame, so any error poisons the
  decoder: every later :meth:`FrameDecoder.feed` raises :class:`DecoderClosedError`.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_HEADER_BYTES",
    "BodyTooLargeError",
    "DecoderClosedError",
    "DuplicateContentLengthError",
    "FrameDecoder",
    "FramingError",
    "HeaderTooLargeError",
    "InvalidContentLengthError",
    "MalformedHeaderError",
    "MissingContentLengthError",
    "TruncatedFrameError",
    "encode_frame",
]

DEFAULT_MAX_HEADER_BYTES: Final = 8192
DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024 * 1024

# Longest accepted Content-Length value: 20 digits covers every 64-bit size; longer is absurd.
_MAX_LENGTH_DIGITS: Final = 20

_TERMINATOR: Final = b"\r\n\r\n"

# Header blocks a decoder remembers (see FrameDecoder): how many, and how long at most.
_MAX_REMEMBERED_HEADERS: Final = 256
_MAX_REMEMBERED_HEADER: Final = 128

# A byte that may not appear in a header block: a control byte other than HTAB, a non-ASCII
# byte, a CR not followed by LF, or an LF not preceded by CR.
_BAD_HEADER_BYTE: Final = re.compile(rb"[^\t\x20-\x7e\r\n]|\r(?=[^\n])|(?<!\r)\n|\r\Z")
_HEADER_NAME: Final = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_DECIMAL: Final = re.compile(rb"[0-9]+")

_ENCODED_HEADER: Final = b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n"


class FramingError(ValueError):
    """The byte stream is not valid GABP framing (or the decoder was misused after an error).

    ``frames`` holds the bodies that the failing :meth:`FrameDecoder.feed` call had already
    decoded before it hit the error, so a caller can still process them.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.frames: list[bytes] = []


class HeaderTooLargeError(FramingError):
    """The header block did not end (CRLFCRLF) within ``max_header_bytes``."""


class BodyTooLargeError(FramingError):
    """The declared Content-Length is above ``max_body_bytes``."""


class MissingContentLengthError(FramingError):
    """A complete header block has no Content-Length header."""


class DuplicateContentLengthError(FramingError):
    """A header block has more than one Content-Length header (even with equal values)."""


class InvalidContentLengthError(FramingError):
    """The Content-Length value is not a plain non-negative decimal integer."""


class MalformedHeaderError(FramingError):
    """A header line is not ``name: value`` in printable ASCII with CRLF line endings."""


class TruncatedFrameError(FramingError):
    """The stream ended in the middle of a frame header or body."""


class DecoderClosedError(FramingError):
    """Data was fed after the end of the stream or after an earlier framing error."""


def _show(value: bytes, limit: int = 40) -> str:
    """A short, safe rendering of untrusted header bytes for an error message."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} bytes)"


def _parse_header_block(block: bytes, lenient: bool = False) -> int:
    """Return the Content-Length of a complete header block (without its CRLFCRLF)."""
    bad = _BAD_HEADER_BYTE.search(block)
    if bad is not None:
        offset = bad.start()
        byte = block[offset]
        if byte == 0x0A:
            raise MalformedHeaderError(
                f"frame header has a bare LF at offset {offset}; header lines must end with CRLF"
            )
        if byte == 0x0D:
            raise MalformedHeaderError(
                f"frame header has a bare CR at offset {offset}; header lines must end with CRLF"
            )
        raise MalformedHeaderError(
            f"frame header has byte 0x{byte:02x} at offset {offset}; "
            "only printable ASCII and tab are allowed"
        )
    if not block:
        raise MissingContentLengthError("frame header is empty; a Content-Length is required")
    length: int | None = None
    for line in block.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if not colon and lenient:
            continue
        if not colon:
            raise MalformedHeaderError(f"frame header line {_show(line)} has no colon")
        if not name:
            raise MalformedHeaderError(f"frame header line {_show(line)} has an empty name")
        if _HEADER_NAME.fullmatch(name) is None:
            raise MalformedHeaderError(
                f"frame header name {_show(name)} is not a valid token "
                "(no spaces or separators allowed)"
            )
        if name.lower() != b"content-length":
            continue
        value = value.strip(b" \t")
        if lenient and value.startswith(b"+"):
            value = value[1:]
        if length is not None and not (lenient and value == b"%d" % length):
            raise DuplicateContentLengthError(
                "frame header has more than one Content-Length; exactly one is required"
                + (" (or the same value repeated)" if lenient else "")
            )
        if _DECIMAL.fullmatch(value) is None:
            raise InvalidContentLengthError(
                f"Content-Length value {_show(value)} is not a non-negative decimal integer"
            )
        if len(value) > _MAX_LENGTH_DIGITS:
            raise InvalidContentLengthError(
                f"Content-Length value has {len(value)} digits; "
                f"at most {_MAX_LENGTH_DIGITS} are allowed"
            )
        length = int(value)
    if length is None:
        raise MissingContentLengthError("frame header has no Content-Length header")
    return length


class FrameDecoder:
    """Turn a GABP byte stream into frame bodies, with no I/O.

    Call :meth:`feed` with every chunk read from the peer, in order, and ``feed(b"")`` at end
    of stream. Memory is bounded: between calls the decoder holds at most one partial frame,
    that is less than ``max_header_bytes`` of header or less than ``max_body_bytes`` of body.

    Work per call is linear in the bytes fed. A partial header is kept in a ``bytearray`` and
    the search for its CRLFCRLF resumes where the previous call stopped; a partial body is kept
    as a list of chunks and joined once, when it completes. Header blocks already seen (a
    stream repeats a handful of them) are remembered with their length, so a known header costs
    one slice and one dictionary lookup instead of a parse.
    """

    __slots__ = (
        "_closed",
        "_error",
        "_head",
        "_head_len",
        "_held",
        "_known",
        "_lenient",
        "_max_body",
        "_max_header",
        "_need",
        "_parts",
        "_scan",
    )

    def __init__(
        self,
        *,
        max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        lenient_headers: bool = False,
    ) -> None:
        if max_header_bytes < 1:
            raise ValueError(f"max_header_bytes must be at least 1, got {max_header_bytes}")
        if max_body_bytes < 0:
            raise ValueError(f"max_body_bytes must not be negative, got {max_body_bytes}")
        self._max_header = max_header_bytes
        self._max_body = max_body_bytes
        self._lenient = lenient_headers
        # Header state: the bytes of an incomplete header block, and where to resume looking
        # for its CRLFCRLF.
        self._head = bytearray()
        self._scan = 0
        # Body state: the length of the body whose header is consumed (-1 in header state),
        # and the chunks of it received so far.
        self._need = -1
        self._parts: list[bytes | memoryview] = []
        self._held = 0
        # Header blocks (CRLFCRLF included) already parsed, with their body length, and the
        # length of the last one: the next header most likely has the same length.
        self._known: dict[bytes, int] = {}
        self._head_len = len(_ENCODED_HEADER % 100)
        self._closed = False
        self._error: FramingError | None = None

    @property
    def max_header_bytes(self) -> int:
        """The largest accepted header block, CRLFCRLF included."""
        return self._max_header

    @property
    def max_body_bytes(self) -> int:
        """The largest accepted Content-Length."""
        return self._max_body

    @property
    def buffered(self) -> int:
        """Bytes currently held: the part of an incomplete frame received so far."""
        return len(self._head) + self._held

    @property
    def at_boundary(self) -> bool:
        """True when no partial frame is held (the stream could end cleanly here)."""
        return self._need < 0 and not self._head

    @property
    def closed(self) -> bool:
        """True after end of stream or after a framing error."""
        return self._closed

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Add bytes received from the peer; return the bodies of the frames they completed.

        ``feed(b"")`` signals end of stream: it returns ``[]`` at a frame boundary and raises
        :class:`TruncatedFrameError` inside a frame. Any :class:`FramingError` closes the
        decoder; its ``frames`` attribute holds bodies completed earlier in the same call.
        """
        if self._closed:
            raise self._closed_error()
        if not data:
            return self._end_of_stream()
        if type(data) is not bytes:
            data = bytes(data)
        frames: list[bytes] = []
        try:
            need = self._need
            if need >= 0:
                # Completing a body whose header came in an earlier call.
                held = self._held + len(data)
                if held < need:
                    self._parts.append(data)
                    self._held = held
                    return frames
                pos = need - self._held
                parts = self._parts
                if parts:
                    parts.append(memoryview(data)[:pos])
                    frames.append(b"".join(parts))
                else:
                    frames.append(data[:pos])
                self._parts = []
                self._held = 0
                self._need = -1
                work = data
            elif self._head:
                # Completing a header that came in part in an earlier call.
                head = self._head
                head += data
                if head.find(_TERMINATOR, self._scan, self._max_header) < 0:
                    self._check_partial_header(head, 0, self._scan)
                    self._scan = max(0, len(head) - 3)
                    return frames
                work = bytes(head)
                self._head = bytearray()
                self._scan = 0
                pos = 0
            else:
                work = data
                pos = 0
            self._decode(work, pos, frames)
        except FramingError as exc:
            exc.frames = frames
            self._fail(exc)
            raise
        return frames

    def whole_frames(self, data: bytes) -> list[bytes] | None:
        """The bodies of ``data`` when it is nothing but whole frames and no partial frame is
        held; None otherwise (a partial frame, a framing error, a closed decoder).

        Either way the decoder is left at the boundary it was at, so the same bytes can still
        be given to :meth:`feed`, which then reports any error as usual: a reader can look at
        what arrived before deciding who handles it."""
        if self._closed or self._need >= 0 or self._head or type(data) is not bytes or not data:
            return None
        frames: list[bytes] = []
        try:
            self._decode(data, 0, frames)
        except FramingError:
            return None  # raised before any partial frame was kept
        if self._need >= 0 or self._head:
            self._drop_partial()
            return None
        return frames

    def _decode(self, work: bytes, pos: int, frames: list[bytes]) -> None:
        """Append the frames in ``work[pos:]`` to ``frames``; keep any partial frame."""
        size = len(work)
        known = self._known
        lookup = known.get
        head_len = self._head_len
        append = frames.append
        while True:
            # Hot path: the next header is one already seen, of the same length as the last.
            # A known block ends at its first CRLFCRLF, so equal bytes are a whole header.
            body_start = pos + head_len
            need = lookup(work[pos:body_start])
            if need is not None:
                pos = body_start + need
                if pos <= size:
                    append(work[body_start:pos])
                    continue
                pos = body_start - head_len
                if body_start > size:
                    # A shorter known header matched a cut-off slice: not a real match.
                    need = None
            if need is None:
                if pos == size:
                    break  # (an empty slice is never a known header)
                # Find the end of the header block and parse it (or look it up).
                end = work.find(_TERMINATOR, pos, pos + self._max_header)
                if end < 0:
                    self._check_partial_header(work, pos, pos)
                    self._head = bytearray(memoryview(work)[pos:])
                    self._scan = max(0, size - pos - 3)
                    break
                body_start = end + 4
                block = work[pos:body_start]
                need = lookup(block)
                if need is None:
                    need = self._parse_new_header(block)
                head_len = body_start - pos
                end = body_start + need
                if end <= size:
                    append(work[body_start:end])
                    pos = end
                    continue
            # The body continues in a later call. Keep a view of a mostly-body chunk rather
            # than copying it; copy a small tail so a large chunk is not kept alive for it.
            tail = size - body_start
            if tail:
                self._parts = [
                    memoryview(work)[body_start:] if 2 * tail >= size else work[body_start:]
                ]
            self._held = tail
            self._need = need
            break
        self._head_len = head_len

    def _parse_new_header(self, block: bytes) -> int:
        """Parse a header block (CRLFCRLF included), check the body limit, remember it."""
        need = _parse_header_block(block[:-4], self._lenient)
        if need > self._max_body:
            raise BodyTooLargeError(
                f"Content-Length {need} exceeds the {self._max_body}-byte body limit"
            )
        if len(block) <= _MAX_REMEMBERED_HEADER:
            if len(self._known) >= _MAX_REMEMBERED_HEADERS:
                self._known.clear()
            self._known[block] = need
        return need

    def _check_partial_header(self, buf: bytes | bytearray, start: int, scan_from: int) -> None:
        """Fail early on a partial header that can never complete or never be valid."""
        held = len(buf) - start
        if held >= self._max_header:
            raise HeaderTooLargeError(
                f"frame header exceeds the {self._max_header}-byte header limit "
                f"without a terminating CRLFCRLF ({held} bytes received)"
            )
        # Bytes that no valid header contains are reported now rather than at the limit.
        # A CR at the very end may still be followed by its LF, so it is left for later.
        bad = _BAD_HEADER_BYTE.search(buf, max(start, scan_from - 1))
        if bad is not None and not (bad.start() == len(buf) - 1 and buf[-1] == 0x0D):
            _parse_header_block(bytes(buf[start : bad.start() + 1]), self._lenient)

    def _end_of_stream(self) -> list[bytes]:
        if self.at_boundary:
            self._closed = True
            return []
        if self._need < 0:
            error: FramingError = TruncatedFrameError(
                f"stream ended inside a frame header ({len(self._head)} bytes received)"
            )
        else:
            error = TruncatedFrameError(
                f"stream ended inside a frame body ({self._held} of {self._need} bytes received)"
            )
        self._fail(error)
        raise error

    def _fail(self, error: FramingError) -> None:
        self._closed = True
        self._error = error
        self._drop_partial()

    def _drop_partial(self) -> None:
        """Forget a partial frame: back to the boundary, looking for a header."""
        self._head = bytearray()
        self._scan = 0
        self._need = -1
        self._parts = []
        self._held = 0

    def _closed_error(self) -> DecoderClosedError:
        if self._error is None:
            error = DecoderClosedError("frame decoder is closed: data fed after end of stream")
        else:
            error = DecoderClosedError(
                f"frame decoder is closed after an earlier framing error: {self._error}"
            )
            error.__cause__ = self._error
        return error


def encode_frame(body: bytes | bytearray | memoryview) -> bytes:
    """Return ``body`` framed for the wire: Content-Length, Content-Type, blank line, body.

    The header casing is exactly ``Content-Length`` / ``Content-Type: application/json``
    (the Go bridge matches ``Content-Length:`` case-sensitively). ``body`` must already be
    encoded (UTF-8 JSON); a ``str`` is refused so the length is never counted in characters.
    """
    if isinstance(body, bytes):
        return _ENCODED_HEADER % len(body) + body
    if isinstance(body, bytearray | memoryview):
        view = memoryview(body)
        return b"".join((_ENCODED_HEADER % view.nbytes, view))
    raise TypeError(
        f"encode_frame() needs bytes, bytearray or memoryview, not {type(body).__name__}"
    )
