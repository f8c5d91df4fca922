"""The state the operation journal keeps of each operation (no locking here: the journal
owns every instance and guards it)."""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Final

from rimbridge_sim.diagnostics._records import (
    OUTCOME_KINDS,
    OperationEvent,
    OperationEventKind,
    OperationRecord,
    OperationStatus,
)

__all__ = ["OperationState"]

_new: Final = tuple.__new__
"""Builds a named tuple from a tuple of all its fields (half the cost of its ``__new__``)."""


class OperationState:
    """One operation as the journal holds it (under its lock).

    A call records two events, its start and its outcome, and on most calls nothing ever reads
    them: so the state keeps what they are made of (the clocks, the two stream sequences, the
    outcome) and builds the :class:`OperationEvent` objects only when something asks for them
    (a read, a listener, or a third event such as ``progress``, which makes the list real:
    :attr:`events`). Built later, an event is the same as built at once: every field of the
    start and of the outcome is fixed when it is recorded and never changes afterwards.
    """

    __slots__ = (
        "arguments_summary",
        "children",
        "end_has_result",
        "end_index",
        "end_sequence",
        "error",
        "error_code",
        "event_limit",
        "event_prefix",
        "events_dropped",
        "exception_type",
        "finished_at",
        "finished_wall",
        "id",
        "kept",
        "metadata",
        "method",
        "next_index",
        "parent_id",
        "result_summary",
        "root_id",
        "start_sequence",
        "started_at",
        "started_wall",
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
        metadata: dict[str, Any] | None = None,
        wall: float | None = None,
        sequence: int = 0,
        event_prefix: str = "",
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
        self.error_code: str | None = None
        self.exception_type: str | None = None
        self.started_wall = time.time() if wall is None else wall
        self.finished_wall: float | None = None
        self.children: list[str] | tuple[()] = ()
        self.kept: deque[OperationEvent] | None = None
        """The event list once it is real (see the class doc), else ``None``."""
        self.event_limit = event_limit
        self.events_dropped = 0
        self.next_index = 2
        self.metadata = metadata
        self.start_sequence = sequence
        self.end_sequence = 0
        self.end_index = 0
        self.end_has_result = False
        self.event_prefix = event_prefix

    # -- the two recorded events, built when asked for

    def started_event(self) -> OperationEvent:
        """The start, as recorded (index 1, the stream's ``start_sequence``)."""
        sequence = self.start_sequence
        return _new(
            OperationEvent,
            (
                1,
                "started",
                self.started_at,
                self.arguments_summary,
                sequence,
                self.id,
                self.method,
                self.started_wall,
                "running",
                f"{self.event_prefix}{sequence:012x}" if sequence else "",
                "",
                "",
                False,
                self.metadata,
            ),
        )

    def outcome_event(self) -> OperationEvent:
        """The outcome, as recorded (only once the operation has finished)."""
        sequence = self.end_sequence
        status = self.status
        error = self.error
        code = text = ""
        if status in OUTCOME_KINDS:
            code, text = self.error_code or f"tool.{status}", error or ""
        return _new(
            OperationEvent,
            (
                self.end_index,
                status,
                self.finished_at,
                error if error is not None else self.result_summary,
                sequence,
                self.id,
                self.method,
                self.finished_wall,
                status,
                f"{self.event_prefix}{sequence:012x}" if sequence else "",
                code,
                text,
                self.end_has_result,
                self.metadata,
            ),
        )

    def stream_event(self, sequence: int) -> OperationEvent:
        """The event of the journal-wide stream with ``sequence`` (the start or the outcome)."""
        return self.started_event() if sequence == self.start_sequence else self.outcome_event()

    @property
    def events(self) -> deque[OperationEvent]:
        """The retained events (bounded), made real on first use."""
        kept = self.kept
        if kept is None:
            kept = self.kept = deque(maxlen=self.event_limit)
            self._keep(self.started_event())
            if self.end_sequence:
                self._keep(self.outcome_event())
                self.next_index = self.end_index + 1
        return kept

    def _keep(self, event: OperationEvent) -> None:
        kept = self.kept
        assert kept is not None
        if len(kept) == kept.maxlen:
            self.events_dropped += 1
        kept.append(event)

    def finished(self, sequence: int, has_result: bool) -> OperationEvent | None:
        """Note the outcome just set (status, clocks, texts) as recorded with ``sequence``;
        returns its event when the list is real (it is added to it), else ``None``."""
        self.end_sequence = sequence
        self.end_has_result = has_result
        if self.kept is None:
            self.end_index = 2
            return None
        self.end_index = self.next_index
        self.next_index += 1
        event = self.outcome_event()
        self._keep(event)
        return event

    def add(self, kind: OperationEventKind, message: str | None, now: float) -> OperationEvent:
        """Add an event that is not in the stream (``progress``, ``log``, ``child_started``)."""
        if self.kept is None:
            self.events  # noqa: B018 (made real: the new event goes after the recorded ones)
        event = _new(
            OperationEvent,
            (
                self.next_index,
                kind,
                now,
                message,
                0,
                self.id,
                self.method,
                time.time(),
                self.status,
                "",
                "",
                "",
                False,
                self.metadata,
            ),
        )
        self.next_index += 1
        self._keep(event)
        return event

    def add_child(self, child_id: str) -> None:
        children = self.children
        if isinstance(children, tuple):
            children = self.children = []
        children.append(child_id)

    def snapshot(self) -> OperationRecord:
        events = self.events
        return _new(
            OperationRecord,
            (
                self.id,
                self.method,
                self.parent_id,
                self.root_id,
                self.status,
                self.started_at,
                self.finished_at,
                self.arguments_summary,
                self.result_summary,
                self.error,
                tuple(self.children),
                tuple(events),
                self.events_dropped,
                self.started_wall,
                self.finished_wall,
                self.error_code,
                self.exception_type,
                self.metadata,
            ),
        )
