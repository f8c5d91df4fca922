"""From the diagnostics plane into ``lib_gab`` attention: classify, attribute, report.

An :class:`AttentionFeed` listens to a :class:`~rimbridge_sim.diagnostics.LogRing` and an
:class:`~rimbridge_sim.diagnostics.OperationJournal`, asks a
:class:`~rimbridge_sim.policy.Policy` how each log line and operation event counts, and reports
the attention-worthy ones to a :class:`lib_gab.AttentionManager` (which coalesces them, keeps
the ids and rate-limits the notifications). It runs on the thread that logged, synchronously, so
attention raised while a ``tools/call`` runs is handed to the manager before the call returns.

What each report carries:

* **Log lines.** Every line counts, repeats included: a line collapsed into the previous entry
  is still one urgent entry (500 identical errors: ``totalUrgentEntries`` 500, one sample with
  ``repeatCount`` 500). ``level`` is the line's and ``message`` its text as the mod's
  aggregator samples it (:func:`sample_text`: one line, trimmed, at most 220 characters); the
  signature is the level and that text, so the same text from two sources is one sample and an
  error and a fatal line with the same text are two, as in the mod; ``sequence`` is the line's
  own sequence (the entry's ``latest_sequence``); ``diagnostics_cursor`` is that sequence minus
  one, so ``list_logs {afterSequence: cursor}`` starts exactly at the entry holding the line
  (for line 0 there is no cursor: a ``list_logs`` without one starts there). The manager keeps
  the latest cursor given, so an item's cursor points at its most recent trigger.
* **Operation events** the policy classifies (by default the outcomes ``failed``,
  ``cancelled``, ``timed_out``): level ``error`` when blocking (``fatal`` for ``timed_out``, as
  the mod ranks it), ``warning`` when advisory; message ``"<method> failed: <error>"``
  (``cancelled``, ``timed out``, ...; the method is the operation's own, e.g. the failing
  script step; the error as :func:`sample_text` gives it); ``sequence`` the ring's latest
  sequence at the time (operation events are not log lines) and, as the mod sets it, that
  sequence minus one as the cursor (none while the ring is empty), so ``list_logs`` from it
  shows the latest line.
* **Cause.** ``causal_operation_id`` is the root of the entry's operation (the ``tools/call``
  request id the bridge knows, also for script steps and follow-up work) and
  ``causal_method`` that root's method, from the journal. ``attribute_to="operation"``
  names the entry's own operation instead. Entries with no operation leave the cause to the
  manager's operation provider.

Every report sets ``blocking`` and ``state_invalidated`` explicitly, so the manager's own policy
(use ``lib_gab``'s default one) only confirms the feed's decision.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from lib_gab.attention import AttentionManager, Level, UrgentEntry
from lib_gab.operation import current_operation
from rimbridge_sim.diagnostics import (
    LogEntry,
    LogRing,
    OperationEvent,
    OperationJournal,
    OperationRecord,
)
from rimbridge_sim.policy import Policy

__all__ = ["AttentionFeed", "FeedStats", "sample_text"]

_VERBS = {"failed": "failed", "cancelled": "cancelled", "timed_out": "timed out"}

SAMPLE_TEXT_LIMIT = 220
"""The longest text the mod's aggregator keeps of a message (longer ones end in ``...``)."""

NO_DETAIL = "No detail provided."


def sample_text(message: str) -> str:
    """A message as the mod's attention aggregator keeps it in samples and summaries: line
    breaks become spaces, the ends are trimmed, a blank message is :data:`NO_DETAIL`, and a
    longer one is cut to its first 217 characters and ``...``."""
    if "\r" in message or "\n" in message:
        message = message.replace("\r", " ").replace("\n", " ")
    message = message.strip()
    if not message:
        return NO_DETAIL
    if len(message) > SAMPLE_TEXT_LIMIT:
        return message[: SAMPLE_TEXT_LIMIT - 3] + "..."
    return message


@dataclass(frozen=True, slots=True)
class FeedStats:
    log_lines_seen: int
    log_lines_reported: int
    operation_events_seen: int
    operation_events_reported: int


class AttentionFeed:
    """Subscribes to a log ring and an operation journal and reports to an attention manager.

    Args:
        manager: receives the urgent entries.
        policy: decides which lines and events count (see :mod:`rimbridge_sim.policy`).
        ring: the log ring to listen to (also read for the sequence of operation events).
        journal: the operation journal to listen to and to resolve causes in.
        attribute_to: ``"root"`` (default) names the ``tools/call`` at the root of the entry's
            operation as the cause; ``"operation"`` names the entry's own operation.

    Use it as a context manager, or call :meth:`close` to unsubscribe.
    """

    def __init__(
        self,
        manager: AttentionManager,
        policy: Policy,
        ring: LogRing,
        journal: OperationJournal,
        *,
        attribute_to: Literal["root", "operation"] = "root",
    ) -> None:
        if attribute_to not in ("root", "operation"):
            raise ValueError(f"attribute_to must be 'root' or 'operation', got {attribute_to!r}")
        self._manager = manager
        self._policy = policy
        self._ring = ring
        self._journal = journal
        self._to_root = attribute_to == "root"
        self._lock = threading.Lock()
        self._log_seen = 0
        self._log_reported = 0
        self._op_seen = 0
        self._op_passed = 0
        """Operation events the filter passed over (seen, never classified)."""
        self._op_reported = 0
        self._unsubscribers: list[Callable[[], None]] = [
            ring.subscribe(self._on_log),
            journal.subscribe(self._on_operation, takes=self._takes_operation_event),
        ]

    def __repr__(self) -> str:
        return f"<AttentionFeed policy={self._policy.name!r}>"

    def __enter__(self) -> AttentionFeed:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop listening (idempotent)."""
        unsubscribers, self._unsubscribers = self._unsubscribers, []
        for unsubscribe in unsubscribers:
            unsubscribe()

    @property
    def policy(self) -> Policy:
        return self._policy

    @policy.setter
    def policy(self, policy: Policy) -> None:
        """Switch policies at run time (applies to the next line or event)."""
        self._policy = policy

    @property
    def stats(self) -> FeedStats:
        with self._lock:
            return FeedStats(
                self._log_seen,
                self._log_reported,
                self._op_seen + self._op_passed,
                self._op_reported,
            )

    # -- causes

    def _cause(self, operation_id: str | None) -> tuple[str | None, str | None]:
        if operation_id is None:
            return None, None
        if self._to_root:
            cause, method = self._journal.resolve_root(operation_id)
        else:
            cause, method = operation_id, self._journal.method_of(operation_id)
        if method is None:  # not journaled: the running request may still name it
            running = current_operation()
            if running is not None and running.id == cause:
                method = running.method
        return cause, method

    # -- listeners

    def _on_log(self, entry: LogEntry, collapsed: bool) -> None:
        decision = self._policy.classify_line(entry.level, entry.source, entry.message)
        if decision is None or entry.level == "debug":
            with self._lock:
                self._log_seen += 1
            return
        if self._to_root:
            cause, method = self._cause(entry.root_operation_id or entry.operation_id)
        else:
            cause, method = self._cause(entry.operation_id or entry.root_operation_id)
        sequence = entry.latest_sequence
        text = sample_text(entry.message)
        self._manager.report(
            UrgentEntry(
                entry.level,
                text,
                f"{entry.level}\n{text}",
                sequence,
                decision.blocking,
                decision.state_invalidated,
                cause,
                method,
                sequence - 1 if sequence > 0 else None,
            )
        )
        with self._lock:
            self._log_seen += 1
            self._log_reported += 1

    def _takes_operation_event(self, kind: str, method: str) -> bool:
        """The journal's filter (under its lock): the events the policy may count go to
        :meth:`_on_operation`; the others (a call's start and most completions) are only
        counted as seen, without an event or a record built for them."""
        if kind in self._policy.operation_kinds:  # may_count_operation without its call
            return True
        self._op_passed += 1  # only ever changed here, under the journal's lock: no lock of ours
        return False

    def _on_operation(self, record: OperationRecord, event: OperationEvent) -> None:
        kind = event.kind
        decision = self._policy.classify_operation(record, kind)
        if decision is None:
            with self._lock:
                self._op_seen += 1
            return
        verb = _VERBS.get(kind, kind)
        detail = record.error if kind in _VERBS else record.result_summary
        if detail and not detail.isspace():
            message = f"{record.method} {verb}: {sample_text(detail)}"
        else:
            message = f"{record.method} {verb}"
        level: Level = "warning"
        if decision.blocking:  # the mod ranks a timed-out operation fatal, any other error
            level = "fatal" if kind == "timed_out" else "error"
        cause, method = self._cause(record.id)
        latest = self._ring.latest_sequence
        self._manager.report(
            UrgentEntry(
                level,
                message,
                f"{level}\n{message}",
                latest if latest is not None else 0,
                decision.blocking,
                decision.state_invalidated,
                cause,
                method,
                latest - 1 if latest else None,
            )
        )
        with self._lock:
            self._op_seen += 1
            self._op_reported += 1
