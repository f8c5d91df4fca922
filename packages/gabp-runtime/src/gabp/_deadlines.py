"""Handler timeouts: one timer per connection instead of one per inbound request.

Every request on a connection gets the same timeout, so the requests expire in the order they
started. They wait in a FIFO queue, and one timer is armed for the oldest request still
running; when it fires, every request past its deadline has its task cancelled and the timer
moves on to the next. Finished requests leave the queue as it is walked, or all at once when
the queue grows past a bound, so it holds little more than the requests being served.
"""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["DeadlineQueue", "HandlerDeadline"]


class HandlerDeadline:
    """The timeout of one inbound request: cancels its task when it passes."""

    __slots__ = ("expires", "finished", "fired", "task")

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.expires = 0.0
        self.fired = False
        self.finished = False

    def fire(self) -> None:
        if self.task is not None and not self.finished and not self.task.done():
            self.fired = True
            self.task.cancel()

    def settle(self) -> int:
        """The handler is done: take back our cancellation if it fired; how many remain."""
        self.finished = True
        if not self.fired or self.task is None:
            return 0
        self.fired = False
        return self.task.uncancel()


class DeadlineQueue:
    """The deadlines of one connection's inbound requests, in the order they started."""

    def __init__(self, timeout: float, max_live: int) -> None:
        self._timeout = timeout
        self._queue: deque[HandlerDeadline] = deque()
        self._compact_at = 2 * max_live + 16
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, deadline: HandlerDeadline, loop: asyncio.AbstractEventLoop) -> None:
        """Start the clock of ``deadline``, whose task has just started serving a request."""
        deadline.expires = loop.time() + self._timeout
        queue = self._queue
        while queue and queue[0].finished:
            queue.popleft()
        if len(queue) >= self._compact_at:
            queue = self._queue = deque(each for each in queue if not each.finished)
        queue.append(deadline)
        if self._timer is None:
            self._loop = loop
            self._timer = loop.call_at(queue[0].expires, self._expire)

    def _expire(self) -> None:
        self._timer = None
        loop = self._loop
        assert loop is not None
        now = loop.time()
        queue = self._queue
        while queue:
            head = queue[0]
            if not head.finished and head.expires > now:
                break
            queue.popleft()
            head.fire()
        if queue:
            self._timer = loop.call_at(queue[0].expires, self._expire)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._queue.clear()
