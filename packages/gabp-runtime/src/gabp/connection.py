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

import math
from collections.abc import Mapping
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Self

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream

from gabp._connection_base import (
    NIL_ID,
    SEND_METHOD,
    UUID,
    ConnectionLimits,
    EventHandler,
    InboundRequest,
    RequestHandler,
    Waiter,
    dumps,
)
from gabp._connection_inbound import ConnectionInbound
from gabp.errors import ConnectionClosed, RemoteError, RequestTimeout
from gabp.messages import PROTOCOL_VERSION, SEND_METHOD_PATTERN, Event, WireModel, new_id

__all__ = [
    "NIL_ID",
    "Connection",
    "ConnectionLimits",
    "EventHandler",
    "InboundRequest",
    "RequestHandler",
]


class Connection(ConnectionInbound):
    """A GABP peer over one byte stream (TCP, Unix socket, stdio, in memory).

    Use it as an async context manager, which runs it in a task group of its own::

        async with Connection(stream, handlers={"tools/list": list_tools}) as conn:
            result = await conn.request("session/hello", {...})

    or run it inside a task group you own with ``await tg.start(conn.run)``.
    """

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

    async def _shutdown(self, tg: anyio.abc.TaskGroup) -> None:
        # Stop serving: requests still running cannot be answered on a closing connection.
        reason = self._close_reason
        self._mark_closed(reason)
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.limits.close_timeout):
            await self._write_done.wait()  # let the write in progress finish
        tg.cancel_scope.cancel()

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
        if not SEND_METHOD.match(method):
            raise ValueError(f"method name {method!r} does not match {SEND_METHOD_PATTERN}")
        if request_id is None:
            request_id = new_id()
        elif not UUID.match(request_id):
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
        waiter = Waiter()
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
            return dumps(event).encode("utf-8")

        await self._queue_frame(build)
        return assigned[0]

    # -- receiving --------------------------------------------------------------------------------

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
