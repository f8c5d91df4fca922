"""How many requests the bridge has in flight to one game at once (:class:`RequestSlots`).

A game's GABP server may not cope with overlapping requests: the C# runtime (Lib.GAB 1.0.3)
dispatches every request at once and writes each reply's header and body as two unlocked
writes, so two replies in flight can interleave on the socket and break the connection. The
bridge therefore sends a game **one request at a time** unless the game says it takes more.

A game declares how many it takes with the GABP extension capability::

    "capabilities": {"extensions": {"concurrency": {"maxConcurrentRequests": 8}}}

in its ``session/hello`` reply (:func:`declared_concurrency`; other bridges ignore unknown
extensions). A per-game config setting (``maxConcurrentRequests``) replaces what the game
declares.

:class:`RequestSlots` is the per-connection limit: a fair (first come, first served), bounded
and cancellable queue. Taking a free slot costs no task and no cancel scope; a request that has
to wait does so under the same deadline as the request itself, so a queued request that never
got a slot was never sent.

A request that ends without an answer (its timeout passed, or its caller was cancelled) may
still be running in the game. Its slot (:class:`SlotHold`) then stays taken until the game's late
answer arrives or the connection closes, at most :data:`LATE_ANSWER_HOLD` seconds, so a game
that takes one request at a time never sees a second one beside it. (The Go bridge frees the
slot at once.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Final

import anyio

__all__ = [
    "CONCURRENCY_EXTENSION",
    "DEFAULT_MAX_WAITING",
    "LATE_ANSWER_HOLD",
    "QueueFull",
    "RequestSlots",
    "SlotHold",
    "declared_concurrency",
]

#: The name of the capability extension a game declares its concurrency with.
CONCURRENCY_EXTENSION: Final = "concurrency"
#: Requests that may wait for a slot of one game at once; one more is refused (:class:`QueueFull`).
DEFAULT_MAX_WAITING: Final = 1024
#: Longest a slot stays taken after its request ended unanswered (see the module doc).
LATE_ANSWER_HOLD: Final = 30.0


class QueueFull(Exception):
    """Too many requests are already waiting for this game: the request was not sent."""


def declared_concurrency(extensions: Mapping[str, Any] | None) -> int | None:
    """``extensions.concurrency.maxConcurrentRequests`` of a hello reply, when it is an
    integer of at least 1 (anything else counts as not declared)."""
    if not isinstance(extensions, Mapping):
        return None
    declared = extensions.get(CONCURRENCY_EXTENSION)
    if not isinstance(declared, Mapping):
        return None
    value = declared.get("maxConcurrentRequests")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


class RequestSlots:
    """At most :attr:`limit` requests in flight; the others wait in arrival order.

    ``try_acquire()`` takes a free slot without waiting; ``await acquire()`` waits for one
    (cancellable: a cancelled waiter leaves the queue and takes nothing); ``release()`` hands
    the slot to the longest waiter. At most ``max_waiting`` requests wait at once.
    """

    __slots__ = ("_max_waiting", "_semaphore", "limit")

    def __init__(self, limit: int = 1, *, max_waiting: int = DEFAULT_MAX_WAITING) -> None:
        if limit < 1:
            raise ValueError("a game takes at least one request at a time")
        if max_waiting < 0:
            raise ValueError("max_waiting must not be negative")
        self.limit = limit
        self._max_waiting = max_waiting
        self._semaphore = anyio.Semaphore(limit, max_value=limit, fast_acquire=True)

    def __repr__(self) -> str:
        return (
            f"RequestSlots(limit={self.limit}, in_flight={self.in_flight}, waiting={self.waiting})"
        )

    @property
    def in_flight(self) -> int:
        return self.limit - self._semaphore.value

    @property
    def waiting(self) -> int:
        return self._semaphore.statistics().tasks_waiting

    def try_acquire(self) -> bool:
        """Take a free slot now; False when all are taken (or others are already waiting)."""
        if self.waiting:
            return False
        try:
            self._semaphore.acquire_nowait()
        except anyio.WouldBlock:
            return False
        return True

    async def acquire(self) -> None:
        """Wait for a slot (first come, first served); :class:`QueueFull` past the bound."""
        if self.try_acquire():
            return
        if self.waiting >= self._max_waiting:
            raise QueueFull(f"{self.waiting} requests are already waiting for this game")
        await self._semaphore.acquire()

    def release(self) -> None:
        self._semaphore.release()


class SlotHold:
    """One taken slot of :class:`RequestSlots`, given back exactly once."""

    __slots__ = ("_released", "_slots")

    def __init__(self, slots: RequestSlots) -> None:
        self._slots = slots
        self._released = False

    def release(self) -> None:
        """Give the slot back (again: nothing happens)."""
        if not self._released:
            self._released = True
            self._slots.release()

    def settle(self, answer_pending: bool, hold: float = LATE_ANSWER_HOLD) -> None:
        """At the end of the request: give the slot back now, or, while the game may still be
        working on it (``answer_pending``), when its late answer comes (:meth:`release` is the
        request's ``on_late_answer``) and at the latest after ``hold`` seconds."""
        if answer_pending:
            asyncio.get_running_loop().call_later(hold, self.release)
        else:
            self.release()
