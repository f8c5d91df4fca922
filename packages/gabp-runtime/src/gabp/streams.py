"""Byte streams to run a :class:`~gabp.Connection` over, besides sockets.

* :func:`memory_pipe` gives two connected in-memory byte streams (bounded), for tests and
  for running a bridge and a game in one process.
* :func:`stdio_stream` wraps a process's standard input and output as one byte stream
  (:class:`FdByteStream`).
"""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

import anyio
import anyio.abc
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = ["FdByteStream", "MemoryByteStream", "memory_pipe", "stdio_stream"]


class MemoryByteStream(anyio.abc.ByteStream):
    """One end of an in-memory pipe: what one end sends, the other receives."""

    def __init__(
        self, send: MemoryObjectSendStream[bytes], receive: MemoryObjectReceiveStream[bytes]
    ) -> None:
        self._send = send
        self._receive = receive
        self._pending = b""

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if not self._pending:
            self._pending = await self._receive.receive()  # EndOfStream when the peer closed
        data, self._pending = self._pending[:max_bytes], self._pending[max_bytes:]
        return data

    async def send(self, item: bytes) -> None:
        if item:
            await self._send.send(bytes(item))

    async def send_eof(self) -> None:
        self._send.close()

    async def aclose(self) -> None:
        self._send.close()
        self._receive.close()


def memory_pipe(max_chunks: int = 64) -> tuple[MemoryByteStream, MemoryByteStream]:
    """Two connected byte streams; each direction holds at most ``max_chunks`` unread writes."""
    a_send, b_receive = anyio.create_memory_object_stream[bytes](max_chunks)
    b_send, a_receive = anyio.create_memory_object_stream[bytes](max_chunks)
    return MemoryByteStream(a_send, a_receive), MemoryByteStream(b_send, b_receive)


class FdByteStream(anyio.abc.ByteStream):
    """A byte stream over two file descriptors (a pipe pair, a process's stdin and stdout).

    Reads return whatever bytes are available (``os.read``), not a full buffer, so a frame is
    seen as soon as it arrives; writes are unbuffered (``os.write`` until all is written).
    Blocking calls run in worker threads.
    """

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._eof_sent = False

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await anyio.to_thread.run_sync(
            os.read, self._read_fd, max_bytes, abandon_on_cancel=True
        )
        if not data:
            raise anyio.EndOfStream
        return data

    async def send(self, item: bytes) -> None:
        if self._eof_sent:
            raise anyio.ClosedResourceError
        view = memoryview(bytes(item))
        while view:
            written = await anyio.to_thread.run_sync(os.write, self._write_fd, view)
            view = view[written:]

    async def send_eof(self) -> None:
        self._eof_sent = True

    async def aclose(self) -> None:
        self._eof_sent = True


def stdio_stream(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> FdByteStream:
    """This process's stdin and stdout as one byte stream (nothing else may use them)."""
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    writer.flush()
    return FdByteStream(reader.fileno(), writer.fileno())
