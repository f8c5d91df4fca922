"""The JSON codec of the wire: what a :class:`~gabp.Connection` decodes and encodes with.

* :func:`decode` parses a frame body with ``msgspec`` (three to four times the standard
  library's speed on GABP messages) and falls back to the standard library's ``json.loads``
  whenever ``msgspec`` refuses the input. So every body is read as ``json.loads`` reads it:
  what both accept gives the same value (integers of any size stay exact, a repeated key
  keeps its last value), and what ``msgspec`` refuses (``NaN``, a byte order mark, nesting
  past its limit) gets the standard library's answer and its exceptions (``ValueError``,
  ``UnicodeDecodeError``, ``RecursionError``). Two exceptions: bytes are read as UTF-8 only (a
  UTF-8 byte order mark skipped), never as the UTF-16 or UTF-32 that ``json.loads`` would
  guess, since GABP bodies are UTF-8. And a lone
  surrogate escape (``"\\ud800"``, half of a UTF-16 pair) is refused (``ValueError``) as a
  byte that is not UTF-8 is: ``json.loads`` would keep the half character, which no UTF-8
  writer can write back, so a value holding one could be neither answered nor passed on.
* :func:`decode_replacing` reads what :func:`decode` refuses for its text alone as Go's and
  .NET's readers do: each byte that is not UTF-8 and each lone surrogate as U+FFFD. For a
  message whose loss would cost more than a changed character (an answer to a call that ran).
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
import re
from collections.abc import Iterator
from typing import Any, Final

import msgspec

__all__ = ["EncodedJson", "decode", "decode_replacing", "encode"]

_fast_decode = msgspec.json.Decoder().decode
_slow_decode = json.loads
_fast_encode = msgspec.json.Encoder().encode
_slow_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def decode(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document as ``json.loads`` would, faster; bytes are UTF-8 only.

    GABP bodies are UTF-8: where ``json.loads`` would take bytes in UTF-16 or UTF-32 (it
    guesses the encoding), this raises ``UnicodeDecodeError`` or ``ValueError`` instead. A
    UTF-8 byte order mark is still skipped. A lone surrogate escape raises ``ValueError``."""
    try:
        return _fast_decode(data)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        pass
    if not isinstance(data, str):
        data = bytes(data).decode("utf-8-sig")
    value = _slow_decode(data)
    if "\\u" in data and _SURROGATE_ESCAPE.search(data) is not None:
        lone = _first_lone_surrogate(value)
        if lone is not None:
            raise ValueError(f"a lone surrogate escape (\\u{ord(lone):04x}) is no UTF-8 text")
    return value


def decode_replacing(data: bytes | bytearray | memoryview | str) -> Any:
    """:func:`decode`, with each byte that is not UTF-8 and each lone surrogate escape read as
    U+FFFD. Raises what :func:`decode` raises for anything else."""
    if not isinstance(data, str):
        data = bytes(data).decode("utf-8-sig", "replace")
    value = _slow_decode(data)
    if "\\u" in data and _SURROGATE_ESCAPE.search(data) is not None:
        if isinstance(value, str):
            return _SURROGATE.sub(_REPLACEMENT, value)
        _replace_lone_surrogates(value)
    return value


#: A ``\u`` escape of a UTF-16 surrogate (a pair's half, or a lone one).
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
#: A surrogate code point in a decoded string: what is left of a pair is a lone half.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_REPLACEMENT: Final = "\ufffd"


def _containers(value: Any) -> Iterator[tuple[Any, list[tuple[Any, Any]]]]:
    """Each list or object within ``value`` (itself first) with its items, iteratively: as
    deep as the reader went, without recursion."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            continue
        yield node, items
        stack.extend(item for _, item in items if isinstance(item, dict | list))


def _first_lone_surrogate(value: Any) -> str | None:
    texts: Iterator[Any] = iter((value,))
    if not isinstance(value, str):
        texts = (
            text
            for node, items in _containers(value)
            for key, item in items
            for text in ((key, item) if isinstance(node, dict) else (item,))
        )
    for text in texts:
        if isinstance(text, str) and (found := _SURROGATE.search(text)) is not None:
            return found.group()
    return None


def _replace_lone_surrogates(value: Any) -> None:
    """Every lone surrogate in the texts and keys of the lists and objects of ``value``
    replaced by U+FFFD, in place."""
    for node, items in _containers(value):
        if isinstance(node, dict) and any(_SURROGATE.search(key) for key, _ in items):
            node.clear()
            node.update((_SURROGATE.sub(_REPLACEMENT, key), item) for key, item in items)
            items = list(node.items())
        for key, item in items:
            if isinstance(item, str) and _SURROGATE.search(item):
                node[key] = _SURROGATE.sub(_REPLACEMENT, item)


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
