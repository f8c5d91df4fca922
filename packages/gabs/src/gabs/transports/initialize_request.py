"""An ``initialize`` request with members left out, completed before the SDK reads it.

The Go bridge answers every ``initialize`` request and reads none of its params: a script that
sends ``{"method": "initialize"}`` alone, or without ``clientInfo``, ``capabilities`` or
``protocolVersion``, gets the server's answer. The SDK refuses such a request (``-32602``), so
a client written against the Go bridge could not open a session. :func:`complete_initialize`
fills in what is missing or not of the right type before the SDK sees the request, on both
transports:

* ``protocolVersion`` that is absent or not a string: :data:`ASSUMED_PROTOCOL_VERSION`, the
  version the Go bridge speaks (a client that does not say which version it speaks is taken to
  be of that era); a string the SDK does not know is left as it is (negotiated as MCP says);
* ``capabilities`` that is absent or not an object: ``{}`` (nothing announced);
* ``clientInfo`` that is absent or not an object: ``{"name": "unknown", "version": "unknown"}``;
  a ``name`` or ``version`` in it that is absent or not a string: ``"unknown"``.

Only ``initialize`` requests (an id, ``params`` absent, ``null`` or an object) are touched;
every other body is returned as it came, unparsed when it cannot be one.
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["ASSUMED_PROTOCOL_VERSION", "UNKNOWN_CLIENT", "complete_initialize"]

#: The protocol version of an ``initialize`` request that names none (the Go bridge's own).
ASSUMED_PROTOCOL_VERSION: Final = "2024-11-05"
#: ``clientInfo``'s ``name`` and ``version`` when the client gave none.
UNKNOWN_CLIENT: Final = "unknown"
_METHOD: Final = b'"initialize"'


def _completed_params(params: dict[str, Any]) -> dict[str, Any] | None:
    """``params`` with the missing members filled in, or None when nothing is missing."""
    completed = dict(params)
    if not isinstance(completed.get("protocolVersion"), str):
        completed["protocolVersion"] = ASSUMED_PROTOCOL_VERSION
    if not isinstance(completed.get("capabilities"), dict):
        completed["capabilities"] = {}
    client = completed.get("clientInfo")
    client = dict(client) if isinstance(client, dict) else {}
    for member in ("name", "version"):
        if not isinstance(client.get(member), str):
            client[member] = UNKNOWN_CLIENT
    completed["clientInfo"] = client
    return None if completed == params else completed


def complete_initialize(body: bytes) -> bytes:
    """``body`` with an ``initialize`` request's missing params filled in (see the module)."""
    if _METHOD not in body:
        return body
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, nested too deep: read later
        return body
    if (
        not isinstance(message, dict)
        or message.get("method") != "initialize"
        or message.get("id") is None
    ):
        return body
    params = message.get("params")
    if params is None:
        params = {}
    elif not isinstance(params, dict):
        return body  # answered as any request with such params is
    completed = _completed_params(params)
    if completed is None:
        return body
    message["params"] = completed
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
