"""Pending track-record credits a Go bridge left in a claim.

The Go bridge records a verified clean stop or a verified context delivery whose credit it
could not write yet on the claim itself (``pendingCleanStops``, ``pendingDeliveries``: each
entry its own ``id``, ``profile`` and ``contextHash``). Such an event has happened, so it must
not be lost with the claim: before a claim is removed, and when a status finds its game
running, each entry is counted once in the track record (``cleanStops``,
``deliveriesVerified``), idempotent by a ``creditedPendingEvents`` marker (``stop:<id>``,
``delivery:<id>``) that is dropped again once the claim no longer holds the entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from gabs.runtime import RuntimeState, remove_claim

from .history import TrackRecord

__all__ = ["credit_pending", "drop_pending", "has_pending", "remove_with_credits"]

PENDING: Final = (
    ("pendingCleanStops", "stop", "cleanStops"),
    ("pendingDeliveries", "delivery", "deliveriesVerified"),
)


def _entries(claim: RuntimeState, key: str) -> list[dict[str, Any]]:
    found = claim.extra.get(key)
    if not isinstance(found, list):
        return []
    return [e for e in found if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]]


def has_pending(claim: RuntimeState) -> bool:
    return any(_entries(claim, key) for key, _, _ in PENDING)


def credit_pending(folder: Path, claim: RuntimeState) -> set[str]:
    """Count every pending event of ``claim`` once; the markers of the events it holds."""
    record = TrackRecord(folder)
    markers: set[str] = set()
    for key, kind, counter in PENDING:
        for event in _entries(claim, key):
            marker = f"{kind}:{event['id']}"
            markers.add(marker)
            profile, digest = event.get("profile"), event.get("contextHash")
            if isinstance(profile, str) and isinstance(digest, str):
                record.count_once(profile, digest, counter, marker)
    return markers


def drop_pending(claim: RuntimeState) -> None:
    for key, _, _ in PENDING:
        claim.extra.pop(key, None)


def remove_with_credits(folder: Path, claim: RuntimeState | None) -> None:
    """Remove the claim (the caller holds the transition lock), its pending events counted
    first; their markers are dropped once the claim is gone."""
    markers = credit_pending(folder, claim) if claim is not None else set()
    remove_claim(folder)
    if markers:
        TrackRecord(folder).forget_markers(markers)
