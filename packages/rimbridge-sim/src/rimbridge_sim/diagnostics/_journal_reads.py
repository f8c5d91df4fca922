"""The operation journal's reads (:class:`~rimbridge_sim.diagnostics.OperationJournal` is
one): records, events, children, retained results and the journal-wide stream, each taken
under the journal's lock."""

from __future__ import annotations

import builtins
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from rimbridge_sim.diagnostics._common import check_limit
from rimbridge_sim.diagnostics._records import (
    EVENT_TYPES,
    OPERATION_STATUSES,
    JournalStats,
    OperationEvent,
    OperationRecord,
    OperationStatus,
    UnknownOperationError,
)
from rimbridge_sim.diagnostics._snapshot import bounded_copy
from rimbridge_sim.diagnostics._state import OperationState

__all__ = ["JournalReads"]


class JournalReads:
    """What :class:`~rimbridge_sim.diagnostics.OperationJournal` answers (its state is
    declared here, set and written there)."""

    _capacity: int
    _lock: threading.Lock
    _operations: OrderedDict[str, OperationState]
    _running: int
    _started: int
    _evicted: int
    _evicted_running: int
    _stream: deque[OperationState]
    _next_sequence: int
    _results: OrderedDict[str, Any]
    _result_capacity: int

    def _get(self, operation_id: str) -> OperationState:
        operation = self._operations.get(operation_id)
        if operation is None:
            raise UnknownOperationError(operation_id)
        return operation

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
        """``(retained, result, truncated)``: the retained result within the mod's bounds
        (:func:`~rimbridge_sim.diagnostics._snapshot.bounded_copy`: six levels, 64 entries per
        object or array, 1024 characters per string), and whether anything was cut."""
        with self._lock:
            if operation_id not in self._results:
                return False, None, False
            result = self._results[operation_id]
        copy, truncated = bounded_copy(result)
        return True, copy, truncated

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
            # each entry is the operation of one event, the newest last with the newest
            # sequence; an event is built here, from what its operation recorded
            operations = list(self._stream)
            newest = self._next_sequence - 1
        for offset, operation in enumerate(reversed(operations)):
            sequence = newest - offset
            if sequence <= after_sequence:
                break
            if operation_id and operation.id != operation_id:
                continue
            event = operation.stream_event(sequence)
            if event_type and EVENT_TYPES[event.kind] != event_type:
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
