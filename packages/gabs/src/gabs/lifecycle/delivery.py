"""The launch-context delivery verdict of a launch (Go's ``contextDelivery``).

A launch pins salted digests of what it hands the game (``contextDigests`` in the claim, see
:mod:`gabs.lifecycle.digests`); each new connection to it compares what the game reports in its
welcome with them, and the claim keeps the latest connection's verdict. An externally started
instance gets the Go bridge's explicit ``unknown`` when its snapshot is taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gabs.runtime import RuntimeState

from .digests import evaluate_delivery, parse_observed

__all__ = [
    "EXTERNAL_DELIVERY",
    "LOST_CLAIM_DELIVERY",
    "connection_delivery",
    "delivery_json",
]

EXTERNAL_DELIVERY: Final[dict[str, Any]] = {
    "overall": "unknown",
    "reasons": {"overall": "externally started instance: GABS delivered no launch context"},
}

#: A process this bridge still runs after its claim was lost (Go's reason, a fixed message).
LOST_CLAIM_DELIVERY: Final[dict[str, Any]] = {
    "overall": "unknown",
    "reasons": {
        "overall": "in-process controller with a lost claim: the original launch context is "
        "unattributable"
    },
}


def connection_delivery(claim: RuntimeState, welcome: Mapping[str, Any] | None) -> dict[str, Any]:
    """The verdict a new connection to ``claim``'s launch records, from its ``welcome``."""
    return evaluate_delivery(claim.context_digests, parse_observed(welcome))


def delivery_json(claim: RuntimeState | None) -> dict[str, Any] | None:
    """The claim's verdict as a result shows it (``overall``, and ``channels`` and ``reasons``
    when there are any), or None before a connection recorded one."""
    stored = claim.context_delivery if claim is not None else None
    if not stored or not isinstance(stored.get("overall"), str):
        return None
    entry: dict[str, Any] = {"overall": stored["overall"]}
    for key in ("channels", "reasons"):
        if isinstance(stored.get(key), Mapping) and stored[key]:
            entry[key] = dict(stored[key])
    return entry
