"""The records the operation journal keeps and hands out (no locking here: the journal
owns every instance and guards it).

The two immutable records, :class:`OperationEvent` and :class:`OperationRecord`, are named
tuples: every tool call makes two of each, and a named tuple is built in a fifth of the time
of a frozen dataclass with as many fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple, Protocol, TypeAlias

from rimbridge_sim.clock import whole_ms
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.diagnostics._common import iso_utc

__all__ = [
    "EVENT_TYPES",
    "OPERATION_EVENT_KINDS",
    "OPERATION_STATUSES",
    "OUTCOME_KINDS",
    "STATUS_CODES",
    "STATUS_NAMES",
    "STREAM_KINDS",
    "JournalListener",
    "JournalStats",
    "OperationEvent",
    "OperationEventKind",
    "OperationRecord",
    "OperationStatus",
    "UnknownOperationError",
    "wire_envelope",
]

OperationStatus: TypeAlias = Literal["running", "completed", "failed", "cancelled", "timed_out"]
OperationEventKind: TypeAlias = Literal[
    "started", "progress", "completed", "failed", "cancelled", "timed_out", "child_started", "log"
]

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
STATUS_CODES: Final[dict[str, int]] = {
    "pending": 0,
    "running": 1,
    "completed": 2,
    "failed": 3,
    "timed_out": 4,
    "cancelled": 5,
}
"""The mod's ``OperationStatus`` enum value of each status, as its records carry it on the wire
(Newtonsoft's default settings write enums as integers)."""
STATUS_NAMES: Final[dict[str, str]] = {
    "pending": "Pending",
    "running": "Running",
    "completed": "Completed",
    "failed": "Failed",
    "timed_out": "TimedOut",
    "cancelled": "Cancelled",
}
"""The enum member name of each status (``OperationStatus.ToString()``: the mod's
``wait_for_operation`` message and a script step's reference root)."""
OUTCOME_KINDS: Final[tuple[OperationEventKind, ...]] = ("failed", "cancelled", "timed_out")
"""Event kinds that end an operation unsuccessfully (``fail(kind=...)``)."""
STREAM_KINDS: Final[frozenset[OperationEventKind]] = frozenset(
    ("started", "completed", "failed", "cancelled", "timed_out")
)
"""The kinds that also go into the journal-wide stream (``rimbridge/list_operation_events``):
the mod's event types, a start and an outcome. ``progress``, ``child_started`` and ``log``
stay on their operation's own event list."""
EVENT_TYPES: Final[dict[str, str]] = {kind: f"operation.{kind}" for kind in OPERATION_EVENT_KINDS}
"""The wire ``eventType`` of each kind (``operation.started``, ``operation.failed``, ...)."""


_new: Final = tuple.__new__
"""Builds a named tuple from a tuple of all its fields: half the cost of the generated
``__new__`` with as many arguments (every call builds two events and up to two snapshots)."""


class UnknownOperationError(KeyError):
    """No such operation in the journal (never started, or already evicted)."""

    def __init__(self, operation_id: str) -> None:
        super().__init__(operation_id)
        self.operation_id = operation_id

    def __str__(self) -> str:
        return f"unknown operation {self.operation_id!r} (never started or already evicted)"


class OperationEvent(NamedTuple):
    """One step in an operation's life; ``index`` rises from 1 per operation (the field hides
    ``tuple.index``, which nothing here uses). An event of the journal-wide stream
    (:data:`STREAM_KINDS`) has a ``sequence`` rising from 1 across the journal and an
    ``event_id``; the others have ``sequence`` 0 and no id."""

    index: int  # type: ignore[assignment]
    kind: OperationEventKind
    time: float
    message: str | None = None
    sequence: int = 0
    operation_id: str = ""
    method: str = ""
    wall_time: float = 0.0
    status: OperationStatus = "running"
    event_id: str = ""
    error_code: str = ""
    error_message: str = ""
    has_result: bool = False
    """A result was retained for the operation when the event was recorded."""
    metadata: dict[str, Any] | None = None
    """The operation's metadata (the mod copies it into each event record)."""

    def to_wire(self, *, result_truncated: bool = False) -> dict[str, Any]:
        """The mod's ``OperationEventRecord`` (PascalCase, ``Status`` as the enum's integer;
        ``Success`` is the operation's at that moment, so false on ``operation.started``; the
        error fields are empty strings without an error, as the mod sends them), then the
        sim's ``index``, ``kind`` and ``message``. ``Sequence`` and ``EventId`` are null on an
        event that is not in the journal-wide stream."""
        return {
            "Sequence": self.sequence or None,
            "EventId": self.event_id or None,
            "EventType": EVENT_TYPES[self.kind],
            "OperationId": self.operation_id,
            "CapabilityId": capability_id(self.method),
            "Status": STATUS_CODES[self.status],
            "Success": self.status == "completed",
            "TimestampUtc": iso_utc(self.wall_time),
            "ErrorCode": self.error_code,
            "ErrorMessage": self.error_message,
            "HasResult": self.has_result,
            "ResultWasTruncated": result_truncated,
            "WarningCount": 0,
            "Metadata": dict(self.metadata or {}),
            "index": self.index,
            "kind": self.kind,
            "message": self.message,
        }


class OperationRecord(NamedTuple):
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
    started_wall: float = 0.0
    finished_wall: float | None = None
    error_code: str | None = None
    exception_type: str | None = None
    metadata: dict[str, Any] | None = None
    """What the mod's registry records for the call (``requestedId``, ``providerId``,
    ``category``, ``arguments``, and for a child ``parentOperationId``,
    ``parentCapabilityId``, ``rootOperationId``); the journal's reads show it."""

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def success(self) -> bool:
        return self.status == "completed"

    def envelope(
        self,
        *,
        has_result: bool,
        result: Any = None,
        result_truncated: bool = False,
        metadata: bool = False,
    ) -> dict[str, Any]:
        """The mod's ``OperationEnvelope`` of the operation and nothing more (see
        :func:`wire_envelope`). A call's answer carries it under ``operation`` with ``Result``
        null and empty ``Metadata`` (the handler's envelope, not the journal's copy); the
        journal's reads pass ``metadata=True``."""
        return wire_envelope(self, has_result, result, result_truncated, metadata)

    def to_wire(
        self,
        *,
        include_events: bool = True,
        has_result: bool = False,
        result: Any = None,
        result_truncated: bool = False,
    ) -> dict[str, Any]:
        """The operation as the journal's reads show it: :meth:`envelope` with its metadata,
        then the journal's links and summaries (``method``, ``parentId``, ``rootId``, the two
        summaries, ``children``, ``eventsDropped``) and the events when asked."""
        wire = self.envelope(
            has_result=has_result, result=result, result_truncated=result_truncated, metadata=True
        )
        wire["method"] = self.method
        wire["parentId"] = self.parent_id
        wire["rootId"] = self.root_id
        wire["argumentsSummary"] = self.arguments_summary
        wire["resultSummary"] = self.result_summary
        wire["children"] = list(self.children)
        wire["eventsDropped"] = self.events_dropped
        if include_events:
            wire["events"] = [event.to_wire() for event in self.events]
        return wire


class _Enveloped(Protocol):
    """What :func:`wire_envelope` reads: an :class:`OperationRecord` or, under the journal's
    lock, an :class:`OperationState`."""

    @property
    def id(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def status(self) -> OperationStatus: ...
    @property
    def started_at(self) -> float: ...
    @property
    def finished_at(self) -> float | None: ...
    @property
    def started_wall(self) -> float: ...
    @property
    def finished_wall(self) -> float | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def error_code(self) -> str | None: ...
    @property
    def exception_type(self) -> str | None: ...
    @property
    def metadata(self) -> dict[str, Any] | None: ...


def wire_envelope(
    operation: _Enveloped,
    has_result: bool,
    result: Any = None,
    result_truncated: bool = False,
    metadata: bool = False,
) -> dict[str, Any]:
    """The mod's ``OperationEnvelope`` of ``operation`` as Newtonsoft writes it with default
    settings: PascalCase keys in declaration order, ``Status`` as the enum's integer, nulls
    included; ``Metadata`` is a copy of the operation's when ``metadata``, else empty."""
    finished_at = operation.finished_at
    finished_wall = operation.finished_wall
    status = operation.status
    error_text = operation.error
    error = None
    if error_text is not None:
        error = {
            "Code": operation.error_code or f"tool.{status}",
            "Message": error_text,
            "ExceptionType": operation.exception_type,
            "Details": None,
        }
    return {
        "OperationId": operation.id,
        "CapabilityId": capability_id(operation.method),
        "Status": STATUS_CODES[status],
        "Success": status == "completed",
        "StartedAtUtc": iso_utc(operation.started_wall),
        "CompletedAtUtc": None if finished_wall is None else iso_utc(finished_wall),
        "DurationMs": (
            None if finished_at is None else whole_ms(finished_at - operation.started_at)
        ),
        "Result": result,
        "HasResult": has_result,
        "ResultWasTruncated": result_truncated,
        "Warnings": [],
        "Error": error,
        "Metadata": dict(operation.metadata or {}) if metadata else {},
    }


@dataclass(frozen=True, slots=True)
class JournalStats:
    capacity: int
    size: int
    running: int
    started: int
    evicted: int
    evicted_running: int
    """Operations evicted while still running (only when every retained one was running)."""
    events: int = 0
    """Events in the journal-wide stream."""
    event_capacity: int = 0
    retained_results: int = 0
    result_capacity: int = 0


JournalListener: TypeAlias = Callable[[OperationRecord, OperationEvent], None]
"""Called with ``(record after the event, event)`` for every event recorded."""
