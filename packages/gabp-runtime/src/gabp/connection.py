"""One GABP peer over any byte stream, for both roles.

A :class:`Connection` sends requests and awaits their responses, serves inbound requests
through a handler table, emits events and delivers inbound events in arrival order. It owns
the I/O around the sans-IO codec in :mod:`gabp.framing`:

* one reader that never waits for a handler: each inbound request is served eagerly up to its
  handler's first wait, and a handler that waits keeps the task it started in while a new
  task reads on; at most ``limits.max_concurrent_requests`` at once (the reader waits for a
  free slot, which pushes back on the peer), cancelled when the handler timeout passes;
* a table of pending requests, each a future with a timer of its own;
* one writer: every outgoing frame goes through one bounded write buffer, in the order it was
  queued, so an event emitted while a request is served goes out before that request's
  response;
* one place where exceptions become wire errors, sanitized (``-32603`` with an error id that
  is also logged, never the exception text);
* when the peer goes away, every waiter fails with :class:`~gabp.errors.ConnectionClosed`.

Inbound events go to ``on_event`` (called inline by the read loop, so a response that follows
an event is seen only after the event was handled) or, without a callback, to one bounded
buffer read through :meth:`Connection.events`.

A connection runs on anyio's asyncio backend: per request it uses asyncio's own futures and
timers (a fraction of the cost of anyio's portable primitives), starts a task only for a
handler that waits, and on a :class:`gabp.sockets.SocketStream` writes to the transport
without waiting.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
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
    _call_late,
)
from gabp._connection_inbound import ConnectionInbound
from gabp.errors import ConnectionClosed, MessageTooLarge, RemoteError, RequestTimeout
from gabp.messages import PROTOCOL_VERSION, SEND_METHOD_PATTERN, Event, WireModel, unique_id
from gabp.sockets import SocketStream
from gabp.wirejson import EncodedJson, encode

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

    def awaits_late_answer(self, request_id: str) -> bool:
        """Whether an unanswered request's ``on_late_answer`` callback is still to be called."""
        return request_id in self._late

    def _remember_late(self, request_id: str, done: Callable[[], None]) -> None:
        self._late[request_id] = done
        while len(self._late) > self.limits.max_outstanding_requests:
            _, oldest = self._late.popitem(last=False)
            _call_late(oldest)

    @property
    def answers_owed(self) -> int:
        """Own requests the peer may still be answering: those awaited now, and those given up
        with an ``on_late_answer`` callback (timed out or cancelled) whose answer has not come."""
        return len(self._pending) + len(self._late)

    async def wait_answered(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds until :attr:`answers_owed` is 0 (or the connection
        closed); True if it got there. Call it before :meth:`aclose` with a peer that cannot
        bear a close while it still writes an answer."""
        with anyio.move_on_after(max(timeout, 0)):
            # answers settle in several places (answer, late answer, close): a short poll
            while self.answers_owed and not self._closed:  # noqa: ASYNC110
                await anyio.sleep(_ANSWER_POLL_SECONDS)
        return not self.answers_owed or self._closed

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
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError("a gabp Connection runs on anyio's asyncio backend") from None
        self._started = True
        self._reading_done = self._loop.create_future()
        quick = self._stream if isinstance(self._stream, SocketStream) else None
        try:
            if quick is not None:
                quick.take_while_waiting(self._take_answers)
            self._start_reader([])
            task_status.started()
            await self._reading_done
            await self._shutdown()
        finally:
            if quick is not None:
                quick.take_while_waiting(None)
            self._mark_closed(self._close_reason)
            with anyio.CancelScope(shield=True):
                await self._stop_serving()
                self._flush_direct()
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
        self._stop_reading()
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.limits.close_timeout + 1):
            await self._finished.wait()

    async def _shutdown(self) -> None:
        # Stop serving: requests still running cannot be answered on a closing connection.
        reason = self._close_reason
        self._mark_closed(reason)
        self._flush_direct()
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.limits.close_timeout):
            await self._write_done.wait()  # let the write in progress finish

    # -- sending --------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | WireModel | None = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        on_late_answer: Callable[[], None] | None = None,
    ) -> Any:
        """Send a request and return its result.

        ``request_id`` sets the request's id (a UUID not in use on this connection; by default
        a fresh one), for callers that record which request caused what, e.g. a bridge
        matching ``causalOperationId`` of attention to its own calls.

        ``on_late_answer``: when the request ends without an answer while the connection stays
        open (its timeout passed, or its caller was cancelled), the peer may still be working on
        it. The callback is then called once, later, when that answer arrives, when the
        connection closes, or when more than ``limits.max_outstanding_requests`` such requests
        are remembered (the oldest first). It is not called when the request was answered or
        the connection was already closed; :meth:`awaits_late_answer` tells which. A bridge uses
        it to keep a game that takes one request at a time from seeing two.

        Raises :class:`RemoteError` when the peer answers with an error,
        :class:`RequestTimeout` when no answer comes within ``timeout`` (default
        ``limits.request_timeout``) and :class:`ConnectionClosed` when the connection closes
        first.
        """
        if method not in self._send_methods:
            if not SEND_METHOD.match(method):
                raise ValueError(f"method name {method!r} does not match {SEND_METHOD_PATTERN}")
            if len(self._send_methods) < 1024:
                self._send_methods.add(method)
        if request_id is None:
            request_id = unique_id()
        elif not UUID.match(request_id):
            raise ValueError(f"request_id {request_id!r} is not a UUID")
        elif request_id in self._pending:
            raise ValueError(f"request_id {request_id} is already awaiting an answer")
        if self._closed:
            raise ConnectionClosed(self._close_reason)
        # the envelope spliced around the encoded params (id and method are checked above)
        parts = [_REQUEST_HEAD, request_id.encode(), _METHOD_KEY, method.encode(), b'"']
        if params is not None:
            if isinstance(params, WireModel):
                params = params.to_wire()
            elif type(params) is not dict:
                params = dict(params)
            parts += (b',"params":', encode(params))
        parts.append(b"}")
        body = b"".join(parts)
        if len(body) > (largest := self._send_limit()):
            raise MessageTooLarge(f"the {method} request", len(body), largest)
        limit = self.limits.request_timeout if timeout is None else timeout
        loop = self._loop or asyncio.get_running_loop()
        deadline = loop.time() + limit
        if self._outstanding >= self.limits.max_outstanding_requests:
            await self._wait_for_request_slot(deadline, method, limit)
        waiter: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._pending[request_id] = waiter
        self._outstanding += 1
        timer = loop.call_at(deadline, _expire, waiter, method, limit)
        try:
            if not self._queue_nowait(body):
                if self._write_blocked():
                    with anyio.move_on_after(deadline - loop.time()):
                        await self._queue_frame(lambda: body)
                    if not waiter.done() and loop.time() >= deadline:
                        raise RequestTimeout(method, limit)
                else:
                    await self._queue_frame(lambda: body)
            response = await waiter
        finally:
            timer.cancel()
            if self._pending.get(request_id) is waiter:
                del self._pending[request_id]
            if on_late_answer is not None and not self._closed and _unanswered(waiter):
                self._remember_late(request_id, on_late_answer)
            self._release_request_slot()
            if waiter.done() and not waiter.cancelled():
                waiter.exception()  # retrieved, even when this caller was cancelled meanwhile
        error = response.get("error")
        if error is not None:
            raise RemoteError(error["code"], error["message"], error.get("data"), method=method)
        return response.get("result")

    async def _wait_for_request_slot(self, deadline: float, method: str, limit: float) -> None:
        loop = asyncio.get_running_loop()
        with anyio.move_on_after(deadline - loop.time()) as scope:
            while self._outstanding >= self.limits.max_outstanding_requests and not self._closed:
                slot: asyncio.Future[None] = loop.create_future()
                self._slot_waiters.append(slot)
                try:
                    await slot
                except BaseException:
                    if slot.done() and not slot.cancelled():
                        self._wake_slot_waiter()  # pass on the wake-up this caller gave up
                    raise
        if scope.cancelled_caught:
            raise RequestTimeout(method, limit)
        if self._closed:
            raise ConnectionClosed(self._close_reason)

    async def emit(self, channel: str, payload: Any) -> int:
        """Send an event on ``channel``; returns its ``seq`` (per channel, from 0).

        ``payload`` is a JSON value, a :class:`~gabp.messages.WireModel`, or an
        :class:`~gabp.wirejson.EncodedJson` whose bytes are sent as they are."""
        if not channel:
            raise ValueError("an event channel must not be empty")
        if self._closed:
            raise ConnectionClosed(self._close_reason)
        seqs = self._seq
        assigned: list[int] = []

        def build() -> bytes:
            # the seq is taken only by an event that goes out: one that cannot be written or
            # is too large leaves no gap in the channel's numbering
            seq = seqs.get(channel, 0)
            if type(payload) is EncodedJson:
                envelope = {"v": PROTOCOL_VERSION, "id": unique_id(), "type": "event"}
                head = encode({**envelope, "channel": channel, "seq": seq})
                body = b"".join((head[:-1], b',"payload":', payload.data, b"}"))
            else:
                event = {
                    "v": PROTOCOL_VERSION,
                    "id": unique_id(),
                    "type": "event",
                    "channel": channel,
                    "seq": seq,
                    "payload": payload.to_wire() if isinstance(payload, WireModel) else payload,
                }
                body = encode(event)
            if len(body) > (limit := self._send_limit()):
                raise MessageTooLarge(f"the event on {channel}", len(body), limit)
            seqs[channel] = seq + 1
            assigned.append(seq)
            return body

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


_ANSWER_POLL_SECONDS = 0.01
_REQUEST_HEAD = b'{"v":"' + PROTOCOL_VERSION.encode() + b'","id":"'
_METHOD_KEY = b'","type":"request","method":"'


def _unanswered(waiter: asyncio.Future[dict[str, Any]]) -> bool:
    """Whether a finished request's waiter never got an answer (timed out or cancelled)."""
    if not waiter.done() or waiter.cancelled():
        return True
    return isinstance(waiter.exception(), RequestTimeout)


def _expire(waiter: asyncio.Future[dict[str, Any]], method: str, limit: float) -> None:
    if not waiter.done():
        waiter.set_exception(RequestTimeout(method, limit))
