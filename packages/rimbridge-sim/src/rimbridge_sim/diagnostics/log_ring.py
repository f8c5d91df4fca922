"""The log ring: a bounded, sequenced, collapsing record of every line the game writes.

Every appended line consumes one sequence number (1, 2, 3, ...; never reused, as in the real
mod's log journal). A line carries the script step running when it was logged
(:mod:`~rimbridge_sim.diagnostics.script_context`, read once per line) and, when it reports
an exception, its traceback. Identical consecutive lines (same level, message, stack trace,
source, operation and script step) arriving within ``collapse_window`` seconds of the
previous repeat are folded into one :class:`LogEntry`: its ``repeat_count`` grows and its
``latest_sequence`` moves to the new line's sequence, while ``sequence`` stays where the run
started. On the wire an entry's ``sequence`` is its *latest* line (what the mod reports) and
``firstSequence`` the first.

Queries follow ``rimbridge/list_logs``: entries come newest first; ``after_sequence <= 0``
asks for the newest ``limit`` matches; a positive cursor asks for the matches after it, and
when more than ``limit`` match the page holds the *oldest* of them (so paging with
``next_cursor`` never skips a line) and says ``has_more``. When lines after the cursor were
already evicted the page says ``truncated``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from rimbridge_sim.diagnostics._common import (
    LEVELS,
    RANK,
    LogLevel,
    call_listeners,
    iso_utc,
    level_rank,
    query_rank,
    subscribe,
)
from rimbridge_sim.diagnostics.script_context import ScriptStep, current_script_step

__all__ = ["LogEntry", "LogListener", "LogPage", "LogRing", "RingStats"]


@dataclass(slots=True)
class LogEntry:
    """One log line, or a run of identical consecutive lines collapsed into one entry.

    Treat it as immutable: the ring replaces an entry when a line collapses into it and never
    changes one it has handed out. (It is not a frozen dataclass because a frozen one costs
    several times as much to build, and the ring builds one per line.)
    """

    sequence: int
    """The first line's sequence."""
    level: LogLevel
    message: str
    source: str
    tick: int | None
    time: float
    """Monotonic seconds of the first line (the collapse window is measured on it)."""
    operation_id: str | None
    root_operation_id: str | None
    repeat_count: int
    latest_sequence: int
    latest_time: float
    wall_time: float = 0.0
    """Unix time of the first line."""
    latest_wall_time: float = 0.0
    capability_id: str | None = None
    """The tool whose operation wrote the line."""
    parent_operation_id: str | None = None
    entry_id: str = ""
    stack_trace: str = ""
    """The traceback of the exception the line reports, ``""`` for any other line."""
    script: ScriptStep | None = None
    """The script step that was running when the line was logged."""

    @property
    def first_sequence(self) -> int:
        return self.sequence

    def to_wire(self) -> dict[str, Any]:
        """The shape ``rimbridge/list_logs`` returns: the mod's ``BridgeLogEntry`` as Newtonsoft
        writes it (PascalCase, declaration order, ``""`` for an id the line has not, as the
        mod's string properties default to), then the sim's ``firstSequence`` and ``tick``."""
        script = self.script
        return {
            "Sequence": self.latest_sequence,
            "EntryId": self.entry_id,
            "Level": self.level,
            "Message": self.message,
            "StackTrace": self.stack_trace,
            "Source": self.source,
            "OperationId": self.operation_id or "",
            "CapabilityId": self.capability_id or "",
            "ParentOperationId": self.parent_operation_id or "",
            "RootOperationId": self.root_operation_id or "",
            "ScriptStatementId": "" if script is None else script.statement_id,
            "ScriptStepId": "" if script is None else script.step_id,
            "ScriptCall": "" if script is None else script.call,
            "FirstSeenAtUtc": iso_utc(self.wall_time),
            "TimestampUtc": iso_utc(self.latest_wall_time),
            "RepeatCount": self.repeat_count,
            "firstSequence": self.sequence,
            "tick": self.tick,
        }


@dataclass(frozen=True, slots=True)
class LogPage:
    """One answer of :meth:`LogRing.query` (entries newest first)."""

    entries: tuple[LogEntry, ...]
    next_cursor: int
    """The ``after_sequence`` for the next poll."""
    truncated: bool
    has_more: bool
    oldest_sequence: int | None
    latest_sequence: int | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "logs": [entry.to_wire() for entry in self.entries],
            "nextCursor": self.next_cursor,
            "hasMore": self.has_more,
            "truncated": self.truncated,
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


class LogRing:
    """A bounded ring of log entries with sequence cursors and run-length collapsing.

    Args:
        capacity: entries retained (>= 1); the oldest are evicted beyond it.
        collapse_window: seconds; an identical line arriving at most this long after the
            previous repeat is folded into it (0 disables collapsing; the mod's log journal
            folds within 2 seconds).
        clock: monotonic seconds (a fake one in tests).
    """

    def __init__(
        self,
        capacity: int = 2000,
        *,
        collapse_window: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be an int >= 1, got {capacity!r}")
        if isinstance(collapse_window, bool) or not isinstance(collapse_window, int | float):
            raise ValueError(f"collapse_window must be a number >= 0, got {collapse_window!r}")
        if not 0 <= collapse_window < float("inf"):
            raise ValueError(f"collapse_window must be a number >= 0, got {collapse_window!r}")
        self._capacity = capacity
        # entry ids: 32 hex digits like the mod's GUIDs, a random prefix per ring and the first
        # line's sequence (unique within the ring without a GUID per entry)
        self._id_prefix = uuid.uuid4().hex[:20]
        self._window = float(collapse_window)
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: deque[LogEntry] = deque()
        self._next_sequence = 1
        self._evicted_through = 0  # highest sequence no longer retained
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
            return self._next_sequence - 1 if self._next_sequence > 1 else None

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
        capability_id: str | None = None,
        parent_operation_id: str | None = None,
        stack_trace: str = "",
    ) -> LogEntry:
        """Record one line; return the entry now holding it (new or collapsed into).

        The line carries the script step running in the caller's context, if any.
        """
        if level not in RANK:
            level_rank(level)  # raises the ValueError
        if type(message) is not str:
            raise TypeError(f"message must be a str, got {type(message).__name__}")
        if type(source) is not str or not source:
            raise ValueError(f"source must be a non-empty str, got {source!r}")
        if root_operation_id is None:
            root_operation_id = operation_id
        script = current_script_step()
        now = self._clock()
        wall = time.time()
        with self._lock:
            sequence = self._next_sequence
            self._next_sequence = sequence + 1
            self._by_level[level] += 1
            entries = self._entries
            last = entries[-1] if entries else None
            if (
                last is not None
                and self._window > 0
                and last.message == message
                and last.level == level
                and last.source == source
                and last.operation_id == operation_id
                and last.root_operation_id == root_operation_id
                and last.stack_trace == stack_trace
                and last.script == script
                and now - last.latest_time <= self._window
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
                    last.wall_time,
                    wall,
                    last.capability_id,
                    last.parent_operation_id,
                    last.entry_id,
                    last.stack_trace,
                    last.script,
                )
                entries[-1] = entry
                self._collapsed += 1
                collapsed = True
            else:
                entry = LogEntry(
                    sequence,
                    level,  # type: ignore[arg-type]  # checked against RANK above
                    message,
                    source,
                    tick,
                    now,
                    operation_id,
                    root_operation_id,
                    1,
                    sequence,
                    now,
                    wall,
                    wall,
                    capability_id,
                    parent_operation_id,
                    f"log_{self._id_prefix}{sequence:012x}",
                    stack_trace,
                    script,
                )
                entries.append(entry)
                collapsed = False
                if len(entries) > self._capacity:
                    gone = entries.popleft()
                    self._evicted_through = gone.latest_sequence
                    self._evicted += 1
            listeners = self._listeners
        if listeners:
            call_listeners(listeners, entry, collapsed)
        return entry

    # -- reading

    def query(
        self,
        after_sequence: int | None = 0,
        minimum_level: str | None = "info",
        limit: int = 50,
        operation_id: str | None = None,
        *,
        root_operation_id: str | None = None,
        capability_id: str | None = None,
        operation_or_root: str | None = None,
    ) -> LogPage:
        """Entries matching every filter given, newest first (see the module doc).

        ``operation_id`` and ``root_operation_id`` match exactly, as the mod's filters do;
        ``operation_or_root`` matches an entry's own operation or its root (the id of a
        ``tools/call`` then finds the lines of its script steps and follow-up work too).
        ``limit <= 0`` returns no entries.
        """
        minimum = query_rank(minimum_level)
        cursor = after_sequence if isinstance(after_sequence, int) else 0

        def wanted(entry: LogEntry) -> bool:
            if RANK[entry.level] < minimum:
                return False
            if operation_id and entry.operation_id != operation_id:
                return False
            if root_operation_id and entry.root_operation_id != root_operation_id:
                return False
            if capability_id and entry.capability_id != capability_id:
                return False
            return not operation_or_root or operation_or_root in (
                entry.operation_id,
                entry.root_operation_id,
            )

        with self._lock:
            entries = list(self._entries)
            latest = self._next_sequence - 1
            evicted_through = self._evicted_through
        oldest = entries[0].sequence if entries else None
        picked: list[LogEntry] = []
        has_more = False
        next_cursor = latest
        if limit > 0 and cursor <= 0:
            for entry in reversed(entries):
                if wanted(entry):
                    if len(picked) == limit:
                        has_more = True
                        break
                    picked.append(entry)
        elif limit > 0:
            for entry in entries:
                if entry.latest_sequence <= cursor or not wanted(entry):
                    continue
                if len(picked) == limit:
                    has_more = True
                    next_cursor = picked[-1].latest_sequence
                    break
                picked.append(entry)
            picked.reverse()
        return LogPage(
            entries=tuple(picked),
            next_cursor=next_cursor,
            truncated=cursor > 0 and cursor < evicted_through,
            has_more=has_more,
            oldest_sequence=oldest,
            latest_sequence=latest if latest > 0 else None,
        )

    def entry_at(self, sequence: int) -> LogEntry | None:
        """The retained entry holding line ``sequence`` (collapsed runs included), if any."""
        with self._lock:
            for entry in self._entries:
                if entry.sequence <= sequence <= entry.latest_sequence:
                    return entry
        return None

    def stats(self) -> RingStats:
        with self._lock:
            return RingStats(
                capacity=self._capacity,
                size=len(self._entries),
                lines=self._next_sequence - 1,
                collapsed=self._collapsed,
                evicted=self._evicted,
                lines_by_level=dict(self._by_level),
            )

    # -- listeners

    def subscribe(self, listener: LogListener) -> Callable[[], None]:
        """Call ``listener(entry, collapsed)`` after every append; returns an unsubscriber."""
        return subscribe(self, listener)
