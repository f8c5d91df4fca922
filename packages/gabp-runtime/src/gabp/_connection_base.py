"""The state every connection keeps, its limits, and its one writer.

:class:`gabp.Connection` is built in three layers, each in its own module: this one (state,
limits, writing frames, closing), :mod:`gabp._connection_inbound` (the read loop and serving
inbound messages), and :mod:`gabp.connection` (the public class: lifecycle, requests, events).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Collection, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from gabp._deadlines import DeadlineQueue
from gabp._wire import schema_regex
from gabp.errors import ConnectionClosed
from gabp.framing import FrameDecoder, encode_frame
from gabp.messages import METHOD_PATTERN, PROTOCOL_VERSION, SEND_METHOD_PATTERN, UUID_PATTERN, Event
from gabp.sockets import SocketStream
from gabp.wirejson import encode

__all__ = [
    "NIL_ID",
    "ConnectionCore",
    "ConnectionLimits",
    "EventHandler",
    "InboundRequest",
    "RequestHandler",
]

logger = logging.getLogger("gabp.connection")

_BATCH_BYTES = 64 * 1024
"""Queued bytes at which a batch of answers is written without waiting for the rest."""

NIL_ID = "00000000-0000-0000-0000-000000000000"
"""The id of an error response to a message whose own id could not be recovered."""

UUID = schema_regex(UUID_PATTERN)
METHOD = schema_regex(METHOD_PATTERN)
SEND_METHOD = schema_regex(SEND_METHOD_PATTERN)


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
    """Longest one write may wait for the peer to read before the peer is taken as gone (a
    peer that reads a trickle counts as one that reads nothing: the kernel reports room only
    after a good part of its buffer drained)."""
    close_timeout: float = 5.0
    """Longest closing may take to flush queued frames."""
    read_chunk_bytes: int = 64 * 1024
    max_batched_answers: int = 16
    """Frames held back while the requests of one read are served, so that their answers
    leave in one write; at this many (or 64 KiB) they go out at once, and a peer that
    pipelines many requests starts on the first answers while the rest are served."""
    max_batch_hold: float = 0.0001
    """Longest, in seconds, the first held-back answer of a read waits for the others: when
    another answer is ready after this long, the held ones go out with it (0: every answer
    goes out as soon as it is ready). The peer is not left idle while slow handlers run."""

    def __post_init__(self) -> None:
        for name in (
            "max_message_bytes",
            "max_header_bytes",
            "max_write_buffer_bytes",
            "max_concurrent_requests",
            "max_outstanding_requests",
            "event_buffer",
            "read_chunk_bytes",
            "max_batched_answers",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"ConnectionLimits.{name} must be at least 1")
        if not (self.max_batch_hold >= 0 and math.isfinite(self.max_batch_hold)):
            raise ValueError("ConnectionLimits.max_batch_hold must be a finite number >= 0")
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
    connection: ConnectionCore
    raw: dict[str, Any] = field(repr=False)
    close_after_response: str | None = None
    """Set by a handler to close the connection, for this reason, once the answer is sent."""


RequestHandler = Callable[[InboundRequest], Awaitable[Any]]
"""Serves one inbound request: returns the result, or raises ProtocolError for a wire error."""
EventHandler = Callable[[Event], Awaitable[None] | None]
"""Receives each inbound event, in arrival order, before later messages are processed."""


class ConnectionCore:
    """What every layer of a connection shares: configuration, state, and the writer."""

    def __init__(
        self,
        stream: anyio.abc.ByteStream,
        *,
        handlers: Mapping[str, RequestHandler] | None = None,
        on_event: EventHandler | None = None,
        limits: ConnectionLimits | None = None,
        name: str = "peer",
        lenient_headers: bool = False,
        any_case_names: bool = False,
        serial_methods: Collection[str] = (),
    ) -> None:
        """``lenient_headers`` and ``any_case_names`` take what Lib.GAB takes from a peer where
        nothing is lost: frame headers as :class:`~gabp.framing.FrameDecoder` says, and a
        request's ``v``, ``id``, ``method`` and ``params`` named in another letter case (a
        ``v`` of ``"GABP/1"`` too), with a warning; two names for one member are refused.

        A request whose method is in ``serial_methods`` (a server's ``session/hello``) is
        served alone: nothing the peer sent after it is served before it is answered, and
        nothing at all if its answer closes the connection (``close_after_response``), even
        what was read in the same write."""
        self.limits = limits or ConnectionLimits()
        self.peer_max_message_bytes: int | None = None
        """The largest message the peer says it reads (``capabilities.limits.maxMessageSize``
        of its welcome, set by whoever read it): nothing larger is sent, nor anything larger
        than ``limits.max_message_bytes``."""
        self._any_case_names = any_case_names
        self.name = name
        self._stream = stream
        self._handlers: dict[str, RequestHandler] = dict(handlers or {})
        self._fallback_handler: RequestHandler | None = None
        self._on_event = on_event
        self._decoder = FrameDecoder(
            max_header_bytes=self.limits.max_header_bytes,
            max_body_bytes=self.limits.max_message_bytes,
            lenient_headers=lenient_headers,
        )
        # Own requests: the future each caller awaits, by id; how many are outstanding, and
        # the callers waiting for a slot once ``max_outstanding_requests`` are.
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        # Own requests that ended unanswered (a timeout, a cancelled caller) whose caller asked
        # to learn when the peer is done with them: the callback, by id, oldest first (bounded;
        # see ``Connection.request(on_late_answer=...)``).
        self._late: OrderedDict[str, Callable[[], None]] = OrderedDict()
        self._outstanding = 0
        self._slot_waiters: deque[asyncio.Future[None]] = deque()
        self._send_methods: set[str] = set()
        # Inbound requests: one task each, counted from the moment it is started; the read
        # loop waits on ``_read_slot`` while ``max_concurrent_requests`` are being served.
        self._tasks: set[asyncio.Future[Any]] = set()
        self._deadlines = (
            None
            if self.limits.handler_timeout is None
            else DeadlineQueue(self.limits.handler_timeout, self.limits.max_concurrent_requests)
        )
        self._methods_seen: set[str] = set()
        self._serial_methods = frozenset(serial_methods)
        # A serial request being served: the reader waits for ``_gate`` before it serves on.
        self._gate: asyncio.Future[None] | None = None
        self._gate_request: InboundRequest | None = None
        self._serving_now = 0
        self._read_slot: asyncio.Future[None] | None = None
        # Outgoing frames: one FIFO buffer. On a gabp.sockets stream, frames go to its
        # transport without waiting; frames queued while others are served are joined and
        # written once, at the end of the event loop's turn. On any other stream, whichever
        # sender finds no flush running becomes the writer until the buffer is empty, so frames
        # leave in queue order and frames queued during a write go out together in the next.
        self._loop: asyncio.AbstractEventLoop | None = None  # set when it runs
        self._direct = stream if isinstance(stream, SocketStream) else None
        if self._direct is not None:
            self._direct.set_write_buffer_limits(high=self.limits.max_write_buffer_bytes)
        self._flush_scheduled = False
        self._out: list[bytes] = []
        self._out_bytes = 0
        self._writing = False
        self._write_done = anyio.Event()
        self._write_done.set()
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
        # Reading: one task at a time is the reader. When a request's handler has to wait, the
        # reader task goes on serving it and a new task takes over reading (see
        # gabp._connection_inbound); ``_reading_done`` is set when reading has ended for good.
        self._reader_task: asyncio.Task[None] | None = None
        self._stopping = False
        self._reading_done: asyncio.Future[None] | None = None
        self._batching = False
        self._held_since = 0.0
        self._exit_stack: AsyncExitStack | None = None

    def close_soon(self, reason: str = "connection closed locally") -> None:
        """Start closing without waiting: stop reading, then flush (bounded) and close."""
        if not self._closed:
            self._close_reason = reason
        self._stop_reading()

    def _stop_reading(self) -> None:
        """Make the reader stop: at once if it waits, else before it reads again."""
        self._stopping = True
        reader = self._reader_task
        if reader is None or reader.done():
            return
        try:
            running = asyncio.current_task()
        except RuntimeError:  # not on the event loop's thread: nothing runs here
            running = None
        if reader is not running:
            reader.cancel()  # it waits: wake it (it checks _stopping first when it runs)

    def _mark_closed(self, reason: str) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_reason = reason
        error = ConnectionClosed(reason)
        for waiter in self._pending.values():
            if not waiter.done():
                waiter.set_exception(error)
        for slot in self._slot_waiters:
            if not slot.done():
                slot.set_result(None)
        late, self._late = list(self._late.values()), OrderedDict()
        for done in late:  # the peer can no longer be working on them for this connection
            _call_late(done)
        if self._events_send is not None:
            self._events_send.close()
        if self._events_receive is not None and not self._events_taken:
            self._events_receive.close()

    def _release_request_slot(self) -> None:
        self._outstanding -= 1
        if self._slot_waiters:
            self._wake_slot_waiter()

    def _wake_slot_waiter(self) -> None:
        waiters = self._slot_waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                break

    async def _stop_serving(self) -> None:
        """Cancel the requests still being served and wait for them (bounded)."""
        if self._deadlines is not None:
            self._deadlines.close()
        tasks = list(self._tasks)
        if not tasks:
            return
        for task in tasks:
            task.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(self.limits.close_timeout):
            await asyncio.wait(tasks)
        stuck = sum(1 for task in tasks if not task.done())
        if stuck:
            logger.warning("%s: %d handler(s) ignored cancellation at close", self.name, stuck)

    async def _close_stream(self) -> None:
        with anyio.move_on_after(self.limits.close_timeout):
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await self._stream.aclose()

    def _send_limit(self) -> int:
        """The largest message this side sends: its own limit, or the peer's if lower."""
        own, peer = self.limits.max_message_bytes, self.peer_max_message_bytes
        return own if peer is None else min(own, peer)

    # -- writing --------------------------------------------------------------------------------

    def _write_blocked(self) -> bool:
        """True when a frame queued now would first have to wait for the peer to read."""
        if self._out_bytes >= self.limits.max_write_buffer_bytes:
            return True
        return self._direct is not None and self._direct.writing_paused

    async def _queue_frame(self, build: Callable[[], bytes], *, closing: bool = False) -> None:
        """Queue one frame for the peer; ``build`` makes its body at the moment it is queued.

        Frames leave in the order they were queued, so an event emitted while a request is
        served precedes that request's response, and ``build`` can number events in wire order.
        Senders wait while ``limits.max_write_buffer_bytes`` are queued; a peer that accepts
        nothing for ``limits.write_timeout`` while a sender waits is taken as gone.
        """
        if self._write_blocked():
            await self._wait_for_room()
        if self._closed and not closing:
            raise ConnectionClosed(self._close_reason)
        if self._direct is not None:
            self._put_direct(build())
            return
        frame = encode_frame(build())
        self._out.append(frame)
        self._out_bytes += len(frame)
        if not self._writing:
            await self._flush()

    def _queue_nowait(self, body: bytes) -> bool:
        """Queue a frame on a gabp.sockets stream when that needs no waiting; False when the
        caller must use :meth:`_queue_frame` (another stream, a full buffer, closed)."""
        if self._direct is None or self._closed or self._write_blocked():
            return False
        self._put_direct(body)
        return True

    def _put_direct(self, body: bytes) -> None:
        frame = encode_frame(body)
        self._out.append(frame)
        self._out_bytes += len(frame)
        if self._batching:
            # the reader writes its batch's answers together when the batch is done; a large or
            # slow batch goes out in parts, so that the peer can work while the rest is served
            now = time.perf_counter()
            if len(self._out) == 1:
                self._held_since = now
            limits = self.limits
            if (
                len(self._out) >= limits.max_batched_answers
                or self._out_bytes >= _BATCH_BYTES
                or now - self._held_since >= limits.max_batch_hold
            ):
                self._flush_direct()
            return
        if self._serving_now + len(self._pending) <= 1:
            self._flush_direct()
        elif not self._flush_scheduled:
            # others may be about to queue frames: let them, then write all at once
            self._flush_scheduled = True
            (self._loop or asyncio.get_running_loop()).call_soon(self._flush_direct)

    async def _wait_for_room(self) -> None:
        timeout = self.limits.write_timeout
        with anyio.move_on_after(timeout) as scope:
            while self._write_blocked() and not self._closed:
                if self._direct is None:
                    await self._write_done.wait()
                    continue
                self._flush_direct()
                try:
                    await self._direct.wait_writable()
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    self._lose("connection lost while writing")
        if scope.cancelled_caught:
            self._lose(f"the peer read too slowly: a write waited {timeout:g} s")

    def _flush_direct(self) -> None:
        """Hand every queued frame to the socket stream's transport, joined (no waiting)."""
        self._flush_scheduled = False
        out = self._out
        if not out or self._direct is None:
            return
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        self._out_bytes = 0
        try:
            self._direct.send_nowait(data)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            self._lose(f"connection lost while writing: {describe_error(exc)}")

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
                        self._lose(f"connection lost while writing: {describe_error(exc)}")
                    scope.deadline = math.inf
            if scope.cancelled_caught:
                self._lose(f"the peer read too slowly: a write waited {timeout:g} s")
        finally:
            self._writing = False
            self._write_done.set()

    def _lose(self, reason: str) -> None:
        """The transport failed: drop what is queued, close with ``reason``, stop reading."""
        self._out.clear()
        self._out_bytes = 0
        if self._direct is not None:
            self._direct.abort()  # what the transport still holds would never arrive either
        if not self._closed:
            self._close_reason = reason
        self._mark_closed(reason)
        self._stop_reading()

    async def _send_error(
        self, request_id: str, code: int, message: str, data: Any = None, *, closing: bool = False
    ) -> None:
        error: dict[str, Any] = {"code": int(code), "message": message}
        if data is not None:
            error["data"] = data
        try:
            body = encode(
                {"v": PROTOCOL_VERSION, "id": request_id, "type": "response", "error": error}
            )
            await self._queue_frame(lambda: body, closing=closing)
        except ConnectionClosed:
            logger.debug("%s: could not send error %s (connection closed)", self.name, code)


def describe_error(exc: BaseException) -> str:
    """What a transport error says, for a close reason: its message, else its cause's (anyio's
    ``BrokenResourceError`` has none; the ``OSError`` behind it names the reset), else its
    class."""
    for error in (exc, exc.__cause__):
        if error is not None and str(error):
            return str(error)
    return type(exc).__name__


def _call_late(done: Callable[[], None]) -> None:
    """Run an ``on_late_answer`` callback; its failure is logged, never raised into the
    connection's reader."""
    try:
        done()
    except Exception:
        logger.exception("an on_late_answer callback failed")
