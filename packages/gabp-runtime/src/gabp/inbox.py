"""Bytes a transport received and its one reader has not read yet.

:class:`Inbox` is the receiving half of an asyncio protocol with a single reader: the streams of
:mod:`gabp.sockets` read from one, and any other protocol can use it the same way (``gabs``
reads its stdin pipe through one).

* The protocol calls :meth:`Inbox.arrived` with each chunk and :meth:`Inbox.end` when no more
  will come; its reader awaits :meth:`Inbox.wait` while nothing is held, then takes bytes with
  :meth:`Inbox.read_now`.
* Reading pauses (the ``pause`` callback, typically the transport's ``pause_reading``) while
  more than ``limit`` bytes are held, and resumes (``resume``) once half of that is left, so a
  peer that sends faster than the reader reads is held back by the transport's own flow control.
* While the reader waits and nothing is held, an arriving chunk is first offered to
  :attr:`Inbox.take`, if set: a callback that may handle it on the spot, in the protocol's data
  callback, and spare the reader a wake-up (one event-loop turn). It returns True when it has
  handled the chunk (the reader never sees it), or False, having changed nothing, to leave it to
  the reader. It must not raise.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

__all__ = ["Inbox"]


class Inbox:
    """Received bytes for one reader (see the module doc)."""

    __slots__ = (
        "_chunks",
        "_held",
        "_limit",
        "_loop",
        "_pause",
        "_paused",
        "_resume",
        "_waiter",
        "ended",
        "take",
    )

    def __init__(self, limit: int, pause: Callable[[], None], resume: Callable[[], None]) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self._chunks: deque[bytes] = deque()
        self._held = 0
        self._limit = limit
        self._pause = pause
        self._resume = resume
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.ended = False
        """Set by :meth:`end`: nothing more will arrive."""
        self.take: Callable[[bytes], bool] | None = None
        """Offered what arrives while the reader waits (see the module doc); None: nothing."""

    @property
    def empty(self) -> bool:
        """Whether nothing is held."""
        return not self._chunks

    @property
    def held(self) -> int:
        """Bytes held, not read yet."""
        return self._held

    def arrived(self, data: bytes) -> None:
        """A chunk came in (from the protocol's ``data_received``)."""
        take, waiter = self.take, self._waiter
        if (
            take is not None
            and waiter is not None
            and not waiter.done()
            and not self._chunks
            and take(data)
        ):
            return  # handled where it arrived: the waiting reader is not woken for it
        self._chunks.append(data)
        self._held += len(data)
        if self._held > self._limit and not self._paused:
            self._paused = True
            self._pause()
        self.wake()

    def end(self) -> None:
        """Nothing more will arrive; the reader reads what is held, then sees :attr:`ended`."""
        self.ended = True
        self.wake()

    def wake(self) -> None:
        """Wake the waiting reader, if any (to look again at what it waits for)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self) -> None:
        """Wait until something arrives or the reader is woken; one reader waits at a time."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        try:
            await waiter
        finally:
            if self._waiter is waiter:
                self._waiter = None

    def read_now(self, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` of what is held, oldest first (``b""`` when nothing is)."""
        chunks = self._chunks
        if not chunks:
            return b""
        data = chunks.popleft()
        if len(data) > max_bytes:
            chunks.appendleft(data[max_bytes:])
            data = data[:max_bytes]
        elif chunks and len(data) + len(chunks[0]) <= max_bytes:
            parts = [data]
            size = len(data)
            while chunks and size + len(chunks[0]) <= max_bytes:
                part = chunks.popleft()
                parts.append(part)
                size += len(part)
            data = b"".join(parts)
        self._held -= len(data)
        if self._paused and self._held <= self._limit // 2:
            self._paused = False
            self._resume()
        return data
