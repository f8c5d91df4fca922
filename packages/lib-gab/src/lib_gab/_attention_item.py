"""The open attention item as plain data, and how it becomes a wire model.

Kept apart from :mod:`lib_gab.attention` so that the manager reads as the state machine it is.
The hot path (an entry that only updates the open item) touches these plain objects only; a
wire model is built when a notification goes out or the item is asked for.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
from typing import Any, Final, Literal, TypeAlias

from gabp.messages import Attention, AttentionSample, ClearedAttention

__all__ = [
    "DISTINCT_TRACK_LIMIT",
    "ELLIPSIS",
    "EMPTY_MESSAGE",
    "LEVELS",
    "RANK",
    "SUMMARY_EXTRA",
    "Capture",
    "Item",
    "Level",
    "Sample",
    "build",
    "capture",
    "item_from_published",
    "new_attention_id",
]

Level: TypeAlias = Literal["info", "warning", "error", "fatal"]
"""Severity of an urgent entry and of an item, ordered ``info < warning < error < fatal``."""

LEVELS: Final[tuple[Level, ...]] = ("info", "warning", "error", "fatal")
RANK: Final[dict[str, int]] = {level: rank for rank, level in enumerate(LEVELS)}
ELLIPSIS: Final = "…"
EMPTY_MESSAGE: Final = "(empty message)"  # the wire wants non-empty sample messages
DISTINCT_TRACK_LIMIT: Final = 10_000
"""Distinct signatures remembered per item; past this the summary says ``10000+ distinct``."""
SUMMARY_EXTRA = 80
"""A summary is at most ``message_limit + SUMMARY_EXTRA`` characters."""


# --- attention ids ------------------------------------------------------------------------------

_id_lock = threading.Lock()
_id_counter = itertools.count(1)
_id_prefix = secrets.token_hex(3)


def _reseed_id_prefix() -> None:  # pragma: no cover - runs in forked children
    global _id_prefix
    _id_prefix = secrets.token_hex(3)


if hasattr(os, "register_at_fork"):  # a forked child must not repeat its parent's ids
    os.register_at_fork(after_in_child=_reseed_id_prefix)


def new_attention_id() -> str:
    """A process-wide unique id, ``att-<random prefix>-<n>``, shared by every manager."""
    with _id_lock:
        number = next(_id_counter)
        prefix = _id_prefix
    return f"att-{prefix}-{number}"


# --- the item -----------------------------------------------------------------------------------


class Sample:
    __slots__ = ("latest", "message", "rank", "repeat")

    def __init__(self, rank: int, message: str, latest: int) -> None:
        self.rank = rank
        self.message = message
        self.repeat = 1
        self.latest = latest


class Item:
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
        "published",
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
        root: Sample,
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
        self.samples: dict[str, Sample] = {signature: root}  # root first, then LRU order
        self.distinct: set[str] = {signature}
        self.distinct_saturated = False
        self.last_notified = now
        self.pending = False
        self.worst_message: str | None = None
        """The message that raised the severity above the root cause's, if one did."""
        self.summary_limit = 10_000
        self.published: dict[str, Any] | None = None
        """The wire form of an item published whole, until an entry is reported into it."""

    def absorb(
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
        sample_limit: int,
    ) -> bool:
        """Coalesce one more entry into the item; True when it escalated the item.

        An escalation (worse severity, now blocking, now invalidating) is not held back by the
        rate limit: a bridge gating on a stale item would let calls through.
        """
        self.published = None  # from here on the item is coalesced like any other
        self.total += 1
        if sequence > self.latest:
            self.latest = sequence
        escalated = False
        if rank > self.rank:
            self.rank = rank
            self.worst_message = message
            escalated = True
        if blocking and not self.blocking:
            self.blocking = True
            escalated = True
        if invalidated and not self.state_invalidated:
            self.state_invalidated = True
            escalated = True
        if self.causal_operation_id is None and operation_id is not None:
            self.causal_operation_id = operation_id
            self.causal_method = method
        if cursor is not None:
            self.cursor = cursor
        samples = self.samples
        sample = samples.get(signature)
        if sample is not None:
            sample.repeat += 1
            if sequence > sample.latest:
                sample.latest = sequence
            if rank > sample.rank:
                sample.rank = rank
            if sample is not self.root:  # most recently seen goes last
                del samples[signature]
                samples[signature] = sample
        else:
            self.add_distinct(signature, rank, message, sequence, sample_limit)
        return escalated

    def add_distinct(
        self, signature: str, rank: int, message: str, sequence: int, sample_limit: int
    ) -> None:
        distinct = self.distinct
        if signature not in distinct:
            if len(distinct) < DISTINCT_TRACK_LIMIT:
                distinct.add(signature)
            else:
                self.distinct_saturated = True
        samples = self.samples
        if len(samples) < sample_limit:
            samples[signature] = Sample(rank, message, sequence)
        elif sample_limit > 1:  # evict the least recently seen one after the root
            keys = iter(samples)
            next(keys)
            sample = samples.pop(next(keys))
            sample.rank = rank
            sample.message = message
            sample.repeat = 1
            sample.latest = sequence
            samples[signature] = sample


def item_from_published(published: Attention, *, now: float, summary_limit: int) -> Item:
    """An item holding a published one, able to take reported entries later."""
    samples = list(published.sample or ())
    if samples:
        first = samples[0]
        root = Sample(RANK[first.level], first.message or EMPTY_MESSAGE, first.latest_sequence)
        root.repeat = first.repeat_count
    else:
        root = Sample(RANK[published.severity], published.summary, published.latest_sequence)
        root.repeat = max(published.total_urgent_entries, 1)
    item = Item(
        published.attention_id,
        RANK[published.severity],
        published.blocking,
        published.state_invalidated,
        published.opened_at_sequence,
        root.message,
        root,
        published.causal_operation_id,
        published.causal_method,
        published.diagnostics_cursor,
        now,
    )
    item.latest = published.latest_sequence
    item.total = published.total_urgent_entries
    item.summary_limit = summary_limit
    for entry in samples[1:]:
        sample = Sample(RANK[entry.level], entry.message or EMPTY_MESSAGE, entry.latest_sequence)
        sample.repeat = entry.repeat_count
        item.samples.setdefault(sample.message, sample)
        item.distinct.add(sample.message)
    item.published = published.to_wire()
    return item


Capture: TypeAlias = dict[str, Any]
"""Plain-data copy of an item, taken under the lock, turned into a wire model outside it."""


def capture(item: Item, *, cleared: bool = False) -> Capture:
    if item.published is not None:
        wire = dict(item.published)
        wire["state"] = "cleared" if cleared else "open"
        if cleared:
            wire["blocking"] = False
        return {"wire": wire}
    root = item.root
    level = LEVELS[root.rank]
    if item.worst_message is not None and item.rank > root.rank:
        # the summary describes the worst thing in the item, and still names how it began
        summary = f"{LEVELS[item.rank]}: {item.worst_message} (opened by {level}: {root.message})"
    else:
        summary = f"{level}: {root.message}"
    if item.total > 1:
        distinct = f"{len(item.distinct)}{'+' if item.distinct_saturated else ''}"
        summary += f" ({item.total} entries, {distinct} distinct)"
    if len(summary) > item.summary_limit:
        summary = summary[: item.summary_limit - 1] + ELLIPSIS
    data: Capture = {
        "attention_id": item.attention_id,
        "state": "cleared" if cleared else "open",
        "severity": LEVELS[item.rank],
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


def build(data: Capture) -> Attention:
    wire = data.get("wire")
    if wire is not None:
        model = ClearedAttention if wire["state"] == "cleared" else Attention
        return model.model_validate(wire)
    fields = dict(data)
    fields["sample"] = [
        AttentionSample(
            level=LEVELS[rank], message=message, repeat_count=repeat, latest_sequence=latest
        )
        for rank, message, repeat, latest in data["sample"]
    ]
    model = ClearedAttention if data["state"] == "cleared" else Attention
    return model(**fields)
