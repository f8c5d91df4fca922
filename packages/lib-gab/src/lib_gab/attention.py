"""The attention state machine a game server embeds: one open item, coalesced and bounded.

An integration reports *urgent entries* (a log error, a lost map, a stalled job) to an
:class:`AttentionManager`. A policy classifies each entry as blocking, advisory or not
attention-worthy. The manager keeps at most one open item: the first classified entry opens it,
later ones update it (max severity, counts, a bounded sample of distinct signatures with the root
cause pinned, latest sequence), and an ``ack`` with the item's id clears it. A listener is told
what to publish on ``attention/opened``, ``attention/updated`` and ``attention/cleared``;
updates are rate-limited with a guaranteed trailing update (see :meth:`AttentionManager.flush_due`).

The manager is pure and synchronous: no I/O, no asyncio. It is thread-safe; the listener is
never called with the manager's lock held, never concurrently with itself, and always in the
order the notifications were produced. When :meth:`AttentionManager.report`,
:meth:`AttentionManager.ack` or :meth:`AttentionManager.flush_due` returns, the notifications
it produced have been handed to the listener, so a server that sends a call's response after
the call returns sends the call's attention events first. The one exception: if another thread
is delivering at that moment (or the call comes from inside the listener), that thread delivers
them right after its own, and the call returns without waiting for it (waiting could deadlock
a listener that hands events to the very thread that is reporting). Keep the listener short
and non-blocking: it runs on whichever thread reported.

Reporting an entry that only updates the open item is cheap (no pydantic, no formatting): wire
objects are built only when a notification goes out or :meth:`AttentionManager.current` /
:meth:`AttentionManager.ack` asks for one.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, TypeAlias

from gabp.messages import Attention, AttentionAckResult, AttentionSample, ClearedAttention

__all__ = [
    "CHANNEL_CLEARED",
    "CHANNEL_OPENED",
    "CHANNEL_UPDATED",
    "AckOutcome",
    "AttentionListener",
    "AttentionManager",
    "AttentionPolicy",
    "AttentionStats",
    "Classification",
    "DefaultAttentionPolicy",
    "Level",
    "OperationProvider",
    "UrgentEntry",
]

logger = logging.getLogger("lib_gab.attention")

Level: TypeAlias = Literal["info", "warning", "error", "fatal"]
"""Severity of an urgent entry and of an item, ordered ``info < warning < error < fatal``."""

CHANNEL_OPENED: Final = "attention/opened"
CHANNEL_UPDATED: Final = "attention/updated"
CHANNEL_CLEARED: Final = "attention/cleared"

AttentionListener: TypeAlias = Callable[[str, Attention], None]
"""Called with ``(channel, item)`` for every notification to publish."""

OperationProvider: TypeAlias = Callable[[], tuple[str, str] | None]
"""Returns ``(operation_id, method)`` of the operation running in the calling context, if any."""

_LEVELS: Final[tuple[Level, ...]] = ("info", "warning", "error", "fatal")
_RANK: Final[dict[str, int]] = {level: rank for rank, level in enumerate(_LEVELS)}
_ELLIPSIS: Final = "…"
_EMPTY_MESSAGE: Final = "(empty message)"  # the wire wants non-empty sample messages
_DISTINCT_TRACK_LIMIT: Final = 10_000
"""Distinct signatures remembered per item; past this the summary says ``10000+ distinct``."""


# --- attention ids ------------------------------------------------------------------------------

_id_lock = threading.Lock()
_id_counter = itertools.count(1)
_id_prefix = secrets.token_hex(3)


def _reseed_id_prefix() -> None:  # pragma: no cover - runs in forked children
    global _id_prefix
    _id_prefix = secrets.token_hex(3)


if hasattr(os, "register_at_fork"):  # a forked child must not repeat its parent's ids
    os.register_at_fork(after_in_child=_reseed_id_prefix)


def _new_attention_id() -> str:
    """A process-wide unique id, ``att-<random prefix>-<n>``, shared by every manager."""
    with _id_lock:
        number = next(_id_counter)
        prefix = _id_prefix
    return f"att-{prefix}-{number}"


# --- what integrations report and how it is classified ----------------------------------------


@dataclass(frozen=True, slots=True)
class UrgentEntry:
    """One urgent diagnostics-plane entry an integration reports.

    ``signature`` is the identity used for coalescing (default: the message after truncation).
    ``sequence`` is the diagnostics-plane sequence, e.g. the log ring index (default: the
    manager's own counter). ``blocking`` and ``state_invalidated`` override the policy when not
    ``None``. ``causal_operation_id`` / ``causal_method`` default to the manager's operation
    provider. Negative sequences and cursors and unknown levels raise :class:`ValueError`.
    """

    level: Level
    message: str
    signature: str | None = None
    sequence: int | None = None
    blocking: bool | None = None
    state_invalidated: bool | None = None
    causal_operation_id: str | None = None
    causal_method: str | None = None
    diagnostics_cursor: int | None = None

    def __post_init__(self) -> None:
        if self.level not in _RANK:
            raise ValueError(f"level must be one of {', '.join(_LEVELS)}, got {self.level!r}")
        if type(self.message) is not str:
            raise TypeError(f"message must be a str, got {type(self.message).__name__}")
        if self.sequence is not None and self.sequence < 0:
            raise ValueError(f"sequence must be >= 0, got {self.sequence}")
        if self.diagnostics_cursor is not None and self.diagnostics_cursor < 0:
            raise ValueError(f"diagnostics_cursor must be >= 0, got {self.diagnostics_cursor}")


@dataclass(frozen=True, slots=True)
class Classification:
    """How a policy rates an attention-worthy entry."""

    blocking: bool
    state_invalidated: bool = False


class AttentionPolicy(Protocol):
    """Decides whether an entry deserves attention, and whether it blocks."""

    def classify(self, entry: UrgentEntry) -> Classification | None:
        """The classification of ``entry``, or ``None`` when it is not attention-worthy."""
        ...


_CLASSIFICATIONS: Final = (
    (Classification(False, False), Classification(False, True)),
    (Classification(True, False), Classification(True, True)),
)


class DefaultAttentionPolicy:
    """``error`` and ``fatal`` block, ``warning`` is advisory, ``info`` is ignored.

    An entry's own ``blocking`` / ``state_invalidated``, when not ``None``, override the level's
    default; setting either makes even an ``info`` entry attention-worthy.
    """

    __slots__ = ()

    def classify(self, entry: UrgentEntry) -> Classification | None:
        level = entry.level
        blocking = entry.blocking
        invalidated = entry.state_invalidated
        if blocking is None:
            if level == "info" and invalidated is None:
                return None
            blocking = level == "error" or level == "fatal"
        return _CLASSIFICATIONS[blocking][invalidated is True]

    def __repr__(self) -> str:
        return "DefaultAttentionPolicy()"


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AckOutcome:
    """The answer to ``attention/ack``."""

    acknowledged: bool
    attention_id: str
    current: Attention | None
    """The item still open after the ack (``None`` when nothing is open)."""

    def to_wire(self) -> dict[str, Any]:
        """``{"acknowledged", "attentionId", "currentAttention"}``, the ``attention/ack`` result."""
        return AttentionAckResult(
            acknowledged=self.acknowledged,
            attention_id=self.attention_id,
            current_attention=self.current,
        ).to_wire()


@dataclass(frozen=True, slots=True)
class AttentionStats:
    """Counters since the manager was built."""

    entries_seen: int
    """Every entry reported, attention-worthy or not."""
    entries_ignored: int
    """Entries the policy did not classify."""
    items_opened: int
    events_emitted: dict[str, int] = field(default_factory=dict)
    """Notifications produced per kind: ``opened``, ``updated``, ``cleared``."""


# --- internal state (plain objects: the hot path never touches pydantic) ------------------------


class _Sample:
    __slots__ = ("latest", "message", "rank", "repeat")

    def __init__(self, rank: int, message: str, latest: int) -> None:
        self.rank = rank
        self.message = message
        self.repeat = 1
        self.latest = latest


class _Item:
    __slots__ = (
        "attention_id",
        "blocking",
        "causal_method",
        "causal_operation_id",
        "cursor",
        "distinct",
        "distinct_saturated",
        "last_notified",
        "latest",
        "opened_at",
        "pending",
        "rank",
        "root",
        "samples",
        "state_invalidated",
        "summary_limit",
        "total",
        "worst_message",
    )

    def __init__(
        self,
        attention_id: str,
        rank: int,
        blocking: bool,
        state_invalidated: bool,
        sequence: int,
        signature: str,
        root: _Sample,
        causal_operation_id: str | None,
        causal_method: str | None,
        cursor: int | None,
        now: float,
    ) -> None:
        self.attention_id = attention_id
        self.rank = rank
        self.blocking = blocking
        self.state_invalidated = state_invalidated
        self.opened_at = sequence
        self.latest = sequence
        self.total = 1
        self.causal_operation_id = causal_operation_id
        self.causal_method = causal_method
        self.cursor = cursor
        self.root = root
        self.samples: dict[str, _Sample] = {signature: root}  # root first, then LRU order
        self.distinct: set[str] = {signature}
        self.distinct_saturated = False
        self.last_notified = now
        self.pending = False
        self.worst_message: str | None = None
        """The message that raised the severity above the root cause's, if one did."""
        self.summary_limit = 10_000


SUMMARY_EXTRA = 80
"""A summary is at most ``message_limit + SUMMARY_EXTRA`` characters."""

_Capture: TypeAlias = dict[str, Any]
"""Plain-data copy of an item, taken under the lock, turned into a wire model outside it."""


def _capture(item: _Item, *, cleared: bool = False) -> _Capture:
    root = item.root
    level = _LEVELS[root.rank]
    if item.worst_message is not None and item.rank > root.rank:
        # the summary describes the worst thing in the item, and still names how it began
        summary = f"{_LEVELS[item.rank]}: {item.worst_message} (opened by {level}: {root.message})"
    else:
        summary = f"{level}: {root.message}"
    if item.total > 1:
        distinct = f"{len(item.distinct)}{'+' if item.distinct_saturated else ''}"
        summary += f" ({item.total} entries, {distinct} distinct)"
    if len(summary) > item.summary_limit:
        summary = summary[: item.summary_limit - 1] + _ELLIPSIS
    data: _Capture = {
        "attention_id": item.attention_id,
        "state": "cleared" if cleared else "open",
        "severity": _LEVELS[item.rank],
        "blocking": False if cleared else item.blocking,
        "state_invalidated": item.state_invalidated,
        "summary": summary,
        "opened_at_sequence": item.opened_at,
        "latest_sequence": item.latest,
        "total_urgent_entries": item.total,
        "sample": [(s.rank, s.message, s.repeat, s.latest) for s in item.samples.values()],
    }
    if item.causal_operation_id is not None:
        data["causal_operation_id"] = item.causal_operation_id
        if item.causal_method is not None:
            data["causal_method"] = item.causal_method
    if item.cursor is not None:
        data["diagnostics_cursor"] = item.cursor
    return data


def _build(data: _Capture) -> Attention:
    fields = dict(data)
    fields["sample"] = [
        AttentionSample(
            level=_LEVELS[rank], message=message, repeat_count=repeat, latest_sequence=latest
        )
        for rank, message, repeat, latest in data["sample"]
    ]
    model = ClearedAttention if data["state"] == "cleared" else Attention
    return model(**fields)


# --- the manager ---------------------------------------------------------------------------------


class AttentionManager:
    """Holds at most one open attention item and tells a listener what to publish.

    Args:
        policy: classifies entries (default :class:`DefaultAttentionPolicy`).
        sample_limit: distinct signatures kept in an item's sample (>= 1, root included).
        message_limit: characters kept of a message (>= 16; cut messages end in ``…``).
        update_interval: minimum seconds between two notifications for one item (>= 0;
            0 disables rate limiting).
        operation_provider: returns ``(operation_id, method)`` of the operation running in
            the reporting context, used when an entry names no cause.
        clock: monotonic seconds (a fake one in tests).
        listener: receives ``(channel, item)`` notifications.
    """

    def __init__(
        self,
        *,
        policy: AttentionPolicy | None = None,
        sample_limit: int = 5,
        message_limit: int = 500,
        update_interval: float = 0.25,
        operation_provider: OperationProvider | None = None,
        clock: Callable[[], float] = time.monotonic,
        listener: AttentionListener | None = None,
    ) -> None:
        if isinstance(sample_limit, bool) or not isinstance(sample_limit, int) or sample_limit < 1:
            raise ValueError(f"sample_limit must be an int >= 1, got {sample_limit!r}")
        if (
            isinstance(message_limit, bool)
            or not isinstance(message_limit, int)
            or message_limit < 16
        ):
            raise ValueError(f"message_limit must be an int >= 16, got {message_limit!r}")
        if isinstance(update_interval, bool) or not (
            isinstance(update_interval, int | float) and 0 <= update_interval < math.inf
        ):
            raise ValueError(
                f"update_interval must be a finite number >= 0, got {update_interval!r}"
            )
        self._policy: AttentionPolicy = policy if policy is not None else DefaultAttentionPolicy()
        self._sample_limit = sample_limit
        self._message_limit = message_limit
        self._interval = float(update_interval)
        self._operation_provider = operation_provider
        self._clock = clock
        self._listener = listener

        self._lock = threading.Lock()
        self._item: _Item | None = None
        self._next_sequence = 0
        # notifications waiting for the listener: (channel, capture)
        self._outbox: list[tuple[str, _Capture]] = []
        self._deliverer: int | None = None  # thread id of the one delivering, if any

        self._entries_seen = 0
        self._entries_ignored = 0
        self._items_opened = 0
        self._events = {"opened": 0, "updated": 0, "cleared": 0}

    def __repr__(self) -> str:
        item = self._item
        state = f"open {item.attention_id}" if item is not None else "nothing open"
        return f"<AttentionManager {state}>"

    # -- configuration

    @property
    def sample_limit(self) -> int:
        return self._sample_limit

    @property
    def message_limit(self) -> int:
        return self._message_limit

    @property
    def update_interval(self) -> float:
        return self._interval

    def set_listener(self, listener: AttentionListener | None) -> None:
        """Replace the listener (``None``: notifications are counted but not built)."""
        with self._lock:
            self._listener = listener

    # -- reporting

    def report(self, entry: UrgentEntry) -> str | None:
        """Apply one urgent entry; return the id of the open item, or ``None`` if ignored.

        Opens an item (notifying ``attention/opened`` at once) or updates the open one
        (notifying ``attention/updated`` at once, or later if within ``update_interval`` of the
        item's last notification; an escalation, i.e. a higher severity or the item becoming
        blocking or state-invalidating, is always notified at once).

        It returns the id, not a snapshot: building a wire object for every entry would make
        reporting cost more than the log line it reports. :meth:`current` gives the item.
        """
        classification = self._policy.classify(entry)
        if classification is None:
            with self._lock:
                self._entries_seen += 1
                self._entries_ignored += 1
            return None
        blocking = classification.blocking if entry.blocking is None else entry.blocking
        invalidated = (
            classification.state_invalidated
            if entry.state_invalidated is None
            else entry.state_invalidated
        )
        operation_id = entry.causal_operation_id
        method = entry.causal_method
        if operation_id is None and self._operation_provider is not None:
            current = self._current_operation()
            if current is not None:
                operation_id = current[0]
                if method is None:
                    method = current[1]

        message = entry.message
        length = len(message)
        if length > self._message_limit:
            message = message[: self._message_limit - 1] + _ELLIPSIS
        elif length == 0:
            message = _EMPTY_MESSAGE
        signature = entry.signature
        if signature is None:
            signature = message
        rank = _RANK[entry.level]
        cursor = entry.diagnostics_cursor

        notify = False
        with self._lock:
            self._entries_seen += 1
            sequence = entry.sequence
            if sequence is None:
                sequence = self._next_sequence
                self._next_sequence = sequence + 1
            item = self._item
            if item is None:
                item = self._open(
                    rank,
                    message,
                    signature,
                    sequence,
                    blocking,
                    invalidated,
                    operation_id,
                    method,
                    cursor,
                )
                notify = self._notify(CHANNEL_OPENED, "opened", item)
            else:
                item.total += 1
                if sequence > item.latest:
                    item.latest = sequence
                # an escalation (worse severity, now blocking, now invalidating) is not held
                # back by the rate limit: a bridge gating on a stale item would let calls through
                escalated = False
                if rank > item.rank:
                    item.rank = rank
                    item.worst_message = message
                    escalated = True
                if blocking and not item.blocking:
                    item.blocking = True
                    escalated = True
                if invalidated and not item.state_invalidated:
                    item.state_invalidated = True
                    escalated = True
                if item.causal_operation_id is None and operation_id is not None:
                    item.causal_operation_id = operation_id
                    item.causal_method = method
                if cursor is not None:
                    item.cursor = cursor
                samples = item.samples
                sample = samples.get(signature)
                if sample is not None:
                    sample.repeat += 1
                    if sequence > sample.latest:
                        sample.latest = sequence
                    if rank > sample.rank:
                        sample.rank = rank
                    if sample is not item.root:  # most recently seen goes last
                        del samples[signature]
                        samples[signature] = sample
                else:
                    self._add_distinct(item, signature, rank, message, sequence)
                now = self._clock()
                if escalated or now - item.last_notified >= self._interval:
                    item.last_notified = now
                    item.pending = False
                    notify = self._notify(CHANNEL_UPDATED, "updated", item)
                else:
                    item.pending = True
            attention_id = item.attention_id
        if notify:
            self._deliver()
        return attention_id

    def report_entry(
        self,
        level: Level,
        message: str,
        *,
        signature: str | None = None,
        sequence: int | None = None,
        blocking: bool | None = None,
        state_invalidated: bool | None = None,
        causal_operation_id: str | None = None,
        causal_method: str | None = None,
        diagnostics_cursor: int | None = None,
    ) -> str | None:
        """:meth:`report` of an :class:`UrgentEntry` built from these arguments."""
        return self.report(
            UrgentEntry(
                level,
                message,
                signature,
                sequence,
                blocking,
                state_invalidated,
                causal_operation_id,
                causal_method,
                diagnostics_cursor,
            )
        )

    def _current_operation(self) -> tuple[str, str] | None:
        assert self._operation_provider is not None
        try:
            return self._operation_provider()
        except Exception:
            logger.exception("attention operation provider failed; entry has no cause")
            return None

    def _open(
        self,
        rank: int,
        message: str,
        signature: str,
        sequence: int,
        blocking: bool,
        invalidated: bool,
        operation_id: str | None,
        method: str | None,
        cursor: int | None,
    ) -> _Item:
        item = _Item(
            _new_attention_id(),
            rank,
            blocking,
            invalidated,
            sequence,
            signature,
            _Sample(rank, message, sequence),
            operation_id,
            method if operation_id is not None else None,
            cursor,
            self._clock(),
        )
        item.summary_limit = self._message_limit + SUMMARY_EXTRA
        self._item = item
        self._items_opened += 1
        return item

    def _add_distinct(
        self, item: _Item, signature: str, rank: int, message: str, sequence: int
    ) -> None:
        distinct = item.distinct
        if signature not in distinct:
            if len(distinct) < _DISTINCT_TRACK_LIMIT:
                distinct.add(signature)
            else:
                item.distinct_saturated = True
        samples = item.samples
        if len(samples) < self._sample_limit:
            samples[signature] = _Sample(rank, message, sequence)
        elif self._sample_limit > 1:  # evict the least recently seen one after the root
            keys = iter(samples)
            next(keys)
            sample = samples.pop(next(keys))
            sample.rank = rank
            sample.message = message
            sample.repeat = 1
            sample.latest = sequence
            samples[signature] = sample

    # -- notifications (lock held while queueing, never while calling the listener)

    def _notify(self, channel: str, kind: str, item: _Item, *, cleared: bool = False) -> bool:
        """Count a notification and queue it for the listener; False when there is none."""
        self._events[kind] += 1
        if self._listener is None:
            return False
        self._outbox.append((channel, _capture(item, cleared=cleared)))
        return True

    def _deliver(self) -> None:
        """Hand queued notifications to the listener, one at a time and in order.

        Only one thread delivers at a time. A thread that finds another one delivering (or
        itself, re-entered from the listener) leaves its notifications to that thread and
        returns at once: it never waits for a listener that may be waiting for it.
        """
        with self._lock:
            if self._deliverer is not None:
                return
            self._deliverer = threading.get_ident()
        try:
            while True:
                with self._lock:
                    if not self._outbox:
                        self._deliverer = None
                        return
                    batch = self._outbox
                    self._outbox = []
                    listener = self._listener
                for channel, data in batch:
                    if listener is None:
                        continue
                    try:
                        listener(channel, _build(data))
                    except Exception:
                        logger.exception("attention listener failed on %s", channel)
        except BaseException:
            with self._lock:
                self._deliverer = None
            raise

    # -- attention/current, attention/ack and the timer

    def current(self) -> Attention | None:
        """A snapshot of the open item (``attention/current``), or ``None``."""
        with self._lock:
            item = self._item
            data = _capture(item) if item is not None else None
        return _build(data) if data is not None else None

    def ack(self, attention_id: str) -> AckOutcome:
        """Acknowledge the open item if ``attention_id`` is its id (``attention/ack``).

        A matching id clears the item: the listener gets ``attention/cleared`` (``state``
        ``cleared``, ``blocking`` false) and any deferred update is dropped. Any other id
        changes nothing and the outcome carries the item still open.
        """
        notify = False
        with self._lock:
            item = self._item
            if item is None:
                return AckOutcome(False, attention_id, None)
            if item.attention_id != attention_id:
                data = _capture(item)
            else:
                self._item = None
                notify = self._notify(CHANNEL_CLEARED, "cleared", item, cleared=True)
                data = None
        if data is not None:
            return AckOutcome(False, attention_id, _build(data))
        if notify:
            self._deliver()
        return AckOutcome(True, attention_id, None)

    def flush_due(self) -> float | None:
        """Send a deferred ``attention/updated`` if it is due.

        Returns the seconds until the deferred update is due, or ``None`` when nothing is
        deferred (also right after sending it). A server calls this from a timer.
        """
        notify = False
        with self._lock:
            item = self._item
            if item is None or not item.pending:
                return None
            now = self._clock()
            wait = item.last_notified + self._interval - now
            if wait > 0:
                return wait
            item.pending = False
            item.last_notified = now
            notify = self._notify(CHANNEL_UPDATED, "updated", item)
        if notify:
            self._deliver()
        return None

    def flush_pending(self) -> bool:
        """Send a deferred ``attention/updated`` now, due or not; True if one was sent.

        A server calls this when a call it serves ends, so the bridge holds the item's state as
        of that call before the call's response arrives (updates stay bounded by the number of
        calls; spam within one call is still coalesced).
        """
        with self._lock:
            item = self._item
            if item is None or not item.pending:
                return False
            item.pending = False
            item.last_notified = self._clock()
            notify = self._notify(CHANNEL_UPDATED, "updated", item)
        if notify:
            self._deliver()
        return True

    @property
    def next_update_due(self) -> float | None:
        """Clock time at which the deferred update becomes due, or ``None`` if none is."""
        with self._lock:
            item = self._item
            if item is None or not item.pending:
                return None
            return item.last_notified + self._interval

    @property
    def stats(self) -> AttentionStats:
        with self._lock:
            return AttentionStats(
                entries_seen=self._entries_seen,
                entries_ignored=self._entries_ignored,
                items_opened=self._items_opened,
                events_emitted=dict(self._events),
            )
