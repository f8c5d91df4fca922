"""The operation journal: every ``tools/call``, script step and follow-up job, by id.

Operations are keyed by id: the GABP request id of a ``tools/call``, or a generated id
(:func:`~rimbridge_sim.diagnostics.new_operation_id`) for follow-up work and script steps,
which name their ``parent_id``; every operation knows its ``root_id`` (the request that
started the chain). Each operation keeps its own bounded list of events. A start and an
outcome (the mod's event types) also get a journal-wide ``sequence`` and an ``event_id`` in one
bounded stream, which is what ``rimbridge/list_operation_events`` pages through
(``afterSequence``), as in the real mod; ``progress``, ``child_started`` and ``log`` events stay
on their operation's list. Operations are listed as the mod lists them, most recently started
or finished first. A bounded number of recent results is retained for ``includeResults``.
"""

from __future__ import annotations

import builtins
import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any, Literal

from rimbridge_sim.diagnostics._journal_reads import JournalReads
from rimbridge_sim.diagnostics._listeners import EventFilter, JournalListeners, KindFilter, Notice
from rimbridge_sim.diagnostics._records import (
    EVENT_TYPES,
    OPERATION_EVENT_KINDS,
    OPERATION_STATUSES,
    OUTCOME_KINDS,
    STREAM_KINDS,
    JournalListener,
    JournalStats,
    OperationEvent,
    OperationEventKind,
    OperationRecord,
    OperationStatus,
    UnknownOperationError,
    wire_envelope,
)
from rimbridge_sim.diagnostics._state import OperationState

__all__ = [
    "EVENT_TYPES",
    "OPERATION_EVENT_KINDS",
    "OPERATION_STATUSES",
    "OUTCOME_KINDS",
    "STREAM_KINDS",
    "EventFilter",
    "JournalListener",
    "JournalStats",
    "OperationEvent",
    "OperationEventKind",
    "OperationJournal",
    "OperationRecord",
    "OperationStatus",
    "UnknownOperationError",
]


class OperationJournal(JournalReads):
    """Operations by id, with parent/child links, bounded event lists and bounded retention.

    Args:
        capacity: operations retained (>= 1; the mod keeps 1000); beyond it the one least
            recently started or finished that has finished is evicted (a running one only when
            none has finished).
        event_limit: events kept per operation (>= 1); older ones are counted as dropped.
        stream_capacity: events kept in the journal-wide stream (the mod keeps 5000).
        result_capacity: results retained (the mod keeps 50).
        clock: monotonic seconds (a fake one in tests).
    """

    def __init__(
        self,
        capacity: int = 1000,
        *,
        event_limit: int = 200,
        stream_capacity: int = 5000,
        result_capacity: int = 50,
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
        # least recently started or finished first: a start adds at the end and an outcome
        # moves the operation there (the mod's order, reversed)
        self._operations: OrderedDict[str, OperationState] = OrderedDict()
        self._running = 0
        self._started = 0
        self._evicted = 0
        self._evicted_running = 0
        self._listeners = JournalListeners()
        # the stream holds each event's operation, its start's and its outcome's place; the
        # newest has sequence _next_sequence - 1 (see JournalReads.stream)
        self._stream: deque[OperationState] = deque(maxlen=max(1, stream_capacity))
        self._next_sequence = 1
        self._event_prefix = "evt_" + uuid.uuid4().hex[:20]
        self._results: OrderedDict[str, Any] = OrderedDict()
        self._result_capacity = max(0, result_capacity)

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
        metadata: dict[str, Any] | None = None,
    ) -> OperationRecord:
        """Record a new running operation (a child of ``parent_id`` when given); ``metadata``
        is what the journal's reads show under ``Metadata``.

        The root is the parent's root when the parent is known, else ``parent_id`` itself, else
        the operation. Starting an id the journal still holds raises :class:`ValueError`.
        """
        record = self._open(operation_id, method, parent_id, arguments_summary, metadata, True)
        assert record is not None
        return record

    def begin(
        self,
        operation_id: str,
        method: str,
        *,
        parent_id: str | None = None,
        arguments_summary: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """:meth:`start` without the record (a tool call's path: no snapshot is built unless
        a listener gets it)."""
        self._open(operation_id, method, parent_id, arguments_summary, metadata, False)

    def _open(
        self,
        operation_id: str,
        method: str,
        parent_id: str | None,
        arguments_summary: str | None,
        metadata: dict[str, Any] | None,
        want_record: bool,
    ) -> OperationRecord | None:
        if type(operation_id) is not str or not operation_id:
            raise ValueError(f"operation_id must be a non-empty str, got {operation_id!r}")
        if type(method) is not str or not method:
            raise ValueError(f"method must be a non-empty str, got {method!r}")
        now = self._clock()
        wall = time.time()
        notices: builtins.list[Notice] = []
        with self._lock:
            operations = self._operations
            if operation_id in operations:
                raise ValueError(f"operation {operation_id!r} was already started")
            parent = operations.get(parent_id) if parent_id is not None else None
            if parent is not None:
                root_id = parent.root_id
            elif parent_id is not None:
                root_id = parent_id
            else:
                root_id = operation_id
            sequence = self._next_sequence
            self._next_sequence = sequence + 1
            operation = OperationState(
                operation_id,
                method,
                parent_id,
                root_id,
                arguments_summary,
                now,
                self._event_limit,
                metadata,
                wall,
                sequence,
                self._event_prefix,
            )
            operations[operation_id] = operation
            self._running += 1
            self._started += 1
            self._stream.append(operation)  # the start's place in the stream (see stream())
            record = operation.snapshot() if want_record else None
            listeners = self._listeners
            if listeners.active:
                record = listeners.select(operation, "started", None, notices, record)
            if parent is not None:
                parent.add_child(operation_id)
                parent_event = parent.add("child_started", f"{operation_id} {method}", now)
                if listeners.active:
                    listeners.select(parent, "child_started", parent_event, notices)
            if len(operations) > self._capacity:
                oldest_id, oldest = operations.popitem(last=False)
                if oldest.status == "running":  # rare: _evict() picks the victim
                    operations[oldest_id] = oldest
                    operations.move_to_end(oldest_id, last=False)
                    self._evict()
                else:  # the common case: the oldest has finished
                    self._evicted += 1
                    oldest.kept = None  # only its start and outcome stay readable (the stream)
        if notices:
            self._listeners.notify(notices)
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
            notices: builtins.list[Notice] = []
            if self._listeners.active:
                self._listeners.select(operation, kind, event, notices, record)
        self._listeners.notify(notices)
        return record

    def complete(
        self, operation_id: str, result_summary: str | None = None, *, result: Any = None
    ) -> OperationRecord:
        """Mark a running operation completed (a payload failure is still a completion).

        ``result`` (JSON-ready) is retained for ``list_operations {includeResults}``: the
        most recent ones only, read back within the mod's bounds (``_snapshot.bounded_copy``)."""
        record = self._finish(operation_id, "completed", result_summary, None, result=result)
        assert isinstance(record, tuple)
        return record

    def complete_call(
        self, operation_id: str, result_summary: str | None, result: Any
    ) -> dict[str, Any]:
        """:meth:`complete`, answering with the operation's envelope as a call's answer
        carries it (``HasResult`` true, ``Result`` null, empty ``Metadata``) instead of a
        record: no snapshot is built unless a listener gets it."""
        envelope = self._finish(
            operation_id, "completed", result_summary, None, result=result, answer=True
        )
        assert isinstance(envelope, dict)
        return envelope

    def fail(
        self,
        operation_id: str,
        error: str,
        *,
        kind: Literal["failed", "cancelled", "timed_out"] = "failed",
        code: str | None = None,
        exception_type: str | None = None,
    ) -> OperationRecord:
        """Mark a running operation failed, cancelled or timed out, with the error text."""
        if kind not in OUTCOME_KINDS:
            raise ValueError(f"kind must be one of {', '.join(OUTCOME_KINDS)}, got {kind!r}")
        record = self._finish(operation_id, kind, None, str(error), code, exception_type)
        assert isinstance(record, tuple)
        return record

    def _finish(
        self,
        operation_id: str,
        kind: Literal["completed", "failed", "cancelled", "timed_out"],
        result_summary: str | None,
        error: str | None,
        error_code: str | None = None,
        exception_type: str | None = None,
        *,
        result: Any = None,
        answer: bool = False,
    ) -> OperationRecord | dict[str, Any]:
        """Record the outcome (the first one wins) and retain ``result`` (when not None);
        returns the record, or with ``answer`` the call's envelope."""
        now = self._clock()
        wall = time.time()
        with self._lock:
            if result is not None and self._result_capacity:
                results = self._results
                results.pop(operation_id, None)
                results[operation_id] = result
                if len(results) > self._result_capacity:
                    results.popitem(last=False)
            operation = self._operations.get(operation_id)
            if operation is None:
                raise UnknownOperationError(operation_id)
            listeners = self._listeners
            event: OperationEvent | None
            if operation.status != "running":
                # the first outcome wins (e.g. a completion after a timeout); keep the trace
                text = error if error is not None else result_summary
                late = f"ignored late {kind}" + (f": {text}" if text else "")
                event = operation.add("log", late, now)
            else:
                operation.status = kind
                operation.finished_at = now
                operation.finished_wall = wall
                operation.result_summary = result_summary
                operation.error = error
                operation.error_code = error_code
                operation.exception_type = exception_type
                self._running -= 1
                self._operations.move_to_end(operation_id)  # the mod lists it first again
                sequence = self._next_sequence
                self._next_sequence = sequence + 1
                self._stream.append(operation)  # the outcome's place in the stream
                event = operation.finished(sequence, operation_id in self._results)
            record = None if answer else operation.snapshot()
            notices: builtins.list[Notice] = []
            if listeners.active:
                listeners.select(operation, event.kind if event else kind, event, notices, record)
            reply = wire_envelope(operation, True) if answer else None
        if notices:
            listeners.notify(notices)
        if reply is not None:
            return reply
        assert record is not None
        return record

    def _evict(self) -> None:
        operations = self._operations
        while len(operations) > self._capacity:
            oldest_id, oldest = operations.popitem(last=False)
            if oldest.status != "running":  # the common case: the oldest has finished
                self._evicted += 1
                oldest.kept = None
                continue
            operations[oldest_id] = oldest
            operations.move_to_end(oldest_id, last=False)
            victim = next(
                (op_id for op_id, op in operations.items() if op.status != "running"), None
            )
            if victim is None:
                victim = next(iter(operations))
                self._evicted_running += 1
                self._running -= 1
            operations.pop(victim).kept = None
            self._evicted += 1

    # -- listeners

    def subscribe(
        self,
        listener: JournalListener,
        *,
        accepts: EventFilter | None = None,
        takes: KindFilter | None = None,
    ) -> Callable[[], None]:
        """Call ``listener(record, event)`` after every event, or only after those
        ``takes(kind, method)`` and ``accepts(event)`` take (both called with the journal's
        lock held: keep them short, and never call the journal from them); returns an
        unsubscriber.

        A filter is what keeps a call cheap: the record snapshot is only built for an event
        some listener is called for, and with ``takes`` alone a call's start and outcome are
        not even built as events unless one is taken."""
        return self._listeners.add(listener, accepts, takes)
