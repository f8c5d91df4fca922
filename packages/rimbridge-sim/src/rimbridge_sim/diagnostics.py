"""The diagnostics plane: a bounded log ring with cursors and a journal of operations.

This is the evidence an attention item points into. Both classes are pure and synchronous (no
I/O, no asyncio) and thread-safe with one lock each; listeners are called after the lock is
released, on the thread that made the change.

**Log ring.** Every appended line consumes one sequence number (0, 1, 2, ...; never reused).
Identical consecutive lines (same level, message, source and operation) arriving within
``collapse_window`` seconds of the previous repeat are folded into one :class:`LogEntry`: its
``repeat_count`` grows and its ``latest_sequence`` moves to the new line's sequence, while
``sequence`` (= ``first_sequence``) stays where the run started. Cursors count lines, so:

* ``query(after_sequence=c)`` returns every retained entry whose ``latest_sequence > c``. A
  collapsed entry therefore comes back again when repeats were added after the cursor (with its
  updated count), and the cursor ``s - 1`` starts a page exactly at the entry holding line
  ``s``.
* ``after_sequence=-1`` reads from the very beginning; ``None`` reads the newest ``limit``
  entries (a "tail", for a first look).
* When lines after the cursor were already evicted, the page says ``truncated=True``; it never
  silently skips evidence.

**Operation journal.** Operations are keyed by id: the GABP request id of a ``tools/call``, or
a generated id (:func:`new_operation_id`) for follow-up work and script steps, which name their
``parent_id``; every operation knows its ``root_id`` (the request that started the chain).
"""

from __future__ import annotations

import bisect
import builtins
import logging
import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeAlias

from lib_gab.operation import current_operation

__all__ = [
    "LEVELS",
    "OPERATION_EVENT_KINDS",
    "OPERATION_STATUSES",
    "OUTCOME_KINDS",
    "JournalListener",
    "JournalStats",
    "LogEntry",
    "LogLevel",
    "LogListener",
    "LogPage",
    "LogRing",
    "OperationEvent",
    "OperationEventKind",
    "OperationJournal",
    "OperationRecord",
    "OperationStatus",
    "RingStats",
    "UnknownOperationError",
    "level_rank",
    "log_with_operation",
    "new_operation_id",
]

logger = logging.getLogger("rimbridge_sim.diagnostics")

LogLevel: TypeAlias = Literal["debug", "info", "warning", "error", "fatal"]
OperationStatus: TypeAlias = Literal["running", "completed", "failed", "cancelled", "timed_out"]
OperationEventKind: TypeAlias = Literal[
    "started", "progress", "completed", "failed", "cancelled", "timed_out", "child_started", "log"
]

LEVELS: Final[tuple[LogLevel, ...]] = ("debug", "info", "warning", "error", "fatal")
"""Log levels, least severe first."""
_RANK: Final[dict[str, int]] = {level: rank for rank, level in enumerate(LEVELS)}

OPERATION_STATUSES: Final[tuple[OperationStatus, ...]] = (
    "running",
    "completed",
    "failed",
    "cancelled",
    "timed_out",
)
OPERATION_EVENT_KINDS: Final[tuple[OperationEventKind, ...]] = (
    "started",
    "progress",
    "completed",
    "failed",
    "cancelled",
    "timed_out",
    "child_started",
    "log",
)
OUTCOME_KINDS: Final[tuple[OperationEventKind, ...]] = ("failed", "cancelled", "timed_out")
"""Event kinds that end an operation unsuccessfully (``fail(kind=...)``)."""


def level_rank(level: str) -> int:
    """0 for ``debug`` up to 4 for ``fatal``; :class:`ValueError` for anything else."""
    try:
        return _RANK[level]
    except (KeyError, TypeError):
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}") from None


def new_operation_id() -> str:
    """A fresh operation id (a UUID4 string) for follow-up work or a script step."""
    return str(uuid.uuid4())


# --- the log ring -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One log line, or a run of identical consecutive lines collapsed into one entry.

    ``sequence`` is the first line's sequence (also ``first_sequence``); ``latest_sequence`` is
    the last repeat's. ``time`` / ``tick`` belong to the first line, ``latest_time`` to the last.
    """

    sequence: int
    level: LogLevel
    message: str
    source: str
    tick: int | None
    time: float
    operation_id: str | None
    root_operation_id: str | None
    repeat_count: int
    latest_sequence: int
    latest_time: float

    @property
    def first_sequence(self) -> int:
        return self.sequence

    def to_wire(self) -> dict[str, Any]:
        """The camelCase shape diagnostics tools return (every key present, ``null`` if unset)."""
        return {
            "sequence": self.sequence,
            "level": self.level,
            "message": self.message,
            "source": self.source,
            "tick": self.tick,
            "time": self.time,
            "operationId": self.operation_id,
            "rootOperationId": self.root_operation_id,
            "repeatCount": self.repeat_count,
            "firstSequence": self.sequence,
            "latestSequence": self.latest_sequence,
            "latestTime": self.latest_time,
        }


@dataclass(frozen=True, slots=True)
class LogPage:
    """One answer of :meth:`LogRing.query`.

    ``next_cursor`` is the ``after_sequence`` for the next poll (``-1`` while the ring has never
    had a line). ``truncated`` is True when lines after the cursor were evicted before they
    could be read. ``has_more`` is True when ``limit`` cut the page short.
    """

    entries: tuple[LogEntry, ...]
    next_cursor: int
    truncated: bool
    has_more: bool
    oldest_sequence: int | None
    """First sequence of the oldest retained entry (``None`` when the ring is empty)."""
    latest_sequence: int | None
    """The last sequence handed out (``None`` before the first line)."""

    def to_wire(self) -> dict[str, Any]:
        return {
            "entries": [entry.to_wire() for entry in self.entries],
            "nextCursor": self.next_cursor,
            "truncated": self.truncated,
            "hasMore": self.has_more,
            "oldestSequence": self.oldest_sequence,
            "latestSequence": self.latest_sequence,
        }


@dataclass(frozen=True, slots=True)
class RingStats:
    capacity: int
    size: int
    """Entries retained now."""
    lines: int
    """Lines appended (each consumed one sequence)."""
    collapsed: int
    """Lines folded into the previous entry instead of making a new one."""
    evicted: int
    """Entries pushed out by capacity."""
    lines_by_level: dict[str, int]

    def to_wire(self) -> dict[str, Any]:
        return {
            "capacity": self.capacity,
            "size": self.size,
            "lines": self.lines,
            "collapsed": self.collapsed,
            "evicted": self.evicted,
            "linesByLevel": dict(self.lines_by_level),
        }


LogListener: TypeAlias = Callable[[LogEntry, bool], None]
"""Called with ``(entry, collapsed)`` after every append; ``collapsed`` when the line was a
repeat folded into ``entry`` (whose ``latest_sequence`` is then the new line's)."""


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be an int >= 1, got {limit!r}")


def _call_listeners(listeners: Iterable[Callable[..., None]], *args: object) -> None:
    for listener in listeners:
        try:
            listener(*args)
        except Exception:
            logger.exception("diagnostics listener %r failed", listener)


class _Observable(Protocol):
    _lock: threading.Lock
    _listeners: tuple[Any, ...]


def _subscribe(owner: _Observable, listener: Any) -> Callable[[], None]:
    """Add ``listener`` to ``owner``'s listeners (a tuple swapped under its lock, so a call in
    progress keeps the tuple it took); returns a function that removes it again."""
    with owner._lock:
        owner._listeners = (*owner._listeners, listener)

    def unsubscribe() -> None:
        with owner._lock:
            listeners = list(owner._listeners)
            if listener in listeners:
                listeners.remove(listener)
            owner._listeners = tuple(listeners)

    return unsubscribe


class LogRing:
    """A bounded ring of log entries with sequence cursors and run-length collapsing.

    Args:
        capacity: entries retained (>= 1); the oldest are evicted beyond it.
        collapse_window: seconds; an identical line arriving at most this long after the
            previous repeat is folded into it (0 disables collapsing).
        clock: monotonic seconds (a fake one in tests).
    """

    def __init__(
        self,
        capacity: int = 2000,
        *,
        collapse_window: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be an int >= 1, got {capacity!r}")
        if isinstance(collapse_window, bool) or not isinstance(collapse_window, int | float):
            raise ValueError(f"collapse_window must be a number >= 0, got {collapse_window!r}")
        if not 0 <= collapse_window < float("inf"):
            raise ValueError(f"collapse_window must be a number >= 0, got {collapse_window!r}")
        self._capacity = capacity
        self._window = float(collapse_window)
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: deque[LogEntry] = deque()
        self._next_sequence = 0
        self._evicted_through = -1  # highest sequence no longer retained
        self._collapsed = 0
        self._evicted = 0
        self._by_level: dict[str, int] = dict.fromkeys(LEVELS, 0)
        self._listeners: tuple[LogListener, ...] = ()

    def __repr__(self) -> str:
        return f"<LogRing {len(self._entries)}/{self._capacity} next={self._next_sequence}>"

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def collapse_window(self) -> float:
        return self._window

    @property
    def latest_sequence(self) -> int | None:
        """The last sequence handed out, or ``None`` before the first line."""
        with self._lock:
            return self._next_sequence - 1 if self._next_sequence else None

    def __len__(self) -> int:
        return len(self._entries)

    # -- writing

    def append(
        self,
        level: str,
        message: str,
        *,
        source: str,
        tick: int | None = None,
        operation_id: str | None = None,
        root_operation_id: str | None = None,
    ) -> LogEntry:
        """Record one line; return the entry now holding it (new or collapsed into)."""
        if level not in _RANK:
            level_rank(level)  # raises the ValueError
        if type(message) is not str:
            raise TypeError(f"message must be a str, got {type(message).__name__}")
        if type(source) is not str or not source:
            raise ValueError(f"source must be a non-empty str, got {source!r}")
        if root_operation_id is None:
            root_operation_id = operation_id
        now = self._clock()
        with self._lock:
            sequence = self._next_sequence
            self._next_sequence = sequence + 1
            self._by_level[level] += 1
            entries = self._entries
            last = entries[-1] if entries else None
            if (
                last is not None
                and last.message == message
                and last.level == level
                and last.source == source
                and last.operation_id == operation_id
                and last.root_operation_id == root_operation_id
                and now - last.latest_time <= self._window
                and self._window > 0
            ):
                entry = LogEntry(
                    last.sequence,
                    last.level,
                    message,
                    source,
                    last.tick,
                    last.time,
                    operation_id,
                    root_operation_id,
                    last.repeat_count + 1,
                    sequence,
                    now,
                )
                entries[-1] = entry
                self._collapsed += 1
                collapsed = True
            else:
                entry = LogEntry(
                    sequence,
                    level,  # type: ignore[arg-type]  # checked against _RANK above
                    message,
                    source,
                    tick,
                    now,
                    operation_id,
                    root_operation_id,
                    1,
                    sequence,
                    now,
                )
                entries.append(entry)
                collapsed = False
                if len(entries) > self._capacity:
                    gone = entries.popleft()
                    self._evicted_through = gone.latest_sequence
                    self._evicted += 1
            listeners = self._listeners
        if listeners:
            _call_listeners(listeners, entry, collapsed)
        return entry

    # -- reading

    def query(
        self,
        after_sequence: int | None = None,
        minimum_level: str = "debug",
        limit: int = 100,
        operation_id: str | None = None,
    ) -> LogPage:
        """Entries after a cursor, filtered by level and operation, oldest first.

        ``operation_id`` matches an entry's own operation or its root operation, so the id of
        a ``tools/call`` finds the lines of its script steps and follow-up work too.
        """
        minimum = level_rank(minimum_level)
        _check_limit(limit)
        if after_sequence is not None and (
            isinstance(after_sequence, bool)
            or not isinstance(after_sequence, int)
            or after_sequence < -1
        ):
            raise ValueError(f"after_sequence must be an int >= -1, got {after_sequence!r}")

        def wanted(entry: LogEntry) -> bool:
            if _RANK[entry.level] < minimum:
                return False
            return operation_id is None or operation_id in (
                entry.operation_id,
                entry.root_operation_id,
            )

        with self._lock:
            entries = self._entries
            count = len(entries)
            latest = self._next_sequence - 1
            oldest = entries[0].sequence if entries else None
            picked: list[LogEntry] = []
            has_more = False
            if after_sequence is None:  # the newest matches
                for index in range(count - 1, -1, -1):
                    entry = entries[index]
                    if wanted(entry):
                        if len(picked) == limit:
                            has_more = True
                            break
                        picked.append(entry)
                picked.reverse()
                truncated = False
                next_cursor = latest
            else:
                truncated = after_sequence < self._evicted_through
                # latest_sequence rises along the ring: find the first entry past the cursor
                start = bisect.bisect_right(
                    range(count), after_sequence, key=lambda i: entries[i].latest_sequence
                )
                next_cursor = latest
                for index in range(start, count):
                    entry = entries[index]
                    if wanted(entry):
                        if len(picked) == limit:
                            has_more = True
                            next_cursor = picked[-1].latest_sequence
                            break
                        picked.append(entry)
        return LogPage(
            entries=tuple(picked),
            next_cursor=next_cursor,
            truncated=truncated,
            has_more=has_more,
            oldest_sequence=oldest,
            latest_sequence=latest if latest >= 0 else None,
        )

    def entry_at(self, sequence: int) -> LogEntry | None:
        """The retained entry holding line ``sequence`` (collapsed runs included), if any."""
        with self._lock:
            entries = self._entries
            index = bisect.bisect_left(
                range(len(entries)), sequence, key=lambda i: entries[i].latest_sequence
            )
            if index < len(entries) and entries[index].sequence <= sequence:
                return entries[index]
            return None

    def stats(self) -> RingStats:
        with self._lock:
            return RingStats(
                capacity=self._capacity,
                size=len(self._entries),
                lines=self._next_sequence,
                collapsed=self._collapsed,
                evicted=self._evicted,
                lines_by_level=dict(self._by_level),
            )

    # -- listeners

    def subscribe(self, listener: LogListener) -> Callable[[], None]:
        """Call ``listener(entry, collapsed)`` after every append; returns an unsubscriber."""
        return _subscribe(self, listener)


# --- the operation journal -----------------------------------------------------------------------


class UnknownOperationError(KeyError):
    """No such operation in the journal (never started, or already evicted)."""

    def __init__(self, operation_id: str) -> None:
        super().__init__(operation_id)
        self.operation_id = operation_id

    def __str__(self) -> str:
        return f"unknown operation {self.operation_id!r} (never started or already evicted)"


@dataclass(frozen=True, slots=True)
class OperationEvent:
    """One step in an operation's life; ``index`` rises from 1 per operation."""

    index: int
    kind: OperationEventKind
    time: float
    message: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {"index": self.index, "kind": self.kind, "time": self.time, "message": self.message}


@dataclass(frozen=True, slots=True)
class OperationRecord:
    """A snapshot of one operation."""

    id: str
    method: str
    parent_id: str | None
    root_id: str
    status: OperationStatus
    started_at: float
    finished_at: float | None
    arguments_summary: str | None
    result_summary: str | None
    error: str | None
    children: tuple[str, ...]
    events: tuple[OperationEvent, ...]
    """The most recent events (bounded per operation)."""
    events_dropped: int
    """Older events no longer kept."""

    @property
    def running(self) -> bool:
        return self.status == "running"

    def to_wire(self, *, include_events: bool = True) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "operationId": self.id,
            "method": self.method,
            "parentId": self.parent_id,
            "rootId": self.root_id,
            "status": self.status,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "argumentsSummary": self.arguments_summary,
            "resultSummary": self.result_summary,
            "error": self.error,
            "children": list(self.children),
            "eventsDropped": self.events_dropped,
        }
        if include_events:
            wire["events"] = [event.to_wire() for event in self.events]
        return wire


@dataclass(frozen=True, slots=True)
class JournalStats:
    capacity: int
    size: int
    running: int
    started: int
    evicted: int
    evicted_running: int
    """Operations evicted while still running (only when every retained one was running)."""


JournalListener: TypeAlias = Callable[[OperationRecord, OperationEvent], None]
"""Called with ``(record after the event, event)`` for every event recorded."""


class _Operation:
    __slots__ = (
        "arguments_summary",
        "children",
        "error",
        "events",
        "events_dropped",
        "finished_at",
        "id",
        "method",
        "next_index",
        "parent_id",
        "result_summary",
        "root_id",
        "started_at",
        "status",
    )

    def __init__(
        self,
        operation_id: str,
        method: str,
        parent_id: str | None,
        root_id: str,
        arguments_summary: str | None,
        now: float,
        event_limit: int,
    ) -> None:
        self.id = operation_id
        self.method = method
        self.parent_id = parent_id
        self.root_id = root_id
        self.status: OperationStatus = "running"
        self.started_at = now
        self.finished_at: float | None = None
        self.arguments_summary = arguments_summary
        self.result_summary: str | None = None
        self.error: str | None = None
        self.children: list[str] = []
        self.events: deque[OperationEvent] = deque(maxlen=event_limit)
        self.events_dropped = 0
        self.next_index = 1

    def add(self, kind: OperationEventKind, message: str | None, now: float) -> OperationEvent:
        event = OperationEvent(self.next_index, kind, now, message)
        self.next_index += 1
        if len(self.events) == self.events.maxlen:
            self.events_dropped += 1
        self.events.append(event)
        return event

    def snapshot(self) -> OperationRecord:
        return OperationRecord(
            id=self.id,
            method=self.method,
            parent_id=self.parent_id,
            root_id=self.root_id,
            status=self.status,
            started_at=self.started_at,
            finished_at=self.finished_at,
            arguments_summary=self.arguments_summary,
            result_summary=self.result_summary,
            error=self.error,
            children=tuple(self.children),
            events=tuple(self.events),
            events_dropped=self.events_dropped,
        )


_Notice: TypeAlias = tuple[OperationRecord, OperationEvent]


class OperationJournal:
    """Operations by id, with parent/child links, bounded event lists and bounded retention.

    Args:
        capacity: operations retained (>= 1); beyond it the oldest *finished* one is evicted
            (the oldest running one only when none has finished).
        event_limit: events kept per operation (>= 1); older ones are counted as dropped.
        clock: monotonic seconds (a fake one in tests).
    """

    def __init__(
        self,
        capacity: int = 500,
        *,
        event_limit: int = 200,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be an int >= 1, got {capacity!r}")
        if isinstance(event_limit, bool) or not isinstance(event_limit, int) or event_limit < 1:
            raise ValueError(f"event_limit must be an int >= 1, got {event_limit!r}")
        self._capacity = capacity
        self._event_limit = event_limit
        self._clock = clock
        self._lock = threading.Lock()
        self._operations: OrderedDict[str, _Operation] = OrderedDict()  # start order
        self._running = 0
        self._started = 0
        self._evicted = 0
        self._evicted_running = 0
        self._listeners: tuple[JournalListener, ...] = ()

    def __repr__(self) -> str:
        return f"<OperationJournal {len(self._operations)}/{self._capacity}>"

    @property
    def capacity(self) -> int:
        return self._capacity

    # -- writing

    def start(
        self,
        operation_id: str,
        method: str,
        *,
        parent_id: str | None = None,
        arguments_summary: str | None = None,
    ) -> OperationRecord:
        """Record a new running operation (a child of ``parent_id`` when given).

        The root is the parent's root when the parent is known, else ``parent_id`` itself, else
        the operation. Starting an id the journal still holds raises :class:`ValueError`.
        """
        if type(operation_id) is not str or not operation_id:
            raise ValueError(f"operation_id must be a non-empty str, got {operation_id!r}")
        if type(method) is not str or not method:
            raise ValueError(f"method must be a non-empty str, got {method!r}")
        now = self._clock()
        notices: builtins.list[_Notice] = []
        with self._lock:
            if operation_id in self._operations:
                raise ValueError(f"operation {operation_id!r} was already started")
            parent = self._operations.get(parent_id) if parent_id is not None else None
            if parent is not None:
                root_id = parent.root_id
            elif parent_id is not None:
                root_id = parent_id
            else:
                root_id = operation_id
            operation = _Operation(
                operation_id,
                method,
                parent_id,
                root_id,
                arguments_summary,
                now,
                self._event_limit,
            )
            self._operations[operation_id] = operation
            self._running += 1
            self._started += 1
            event = operation.add("started", arguments_summary, now)
            record = operation.snapshot()
            notices.append((record, event))
            if parent is not None:
                parent.children.append(operation_id)
                parent_event = parent.add("child_started", f"{operation_id} {method}", now)
                notices.append((parent.snapshot(), parent_event))
            self._evict()
            listeners = self._listeners
        self._notify(listeners, notices)
        return record

    def event(
        self, operation_id: str, kind: OperationEventKind, message: str | None = None
    ) -> OperationRecord:
        """Record a ``progress`` or ``log`` event; outcome kinds go to complete() / fail()."""
        if kind == "completed":
            return self.complete(operation_id, message)
        if kind == "failed" or kind == "cancelled" or kind == "timed_out":
            return self.fail(operation_id, message or kind, kind=kind)
        if kind not in ("progress", "log"):
            raise ValueError(
                f"kind must be progress or log here (started and child_started are recorded "
                f"by start(); outcomes by complete() and fail()), got {kind!r}"
            )
        now = self._clock()
        with self._lock:
            operation = self._get(operation_id)
            event = operation.add(kind, message, now)
            record = operation.snapshot()
            listeners = self._listeners
        self._notify(listeners, [(record, event)])
        return record

    def complete(self, operation_id: str, result_summary: str | None = None) -> OperationRecord:
        """Mark a running operation completed (a payload failure is still a completion)."""
        return self._finish(operation_id, "completed", result_summary, None)

    def fail(
        self,
        operation_id: str,
        error: str,
        *,
        kind: Literal["failed", "cancelled", "timed_out"] = "failed",
    ) -> OperationRecord:
        """Mark a running operation failed, cancelled or timed out, with the error text."""
        if kind not in OUTCOME_KINDS:
            raise ValueError(f"kind must be one of {', '.join(OUTCOME_KINDS)}, got {kind!r}")
        return self._finish(operation_id, kind, None, str(error))

    def _finish(
        self,
        operation_id: str,
        kind: Literal["completed", "failed", "cancelled", "timed_out"],
        result_summary: str | None,
        error: str | None,
    ) -> OperationRecord:
        now = self._clock()
        with self._lock:
            operation = self._get(operation_id)
            if operation.status != "running":
                # the first outcome wins (e.g. a completion after a timeout); keep the trace
                text = error if error is not None else result_summary
                late = f"ignored late {kind}" + (f": {text}" if text else "")
                event = operation.add("log", late, now)
            else:
                operation.status = kind
                operation.finished_at = now
                operation.result_summary = result_summary
                operation.error = error
                self._running -= 1
                event = operation.add(kind, error if error is not None else result_summary, now)
            record = operation.snapshot()
            listeners = self._listeners
        self._notify(listeners, [(record, event)])
        return record

    def _get(self, operation_id: str) -> _Operation:
        operation = self._operations.get(operation_id)
        if operation is None:
            raise UnknownOperationError(operation_id)
        return operation

    def _evict(self) -> None:
        operations = self._operations
        while len(operations) > self._capacity:
            victim = next(
                (op_id for op_id, op in operations.items() if op.status != "running"), None
            )
            if victim is None:
                victim = next(iter(operations))
                self._evicted_running += 1
                self._running -= 1
            del operations[victim]
            self._evicted += 1

    @staticmethod
    def _notify(listeners: tuple[JournalListener, ...], notices: builtins.list[_Notice]) -> None:
        if listeners:
            for record, event in notices:
                _call_listeners(listeners, record, event)

    # -- reading

    def get(self, operation_id: str) -> OperationRecord | None:
        with self._lock:
            operation = self._operations.get(operation_id)
            return operation.snapshot() if operation is not None else None

    def method_of(self, operation_id: str) -> str | None:
        """The method of a retained operation (cheap: no snapshot)."""
        with self._lock:
            operation = self._operations.get(operation_id)
            return operation.method if operation is not None else None

    def resolve_root(self, operation_id: str) -> tuple[str, str | None]:
        """``(root id, root method)`` of an operation; an unknown id is its own root.

        The method is ``None`` when the root is not (or no longer) in the journal.
        """
        with self._lock:
            operations = self._operations
            operation = operations.get(operation_id)
            if operation is None:
                return operation_id, None
            root_id = operation.root_id
            root = operation if root_id == operation_id else operations.get(root_id)
            return root_id, root.method if root is not None else None

    def root_of(self, operation_id: str) -> str:
        """The root of a retained operation; an unknown id is its own root."""
        with self._lock:
            operation = self._operations.get(operation_id)
            return operation.root_id if operation is not None else operation_id

    def list(
        self,
        limit: int = 50,
        status: OperationStatus | None = None,
        method: str | None = None,
    ) -> builtins.list[OperationRecord]:
        """Retained operations, newest first, optionally filtered by status and exact method."""
        _check_limit(limit)
        if status is not None and status not in OPERATION_STATUSES:
            raise ValueError(
                f"status must be one of {', '.join(OPERATION_STATUSES)}, got {status!r}"
            )
        picked: builtins.list[OperationRecord] = []
        with self._lock:
            for operation in reversed(self._operations.values()):
                if status is not None and operation.status != status:
                    continue
                if method is not None and operation.method != method:
                    continue
                picked.append(operation.snapshot())
                if len(picked) == limit:
                    break
        return picked

    def events(self, operation_id: str, after_index: int = 0) -> builtins.list[OperationEvent]:
        """The retained events of an operation with ``index > after_index``."""
        with self._lock:
            operation = self._get(operation_id)
            return [event for event in operation.events if event.index > after_index]

    def children(self, operation_id: str) -> builtins.list[OperationRecord]:
        """The retained children of an operation, in start order."""
        with self._lock:
            operation = self._get(operation_id)
            return [
                self._operations[child].snapshot()
                for child in operation.children
                if child in self._operations
            ]

    def stats(self) -> JournalStats:
        with self._lock:
            return JournalStats(
                capacity=self._capacity,
                size=len(self._operations),
                running=self._running,
                started=self._started,
                evicted=self._evicted,
                evicted_running=self._evicted_running,
            )

    # -- listeners

    def subscribe(self, listener: JournalListener) -> Callable[[], None]:
        """Call ``listener(record, event)`` after every event; returns an unsubscriber."""
        return _subscribe(self, listener)


# --- attribution ----------------------------------------------------------------------------------


def log_with_operation(
    ring: LogRing,
    journal: OperationJournal,
    level: str,
    message: str,
    *,
    source: str,
    tick: int | None = None,
) -> LogEntry:
    """Append a line attributed to the current operation (``lib_gab.current_operation()``).

    The entry's ``operation_id`` is the current operation's id and its ``root_operation_id`` the
    root the journal records for it (the ``tools/call`` that started the chain), so follow-up
    work run later under ``use_operation(captured)`` is attributed to the call that caused it.
    Outside any operation the line has no operation.
    """
    operation = current_operation()
    if operation is None:
        return ring.append(level, message, source=source, tick=tick)
    return ring.append(
        level,
        message,
        source=source,
        tick=tick,
        operation_id=operation.id,
        root_operation_id=journal.root_of(operation.id),
    )
