"""The read loop and everything that happens to an inbound message.

Requests are served in tasks of their own (at most ``limits.max_concurrent_requests`` at
once), responses resolve the waiter of the request they answer, events go to ``on_event`` or
the event buffer. Every handler failure becomes a wire error here, in one place.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import anyio

from gabp._connection_base import (
    METHOD,
    NIL_ID,
    UUID,
    ConnectionCore,
    InboundRequest,
    RequestHandler,
    logger,
)
from gabp._deadlines import HandlerDeadline
from gabp.errors import ConnectionClosed, ErrorCode, MessageError, ProtocolError
from gabp.framing import FramingError
from gabp.messages import METHOD_PATTERN, PROTOCOL_VERSION, Event, new_id, recover_id
from gabp.wirejson import decode, encode

__all__ = ["ConnectionInbound"]


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
                try:
                    message = decode(body)
                except (ValueError, UnicodeDecodeError, RecursionError):
                    await self._process(body)  # answered there
                    continue
                if not self._take_nowait(message):
                    await self._process_message(message)
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

    def _take_nowait(self, message: Any) -> bool:
        """Handle a well-formed response, or start serving a well-formed request, without
        waiting; False when ``message`` needs :meth:`_process_message` (anything else)."""
        if not isinstance(message, dict) or message.get("v") != PROTOCOL_VERSION:
            return False
        message_id = message.get("id")
        if not isinstance(message_id, str) or UUID.match(message_id) is None:
            return False
        kind = message.get("type")
        if kind == "response":
            self._accept_response(message)
            return True
        if kind != "request" or self._serving_now >= self.limits.max_concurrent_requests:
            return False
        method = message.get("method")
        if type(method) is not str or method not in self._methods_seen:
            return False
        params = message.get("params")
        if params is None:
            params = {}
        elif not isinstance(params, dict):
            return False
        handler = self._handlers.get(method) or self._fallback_handler
        if handler is None:
            return False
        self._start_serving(
            handler,
            InboundRequest(
                id=message_id, method=method, params=params, connection=self, raw=message
            ),
        )
        return True

    async def _process(self, body: bytes) -> None:
        try:
            message = decode(body)
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
        await self._process_message(message)

    async def _process_message(self, message: Any) -> None:
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
            if waiter is not None and not waiter.done():
                waiter.set_exception(MessageError(f"invalid response: {problem}"))
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
        if waiter.done():
            return
        if problem is not None:
            logger.warning("%s: invalid response: %s", self.name, problem)
            waiter.set_exception(MessageError(f"invalid response: {problem}"))
            return
        waiter.set_result(message)

    async def _accept_request(self, message: dict[str, Any]) -> None:
        request_id: str = message["id"]
        method = message.get("method")
        if not isinstance(method, str) or (
            method not in self._methods_seen and not self._check_method(method)
        ):
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
        while self._serving_now >= self.limits.max_concurrent_requests:
            slot = asyncio.get_running_loop().create_future()
            self._read_slot = slot
            try:
                await slot
            finally:
                self._read_slot = None
        self._start_serving(handler, request)

    def _check_method(self, method: str) -> bool:
        """True for a method name a receiver accepts (remembered: a peer uses a handful)."""
        if not METHOD.match(method):
            return False
        if len(self._methods_seen) < 1024:
            self._methods_seen.add(method)
        return True

    def _start_serving(self, handler: RequestHandler, request: InboundRequest) -> None:
        """Serve ``request`` in a task of its own, under the handler timeout."""
        loop = self._loop or asyncio.get_running_loop()
        deadline = HandlerDeadline()
        task = deadline.task = loop.create_task(self._serve(handler, request, deadline))
        if self._deadlines is not None:
            self._deadlines.add(deadline, loop)
        self._serving_now += 1
        self._tasks.add(task)

    async def _serve(
        self, handler: RequestHandler, request: InboundRequest, deadline: HandlerDeadline
    ) -> None:
        try:
            try:
                outcome: tuple[Any, ProtocolError | None] = (await handler(request), None)
            except asyncio.CancelledError:
                # The handler timeout cancels the task; that cancellation (and only that one)
                # is taken back here and answered with a timeout error.
                if not deadline.fired or deadline.settle() > 0:
                    raise  # cancelled from outside: the connection is closing
                outcome = None, self._timeout_error(request)
            except ProtocolError as exc:
                outcome = None, exc
            except Exception as exc:  # the one place a handler failure becomes a wire error
                outcome = None, self._internal_error(request, "the handler failed", exc)
            finally:
                deadline.settle()
            body = _encode_response(request.id, outcome)
            if body is None:
                error = self._internal_error(request, "its result could not be encoded as JSON")
                body = _encode_response(request.id, (None, error))
                assert body is not None
            if not self._queue_nowait(body):
                try:
                    await self._queue_frame(lambda: body)
                except ConnectionClosed:
                    logger.debug(
                        "%s: response to %s not sent: connection closed", self.name, request.id
                    )
            if request.close_after_response is not None:
                self.close_soon(request.close_after_response)
        except Exception:
            logger.exception("%s: serving request %s failed", self.name, request.id)
        finally:
            if deadline.task is not None:
                self._tasks.discard(deadline.task)
            self._serving_now -= 1
            slot = self._read_slot
            if slot is not None and not slot.done():
                slot.set_result(None)

    def _timeout_error(self, request: InboundRequest) -> ProtocolError:
        timeout = self.limits.handler_timeout
        assert timeout is not None
        return ProtocolError(
            ErrorCode.SERVER_ERROR,
            f"{request.method} was not answered within {timeout:g} s",
            {"timeoutSeconds": timeout},
        )

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
    if error is None:
        # the envelope around the encoded result, spliced (the id is a checked UUID)
        try:
            return b"".join(
                (_RESPONSE_HEAD, request_id.encode(), _RESULT_TAIL, encode(result), b"}")
            )
        except (TypeError, ValueError):
            return None
    message: dict[str, Any] = {"v": PROTOCOL_VERSION, "id": request_id, "type": "response"}
    message["error"] = error.to_wire()
    try:
        return encode(message)
    except (TypeError, ValueError):
        message["error"] = {"code": error.code, "message": error.message}
        return encode(message)


_RESPONSE_HEAD = b'{"v":"' + PROTOCOL_VERSION.encode() + b'","id":"'
_RESULT_TAIL = b'","type":"response","result":'
