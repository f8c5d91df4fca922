"""The mod's two GABP event channels: finished operations and warning/error log entries.

RimBridgeServer offers, next to attention, two channels of its own (its ``RimBridgeEventRelay``):

* ``rimbridge.operation``: an operation's outcome, ``{type, operationEvent}``, where ``type``
  is the event type (``operation.completed``, ``operation.failed``, ``operation.cancelled``,
  ``operation.timed_out``) and ``operationEvent`` the same record
  ``rimbridge/list_operation_events`` lists. Every failure, cancellation and timeout goes out;
  a completion only when the tool is not one of the diagnostics module's (capability id under
  ``rimbridge.core/diagnostics/``), so polling the logs or the bridge status is not echoed.
  Starts are never sent.
* ``rimbridge.log``: ``{type: "log", logEntry}`` for each entry of level warning, error or
  fatal, the entry as ``rimbridge/list_logs`` returns it. A line collapsed into the previous
  entry is sent again only when the entry's ``RepeatCount`` reaches 2, 5, 10, 25, 50 or 100
  for the first time, and after that once every 100 repeats, so a spamming error costs a few
  events, not one per line.

The listeners run on the thread that logged or finished the operation and only queue the
record (a bounded queue: when it is full the oldest waiting event is dropped). One task on the
server's event loop builds the payloads and emits them, so a tool call never waits for a
subscriber; a slow subscriber delays later events of this relay, a dead one is dropped by
``lib_gab``'s write timeout, and an emit that fails is counted and forgotten, as the mod
ignores failures while emitting. ``seq`` numbering and the event envelope are ``lib_gab``'s
(per channel and connection from 0, no top-level ``timestamp``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import anyio

from lib_gab import GabpServer
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.diagnostics import (
    EVENT_TYPES,
    LogEntry,
    LogRing,
    OperationEvent,
    OperationJournal,
    OperationRecord,
)
from rimbridge_sim.tools.diagnostics import DIAGNOSTICS_PREFIX

__all__ = ["LOG_CHANNEL", "OPERATION_CHANNEL", "EventRelay", "RelayStats", "publishes_repeat"]

logger = logging.getLogger("rimbridge_sim.relay")

OPERATION_CHANNEL: Final = "rimbridge.operation"
LOG_CHANNEL: Final = "rimbridge.log"

_OPERATION_DESCRIPTION: Final = "Outcomes of bridge operations (diagnostics completions left out)."
_LOG_DESCRIPTION: Final = "Warning, error and fatal log entries, repeats thinned out."

_FAILURES: Final = frozenset({"failed", "cancelled", "timed_out"})
_LOUD_LEVELS: Final = frozenset({"warning", "error", "fatal"})
_REPEAT_THRESHOLDS: Final = (2, 5, 10, 25, 50, 100)
_REMEMBERED_ENTRIES: Final = 256
"""Entries whose last sent repeat count is kept: only the newest entry of the ring can still
grow, so a few suffice (the mod keeps every id it ever sent)."""


def publishes_repeat(repeat_count: int, last_published: int) -> bool:
    """Whether an entry seen ``repeat_count`` times goes out again after it went out at
    ``last_published``: a threshold crossed for the first time, or 100 more repeats."""
    for threshold in _REPEAT_THRESHOLDS:
        if repeat_count >= threshold > last_published:
            return True
    return repeat_count - last_published >= 100


@dataclass(frozen=True, slots=True)
class RelayStats:
    queued: int
    emitted: int
    """Events handed to at least one subscriber."""
    dropped: int
    """Events lost because the queue was full."""
    failed: int
    """Emits that raised (the event is lost)."""


_Pending = tuple[str, Callable[[], dict[str, Any]]]


class EventRelay:
    """Offers the two channels on ``server`` and feeds them from ``ring`` and ``journal``.

    Call :meth:`run` in a task on the server's event loop; :meth:`close` unsubscribes.
    """

    def __init__(
        self,
        server: GabpServer,
        ring: LogRing,
        journal: OperationJournal,
        *,
        queue_limit: int = 1000,
    ) -> None:
        if queue_limit < 1:
            raise ValueError(f"queue_limit must be >= 1, got {queue_limit!r}")
        self._server = server
        self._journal = journal
        server.channel(OPERATION_CHANNEL, description=_OPERATION_DESCRIPTION)
        server.channel(LOG_CHANNEL, description=_LOG_DESCRIPTION)
        self._lock = threading.Lock()
        self._queue: deque[_Pending] = deque()
        self._limit = queue_limit
        self._published: OrderedDict[str, int] = OrderedDict()
        self._queued = 0
        self._emitted = 0
        self._dropped = 0
        self._failed = 0
        self._wake: anyio.Event | None = None
        self._signalled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._unsubscribers: list[Callable[[], None]] = [
            ring.subscribe(self._on_log),
            journal.subscribe(self._on_operation, takes=_relayed),
        ]

    def __repr__(self) -> str:
        return f"<EventRelay queued={len(self._queue)}>"

    def close(self) -> None:
        """Stop listening (idempotent); events still queued are not sent."""
        unsubscribers, self._unsubscribers = self._unsubscribers, []
        for unsubscribe in unsubscribers:
            unsubscribe()

    @property
    def stats(self) -> RelayStats:
        with self._lock:
            return RelayStats(self._queued, self._emitted, self._dropped, self._failed)

    # -- selection (on the thread that logged or finished the operation)

    def _on_operation(self, record: OperationRecord, event: OperationEvent) -> None:
        kind = event.kind
        journal = self._journal

        def payload() -> dict[str, Any]:
            truncated = event.has_result and journal.result_truncated(event.operation_id)
            return {
                "type": EVENT_TYPES[kind],
                "operationEvent": event.to_wire(result_truncated=truncated),
            }

        self._push((OPERATION_CHANNEL, payload))

    def _on_log(self, entry: LogEntry, collapsed: bool) -> None:
        if entry.level not in _LOUD_LEVELS:
            return
        published = self._published
        with self._lock:
            count = entry.repeat_count
            if count <= 1:
                published[entry.entry_id] = 1
                published.move_to_end(entry.entry_id)
                if len(published) > _REMEMBERED_ENTRIES:
                    published.popitem(last=False)
            else:
                if not publishes_repeat(count, published.get(entry.entry_id, 1)):
                    return
                published[entry.entry_id] = count
                published.move_to_end(entry.entry_id)
        self._push((LOG_CHANNEL, lambda: {"type": "log", "logEntry": entry.to_wire()}))

    def _push(self, pending: _Pending) -> None:
        if not self._has_subscribers(pending[0]):
            return  # nobody to tell: no queueing and no wake-up of the loop on every call
        with self._lock:
            queue = self._queue
            if len(queue) >= self._limit:
                queue.popleft()
                self._dropped += 1
            queue.append(pending)
            self._queued += 1
            if self._signalled:
                return
            self._signalled = True
            wake, loop = self._wake, self._loop
        if wake is None:
            return
        if threading.get_ident() == self._loop_thread:
            wake.set()
        elif loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(wake.set)

    def _has_subscribers(self, channel: str) -> bool:
        try:
            return self._server.subscriber_count(channel) > 0
        except RuntimeError:  # the sessions changed under a read from another thread
            return True

    # -- delivery (on the server's event loop)

    async def run(self) -> None:
        """Emit queued events until cancelled."""
        self._loop_thread = threading.get_ident()
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        server = self._server
        while True:
            wake = anyio.Event()
            with self._lock:
                self._wake = wake
                self._signalled = False
                batch = list(self._queue)
                self._queue.clear()
            for channel, payload in batch:
                if server.subscriber_count(channel) == 0:
                    continue
                try:
                    delivered = await server.emit(channel, payload())
                except Exception:
                    logger.debug("emitting on %s failed", channel, exc_info=True)
                    with self._lock:
                        self._failed += 1
                    continue
                if delivered:
                    with self._lock:
                        self._emitted += 1
            if batch:
                continue  # what arrived meanwhile first
            # without an asyncio loop nobody can wake the task from another thread: poll
            with anyio.move_on_after(None if self._loop is not None else 0.05):
                await wake.wait()


@functools.lru_cache(maxsize=4096)  # asked twice per call, under the journal's lock
def _relayed(kind: str, method: str) -> bool:
    """The operation events the mod relays (the journal's filter for :class:`EventRelay`, by
    the event's kind and its operation's method): every failure, cancellation and timeout, and
    the completions of tools outside the diagnostics module; never a start."""
    return kind in _FAILURES or (
        kind == "completed" and not capability_id(method).startswith(DIAGNOSTICS_PREFIX)
    )
