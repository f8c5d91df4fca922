"""The bytes under the stdio transport: two file descriptors read and written without threads.

:func:`open_wire` returns a :class:`Wire` over a readable and a writable descriptor:

* on the asyncio event loop, for pipes, sockets and terminals (what an MCP host gives its
  server), both ends are served by the loop itself (``connect_read_pipe`` /
  ``connect_write_pipe``): one read returns everything that has arrived, a write goes straight
  to the descriptor (the loop keeps what the pipe could not take yet and reports when that
  backlog drains), and no worker thread is woken per message;
* anything else (a regular file as stdin or stdout, another event loop, Windows) falls back to
  blocking reads and writes in worker threads, one direction at a time.

The loop's pipe transports switch a descriptor to non-blocking mode; :meth:`Wire.aclose` puts
the mode back as it was, so a terminal or a pipe shared with the parent is left as found.
Writes are bounded: :meth:`Wire.write` returns once the backlog is under the transport's high
water mark, so at most that much (64 KiB) waits in memory besides the caller's own queue.
"""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import suppress
from typing import Final, Protocol

import anyio

__all__ = ["READ_BYTES", "Wire", "WireClosed", "open_wire"]

#: The most one read takes from stdin.
READ_BYTES: Final = 256 * 1024


class WireClosed(Exception):
    """The other end stopped reading: nothing more can be written."""


class Wire(Protocol):
    """Bytes in from one descriptor, bytes out to another."""

    async def read(self) -> bytes:
        """What has arrived (at least one byte), or ``b""`` at end of input."""
        ...

    async def write(self, data: bytes) -> None:
        """Write ``data`` (all of it); :class:`WireClosed` when the reader is gone."""
        ...

    @property
    def threaded(self) -> bool:
        """Whether reads run in a worker thread (which may outlive :meth:`aclose`)."""
        ...

    async def aclose(self) -> None:
        """Stop reading and writing (the descriptors stay open)."""
        ...


class _WriteSide(asyncio.Protocol):
    """The write pipe's flow control: writers wait while its backlog is over the mark."""

    def __init__(self) -> None:
        self.drained = asyncio.Event()
        self.drained.set()
        self.lost: BaseException | None = None
        self.closed = False

    def pause_writing(self) -> None:
        self.drained.clear()

    def resume_writing(self) -> None:
        self.drained.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.lost = exc
        self.drained.set()


class _PipeWire:
    """Both directions on the event loop's pipe transports."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        read_transport: asyncio.ReadTransport,
        write_transport: asyncio.WriteTransport,
        write_side: _WriteSide,
        restore: list[tuple[int, bool]],
    ) -> None:
        self._reader = reader
        self._read_transport = read_transport
        self._write_transport = write_transport
        self._write_side = write_side
        self._restore = restore

    async def read(self) -> bytes:
        try:
            return await self._reader.read(READ_BYTES)
        except (ConnectionError, OSError):
            return b""

    async def write(self, data: bytes) -> None:
        side = self._write_side
        if side.closed or self._write_transport.is_closing():
            raise WireClosed("stdout is closed")
        self._write_transport.write(data)
        if not side.drained.is_set():
            await side.drained.wait()
            if side.closed:
                raise WireClosed(f"stdout is closed: {side.lost}")

    @property
    def threaded(self) -> bool:
        return False

    async def aclose(self) -> None:
        for fd, blocking in self._restore:
            with suppress(OSError):
                os.set_blocking(fd, blocking)
        self._read_transport.close()
        self._write_transport.close()
        await asyncio.sleep(0)  # let the transports finish closing their descriptors


class _ThreadWire:
    """Blocking reads and writes in worker threads (regular files, other loops, Windows)."""

    def __init__(self, wire_in: int, wire_out: int) -> None:
        self._in = wire_in
        self._out = wire_out

    async def read(self) -> bytes:
        # a blocked read cannot be interrupted: on cancellation its thread is left behind (the
        # process is ending), and the descriptor is never closed under it
        try:
            return await anyio.to_thread.run_sync(
                os.read, self._in, READ_BYTES, abandon_on_cancel=True
            )
        except OSError:
            return b""

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = await anyio.to_thread.run_sync(os.write, self._out, view)
            except OSError as exc:
                raise WireClosed(f"stdout is closed: {exc}") from None
            view = view[written:]

    @property
    def threaded(self) -> bool:
        return True

    async def aclose(self) -> None:
        pass


async def _pipe_wire(wire_in: int, wire_out: int) -> _PipeWire | None:
    """Both descriptors on the loop's pipe transports, or None when either cannot be."""
    if sys.platform == "win32":
        return None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None  # another event loop (trio)
    restore = [(fd, os.get_blocking(fd)) for fd in (wire_in, wire_out)]
    reader = asyncio.StreamReader(limit=READ_BYTES, loop=loop)
    try:
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop),
            os.fdopen(wire_in, "rb", buffering=0, closefd=False),
        )
    except (ValueError, OSError):
        return None  # not a pipe, socket or terminal (a regular file)
    try:
        write_transport, write_side = await loop.connect_write_pipe(
            _WriteSide, os.fdopen(wire_out, "wb", buffering=0, closefd=False)
        )
    except (ValueError, OSError):
        read_transport.close()
        with suppress(OSError):
            os.set_blocking(wire_in, restore[0][1])
        return None
    return _PipeWire(reader, read_transport, write_transport, write_side, restore)


async def open_wire(wire_in: int, wire_out: int) -> Wire:
    """A :class:`Wire` reading ``wire_in`` and writing ``wire_out`` (see the module doc).

    The descriptors stay the caller's to close, after :meth:`Wire.aclose`; while
    :attr:`Wire.threaded` a worker thread may still be blocked reading ``wire_in`` (it is left
    behind when the process ends), so that one must not be closed.
    """
    wire = await _pipe_wire(wire_in, wire_out)
    return wire if wire is not None else _ThreadWire(wire_in, wire_out)
