"""The answer to a request that is not valid JSON-RPC but carries an id, on either transport.

The Go bridge answers such a request (``-32602 Invalid params`` when its ``params`` is not an
object; one without ``"jsonrpc": "2.0"`` it serves); the SDK's transports drop it (stdio: the
client waits for ever) or answer it without its id (HTTP). :func:`invalid_request_answer`
answers it with its id: ``-32602`` (``Invalid params``) for ``params`` that is not an object
(an array included: MCP's requests take named parameters only, and the Go bridge answers a
``tools/call`` with an array so), ``-32600`` (``Invalid Request``) otherwise. An id that is
neither a string nor a number (``true``, ``{}``, ``[1]``), which the Go bridge serves and the
SDK reads as a notification, is ``-32600`` with that id too. A message with an id and no
``method`` (nor ``result`` or ``error``: not a response) is ``-32601`` (``Method not found``),
as the Go bridge answers it; the SDK drops it.

Over HTTP, a body that is JSON but no JSON-RPC message at all (a batch, ``null``, ``5``,
``{}``, a notification without ``"jsonrpc": "2.0"`` or with ``params`` that is no object) is
refused by :func:`not_a_message_answer` with ``-32600`` (``Invalid Request``) and no id, as
JSON-RPC 2.0 says; the SDK refused it with ``-32602`` and its validator's report as the text.
On stdio nothing is answered to such a body (as the Go bridge and the SDKs do: there is no id
to answer); :func:`skipped_reason` says in a few words why it was skipped, for the log.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import mcp_types as types
import pydantic_core
from pydantic import ValidationError

from gabs.config import json_kind

__all__ = [
    "NOT_JSON",
    "SDK_READER_DEPTH",
    "TooDeep",
    "decode_body",
    "invalid_request_answer",
    "not_a_message_answer",
    "skipped_reason",
]

_VERSION: Final = "2.0"

#: What :func:`decode_body` answers for a body that is not JSON.
NOT_JSON: Final = object()


class TooDeep(dict[str, Any]):
    """What :func:`decode_body` reads of an object nested deeper than the SDK's reader reads:
    all its members, or, past what the standard library decodes, its members before the first
    nested value. A request read so is refused with its id, never served."""


#: The nesting the SDK's JSON reader (pydantic-core's, on both transports) reads: a body nested
#: deeper is refused by it as a parse error, without the request's id (measured: 201 levels read).
SDK_READER_DEPTH: Final = 201


def decode_body(body: bytes) -> Any:
    """``body`` decoded from JSON, or :data:`NOT_JSON`: decoded once, read by every check.

    An object nested deeper than the SDK's reader reads (:data:`SDK_READER_DEPTH`) is a
    :class:`TooDeep`; past Python's recursion limit it is read as far as it is flat: the
    members before the first nested value (``jsonrpc``, ``id`` and ``method`` of a request that
    has them first). Either way the request is refused with its id rather than left unanswered
    or answered without it."""
    try:
        message = json.loads(body)
    except ValueError:
        return NOT_JSON
    except RecursionError:
        return _flat_members(body)
    if isinstance(message, dict) and _deeper_than_the_sdk_reads(body):
        return TooDeep(message)
    return message


def _deeper_than_the_sdk_reads(body: bytes) -> bool:
    """Whether the SDK's reader refuses ``body`` (JSON) for its nesting. Only a body with more
    brackets than that depth is read again (by the SDK's reader itself), so the common request
    costs two counts of a byte."""
    if body.count(b"[") + body.count(b"{") <= SDK_READER_DEPTH:
        return False
    try:
        pydantic_core.from_json(body)
    except ValueError as error:
        return "recursion limit" in str(error)
    return False


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


def invalid_request_answer(message: Any, *, known_invalid: bool) -> bytes | None:
    """The error answer to the request ``message`` (a body from :func:`decode_body`), or None
    when there is no one to answer (no id, a ``method`` that is no string, a response, not an
    object, not JSON) or, unless ``known_invalid`` (the SDK refused it already), nothing
    visibly wrong with it."""
    if not isinstance(message, dict):
        return None
    request_id = message.get("id")
    if request_id is None:
        return None
    params = message.get("params")
    if "method" not in message and not message.keys() & {"result", "error"}:
        code, text = types.METHOD_NOT_FOUND, "Method not found"  # as the Go bridge answers
    elif not isinstance(message.get("method"), str):
        return None  # a response of the client's, or a method that is no string
    elif isinstance(request_id, bool) or not isinstance(request_id, str | int | float):
        code, text = types.INVALID_REQUEST, "Invalid Request"  # an id the SDK reads as absent
    elif params is not None and not isinstance(params, dict):
        code, text = types.INVALID_PARAMS, "Invalid params"
    elif known_invalid or message.get("jsonrpc") != _VERSION or isinstance(message, TooDeep):
        code, text = types.INVALID_REQUEST, "Invalid Request"
    else:
        return None
    error: dict[str, Any] = {"code": code, "message": text}
    if isinstance(message, TooDeep):
        error["data"] = "the request nests too deep to be read"
    answer = {"jsonrpc": _VERSION, "id": request_id, "error": error}
    return json.dumps(answer, separators=(",", ":")).encode()


def not_a_message_answer(message: Any) -> bytes | None:
    """The ``-32600`` answer (no id) to a JSON body (from :func:`decode_body`) that is no
    JSON-RPC message, or None (a body that is not JSON, or one that is a message). A request
    with an id is not checked here: :func:`invalid_request_answer` answers what is wrong with
    one, with its id."""
    if message is NOT_JSON:
        return None  # the SDK answers -32700 (Parse error)
    if isinstance(message, dict):
        request_id = message.get("id")
        has_id = isinstance(request_id, str | int | float) and not isinstance(request_id, bool)
        if has_id and isinstance(message.get("method"), str):
            return None
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError:
        pass
    else:
        return None
    if isinstance(message, list):
        reason = "a batch (JSON array) is not served: send one message per POST"
    else:
        reason = "not a JSON-RPC 2.0 request, notification or response"
    error = {"code": types.INVALID_REQUEST, "message": "Invalid Request", "data": reason}
    answer = {"jsonrpc": _VERSION, "id": None, "error": error}
    return json.dumps(answer, separators=(",", ":")).encode()


def skipped_reason(message: Any) -> str:
    """Why a body (from :func:`decode_body`) that is answered with nothing was skipped, in a
    few words and without its content (a request may carry a launch input that is a secret)."""
    if message is NOT_JSON:
        return "not JSON"
    if isinstance(message, TooDeep):
        return "JSON nested too deep to read, without an id before the nesting"
    if isinstance(message, list):
        return "a batch (JSON array): send one message at a time"
    if not isinstance(message, dict):
        return f"JSON that is no JSON-RPC message ({json_kind(message)})"
    if message.get("jsonrpc") != _VERSION:
        return 'no "jsonrpc": "2.0"'
    if "method" in message and not isinstance(message["method"], str):
        return "a method that is not a string"
    return "not a JSON-RPC 2.0 request, notification or response"
