"""The diagnostics plane: a bounded log ring with cursors and a journal of operations.

This is the evidence an attention item points into. Both are pure and synchronous (no I/O, no
asyncio) and thread-safe with one lock each; listeners are called after the lock is released,
on the thread that made the change (a journal listener's event filter, if it has one, under the
lock: only the events it takes get a record snapshot built).

* :mod:`~rimbridge_sim.diagnostics.log_ring`: :class:`LogRing`, every line the game writes,
  sequenced from 1, identical consecutive lines collapsed, queried like ``rimbridge/list_logs``.
* :mod:`~rimbridge_sim.diagnostics.script_context`: the script step running now, which every
  line logged during it carries.
* :mod:`~rimbridge_sim.diagnostics.journal`: :class:`OperationJournal`, every operation by id
  with parent/child links, per-operation events, one journal-wide event stream and a few
  retained results.
"""

from __future__ import annotations

from lib_gab.operation import current_operation
from rimbridge_sim.diagnostics._common import (
    LEVELS,
    LogLevel,
    iso_utc,
    level_rank,
    new_operation_id,
    query_rank,
)
from rimbridge_sim.diagnostics._records import (
    EVENT_TYPES,
    OPERATION_EVENT_KINDS,
    OPERATION_STATUSES,
    OUTCOME_KINDS,
    STATUS_CODES,
    STATUS_NAMES,
    STREAM_KINDS,
    JournalListener,
    JournalStats,
    OperationEvent,
    OperationEventKind,
    OperationRecord,
    OperationStatus,
    UnknownOperationError,
)
from rimbridge_sim.diagnostics.journal import OperationJournal
from rimbridge_sim.diagnostics.log_ring import LogEntry, LogListener, LogPage, LogRing, RingStats
from rimbridge_sim.diagnostics.script_context import (
    ScriptStep,
    current_script_step,
    in_script_step,
)

__all__ = [
    "EVENT_TYPES",
    "LEVELS",
    "OPERATION_EVENT_KINDS",
    "OPERATION_STATUSES",
    "OUTCOME_KINDS",
    "STATUS_CODES",
    "STATUS_NAMES",
    "STREAM_KINDS",
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
    "ScriptStep",
    "UnknownOperationError",
    "current_script_step",
    "in_script_step",
    "iso_utc",
    "level_rank",
    "log_with_operation",
    "new_operation_id",
    "query_rank",
]


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
