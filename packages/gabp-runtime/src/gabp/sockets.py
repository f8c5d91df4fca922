"""TCP byte streams on asyncio's own transports, for a :class:`~gabp.Connection` that is fast.

anyio's socket streams are general and careful, and each call costs for it: a ``send`` yields
to the event loop before it writes, and a ``receive`` that has to wait switches the socket's
reading on and off again (two ``epoll_ctl`` calls). :class:`SocketStream` is an
``anyio.abc.ByteStream`` built directly on an asyncio transport and protocol instead:

* ``receive`` returns what has arrived, or waits for the next data without touching the
  socket's registration; reading pauses only while more than ``read_buffer_bytes`` are held
  unread (then the peer is pushed back by TCP);
* ``send`` hands the bytes to the transport, which writes at once when the socket can take
  them, and waits only while more than the write buffer's high-water mark is queued;
* :meth:`SocketStream.send_nowait` queues bytes without waiting (all of them, never part), so a
  connection can write from a plain callback and join the frames of one event-loop turn.

:func:`connect_tcp` and :func:`create_tcp_listener` make them (``TCP_NODELAY`` is on, as with
anyio). They need the asyncio backend; under any other backend use anyio's streams, which a
:class:`~gabp.Connection` takes as well.

:func:`serve_listener` accepts from any anyio socket listener (this module's or anyio's own)
until cancelled, and outlives a failed ``accept()``: an error that concerns one connection (one
aborted before it was taken) or a passing shortage (``EMFILE``: the process is out of file
descriptors) is logged and accepting goes on, so the connections already served are never
dropped for it (anyio's ``Listener.serve`` ends on it, and a game's server with it). Only a
listener that is closed, or broken for good, ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast

import anyio
import anyio.abc
from anyio.abc import SocketAttribute

from gabp.inbox import Inbox

__all__ = [
    "Accepting",
    "SocketStream",
    "TcpListener",
    "connect_tcp",
    "create_tcp_listener",
    "serve_listener",
]

logger = logging.getLogger("gabp.sockets")

DEFAULT_READ_BUFFER_BYTES = 256 * 1024
"""Unread bytes a stream holds before it stops reading from the socket."""
CLOSE_FLUSH_TIMEOUT = 5.0
"""Longest :meth:`SocketStream.aclose` waits for queued bytes to leave before dropping them."""
ACCEPT_RETRY_DELAY = 0.1
"""Seconds :func:`serve_listener` waits after a failed ``accept()`` before it accepts again."""
_PASSING_ACCEPT_ERRORS = frozenset(
    getattr(errno, name)
    for name in (
        # a shortage of descriptors or memory: it passes as connections end
        "EMFILE",
        "ENFILE",
        "ENOBUFS",
        "ENOMEM",
        # one connection that went wrong before it was accepted (Linux passes the new
        # socket's pending network errors on through accept(); BSDs report a reset one)
        "ECONNABORTED",
        "ECONNRESET",
        "EPROTO",
        "EPERM",
        "ENETDOWN",
        "ENETUNREACH",
        "EHOSTDOWN",
        "EHOSTUNREACH",
        "ENONET",
        "ENOPROTOOPT",
        "EOPNOTSUPP",
        "ETIMEDOUT",
    )
    if hasattr(errno, name)
)
"""``accept()`` errors that leave the listening socket as it was: accepting goes on."""


class _StreamProtocol(asyncio.Protocol):
    """Collects what arrives for the one reader (an :class:`~gabp.inbox.Inbox`); tracks write
    flow control."""

    def __init__(self, read_buffer_bytes: int) -> None:
        self.transport: asyncio.Transport | None = None
        self.inbox = Inbox(read_buffer_bytes, self._pause_reading, self._resume_reading)
        self.eof = False
        self.lost = False
        self.error: BaseException | None = None
        self.writing_paused = False
        self.write_waiters: list[asyncio.Future[None]] = []
        self.closed: asyncio.Future[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not derive from asyncio's classes; they have the same methods
        self.transport = cast(asyncio.Transport, transport)
        self.loop = asyncio.get_running_loop()
        self.closed = self.loop.create_future()

    def data_received(self, data: bytes) -> None:
        self.inbox.arrived(data)

    def eof_received(self) -> bool:
        self.eof = True
        self.inbox.wake()
        return True  # keep the transport open: the answers to what was read may still go out

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.error = exc
        self.inbox.wake()
        self._wake_writers()
        if self.closed is not None and not self.closed.done():
            self.closed.set_result(None)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        self._wake_writers()

    def _pause_reading(self) -> None:
        if self.transport is not None:
            self.transport.pause_reading()

    def _resume_reading(self) -> None:
        if self.transport is not None and not self.lost:
            self.transport.resume_reading()

    def _wake_writers(self) -> None:
        waiters, self.write_waiters = self.write_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)


class SocketStream(anyio.abc.ByteStream):
    """A connected TCP socket as an anyio byte stream, on an asyncio transport."""

    def __init__(self, transport: asyncio.Transport, protocol: _StreamProtocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._closing = False
        self._eof_sent = False

    # -- receiving ------------------------------------------------------------------------------

    async def receive(self, max_bytes: int = 65536) -> bytes:
        protocol = self._protocol
        inbox = protocol.inbox
        while inbox.empty:
            if self._closing:
                raise anyio.ClosedResourceError
            if protocol.lost:
                if protocol.error is not None:
                    raise anyio.BrokenResourceError from protocol.error
                raise anyio.EndOfStream
            if protocol.eof:
                raise anyio.EndOfStream
            await inbox.wait()
        return inbox.read_now(max_bytes)

    def take_while_waiting(self, take: Callable[[bytes], bool] | None) -> None:
        """Offer ``take`` the bytes that arrive while a reader waits in :meth:`receive` with
        nothing unread; ``None`` stops it (see :class:`~gabp.inbox.Inbox`: ``take(data)`` runs
        in the event loop's data callback, returns True when it has handled ``data``, or False,
        having changed nothing, to leave it to the reader, and must not raise). A
        :class:`~gabp.Connection` takes the answers to its requests so."""
        self._protocol.inbox.take = take

    @property
    def taking(self) -> Callable[[bytes], bool] | None:
        """What :meth:`take_while_waiting` set, if anything."""
        return self._protocol.inbox.take

    # -- sending --------------------------------------------------------------------------------

    def send_nowait(self, item: bytes | bytearray | memoryview) -> None:
        """Queue all of ``item`` on the transport without waiting (it writes at once when it
        can). Raises ``anyio.ClosedResourceError`` after :meth:`aclose` or :meth:`send_eof`,
        ``anyio.BrokenResourceError`` once the connection is lost."""
        if self._closing or self._eof_sent:
            raise anyio.ClosedResourceError
        if self._protocol.lost or self._transport.is_closing():
            raise anyio.BrokenResourceError
        if item:
            self._transport.write(item)

    async def send(self, item: bytes) -> None:
        self.send_nowait(item)
        if self._protocol.writing_paused:
            await self.wait_writable()

    @property
    def write_buffer_size(self) -> int:
        """Bytes queued on the transport and not yet taken by the socket."""
        return self._transport.get_write_buffer_size()

    @property
    def writing_paused(self) -> bool:
        """True while more than the high-water mark is queued (see
        :meth:`set_write_buffer_limits`)."""
        return self._protocol.writing_paused

    def set_write_buffer_limits(self, high: int, low: int | None = None) -> None:
        """Writing pauses above ``high`` queued bytes and resumes at ``low`` (default a
        quarter of ``high``)."""
        self._transport.set_write_buffer_limits(high=high, low=high // 4 if low is None else low)

    async def wait_writable(self) -> None:
        """Wait until the queued bytes are back under the low-water mark.

        Raises ``anyio.BrokenResourceError`` when the connection is lost meanwhile.
        """
        protocol = self._protocol
        while protocol.writing_paused and not protocol.lost:
            waiter = asyncio.get_running_loop().create_future()
            protocol.write_waiters.append(waiter)
            await waiter
        if protocol.lost:
            raise anyio.BrokenResourceError

    async def send_eof(self) -> None:
        if self._eof_sent or self._closing:
            return
        self._eof_sent = True
        if not self._protocol.lost and not self._transport.is_closing():
            self._transport.write_eof()

    async def aclose(self) -> None:
        """Close after the queued bytes have left (at most ``CLOSE_FLUSH_TIMEOUT`` seconds, or
        until cancelled: then what is left is dropped)."""
        self._closing = True
        protocol = self._protocol
        transport = self._transport
        if not transport.is_closing():
            transport.close()
        closed = protocol.closed
        if closed is None or closed.done():
            return
        try:
            with anyio.move_on_after(CLOSE_FLUSH_TIMEOUT):
                await asyncio.shield(closed)
        finally:
            if not closed.done():
                transport.abort()

    def abort(self) -> None:
        """Close at once, dropping whatever is still queued."""
        self._closing = True
        self._transport.abort()

    # -- attributes -----------------------------------------------------------------------------

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        return _socket_attributes(self._transport.get_extra_info)


def _socket_attributes(info: Callable[[str], Any]) -> dict[Any, Callable[[], Any]]:
    sock = info("socket")
    attributes: dict[Any, Callable[[], Any]] = {}
    if sock is None:
        return attributes
    local = sock.getsockname()
    attributes[SocketAttribute.family] = lambda: sock.family
    attributes[SocketAttribute.local_address] = lambda: local
    if isinstance(local, tuple):
        attributes[SocketAttribute.local_port] = lambda: local[1]
    with contextlib.suppress(OSError):
        remote = sock.getpeername()
        attributes[SocketAttribute.remote_address] = lambda: remote
        if isinstance(remote, tuple):
            attributes[SocketAttribute.remote_port] = lambda: remote[1]
    return attributes


async def connect_tcp(
    host: str, port: int, *, read_buffer_bytes: int = DEFAULT_READ_BUFFER_BYTES
) -> SocketStream:
    """Connect to ``host:port`` over TCP (asyncio backend only)."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.create_connection(
        lambda: _StreamProtocol(read_buffer_bytes), host, port
    )
    return SocketStream(transport, protocol)


class TcpListener(anyio.abc.Listener[SocketStream]):
    """A listening TCP socket whose connections are :class:`SocketStream`\\ s."""

    def __init__(self, sock: socket.socket, read_buffer_bytes: int) -> None:
        self._socket = sock
        self._read_buffer_bytes = read_buffer_bytes
        self._closed = False

    async def accept(self) -> SocketStream:
        """Wait for the next connection. One that cannot be set up once accepted (it went wrong
        meanwhile) is closed and logged, and the next one is waited for."""
        if self._closed:
            raise anyio.ClosedResourceError
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(self._socket)
            except OSError as exc:
                if self._closed:
                    raise anyio.ClosedResourceError from None
                raise anyio.BrokenResourceError from exc
            try:
                transport, protocol = await loop.connect_accepted_socket(
                    lambda: _StreamProtocol(self._read_buffer_bytes), conn
                )
            except OSError as exc:
                conn.close()  # this connection only: the listener is as it was
                logger.warning("an accepted connection could not be set up, dropped: %s", exc)
                continue
            except BaseException:
                conn.close()
                raise
            return SocketStream(transport, protocol)

    async def serve(
        self,
        handler: Callable[[SocketStream], Any],
        task_group: anyio.abc.TaskGroup | None = None,
    ) -> None:
        """Accept connections until cancelled, each served by ``handler`` in a task of its own
        (in ``task_group`` if given); a failed ``accept()`` is survived as
        :func:`serve_listener` says."""
        await serve_listener(self, handler, task_group)

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            self._socket.close()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        local = self._socket.getsockname()
        return {
            SocketAttribute.family: lambda: self._socket.family,
            SocketAttribute.local_address: lambda: local,
            SocketAttribute.local_port: lambda: local[1],
            SocketAttribute.raw_socket: lambda: self._socket,
        }


class Accepting(Protocol):
    """A listener as :func:`serve_listener` uses it: ``accept()`` (anyio's socket listeners,
    :class:`TcpListener`)."""

    async def accept(self) -> Any: ...


async def serve_listener(
    listener: Accepting,
    handler: Callable[[Any], Any],
    task_group: anyio.abc.TaskGroup | None = None,
) -> None:
    """Accept from ``listener`` until cancelled, each connection served by ``handler`` in a
    task of its own (in ``task_group`` if given).

    Unlike anyio's ``Listener.serve``, a failed ``accept()`` does not end it: an error that
    concerns one connection or a passing shortage (``EMFILE``, ``ENOBUFS``, ...) is logged and,
    ``ACCEPT_RETRY_DELAY`` seconds later, accepting goes on. The connections already served
    keep running either way. A closed listener (``ClosedResourceError``) or any other error of
    the listening socket ends it with that error.
    """
    async with contextlib.AsyncExitStack() as stack:
        if task_group is None:
            task_group = await stack.enter_async_context(anyio.create_task_group())
        while True:
            try:
                stream = await listener.accept()
            except anyio.BrokenResourceError as exc:
                cause = exc.__cause__
                if not (isinstance(cause, OSError) and cause.errno in _PASSING_ACCEPT_ERRORS):
                    raise
                logger.warning("accepting a connection failed, still listening: %s", cause)
                await anyio.sleep(ACCEPT_RETRY_DELAY)
                continue
            task_group.start_soon(handler, stream)


async def create_tcp_listener(
    host: str,
    port: int = 0,
    *,
    backlog: int = 128,
    read_buffer_bytes: int = DEFAULT_READ_BUFFER_BYTES,
) -> TcpListener:
    """Listen on exactly ``host:port`` (0: a free port; read it from
    ``listener.extra(SocketAttribute.local_port)``). ``host`` is an address, such as
    ``127.0.0.1`` or ``::1``; nothing listens on other interfaces."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE | socket.AI_NUMERICHOST
    )
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(backlog)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return TcpListener(sock, read_buffer_bytes)
