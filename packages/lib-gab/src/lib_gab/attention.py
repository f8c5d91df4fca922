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

Integrations that summarize attention themselves (as RimBridgeServer does with Lib.GAB's
``PublishAsync`` and ``ClearAsync``) publish whole items instead: :meth:`AttentionManager.publish`
opens or replaces the item with one they built, keeping its id, summary and sample as given,
and :meth:`AttentionManager.clear` clears it. Both go through the same listener, and entries
reported later coalesce into a published item as into any other.

Reporting an entry that only updates the open item is cheap (no pydantic, no formatting): wire
objects are built only when a notification goes out or :meth:`AttentionManager.current` /
:meth:`AttentionManager.ack` asks for one.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeAlias

from gabp.messages import Attention, ClearedAttention
from lib_gab._attention_delivery import Outbox
from lib_gab._attention_item import (
    ELLIPSIS,
    EMPTY_MESSAGE,
    RANK,
    SUMMARY_EXTRA,
    Item,
    Level,
    Sample,
    build,
    capture,
    item_from_published,
    new_attention_id,
)
from lib_gab._attention_publish import normalize_cleared, normalize_published, read_item
from lib_gab._attention_types import (
    AckOutcome,
    AttentionPolicy,
    AttentionStats,
    Classification,
    DefaultAttentionPolicy,
    UrgentEntry,
)

__all__ = [
    "CHANNEL_CLEARED",
    "CHANNEL_OPENED",
    "CHANNEL_UPDATED",
    "SUMMARY_EXTRA",
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

CHANNEL_OPENED: Final = "attention/opened"
CHANNEL_UPDATED: Final = "attention/updated"
CHANNEL_CLEARED: Final = "attention/cleared"

AttentionListener: TypeAlias = Callable[[str, Attention], None]
"""Called with ``(channel, item)`` for every notification to publish."""

OperationProvider: TypeAlias = Callable[[], tuple[str, str] | None]
"""Returns ``(operation_id, method)`` of the operation running in the calling context, if any."""

_RANK = RANK


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

        self._lock = threading.Lock()
        self._item: Item | None = None
        self._next_sequence = 0
        self._outbox = Outbox(self._lock, listener)

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
            self._outbox.listener = listener

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
            message = message[: self._message_limit - 1] + ELLIPSIS
        elif length == 0:
            message = EMPTY_MESSAGE
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
                item = Item(
                    new_attention_id(),
                    rank,
                    blocking,
                    invalidated,
                    sequence,
                    signature,
                    Sample(rank, message, sequence),
                    operation_id,
                    method if operation_id is not None else None,
                    cursor,
                    self._clock(),
                )
                item.summary_limit = self._message_limit + SUMMARY_EXTRA
                self._item = item
                self._items_opened += 1
                notify = self._notify(CHANNEL_OPENED, "opened", item)
            else:
                escalated = item.absorb(
                    rank,
                    message,
                    signature,
                    sequence,
                    blocking,
                    invalidated,
                    operation_id,
                    method,
                    cursor,
                    self._sample_limit,
                )
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

    # -- notifications (lock held while queueing, never while calling the listener)

    def _notify(self, channel: str, kind: str, item: Item, *, cleared: bool = False) -> bool:
        """Count a notification and queue it for the listener; False when there is none."""
        self._events[kind] += 1
        if self._outbox.listener is None:
            return False
        self._outbox.put(channel, capture(item, cleared=cleared))
        return True

    def _deliver(self) -> None:
        self._outbox.deliver()

    # -- whole items (Lib.GAB's PublishAsync and ClearAsync)

    def publish(self, item: Attention | Mapping[str, Any]) -> Attention:
        """Open or update the attention item with one the integration built whole.

        ``item`` is an :class:`Attention` or a mapping (camelCase or snake_case keys; Lib.GAB's
        defaults for what it leaves out). The item is held open as given: its id, summary and
        sample are kept. Publishing the open item's id notifies ``attention/updated`` (a zero
        ``openedAtSequence``, ``latestSequence`` or ``totalUrgentEntries`` keeps the open item's
        value); any other id replaces the open item and notifies ``attention/opened``, as in
        Lib.GAB. Without a ``causalOperationId`` the item gets the operation running in the
        calling context, if any. Updates are not rate-limited. Returns the item now open.

        Raises ``ValueError`` (nothing changes) when the item breaks the wire contract, for
        instance an empty summary.
        """
        incoming = read_item(item)
        if not incoming.get("causalOperationId") and self._operation_provider is not None:
            operation = self._current_operation()
            if operation is not None:
                incoming["causalOperationId"] = operation[0]
                incoming.setdefault("causalMethod", operation[1])
        with self._lock:
            current = self._item
            facts = None
            if current is not None:
                facts = {
                    "attentionId": current.attention_id,
                    "openedAtSequence": current.opened_at,
                    "latestSequence": current.latest,
                    "totalUrgentEntries": current.total,
                }
            published = normalize_published(incoming, facts)
            same = current is not None and current.attention_id == published.attention_id
            self._item = item_from_published(
                published,
                now=self._clock(),
                summary_limit=self._message_limit + SUMMARY_EXTRA,
            )
            if not same:
                self._items_opened += 1
            if same:
                notify = self._notify(CHANNEL_UPDATED, "updated", self._item)
            else:
                notify = self._notify(CHANNEL_OPENED, "opened", self._item)
        if notify:
            self._deliver()
        return published

    def clear(self, item: Attention | Mapping[str, Any] | None = None) -> Attention | None:
        """Clear the open item whatever its id; ``None`` when nothing is open.

        ``attention/cleared`` carries ``item`` when given (what it leaves empty or zero is taken
        from the open item), else the open item; either way ``state`` is ``cleared`` and
        ``blocking`` false, as in Lib.GAB's ``ClearAsync``. Returns that cleared item.
        """
        given = read_item(item) if item is not None else None
        notify = False
        with self._lock:
            current = self._item
            if current is None:
                return None
            cleared = normalize_cleared(given, build(capture(current)).to_wire())
            self._item = None
            self._events["cleared"] += 1
            if self._outbox.listener is not None:
                self._outbox.put(CHANNEL_CLEARED, {"wire": cleared.to_wire()})
                notify = True
        if notify:
            self._deliver()
        return ClearedAttention.model_validate(cleared.to_wire())

    # -- attention/current, attention/ack and the timer

    def current(self) -> Attention | None:
        """A snapshot of the open item (``attention/current``), or ``None``."""
        with self._lock:
            item = self._item
            data = capture(item) if item is not None else None
        return build(data) if data is not None else None

    def ack(self, attention_id: str) -> AckOutcome:
        """Acknowledge the open item if ``attention_id`` is its id (``attention/ack``).

        A matching id clears the item: the listener gets ``attention/cleared`` (``state``
        ``cleared``, ``blocking`` false) and any deferred update is dropped. Any other id
        changes nothing and the outcome carries the item still open. A blank id raises
        ``ValueError``, as Lib.GAB's ``AcknowledgeAsync`` refuses it.
        """
        if not isinstance(attention_id, str) or not attention_id.strip():
            raise ValueError(f"acknowledging needs a non-empty attention id, got {attention_id!r}")
        notify = False
        with self._lock:
            item = self._item
            if item is None:
                return AckOutcome(False, attention_id, None)
            if item.attention_id != attention_id:
                data = capture(item)
            else:
                self._item = None
                notify = self._notify(CHANNEL_CLEARED, "cleared", item, cleared=True)
                data = None
        if data is not None:
            return AckOutcome(False, attention_id, build(data))
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
