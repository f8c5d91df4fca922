"""Game calls on stdio answered straight from the transport (:class:`LeanCalls`).

Every message of a stdio connection goes through the SDK's server except the one that matters
for throughput: a handshake-era ``tools/call`` of ``games_call_tool`` or of a game tool (the
tools whose handler never uses the request context,
:meth:`~gabs.mcp.dispatch.ToolDispatcher.takes_no_context`). The transport runs that one
itself, through the very handler the SDK would call, and writes the answer: no per-request
task group, cancel scope, context or memory-stream hops of the SDK's dispatch, and the
parameters and the result are each validated once.

What the SDK decides stays the SDK's:

* a call takes this path only after the SDK answered ``initialize`` (the gate), in the protocol
  version the SDK negotiated, and once the connection is known to the tool-list notifier (it
  learns connections from messages the SDK handles);
* only parameters the SDK's validation takes as they are (``name`` a string, ``arguments`` an
  object, ``_meta`` with at most a ``progressToken``) are taken; anything else (more keys, a
  2026-07-28 envelope, a request id already in flight) goes to the SDK, which answers it as
  always;
* the result is shaped by the per-version result model the SDK serializes with
  (:data:`mcp_types.methods.SERVER_RESULTS`), so a client of any version reads what the SDK
  would have sent; a result of text blocks alone, the usual one, is written as it is when a probe
  through that model, once per connection, shows the model would leave it so (bar
  ``resultType``);
* ``notifications/cancelled`` interrupts the call and it is never answered; a call still running
  when the server stops is answered with the SDK's ``Connection closed`` error (-32000).

Nothing takes this path on a server with middleware besides the notifier's (``GABS_OTEL=1``
keeps OpenTelemetry's, which must see every request) or with cache hints for ``tools/call``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import mcp_types as types
import msgspec
from mcp.shared.dispatcher import coerce_request_id
from mcp_types.methods import SERVER_RESULTS
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import TypeAdapter, ValidationError

from gabs.mcp import BridgeServer

__all__ = ["LeanCalls", "plain_call"]

logger = logging.getLogger("gabs.stdio")

_PARAM_KEYS: Final = frozenset({"name", "arguments", "_meta"})
_REQUEST_KEYS: Final = frozenset({"jsonrpc", "id", "method", "params"})
_decode_json = msgspec.json.Decoder().decode
_encode_json = msgspec.json.Encoder().encode
_PLAIN_RESULT_KEYS: Final = frozenset(
    {"content", "structuredContent", "isError", "_meta", "resultType"}
)
_TEXT_KEYS: Final = frozenset({"type", "text"})
_MAX_INITIALIZE_IDS: Final = 8
#: How long closing waits for interrupted calls to write their answers.
_CLOSE_SECONDS: Final = 5.0
_CLOSED: Final = types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed")
_INVALID_RESULT: Final = types.ErrorData(
    code=types.INTERNAL_ERROR, message="Handler returned an invalid result"
)

#: Writes one answer's body for a request id; the flag: no other call of this path is running
#: (so nothing else is about to be written).
Answer = Callable[[types.RequestId, bytes, bool], None]


def _plain_meta(meta: Any) -> bool:
    """``_meta`` with nothing but a well-formed ``progressToken`` (or nothing)."""
    if not isinstance(meta, Mapping) or not meta.keys() <= {"progressToken"}:
        return False
    token = meta.get("progressToken")
    return token is None or (isinstance(token, str | int) and not isinstance(token, bool))


def plain_call(body: bytes) -> types.JSONRPCRequest | None:
    """A ``tools/call`` request read without the SDK's message validation, or None.

    Only a body that validation would take as it is: a JSON object with exactly ``jsonrpc``
    ``"2.0"``, an ``id`` that is a string or an integer, ``method`` ``"tools/call"`` and
    ``params`` an object. Anything else (and any JSON ``msgspec`` refuses: ``NaN``, integers
    past 64 bits, lone surrogates, bytes that are not UTF-8, nesting too deep to decode) is
    None, for the SDK's validation to read and judge.
    """
    try:
        data = _decode_json(body)
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return None  # not UTF-8 (UnicodeDecodeError), nested past msgspec's reach: the SDK's
    if type(data) is not dict or data.keys() != _REQUEST_KEYS:
        return None
    request_id, params = data["id"], data["params"]
    if (
        data["jsonrpc"] != "2.0"
        or data["method"] != "tools/call"
        or type(params) is not dict
        or type(request_id) not in (str, int)
    ):
        return None
    return types.JSONRPCRequest.model_construct(
        jsonrpc="2.0", id=request_id, method="tools/call", params=params
    )


@dataclass(eq=False)
class _Call:
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    cancelled_by_client: bool = False


class LeanCalls:
    """The lean ``tools/call`` path of one stdio connection (see the module doc)."""

    def __init__(self, server: BridgeServer) -> None:
        self._dispatcher = server.dispatcher
        self._notifier = server.notifier
        self.enabled = (
            list(server.middleware) == [server.notifier.middleware]
            and "tools/call" not in server.cache_hints
        )
        self._initialize_ids: OrderedDict[types.RequestId, None] = OrderedDict()
        self._results: TypeAdapter[Any] | None = None
        self._text_only = False
        self._calls: dict[types.RequestId, _Call] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def in_flight(self) -> int:
        return len(self._calls)

    @property
    def text_only(self) -> bool:
        """Whether this connection writes text-only results without the version's model."""
        return self._results is not None and self._text_only

    # -- what the transport sees -----------------------------------------------------------------

    def read(self, message: types.JSONRPCMessage) -> bool:
        """Note a message from the client; True when it is a call for :meth:`run`."""
        if not isinstance(message, types.JSONRPCRequest):
            return False
        if message.method == "initialize":
            self._initialize_ids[coerce_request_id(message.id)] = None
            while len(self._initialize_ids) > _MAX_INITIALIZE_IDS:
                self._initialize_ids.popitem(last=False)
            return False
        if message.method != "tools/call" or self._results is None:
            return False
        params = message.params
        if not params or not params.keys() <= _PARAM_KEYS:
            return False
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
            return False
        if "_meta" in params and not _plain_meta(params["_meta"]):
            return False
        if coerce_request_id(message.id) in self._calls or not self._notifier.legacy_connections:
            return False
        return self._dispatcher.takes_no_context(name)

    def written(self, message: types.JSONRPCMessage) -> None:
        """Note a message the SDK wrote: its answer to ``initialize`` opens this path."""
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            return
        if message.id is None or coerce_request_id(message.id) not in self._initialize_ids:
            return
        del self._initialize_ids[coerce_request_id(message.id)]
        version = None
        if isinstance(message, types.JSONRPCResponse):
            version = message.result.get("protocolVersion")
        if self.enabled and version in HANDSHAKE_PROTOCOL_VERSIONS:
            model: Any = SERVER_RESULTS[("tools/call", version)]
            self._results = TypeAdapter(model)
            self._text_only = _keeps_text_only(self._results)
        else:
            self._results = None

    def cancel(self, request_id: Any) -> None:
        """The client cancelled ``request_id``: interrupt it if it is a call of this path."""
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            return
        call = self._calls.get(coerce_request_id(request_id))
        if call is not None:
            call.cancelled_by_client = True
            call.scope.cancel()

    def close(self) -> None:
        """Interrupt every call still running (each is answered ``Connection closed``)."""
        for call in self._calls.values():
            call.scope.cancel()

    async def aclose(self) -> None:
        """Interrupt every call still running and wait (bounded) until each has answered."""
        self.close()
        with anyio.move_on_after(_CLOSE_SECONDS, shield=True):
            while running := {task for task in self._tasks if not task.done()}:
                await asyncio.wait(running)
        for task in self._tasks:
            task.cancel()  # a call that ignored its scope for that long: stop it outright
        self._tasks.clear()

    # -- running a call --------------------------------------------------------------------------

    def start(self, message: types.JSONRPCRequest, answer: Answer) -> None:
        """Run a call :meth:`read` took in a task of its own, answering through ``answer``.

        A plain asyncio task rather than one of a task group: this is the hot path, and
        :meth:`aclose` waits for the tasks at the end (every call answers; nothing it runs
        raises but cancellation, see :meth:`~gabs.mcp.dispatch.ToolDispatcher.call`).
        """
        self._tasks.add(asyncio.get_running_loop().create_task(self._tracked(message, answer)))

    async def _tracked(self, message: types.JSONRPCRequest, answer: Answer) -> None:
        try:
            await self.run(message, answer)
        except Exception as exc:  # a bug must become an answer, not a request left hanging
            logger.exception("games call %r failed", message.id)
            error = types.ErrorData(
                code=types.INTERNAL_ERROR, message=f"{type(exc).__name__}: {exc}"
            )
            with suppress(Exception):
                answer(message.id, _error(message.id, error), False)
        finally:
            # here rather than in a done callback, which would cost the loop a turn per call
            self._tasks.discard(asyncio.current_task())

    async def run(self, message: types.JSONRPCRequest, answer: Answer) -> None:
        """Run one call :meth:`read` took, and answer it through ``answer``."""
        assert message.params is not None and self._results is not None
        results = self._results
        key = coerce_request_id(message.id)
        call = self._calls[key] = _Call()
        params = message.params
        try:
            with call.scope:
                result = await self._dispatcher.call(None, params["name"], params.get("arguments"))
        except anyio.get_cancelled_exc_class():
            answer(message.id, _error(message.id, _CLOSED), False)  # the server is stopping
            raise
        finally:
            if self._calls.get(key) is call:
                del self._calls[key]
        if call.cancelled_by_client:
            return  # a cancelled request is never answered
        alone = len(self._tasks) <= 1
        if call.scope.cancelled_caught:
            answer(message.id, _error(message.id, _CLOSED), alone)
            return
        answer(message.id, _response(message.id, result, results, self._text_only), alone)


def _envelope(request_id: types.RequestId, member: bytes, body: bytes) -> bytes:
    if type(request_id) is int:
        rid = str(request_id).encode()
    else:
        rid = json.dumps(request_id, ensure_ascii=False).encode()
    return b'{"jsonrpc":"2.0","id":' + rid + b',"' + member + b'":' + body + b"}"


def _error(request_id: types.RequestId, error: types.ErrorData) -> bytes:
    return _envelope(
        request_id, b"error", error.model_dump_json(by_alias=True, exclude_none=True).encode()
    )


def _text_only(data: dict[str, Any]) -> bytes | None:
    """The JSON of a result that every handshake version's model takes as it is, else None.

    That is the result a game call returns: text blocks with nothing but ``type`` and ``text``,
    ``structuredContent`` and ``_meta`` objects, ``isError`` a bool. Shaping it for the version
    would only drop ``resultType``, which the handshake versions do not have; so it is dropped
    here and the rest encoded as it is (any value msgspec refuses leaves it to the model).
    """
    if not data.keys() <= _PLAIN_RESULT_KEYS or type(data.get("isError", False)) is not bool:
        return None
    structured, meta = data.get("structuredContent"), data.get("_meta")
    if (structured is not None and type(structured) is not dict) or (
        meta is not None and type(meta) is not dict
    ):
        return None
    content = data.get("content")
    if type(content) is not list:
        return None
    for block in content:
        if type(block) is not dict or block.keys() != _TEXT_KEYS or block["type"] != "text":
            return None
        if type(block["text"]) is not str:
            return None
    try:
        return _encode_json({k: v for k, v in data.items() if k != "resultType"})
    except (msgspec.MsgspecError, TypeError, ValueError, OverflowError):
        return None


def _shaped(data: dict[str, Any], results: TypeAdapter[Any]) -> bytes:
    """``data`` through the version's result model, as the SDK writes it (ValidationError)."""
    shaped = results.validate_python(data, by_name=False)
    return results.dump_json(shaped, by_alias=True, exclude_none=True)


_PROBE: Final = types.CallToolResult(
    content=[types.TextContent(type="text", text='{"a": 1} Ärger \u2028')],
    structured_content={"a": 1, "b": [None, 2.5, True, {"c": "龍"}], "d": None, "e": 2**70},
    is_error=True,
    _meta={"gabs/call": {"gameId": "g", "ms": 1.5, "attention": None}},
)


def _keeps_text_only(results: TypeAdapter[Any]) -> bool:
    """Whether the version's model leaves a text-only result as :func:`_text_only` writes it."""
    data = _PROBE.model_dump(by_alias=True, mode="json", exclude_none=True)
    plain = _text_only(data)
    try:
        return plain is not None and json.loads(plain) == json.loads(_shaped(data, results))
    except (ValidationError, ValueError):
        return False


def _response(
    request_id: types.RequestId,
    result: types.CallToolResult,
    results: TypeAdapter[Any],
    text_only: bool = False,
) -> bytes:
    """The answer as the SDK writes it: the result dumped, shaped for the version, enveloped.

    ``text_only``: the version's model is known to leave a text-only result as it is."""
    data = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    if text_only and (plain := _text_only(data)) is not None:
        return _envelope(request_id, b"result", plain)
    try:
        body = _shaped(data, results)
    except ValidationError:
        logger.exception("games call returned an invalid result")
        return _error(request_id, _INVALID_RESULT)
    return _envelope(request_id, b"result", body)
