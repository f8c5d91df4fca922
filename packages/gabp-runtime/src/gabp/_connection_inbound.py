"""The read loop and everything that happens to an inbound message.

Requests are served in tasks of their own (at most ``limits.max_concurrent_requests`` at
once), responses resolve the waiter of the request they answer, events go to ``on_event`` or
the event buffer. Every handler failure becomes a wire error here, in one place.
"""

from __future__ import annotations

import inspect
import json
import math
from typing import Any

import anyio

from gabp._connection_base import (
    METHOD,
    NIL_ID,
    UUID,
    ConnectionCore,
    InboundRequest,
    RequestHandler,
    dumps,
    logger,
)
from gabp.errors import ConnectionClosed, ErrorCode, MessageError, ProtocolError
from gabp.framing import FramingError
from gabp.messages import METHOD_PATTERN, PROTOCOL_VERSION, Event, new_id, recover_id

__all__ = ["ConnectionInbound"]

_loads = json.loads


class ConnectionInbound(ConnectionCore):
    """Reading frames and serving what arrives."""

    async def _read_loop(self) -> None:
        stream = self._stream
        decoder = self._decoder
        chunk = self.limits.read_chunk_bytes
        while True:
            try:
                data = await stream.receive(chunk)
            except anyio.EndOfStream:
                data = b""
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                self._close_reason = f"connection lost while reading: {exc or type(exc).__name__}"
                return
            try:
                bodies = decoder.feed(data)
            except FramingError as exc:
                await self._answer_framing_error(exc)
                return
            for body in bodies:
                await self._process(body)
            if not data:
                self._close_reason = "the peer closed the connection"
                return

    async def _answer_framing_error(self, exc: FramingError) -> None:
        # A Content-Length stream cannot resynchronise: say why, then close.
        logger.warning("%s: framing error, closing: %s", self.name, exc)
        self._close_reason = f"framing error: {exc}"
        with anyio.move_on_after(self.limits.close_timeout):
            await self._send_error(
                NIL_ID, ErrorCode.PARSE_ERROR, f"framing error: {exc}", closing=True
            )

    async def _process(self, body: bytes) -> None:
        try:
            message = _loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            request_id = recover_id(body) or NIL_ID
            logger.warning("%s: message is not valid JSON: %s", self.name, exc)
            await self._send_error(
                request_id, ErrorCode.PARSE_ERROR, f"message is not valid JSON: {exc}"
            )
            return
        except RecursionError:
            request_id = recover_id(body) or NIL_ID
            logger.warning("%s: message nested too deeply to parse", self.name)
            await self._send_error(
                request_id, ErrorCode.INVALID_REQUEST, "invalid request: message nested too deeply"
            )
            return
        if not isinstance(message, dict):
            await self._send_error(
                NIL_ID,
                ErrorCode.INVALID_REQUEST,
                f"a message must be a JSON object, got {type(message).__name__}",
            )
            return
        kind = message.get("type")
        message_id = message.get("id")
        id_ok = isinstance(message_id, str) and UUID.match(message_id) is not None
        if message.get("v") != PROTOCOL_VERSION:
            await self._reject(
                message, kind, id_ok, f"v must be {PROTOCOL_VERSION!r}, got {message.get('v')!r}"
            )
        elif not id_ok:
            await self._reject(message, kind, False, "id must be a UUID string")
        elif kind == "response":
            self._accept_response(message)
        elif kind == "request":
            await self._accept_request(message)
        elif kind == "event":
            await self._accept_event(message)
        else:
            await self._reject(
                message, kind, id_ok, f"type must be request, response or event, got {kind!r}"
            )

    async def _reject(self, message: dict[str, Any], kind: Any, id_ok: bool, problem: str) -> None:
        if kind == "response":
            # never answer a response; fail the waiter it was meant for, if any
            waiter = self._pending.get(message.get("id")) if id_ok else None  # type: ignore[arg-type]
            logger.warning("%s: invalid response: %s", self.name, problem)
            if waiter is not None:
                waiter.fail(MessageError(f"invalid response: {problem}"))
            return
        if kind == "event":
            logger.warning("%s: invalid event dropped: %s", self.name, problem)
            return
        await self._send_error(
            message["id"] if id_ok else NIL_ID,
            ErrorCode.INVALID_REQUEST,
            f"invalid request: {problem}",
        )

    def _accept_response(self, message: dict[str, Any]) -> None:
        has_result, error = "result" in message, message.get("error")
        problem = None
        if error is not None:
            if not (
                isinstance(error, dict)
                and isinstance(error.get("code"), int)
                and not isinstance(error.get("code"), bool)
                and isinstance(error.get("message"), str)
            ):
                problem = "error must be an object with an integer code and a message"
        elif not has_result:
            problem = "a response carries exactly one of result and error"
        waiter = self._pending.get(message["id"])
        if waiter is None:
            logger.warning(
                "%s: response to an unknown or expired request %s ignored", self.name, message["id"]
            )
            return
        if problem is not None:
            logger.warning("%s: invalid response: %s", self.name, problem)
            waiter.fail(MessageError(f"invalid response: {problem}"))
            return
        waiter.resolve(message)

    async def _accept_request(self, message: dict[str, Any]) -> None:
        request_id: str = message["id"]
        method = message.get("method")
        if not isinstance(method, str) or not METHOD.match(method):
            await self._send_error(
                request_id,
                ErrorCode.INVALID_REQUEST,
                f"invalid request: method must match {METHOD_PATTERN}",
            )
            return
        params = message.get("params")
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            await self._send_error(
                request_id, ErrorCode.INVALID_REQUEST, "invalid request: params must be an object"
            )
            return
        handler = self._handlers.get(method) or self._fallback_handler
        if handler is None:
            await self._send_error(
                request_id, ErrorCode.METHOD_NOT_FOUND, f"method not found: {method}"
            )
            return
        request = InboundRequest(
            id=request_id, method=method, params=params, connection=self, raw=message
        )
        try:  # the fast path does not yield to the event loop (an iteration saved per request)
            self._serving.acquire_nowait()
        except anyio.WouldBlock:
            await self._serving.acquire()
        assert self._handler_group is not None
        self._handler_group.start_soon(self._serve, handler, request)

    async def _serve(self, handler: RequestHandler, request: InboundRequest) -> None:
        self._serving_now += 1
        try:
            body = _encode_response(request.id, await self._run_handler(handler, request))
            if body is None:
                error = self._internal_error(request, "its result could not be encoded as JSON")
                body = _encode_response(request.id, (None, error))
                assert body is not None
            try:
                await self._queue_frame(lambda: body)
            except ConnectionClosed:
                logger.debug(
                    "%s: response to %s not sent: connection closed", self.name, request.id
                )
            if request.close_after_response is not None:
                self.close_soon(request.close_after_response)
        finally:
            self._serving_now -= 1
            self._serving.release()

    async def _run_handler(
        self, handler: RequestHandler, request: InboundRequest
    ) -> tuple[Any, ProtocolError | None]:
        """Run one handler: ``(result, None)`` or ``(None, the wire error to answer with)``."""
        timeout = self.limits.handler_timeout
        try:
            with anyio.move_on_after(math.inf if timeout is None else timeout) as scope:
                return await handler(request), None
            assert timeout is not None and scope.cancelled_caught
            return None, ProtocolError(
                ErrorCode.SERVER_ERROR,
                f"{request.method} was not answered within {timeout:g} s",
                {"timeoutSeconds": timeout},
            )
        except ProtocolError as exc:
            return None, exc
        except Exception as exc:  # the one place a handler failure becomes a wire error
            return None, self._internal_error(request, "the handler failed", exc)

    def _internal_error(
        self, request: InboundRequest, what: str, exc: BaseException | None = None
    ) -> ProtocolError:
        error_id = new_id()
        logger.error(
            "%s: %s while serving %s (request %s, error id %s)",
            self.name,
            what,
            request.method,
            request.id,
            error_id,
            exc_info=exc,
        )
        return ProtocolError(
            ErrorCode.INTERNAL_ERROR,
            f"internal error while serving {request.method}",
            {"errorId": error_id},
        )

    async def _accept_event(self, message: dict[str, Any]) -> None:
        channel, seq = message.get("channel"), message.get("seq")
        if not isinstance(channel, str) or not channel:
            logger.warning("%s: event without a channel dropped", self.name)
            return
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            logger.warning("%s: event on %s with an invalid seq dropped", self.name, channel)
            return
        fields: dict[str, Any] = {
            "v": PROTOCOL_VERSION,
            "id": message["id"],
            "type": "event",
            "channel": channel,
            "seq": seq,
            "payload": message.get("payload"),
        }
        stamp = message.get("timestamp")
        if isinstance(stamp, str):
            fields["timestamp"] = stamp
        event = Event.model_construct(**fields)
        if self._on_event is not None:
            try:
                outcome = self._on_event(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("%s: the event handler failed on %s", self.name, channel)
            return
        assert self._events_send is not None
        try:
            await self._events_send.send(event)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.debug("%s: event on %s arrived after the consumer stopped", self.name, channel)


def _encode_response(request_id: str, outcome: tuple[Any, ProtocolError | None]) -> bytes | None:
    """The body of a response, or None when the result is not JSON-encodable."""
    result, error = outcome
    message: dict[str, Any] = {"v": PROTOCOL_VERSION, "id": request_id, "type": "response"}
    if error is not None:
        message["error"] = error.to_wire()
    else:
        message["result"] = result
    try:
        return dumps(message).encode("utf-8")
    except (TypeError, ValueError):
        if error is not None:
            message["error"] = {"code": error.code, "message": error.message}
            return dumps(message).encode("utf-8")
        return None
