"""A request's body as the transports' checks read it, once: JSON, or why it cannot be served.

:func:`decode_body` reads a body with the standard library, which reads more than the SDK's
reader (pydantic-core's) does. A request the SDK's reader would refuse is refused by the SDK
without its id (HTTP: ``400`` ``-32700`` with ``id: null``; stdio: not answered at all), so it
is read here as far as it can be and marked :class:`Unreadable`, to be refused with its id:

* :class:`TooDeep`: nested deeper than the SDK's reader reads (:data:`SDK_READER_DEPTH`), or
  past Python's recursion limit (then only the members before the first nested value are
  read: ``jsonrpc``, ``id`` and ``method`` of a request that has them first);
* :class:`NotJsonText`: bytes that are not UTF-8 (read with each replaced by U+FFFD, an id
  so changed dropped: an id is never made up), or an escape the SDK's reader refuses (a lone
  surrogate, ``"\\ud800"``).

The Go bridge serves all of these: its decoder reads up to 10,000 levels and replaces a byte
that is not UTF-8, or a lone surrogate, with U+FFFD; ``gabs`` changes no byte of a request.
A body that is no JSON object at all is :data:`NOT_JSON`, for the checks to answer or skip.

The common request costs the standard library's read and a few byte searches: a body is read
again with the SDK's reader only when it holds more brackets than the SDK's depth, or a
``\\u`` escape of a surrogate.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import mcp_types as types
import pydantic_core

from gabp.wirejson import decode_replacing

__all__ = [
    "NOT_JSON",
    "SDK_READER_DEPTH",
    "NotJsonText",
    "TooDeep",
    "Unreadable",
    "decode_body",
]

#: What :func:`decode_body` answers for a body that is not JSON.
NOT_JSON: Final = object()

#: The nesting the SDK's JSON reader (pydantic-core's, on both transports) reads: a body nested
#: deeper is refused by it as a parse error (measured: 201 levels read, 202 refused).
SDK_READER_DEPTH: Final = 201

#: A ``\u`` escape of a UTF-16 surrogate: a pair (an escaped emoji) is read by every reader, a
#: lone one only by the standard library's.
_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD][89a-fA-F]")
_REPLACED: Final = "\ufffd"


class Unreadable(dict[str, Any]):
    """What :func:`decode_body` read of a request that cannot be served as it came: its
    members (its id among them), with the answer's error (``code``, ``text``) and why
    (``reason``, the error's ``data``). Refused with its id, never served."""

    code: int = types.INVALID_REQUEST
    text: str = "Invalid Request"
    reason: str = "the request cannot be read"


class TooDeep(Unreadable):
    """An object nested deeper than the SDK's reader reads: all its members, or, past what the
    standard library decodes, its members before the first nested value."""

    reason = "the request nests too deep to be read"


class NotJsonText(Unreadable):
    """An object whose text is not JSON as the SDK reads it: bytes that are not UTF-8, or a
    lone surrogate escape (``-32700``, as the SDK's own answer)."""

    code = types.PARSE_ERROR
    text = "Parse error"

    def __init__(self, members: dict[str, Any], reason: str) -> None:
        super().__init__(members)
        self.reason = reason


def decode_body(body: bytes) -> Any:
    """``body`` decoded from JSON, an :class:`Unreadable` (see the module) or
    :data:`NOT_JSON`: decoded once, read by every check."""
    try:
        message = json.loads(body)
    except UnicodeDecodeError as error:
        return _not_utf8(body, error)
    except ValueError:
        return NOT_JSON
    except RecursionError:
        return _flat_members(body)
    if isinstance(message, dict):
        return _as_the_sdk_reads(body, message)
    return message


def _as_the_sdk_reads(body: bytes, message: dict[str, Any]) -> dict[str, Any]:
    """``message`` (``body`` read by the standard library), or an :class:`Unreadable` of it
    when the SDK's reader refuses ``body``."""
    suspect = body.count(b"[") + body.count(b"{") > SDK_READER_DEPTH or (
        b"\\u" in body and _SURROGATE_ESCAPE.search(body) is not None
    )
    if not suspect:
        return message
    try:
        pydantic_core.from_json(body)
    except ValueError as error:
        said = str(error)
        if "recursion limit" in said:
            return TooDeep(message)
        return NotJsonText(message, f"the request cannot be read as JSON: {said}")
    return message


def _not_utf8(body: bytes, error: UnicodeDecodeError) -> Any:
    """A :class:`NotJsonText` of ``body`` (read with its stray bytes replaced), or
    :data:`NOT_JSON` when even so it is no JSON object."""
    try:
        message = decode_replacing(body)
    except (ValueError, RecursionError):
        return NOT_JSON
    if not isinstance(message, dict):
        return NOT_JSON
    request_id = message.get("id")
    if isinstance(request_id, str) and _REPLACED in request_id:
        del message["id"]  # the client would not know it: answered as having none
    stray = body[error.start] if isinstance(error.object, bytes) else 0
    reason = f"the request is not UTF-8: byte 0x{stray:02x} at offset {error.start}"
    return NotJsonText(message, reason)


#: The last member of a cut object, whose value was the first nested one: dropped.
_OPEN_MEMBER: Final = re.compile(rb'(,|\{)\s*"(?:[^"\\]|\\.)*"\s*:\s*$')


def _flat_members(body: bytes) -> Any:
    """The members of the object ``body`` before its first nested value, or :data:`NOT_JSON`."""
    text = body.lstrip()
    if not text.startswith(b"{"):
        return NOT_JSON
    inside, escaped = False, False
    for at in range(1, len(text)):
        byte = text[at]
        if inside:
            inside = escaped or byte != 0x22  # '"'
            escaped = not escaped and byte == 0x5C  # '\\'
        elif byte == 0x22:
            inside = True
        elif byte in b"[{":
            cut = _OPEN_MEMBER.sub(rb"\1", text[:at])
            try:
                members = json.loads(cut.rstrip(b",") + b"}")
            except ValueError:
                return NOT_JSON
            return TooDeep(members) if isinstance(members, dict) else NOT_JSON
    return NOT_JSON
