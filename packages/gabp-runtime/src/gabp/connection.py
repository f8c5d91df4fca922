"""One GABP peer over any byte stream, for both roles.

A :class:`Connection` sends requests and awaits their responses, serves inbound requests
through a handler table, emits events and delivers inbound events in arrival order. It owns
the I/O around the sans-IO codec in :mod:`gabp.framing`:

* one read loop that never awaits a handler: each inbound request runs in its own task,
  at most ``limits.max_concurrent_requests`` at once (the read loop waits for a free slot,
  which pushes back on the peer);
* a table of pending requests, each waited on under a timeout;
* one writer: every outgoing frame goes through one bounded write buffer, in the order it was
  queued, so an event emitted while a request is served goes out before that request's
  response;
* one place where exceptions become wire errors, sanitized (``-32603`` with an error id that
  is also logged, never the exception text);
* when the peer goes away, every waiter fails with :class:`~gabp.errors.ConnectionClosed`.

Inbound events go to ``on_event`` (called inline by the read loop, so a response that follows
an event is seen only after the event was handled) or, without a callback, to one bounded
buffer read through :meth:`Connection.events`.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import anyio
import anyio.abc
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from gabp.errors import (
    ConnectionClosed,
    ErrorCode,
    MessageError,
    ProtocolError,
    RemoteError,
    RequestTimeout,
)
from gabp.framing import FrameDecoder, FramingError, encode_frame
from gabp.messages import (
    METHOD_PATTERN,
    PROTOCOL_VERSION,
    SEND_METHOD_PATTERN,
    UUID_PATTERN,
    Event,
    WireModel,
    new_id,
    recover_id,
)

__all__ = [
    "NIL_ID",
    "Connection",
    "ConnectionLimits",
    "EventHandler",
    "InboundRequest",
    "RequestHandler",
]

logger = logging.getLogger("gabp.connection")

NIL_ID = "00000000-0000-0000-0000-000000000000"
"""The id of an error response to a message whose own id could not be recovered."""

_UUID = re.compile(UUID_PATTERN)
_METHOD = re.compile(METHOD_PATTERN)
_SEND_METHOD = re.compile(SEND_METHOD_PATTERN)
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_loads = json.loads


@dataclass(frozen=True)
class ConnectionLimits:
    """Every bound a connection keeps. All sizes in bytes, all times in seconds."""

    max_message_bytes: int = 8 * 1024 * 1024
    """Largest frame body accepted; a larger one is a framing error that closes the connection."""
    max_header_bytes: int = 8 * 1024
    max_write_buffer_bytes: int = 4 * 1024 * 1024
    """Queued outgoing bytes before senders wait for the writer (one frame may exceed it)."""
    max_concurrent_requests: int = 64
    """Inbound requests served at once; further ones wait in the peer's socket."""
    max_outstanding_requests: int = 4096
    """Own requests awaiting an answer at once; further ``request()`` calls wait for a slot."""
    event_buffer: int = 1024
    """Inbound events held for :meth:`Connection.events` before the read loop waits."""
    request_timeout: float = 30.0
    """Default timeout of :meth:`Connection.request`."""
    handler_timeout: float | None = 60.0
    """Longest an inbound request may be served before it is answered with a timeout error."""
    write_timeout: float = 30.0
    """Longest one write may block before the peer is taken as gone."""
    close_timeout: float = 5.0
    """Longest closing may take to flush queued frames."""
    read_chunk_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        for name in (
            "max_message_bytes",
            "max_header_bytes",
            "max_write_buffer_bytes",
            "max_concurrent_requests",
            "max_outstanding_requests",
            "event_buffer",
            "read_chunk_bytes",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"ConnectionLimits.{name} must be at least 1")
        for name in ("request_timeout", "write_timeout", "close_timeout"):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"ConnectionLimits.{name} must be a positive number of seconds")


@dataclass
class InboundRequest:
    """A request the peer sent us, as a handler sees it."""

    id: str
    method: str
    params: dict[str, Any]
    connection: Connection
    raw: dict[str, Any] = field(repr=False)
    close_after_response: str | None = None
    """Set by a handler to close the connection, for this reason, once the answer is sent."""


RequestHandler = Callable[[InboundRequest], Awaitable[Any]]
"""Serves one inbound request: returns the result, or raises ProtocolError for a wire error."""
EventHandler = Callable[[Event], Awaitable[None] | None]
"""Receives each inbound event, in arrival order, before later messages are processed."""


class _Waiter:
    __slots__ = ("error", "event", "response")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.response: dict[str, Any] | None = None
        self.error: BaseException | None = None

    def resolve(self, response: dict[str, Any]) -> None:
        self.response = response
        self.event.set()

    def fail(self, error: BaseException) -> None:
        if not self.event.is_set():
            self.error = error
            self.event.set()


class Connection:
    """A GABP peer over one byte stream (TCP, Unix socket, stdio, in memory).

    Use it as an async context manager, which runs it in a task group of its own::

        async with Connection(stream, handlers={"tools/list": list_tools}) as conn:
            result = await conn.request("session/hello", {...})

    or run it inside a task group you own with ``await tg.start(conn.run)``.
    """

    def __init__(
        self,
        stream: anyio.abc.ByteStream,
        *,
        handlers: Mapping[str, RequestHandler] | None = None,
        on_event: EventHandler | None = None,
        limits: ConnectionLimits | None = None,
        name: str = "peer",
    ) -> None:
        self.limits = limits or ConnectionLimits()
        self.name = name
        self._stream = stream
        self._handlers: dict[str, RequestHandler] = dict(handlers or {})
        self._fallback_handler: RequestHandler | None = None
        self._on_event = on_event
        self._decoder = FrameDecoder(
            max_header_bytes=self.limits.max_header_bytes,
            max_body_bytes=self.limits.max_message_bytes,
        )
        self._pending: dict[str, _Waiter] = {}
        self._outstanding = anyio.Semaphore(self.limits.max_outstanding_requests)
        self._serving = anyio.Semaphore(self.limits.max_concurrent_requests)
        # Outgoing frames: one FIFO buffer, flushed by whichever sender finds no flush running
        # (it becomes the writer until the buffer is empty), so frames leave in queue order
        # and frames queued during a write go out together in the next one.
        self._out: list[bytes] = []
        self._out_bytes = 0
        self._writing = False
        self._write_done = anyio.Event()
        self._write_done.set()
        self._serving_now = 0
        self._seq: dict[str, int] = {}
        self._events_send: MemoryObjectSendStream[Event] | None = None
        self._events_receive: MemoryObjectReceiveStream[Event] | None = None
        if on_event is None:
            self._events_send, self._events_receive = anyio.create_memory_object_stream[Event](
                self.limits.event_buffer
            )
        self._events_taken = False
        self._closed = False
        self._close_reason = "connection closed"
        self._started = False
        self._finished = anyio.Event()
        self._reader_scope: anyio.CancelScope | None = None
        self._handler_group: anyio.abc.TaskGroup | None = None
        self._exit_stack: AsyncExitStack | None = None

    # -- configuration --------------------------------------------------------------------------

    def set_handler(self, method: str, handler: RequestHandler | None) -> None:
        """Serve ``method`` with ``handler`` (``None`` removes it)."""
        if handler is None:
            self._handlers.pop(method, None)
        else:
            self._handlers[method] = handler

    def set_fallback_handler(self, handler: RequestHandler | None) -> None:
        """Serve every method without a handler of its own (instead of answering -32601)."""
        self._fallback_handler = handler

    # -- state ----------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def close_reason(self) -> str:
        return self._close_reason

    @property
    def pending_requests(self) -> int:
        """Own requests sent and not yet answered."""
        return len(self._pending)

    async def wait_closed(self, timeout: float | None = None) -> bool:
        """Wait until the connection has shut down; False if ``timeout`` passed first."""
        with anyio.move_on_after(timeout if timeout is not None else math.inf):
            await self._finished.wait()
        return self._finished.is_set()

    # -- lifecycle ------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            tg = await stack.enter_async_context(anyio.create_task_group())
            await tg.start(self.run)
        except BaseException:
            await stack.__aexit__(None, None, None)
            raise
        self._exit_stack = stack
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        stack, self._exit_stack = self._exit_stack, None
        if stack is not None:
            return await stack.__aexit__(exc_type, exc, tb)
        return None

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Read, serve and write until the connection closes. Returns once it has shut down."""
        if self._started:
            raise RuntimeError("a Connection runs only once")
        self._started = True
        try:
            async with anyio.create_task_group() as tg:
                self._handler_group = tg
                with anyio.CancelScope() as reader_scope:
                    self._reader_scope = reader_scope
                    task_status.started()
                    await self._read_loop()
                await self._shutdown(tg)
        finally:
            self._mark_closed(self._close_reason)
            with anyio.CancelScope(shield=True):
                await self._close_stream()
            self._finished.set()

    async def aclose(self, reason: str = "connection closed locally") -> None:
        """Close the connection: stop reading, flush what is queued (bounded), fail waiters."""
        if not self._started:
            self._mark_closed(reason)
            await self._close_stream()
            self._finished.set()
            return
        if not self._closed:
            self._close_reason = reason
        if self._reader_scope is not None:
            self._reader_scope.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.limits.close_timeout + 1):
            await self._finished.wait()

    def close_soon(self, reason: str = "connection closed locally") -> None:
        """Start closing without waiting: stop reading, then flush (bounded) and close."""
        if not self._closed:
            self._close_reason = reason
        if self._reader_scope is not None:
            self._reader_scope.cancel()

    def _mark_closed(self, reason: str) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_reason = reason
        error = ConnectionClosed(reason)
        for waiter in self._pending.values():
            waiter.fail(error)
        if self._events_send is not None:
            self._events_send.close()
        if self._events_receive is not None and not self._events_taken:
            self._events_receive.close()

    async def _shutdown(self, tg: anyio.abc.TaskGroup) -> None:
        # Stop serving: requests still running cannot be answered on a closing connection.
        reason = self._close_reason
        self._mark_closed(reason)
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.limits.close_timeout):
            await self._write_done.wait()  # let the write in progress finish
        tg.cancel_scope.cancel()

    async def _close_stream(self) -> None:
        with anyio.move_on_after(self.limits.close_timeout):
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await self._stream.aclose()

    # -- writing --------------------------------------------------------------------------------

    async def _queue_frame(self, build: Callable[[], bytes], *, closing: bool = False) -> None:
        """Queue one frame for the peer; ``build`` makes its body at the moment it is queued.

        Frames leave in the order they were queued, so an event emitted while a request is
        served precedes that request's response, and ``build`` can number events in wire order.
        Senders wait while ``limits.max_write_buffer_bytes`` are queued; a peer that accepts
        nothing for ``limits.write_timeout`` is taken as gone.
        """
        timeout = self.limits.write_timeout
        if self._out_bytes >= self.limits.max_write_buffer_bytes:
            with anyio.move_on_after(timeout) as scope:
                while self._out_bytes >= self.limits.max_write_buffer_bytes and not self._closed:
                    await self._write_done.wait()
            if scope.cancelled_caught:
                self._lose(f"the peer accepted no data for {timeout:g} s")
        if self._closed and not closing:
            raise ConnectionClosed(self._close_reason)
        frame = encode_frame(build())
        self._out.append(frame)
        self._out_bytes += len(frame)
        if not self._writing:
            await self._flush()

    async def _flush(self) -> None:
        """Write until the buffer is empty.

        Shielded from outside cancellation (a frame taken is a frame written), with the write
        timeout as the shield's own deadline, renewed for every write.
        """
        self._writing = True
        self._write_done = anyio.Event()
        timeout = self.limits.write_timeout
        try:
            with anyio.CancelScope(shield=True) as scope:
                while self._out and not scope.cancel_called:
                    if self._serving_now + len(self._pending) > 1:
                        # others may be about to queue frames: let them, then write all at once
                        await anyio.lowlevel.checkpoint()
                    data = self._out[0] if len(self._out) == 1 else b"".join(self._out)
                    self._out.clear()
                    self._out_bytes = 0
                    scope.deadline = anyio.current_time() + timeout
                    try:
                        await self._stream.send(data)
                    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                        self._lose(f"connection lost while writing: {exc or type(exc).__name__}")
                    scope.deadline = math.inf
            if scope.cancelled_caught:
                self._lose(f"the peer accepted no data for {timeout:g} s")
        finally:
            self._writing = False
            self._write_done.set()

    def _lose(self, reason: str) -> None:
        """The transport failed: drop what is queued, close with ``reason``, stop reading."""
        self._out.clear()
        self._out_bytes = 0
        if not self._closed:
            self._close_reason = reason
        self._mark_closed(reason)
        if self._reader_scope is not None:
            self._reader_scope.cancel()

    async def _send_object(self, message: dict[str, Any]) -> None:
        await self._queue_frame(lambda: _dumps(message).encode("utf-8"))

    # -- sending --------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | WireModel | None = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> Any:
        """Send a request and return its result.

        ``request_id`` sets the request's id (a UUID not in use on this connection; by default
        a fresh one), for callers that record which request caused what, e.g. a bridge
        matching ``causalOperationId`` of attention to its own calls.

        Raises :class:`RemoteError` when the peer answers with an error,
        :class:`RequestTimeout` when no answer comes within ``timeout`` (default
        ``limits.request_timeout``) and :class:`ConnectionClosed` when the connection closes
        first.
        """
        if not _SEND_METHOD.match(method):
            raise ValueError(f"method name {method!r} does not match {SEND_METHOD_PATTERN}")
        if request_id is None:
            request_id = new_id()
        elif not _UUID.match(request_id):
            raise ValueError(f"request_id {request_id!r} is not a UUID")
        elif request_id in self._pending:
            raise ValueError(f"request_id {request_id} is already awaiting an answer")
        if self._closed:
            raise ConnectionClosed(self._close_reason)
        message: dict[str, Any] = {
            "v": PROTOCOL_VERSION,
            "id": request_id,
            "type": "request",
            "method": method,
        }
        if params is not None:
            message["params"] = params.to_wire() if isinstance(params, WireModel) else dict(params)
        limit = self.limits.request_timeout if timeout is None else timeout
        waiter = _Waiter()
        with anyio.move_on_after(limit) as scope:
            try:
                self._outstanding.acquire_nowait()
            except anyio.WouldBlock:
                await self._outstanding.acquire()
            try:
                if self._closed:
                    raise ConnectionClosed(self._close_reason)
                self._pending[request_id] = waiter
                try:
                    await self._send_object(message)
                    await waiter.event.wait()
                finally:
                    self._pending.pop(request_id, None)
            finally:
                self._outstanding.release()
        if scope.cancelled_caught and not waiter.event.is_set():
            raise RequestTimeout(method, limit)
        if waiter.error is not None:
            raise waiter.error
        response = waiter.response
        assert response is not None
        if "error" in response and response["error"] is not None:
            error = response["error"]
            raise RemoteError(error["code"], error["message"], error.get("data"), method=method)
        return response.get("result")

    async def emit(self, channel: str, payload: Any) -> int:
        """Send an event on ``channel``; returns its ``seq`` (per channel, from 0)."""
        if not channel:
            raise ValueError("an event channel must not be empty")
        if self._closed:
            raise ConnectionClosed(self._close_reason)
        seqs = self._seq
        assigned: list[int] = []

        def build() -> bytes:
            seq = seqs.get(channel, 0)
            seqs[channel] = seq + 1
            assigned.append(seq)
            event = {
                "v": PROTOCOL_VERSION,
                "id": new_id(),
                "type": "event",
                "channel": channel,
                "seq": seq,
                "payload": payload.to_wire() if isinstance(payload, WireModel) else payload,
            }
            return _dumps(event).encode("utf-8")

        await self._queue_frame(build)
        return assigned[0]

    # -- receiving ------------------------------------------------------------------------------

    def events(self) -> MemoryObjectReceiveStream[Event]:
        """The inbound events, in arrival order (only without ``on_event``, only once).

        The caller owns the returned stream: use it as ``with conn.events() as events:``. It
        ends (``EndOfStream``) after the connection closes and the buffered events are read.
        """
        if self._events_receive is None:
            raise RuntimeError("this connection delivers events to its on_event callback")
        if self._events_taken:
            raise RuntimeError("the event stream has one consumer and was already taken")
        self._events_taken = True
        return self._events_receive

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

    async def _send_error(
        self, request_id: str, code: int, message: str, data: Any = None, *, closing: bool = False
    ) -> None:
        error: dict[str, Any] = {"code": int(code), "message": message}
        if data is not None:
            error["data"] = data
        try:
            body = _dumps(
                {"v": PROTOCOL_VERSION, "id": request_id, "type": "response", "error": error}
            ).encode("utf-8")
            await self._queue_frame(lambda: body, closing=closing)
        except ConnectionClosed:
            logger.debug("%s: could not send error %s (connection closed)", self.name, code)

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
        id_ok = isinstance(message_id, str) and _UUID.match(message_id) is not None
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
        if not isinstance(method, str) or not _METHOD.match(method):
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
        event = Event.model_construct(
            v=PROTOCOL_VERSION,
            id=message["id"],
            type="event",
            channel=channel,
            seq=seq,
            payload=message.get("payload"),
        )
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
        return _dumps(message).encode("utf-8")
    except (TypeError, ValueError):
        if error is not None:
            message["error"] = {"code": error.code, "message": error.message}
            return _dumps(message).encode("utf-8")
        return None
