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
import json
import threading
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any, Final, Literal, TypeAlias

from rimbridge_sim.diagnostics._common import call_listeners, check_limit, subscribe
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
    OperationState,
    OperationStatus,
    UnknownOperationError,
    wire_envelope,
)

__all__ = [
    "EVENT_TYPES",
    "OPERATION_EVENT_KINDS",
    "OPERATION_STATUSES",
    "OUTCOME_KINDS",
    "STREAM_KINDS",
    "JournalListener",
    "JournalStats",
    "OperationEvent",
    "OperationEventKind",
    "OperationJournal",
    "OperationRecord",
    "OperationStatus",
    "UnknownOperationError",
]

_RESULT_CHARS: Final = 16_000


_Notice: TypeAlias = tuple[OperationRecord, OperationEvent]


class OperationJournal:
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
        self._listeners: tuple[JournalListener, ...] = ()
        self._stream: deque[OperationEvent] = deque(maxlen=max(1, stream_capacity))
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
        notices: builtins.list[_Notice] = []
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
            operation = OperationState(
                operation_id,
                method,
                parent_id,
                root_id,
                arguments_summary,
                now,
                self._event_limit,
                metadata,
            )
            operations[operation_id] = operation
            self._running += 1
            self._started += 1
            event = self._record(operation, "started", arguments_summary, now)
            listeners = self._listeners
            record = operation.snapshot() if listeners or want_record else None
            if listeners:
                notices.append((operation.snapshot() if record is None else record, event))
            if parent is not None:
                parent.children.append(operation_id)
                parent_event = self._record(
                    parent, "child_started", f"{operation_id} {method}", now, streamed=False
                )
                if listeners:
                    notices.append((parent.snapshot(), parent_event))
            if len(operations) > self._capacity:
                self._evict()
        if notices:
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
            event = self._record(operation, kind, message, now, streamed=False)
            record = operation.snapshot()
            listeners = self._listeners
        self._notify(listeners, [(record, event)])
        return record

    def complete(
        self, operation_id: str, result_summary: str | None = None, *, result: Any = None
    ) -> OperationRecord:
        """Mark a running operation completed (a payload failure is still a completion).

        ``result`` (JSON-ready) is retained for ``list_operations {includeResults}``: the
        most recent ones only, and cut when its JSON is longer than 16,000 characters."""
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
        with self._lock:
            if result is not None and self._result_capacity:
                results = self._results
                results.pop(operation_id, None)
                results[operation_id] = result
                if len(results) > self._result_capacity:
                    results.popitem(last=False)
            operation = self._get(operation_id)
            if operation.status != "running":
                # the first outcome wins (e.g. a completion after a timeout); keep the trace
                text = error if error is not None else result_summary
                late = f"ignored late {kind}" + (f": {text}" if text else "")
                event = self._record(operation, "log", late, now, streamed=False)
            else:
                operation.status = kind
                operation.finished_at = now
                operation.finished_wall = time.time()
                operation.result_summary = result_summary
                operation.error = error
                operation.error_code = error_code
                operation.exception_type = exception_type
                self._running -= 1
                self._operations.move_to_end(operation_id)  # the mod lists it first again
                event = self._record(
                    operation,
                    kind,
                    error if error is not None else result_summary,
                    now,
                    has_result=operation_id in self._results,
                )
            listeners = self._listeners
            record = operation.snapshot() if listeners or not answer else None
            reply = wire_envelope(operation, True) if answer else None
        if listeners:
            assert record is not None
            self._notify(listeners, [(record, event)])
        if reply is not None:
            return reply
        assert record is not None
        return record

    def _record(
        self,
        operation: OperationState,
        kind: OperationEventKind,
        message: str | None,
        now: float,
        *,
        streamed: bool = True,
        has_result: bool = False,
    ) -> OperationEvent:
        """Add an event to ``operation`` and, when ``streamed``, to the journal-wide stream
        with the next sequence (lock held)."""
        if not streamed:
            return operation.add(kind, message, now, has_result=has_result)
        sequence = self._next_sequence
        self._next_sequence += 1
        event = operation.add(
            kind, message, now, sequence, f"{self._event_prefix}{sequence:012x}", has_result
        )
        self._stream.append(event)
        return event

    def _get(self, operation_id: str) -> OperationState:
        operation = self._operations.get(operation_id)
        if operation is None:
            raise UnknownOperationError(operation_id)
        return operation

    def _evict(self) -> None:
        operations = self._operations
        while len(operations) > self._capacity:
            oldest_id, oldest = operations.popitem(last=False)
            if oldest.status != "running":  # the common case: the oldest has finished
                self._evicted += 1
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
            del operations[victim]
            self._evicted += 1

    @staticmethod
    def _notify(listeners: tuple[JournalListener, ...], notices: builtins.list[_Notice]) -> None:
        if listeners:
            for record, event in notices:
                call_listeners(listeners, record, event)

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
        """Retained operations, most recently started or finished first (the mod's order),
        optionally filtered by status and exact method."""
        check_limit(limit)
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

    def result_of(self, operation_id: str) -> tuple[bool, Any, bool]:
        """``(retained, result, truncated)``: a retained result longer than 16,000 characters
        of JSON comes back as the first 16,000 characters (a string)."""
        with self._lock:
            if operation_id not in self._results:
                return False, None, False
            result = self._results[operation_id]
        try:
            text = json.dumps(result, default=str)
        except (TypeError, ValueError):
            return True, None, True
        if len(text) > _RESULT_CHARS:
            return True, text[:_RESULT_CHARS], True
        return True, result, False

    def result_truncated(self, operation_id: str) -> bool:
        """Whether the operation's retained result is cut (false when none is retained)."""
        return self.result_of(operation_id)[2]

    def envelope(self, record: OperationRecord, *, include_result: bool = False) -> dict[str, Any]:
        """``record`` on the wire without its events, with its retained result under ``Result``
        if asked (null otherwise); ``HasResult`` says whether a result is retained either way,
        as the mod's journal does."""
        if not include_result:
            with self._lock:
                retained = record.id in self._results
            return record.to_wire(include_events=False, has_result=retained)
        retained, result, truncated = self.result_of(record.id)
        return record.to_wire(
            include_events=False, has_result=retained, result=result, result_truncated=truncated
        )

    @property
    def latest_event_sequence(self) -> int:
        with self._lock:
            return self._next_sequence - 1

    def stream(
        self,
        *,
        after_sequence: int = 0,
        limit: int = 50,
        event_type: str | None = None,
        operation_id: str | None = None,
        keep: Callable[[OperationEvent], bool] | None = None,
    ) -> builtins.list[OperationEvent]:
        """Events of the journal-wide stream (starts and outcomes), newest first:
        ``sequence > after_sequence``, of the wire ``event_type`` (``operation.failed``) and
        operation when given, kept by ``keep``; the page is full while matches remain."""
        if limit <= 0:
            return []
        picked: builtins.list[OperationEvent] = []
        with self._lock:
            events = list(self._stream)
        for event in reversed(events):
            if event.sequence <= after_sequence:
                break
            if event_type and EVENT_TYPES[event.kind] != event_type:
                continue
            if operation_id and event.operation_id != operation_id:
                continue
            if keep is not None and not keep(event):
                continue
            picked.append(event)
            if len(picked) == limit:
                break
        return picked

    def stats(self) -> JournalStats:
        with self._lock:
            return JournalStats(
                capacity=self._capacity,
                size=len(self._operations),
                running=self._running,
                started=self._started,
                evicted=self._evicted,
                evicted_running=self._evicted_running,
                events=len(self._stream),
                event_capacity=self._stream.maxlen or 0,
                retained_results=len(self._results),
                result_capacity=self._result_capacity,
            )

    # -- listeners

    def subscribe(self, listener: JournalListener) -> Callable[[], None]:
        """Call ``listener(record, event)`` after every event; returns an unsubscriber."""
        return subscribe(self, listener)
