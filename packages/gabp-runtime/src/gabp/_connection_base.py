"""The state every connection keeps, its limits, and its one writer.

:class:`gabp.Connection` is built in three layers, each in its own module: this one (state,
limits, writing frames, closing), :mod:`gabp._connection_inbound` (the read loop and serving
inbound messages), and :mod:`gabp.connection` (the public class: lifecycle, requests, events).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from gabp.errors import ConnectionClosed
from gabp.framing import FrameDecoder, encode_frame
from gabp.messages import METHOD_PATTERN, PROTOCOL_VERSION, SEND_METHOD_PATTERN, UUID_PATTERN, Event

__all__ = [
    "NIL_ID",
    "ConnectionCore",
    "ConnectionLimits",
    "EventHandler",
    "InboundRequest",
    "RequestHandler",
    "Waiter",
]

logger = logging.getLogger("gabp.connection")

NIL_ID = "00000000-0000-0000-0000-000000000000"
"""The id of an error response to a message whose own id could not be recovered."""

UUID = re.compile(UUID_PATTERN)
METHOD = re.compile(METHOD_PATTERN)
SEND_METHOD = re.compile(SEND_METHOD_PATTERN)
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


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
    connection: ConnectionCore
    raw: dict[str, Any] = field(repr=False)
    close_after_response: str | None = None
    """Set by a handler to close the connection, for this reason, once the answer is sent."""


RequestHandler = Callable[[InboundRequest], Awaitable[Any]]
"""Serves one inbound request: returns the result, or raises ProtocolError for a wire error."""
EventHandler = Callable[[Event], Awaitable[None] | None]
"""Receives each inbound event, in arrival order, before later messages are processed."""


class Waiter:
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
        self._pending: dict[str, Waiter] = {}
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
        await self._queue_frame(lambda: dumps(message).encode("utf-8"))

    async def _send_error(
        self, request_id: str, code: int, message: str, data: Any = None, *, closing: bool = False
    ) -> None:
        error: dict[str, Any] = {"code": int(code), "message": message}
        if data is not None:
            error["data"] = data
        try:
            body = dumps(
                {"v": PROTOCOL_VERSION, "id": request_id, "type": "response", "error": error}
            ).encode("utf-8")
            await self._queue_frame(lambda: body, closing=closing)
        except ConnectionClosed:
            logger.debug("%s: could not send error %s (connection closed)", self.name, code)
