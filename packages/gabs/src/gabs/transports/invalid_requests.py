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
as the Go bridge answers it; the SDK drops it. A request the SDK's reader cannot read (nested
too deep, not UTF-8: :mod:`gabs.transports.request_body`) is refused with its id too, with
the code and ``data`` its reading gave.

Over HTTP, a body that is JSON but no JSON-RPC message at all (a batch, ``null``, ``5``,
``{}``, a notification without ``"jsonrpc": "2.0"`` or with ``params`` that is no object) is
refused by :func:`not_a_message_answer` with ``-32600`` (``Invalid Request``) and no id, as
JSON-RPC 2.0 says; the SDK refused it with ``-32602`` and its validator's report as the text.
On stdio nothing is answered to such a body (as the Go bridge and the SDKs do: there is no id
to answer); :func:`skipped_reason` says in a few words why it was skipped, for the log.
"""

from __future__ import annotations

import json
from typing import Any, Final

import mcp_types as types
from pydantic import ValidationError

from gabs.config import json_kind
from gabs.transports.request_body import NOT_JSON, TooDeep, Unreadable

__all__ = [
    "invalid_request_answer",
    "not_a_message_answer",
    "skipped_reason",
]

_VERSION: Final = "2.0"


def invalid_request_answer(message: Any, *, known_invalid: bool) -> bytes | None:
    """The error answer to the request ``message`` (a body as ``decode_body`` reads it), or None
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
    elif isinstance(message, Unreadable):
        code, text = message.code, message.text
    elif known_invalid or message.get("jsonrpc") != _VERSION:
        code, text = types.INVALID_REQUEST, "Invalid Request"
    else:
        return None
    error: dict[str, Any] = {"code": code, "message": text}
    if isinstance(message, Unreadable):
        error["data"] = message.reason
    answer = {"jsonrpc": _VERSION, "id": request_id, "error": error}
    return json.dumps(answer, separators=(",", ":")).encode()


def not_a_message_answer(message: Any) -> bytes | None:
    """The ``-32600`` answer (no id) to a JSON body (as ``decode_body`` reads it) that is no
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
    """Why a body (as ``decode_body`` reads it) that is answered with nothing was skipped, in a
    few words and without its content (a request may carry a launch input that is a secret)."""
    if message is NOT_JSON:
        return "not JSON"
    if isinstance(message, TooDeep):
        return "JSON nested too deep to read, without an id before the nesting"
    if isinstance(message, Unreadable):
        reason = message.reason.removeprefix("the request ").removeprefix("is ")
        return f"{reason}, without an id"
    if isinstance(message, list):
        return "a batch (JSON array): send one message at a time"
    if not isinstance(message, dict):
        return f"JSON that is no JSON-RPC message ({json_kind(message)})"
    if message.get("jsonrpc") != _VERSION:
        return 'no "jsonrpc": "2.0"'
    if "method" in message and not isinstance(message["method"], str):
        return "a method that is not a string"
    return "not a JSON-RPC 2.0 request, notification or response"
