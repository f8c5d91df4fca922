"""The JSON codec of the wire: what a :class:`~gabp.Connection` decodes and encodes with.

* :func:`decode` parses a frame body with ``msgspec`` (three to four times the standard
  library's speed on GABP messages) and falls back to the standard library's ``json.loads``
  whenever ``msgspec`` refuses the input. So every body is read exactly as ``json.loads``
  reads it: what both accept gives the same value (integers of any size stay exact, a
  repeated key keeps its last value), and what ``msgspec`` refuses (``NaN``, a byte order
  mark, a lone surrogate escape, nesting past its limit) gets the standard library's answer
  and its exceptions (``ValueError``, ``UnicodeDecodeError``, ``RecursionError``). One
  exception: bytes are read as UTF-8 only (a UTF-8 byte order mark skipped), never as the
  UTF-16 or UTF-32 that ``json.loads`` would guess, since GABP bodies are UTF-8.
* :func:`encode` writes compact UTF-8 JSON (non-ASCII kept) of exactly what the standard
  library's encoder accepts, and refuses the rest as it does (``TypeError``, ``ValueError``).
  ``msgspec`` encodes first, and its output is kept only when it reads back as a value equal
  to the one given; otherwise the standard library's encoder runs. The check matters:
  ``msgspec`` alone would write ``NaN`` as ``null`` and encode values that are not JSON (bytes,
  dates, UUIDs, sets, dataclasses), changing what a handler's result means. Still, with the
  check it costs under half of the standard library's encoder.
* :class:`EncodedJson` is a value its producer has already encoded: a request handler may
  return one as its result, and ``Connection.emit`` takes one as an event's payload; the
  response or event carries its bytes as they are (``lib_gab`` dumps a tool's result with the
  tool's own schema straight to JSON, which saves encoding it twice and checking it).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["EncodedJson", "decode", "encode"]

_fast_decode = msgspec.json.Decoder().decode
_slow_decode = json.loads
_fast_encode = msgspec.json.Encoder().encode
_slow_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def decode(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document as ``json.loads`` would, faster; bytes are UTF-8 only.

    GABP bodies are UTF-8: where ``json.loads`` would take bytes in UTF-16 or UTF-32 (it
    guesses the encoding), this raises ``UnicodeDecodeError`` or ``ValueError`` instead. A
    UTF-8 byte order mark is still skipped."""
    try:
        return _fast_decode(data)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        pass
    if not isinstance(data, str):
        data = bytes(data).decode("utf-8-sig")
    return _slow_decode(data)


def encode(value: Any) -> bytes:
    """Compact UTF-8 JSON of ``value``: ``TypeError`` or ``ValueError`` when it is not JSON
    (a ``NaN``, an object the standard library cannot encode, a lone surrogate)."""
    try:
        data = _fast_encode(value)
        if _fast_decode(data) == value:
            return data
    except (msgspec.MsgspecError, TypeError, ValueError, OverflowError, RecursionError):
        pass
    return _slow_encode(value).encode("utf-8")


class EncodedJson:
    """One JSON value, already encoded as compact UTF-8: sent as it is, never checked.

    Only for a producer whose encoder writes valid JSON (a pydantic serializer, msgspec):
    whatever ``data`` holds goes on the wire unchanged."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __repr__(self) -> str:
        return f"EncodedJson({len(self.data)} bytes)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EncodedJson) and other.data == self.data

    def __hash__(self) -> int:
        return hash(self.data)
