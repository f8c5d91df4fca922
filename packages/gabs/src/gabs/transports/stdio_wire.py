"""The bytes under the stdio transport: two file descriptors read and written without threads.

:func:`open_wire` returns a :class:`Wire` over a readable and a writable descriptor:

* on the asyncio event loop, for pipes, sockets and terminals (what an MCP host gives its
  server), both ends are served by the loop itself (``connect_read_pipe`` /
  ``connect_write_pipe``): one read returns everything that has arrived, and what is written
  during one turn of the loop goes out in one system call (answers finishing together share a
  write, and the host wakes up once for them); no worker thread is woken per message;
* anything else (a regular file or ``/dev/null`` as stdin or stdout, another event loop,
  Windows) falls back to blocking reads and writes in worker threads.

While a reader waits on a pipe wire, what arrives can be offered to a callback first
(:meth:`Wire.take_while_waiting`), which may handle it on the spot instead of waking the reader.

:meth:`Wire.write` queues bytes (in order, never interleaved); :meth:`Wire.drain` waits until
the backlog is under the high-water mark (64 KiB), so a host that stops reading holds up its
writers instead of filling memory. The loop's pipe transports switch a descriptor to
non-blocking mode; :meth:`Wire.aclose` writes what is queued (bounded) and puts the mode back
as it was, so a terminal or a pipe shared with the parent is left as found.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import Callable
from contextlib import suppress
from typing import Final, Protocol

import anyio

from gabp import Inbox

__all__ = ["CLOSE_SECONDS", "READ_BYTES", "Wire", "WireClosed", "open_wire"]

#: The most one read takes from stdin.
READ_BYTES: Final = 256 * 1024
#: How long closing the wire waits for queued bytes to be written.
CLOSE_SECONDS: Final = 5.0
_HIGH_WATER: Final = 64 * 1024


class WireClosed(Exception):
    """The other end stopped reading: nothing more can be written."""


class Wire(Protocol):
    """Bytes in from one descriptor, bytes out to another."""

    async def read(self) -> bytes:
        """What has arrived (at least one byte), or ``b""`` at end of input."""
        ...

    def write(self, data: bytes, *, now: bool = False) -> None:
        """Queue ``data`` to be written soon, after everything queued before (dropped once
        the wire is closed); ``now``: nothing else is about to be written, so waiting for
        more to join this write would only delay it."""
        ...

    async def drain(self) -> None:
        """Wait until the backlog is under the high-water mark; :class:`WireClosed` when the
        reader is gone."""
        ...

    @property
    def closed(self) -> bool:
        """Whether the reader of the output is gone (or the wire was closed)."""
        ...

    @property
    def flowing(self) -> bool:
        """Whether :meth:`drain` would return at once: the output is open and its backlog is
        under the high-water mark."""
        ...

    def take_while_waiting(self, take: Callable[[bytes], bool] | None) -> None:
        """Offer ``take`` the bytes that arrive while :meth:`read` waits with nothing unread
        (``None`` stops it): it runs in the event loop's data callback and returns True when it
        has handled them (:meth:`read` never sees them), or False, having changed nothing, to
        leave them to :meth:`read`. It must not raise. A threaded wire never offers anything."""
        ...

    @property
    def threaded(self) -> bool:
        """Whether reads run in a worker thread (which may outlive :meth:`aclose`)."""
        ...

    async def aclose(self) -> None:
        """Write what is queued (bounded by :data:`CLOSE_SECONDS`), then stop reading and
        writing; the descriptors stay open, the caller's to close."""
        ...


class _WriteSide(asyncio.Protocol):
    """The write pipe's flow control and its end."""

    def __init__(self) -> None:
        self.drained = asyncio.Event()
        self.drained.set()
        self.lost = asyncio.Event()
        self.error: BaseException | None = None

    def pause_writing(self) -> None:
        self.drained.clear()

    def resume_writing(self) -> None:
        self.drained.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.error = exc
        self.lost.set()
        self.drained.set()


class _ReadSide(asyncio.Protocol):
    """The read pipe's bytes and its end, for the one reader (a :class:`gabp.Inbox`)."""

    def __init__(self) -> None:
        self.transport: asyncio.ReadTransport | None = None
        self.inbox = Inbox(READ_BYTES, self._pause, self._resume)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.inbox.arrived(data)

    def eof_received(self) -> None:
        self.inbox.end()

    def connection_lost(self, exc: Exception | None) -> None:
        self.inbox.end()

    def _pause(self) -> None:
        if self.transport is not None:
            self.transport.pause_reading()

    def _resume(self) -> None:
        if self.transport is not None:
            self.transport.resume_reading()


class _PipeWire:
    """Both directions on the event loop's pipe transports."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        read_side: _ReadSide,
        read_transport: asyncio.ReadTransport,
        write_transport: asyncio.WriteTransport,
        write_side: _WriteSide,
        restore: list[tuple[int, bool]],
    ) -> None:
        self._loop = loop
        self._read_side = read_side
        self._read_transport = read_transport
        self._write_transport = write_transport
        self._write_side = write_side
        self._restore = restore
        self._queued: list[bytes] = []

    @property
    def closed(self) -> bool:
        return self._write_side.lost.is_set() or self._write_transport.is_closing()

    @property
    def threaded(self) -> bool:
        return False

    @property
    def flowing(self) -> bool:
        return self._write_side.drained.is_set() and not self.closed

    def take_while_waiting(self, take: Callable[[bytes], bool] | None) -> None:
        self._read_side.inbox.take = take

    async def read(self) -> bytes:
        inbox = self._read_side.inbox
        while inbox.empty:
            if inbox.ended:
                return b""
            await inbox.wait()
        return inbox.read_now(READ_BYTES)

    def write(self, data: bytes, *, now: bool = False) -> None:
        if self.closed:
            return
        if now:
            self._queued.append(data)
            self._flush()
            return
        if not self._queued:
            self._loop.call_soon(self._flush)
        self._queued.append(data)

    def _flush(self) -> None:
        data = b"".join(self._queued)
        self._queued.clear()
        if data and not self.closed:
            self._write_transport.write(data)

    async def drain(self) -> None:
        side = self._write_side
        if not side.drained.is_set():
            await side.drained.wait()
        if self.closed:
            raise WireClosed(f"stdout is closed{f': {side.error}' if side.error else ''}")

    async def aclose(self) -> None:
        self._flush()
        self._write_transport.close()  # writes its backlog first, then reports the end
        with anyio.move_on_after(CLOSE_SECONDS, shield=True):
            await self._write_side.lost.wait()
        if not self._write_side.lost.is_set():
            self._write_transport.abort()
        self._read_transport.close()
        await asyncio.sleep(0)  # the read transport lets go of its descriptor
        for fd, blocking in self._restore:
            with suppress(OSError):
                os.set_blocking(fd, blocking)


class _ThreadWire:
    """Blocking reads and writes in worker threads (regular files, other loops, Windows)."""

    def __init__(self, wire_in: int, wire_out: int) -> None:
        self._in = wire_in
        self._out = wire_out
        self._queued: list[bytes] = []
        self._size = 0
        self._writing = anyio.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def threaded(self) -> bool:
        return True

    @property
    def flowing(self) -> bool:
        return not self._closed and self._size < _HIGH_WATER

    def take_while_waiting(self, take: Callable[[bytes], bool] | None) -> None:
        pass  # a read in a worker thread is not offered to anyone

    async def read(self) -> bytes:
        # a blocked read cannot be interrupted: on cancellation its thread is left behind (the
        # process is ending), and the descriptor is never closed under it
        try:
            return await anyio.to_thread.run_sync(
                os.read, self._in, READ_BYTES, abandon_on_cancel=True
            )
        except OSError:
            return b""

    def write(self, data: bytes, *, now: bool = False) -> None:
        if not self._closed:
            self._queued.append(data)
            self._size += len(data)

    async def drain(self) -> None:
        async with self._writing:
            while self._queued and not self._closed:
                data = b"".join(self._queued)
                self._queued.clear()
                self._size = 0
                await self._write_all(data)
        if self._closed:
            raise WireClosed("stdout is closed")

    async def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = await anyio.to_thread.run_sync(os.write, self._out, view)
            except OSError:
                self._closed = True
                return
            view = view[written:]

    async def aclose(self) -> None:
        with anyio.move_on_after(CLOSE_SECONDS, shield=True), suppress(WireClosed):
            await self.drain()
        self._closed = True


def _unpollable(fd: int) -> bool:
    """A character device other than a terminal (``/dev/null``): the loop takes it as a pipe,
    then epoll refuses to watch it, so it is read and written in worker threads instead."""
    try:
        return stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd)
    except OSError:
        return False


async def _pipe_wire(wire_in: int, wire_out: int) -> _PipeWire | None:
    """Both descriptors on the loop's pipe transports, or None when either cannot be."""
    if sys.platform == "win32":
        return None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None  # another event loop (trio)
    if any(_unpollable(fd) for fd in (wire_in, wire_out)):
        return None
    restore = [(fd, os.get_blocking(fd)) for fd in (wire_in, wire_out)]
    try:
        read_transport, read_side = await loop.connect_read_pipe(
            _ReadSide, os.fdopen(wire_in, "rb", buffering=0, closefd=False)
        )
    except (ValueError, OSError):
        return None  # not a pipe, socket or terminal (a regular file)
    try:
        write_transport, write_side = await loop.connect_write_pipe(
            _WriteSide, os.fdopen(wire_out, "wb", buffering=0, closefd=False)
        )
    except (ValueError, OSError):
        read_transport.close()
        await asyncio.sleep(0)
        with suppress(OSError):
            os.set_blocking(wire_in, restore[0][1])
        return None
    write_transport.set_write_buffer_limits(high=_HIGH_WATER)
    return _PipeWire(loop, read_side, read_transport, write_transport, write_side, restore)


async def open_wire(wire_in: int, wire_out: int) -> Wire:
    """A :class:`Wire` reading ``wire_in`` and writing ``wire_out`` (see the module doc).

    The descriptors stay the caller's to close, after :meth:`Wire.aclose`; while
    :attr:`Wire.threaded` a worker thread may still be blocked reading ``wire_in`` (it is left
    behind when the process ends), so that one must not be closed.
    """
    wire = await _pipe_wire(wire_in, wire_out)
    return wire if wire is not None else _ThreadWire(wire_in, wire_out)
