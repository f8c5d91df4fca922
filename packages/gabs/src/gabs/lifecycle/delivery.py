"""The launch-context delivery verdict of a launch (Go's ``contextDelivery``).

The Go bridge pins salted digests of what it hands a game (the argument payload, the working
directory, its own variables and the config's) and compares them with what the game reports in
its welcome. gabs pins which of those channels a launch used (``contextChannels`` in the claim)
but keeps no digests, so every channel's verdict is ``unknown``, with the reason why: a game
that reports nothing gets the Go bridge's reason, one that reports gets ours. The verdict is
the latest connection's, kept in the claim; an externally started instance gets the Go bridge's
explicit ``unknown`` when its snapshot is taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gabs.launch.resolve import Resolved
from gabs.runtime import RuntimeState

__all__ = [
    "EXTERNAL_DELIVERY",
    "LOST_CLAIM_DELIVERY",
    "connection_delivery",
    "delivery_json",
    "launch_channels",
]

#: The reasons are the Go bridge's words where the situation is the same.
NOT_REPORTED: Final = "the bridge reported no observed context (pre-report bridge)"
NOT_COMPARED: Final = (
    "the game reported the context it received, but GABS keeps no digest of what it handed "
    "over, so nothing was compared"
)
NOT_PINNED: Final = "no expected-context digests were pinned at spawn"
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


def launch_channels(resolved: Resolved) -> list[str]:
    """The channels a launch hands over: always the arguments, the working directory and the
    bridge's own variables; the config's variables when the config sets or removes any."""
    channels = ["argv", "cwd", "managedEnv"]
    if resolved.context_env_keys or resolved.absent_env_names:
        channels.append("contextEnv")
    return sorted(channels)


def _pinned_channels(claim: RuntimeState) -> list[str]:
    if claim.context_channels:
        return sorted(claim.context_channels)
    digests = claim.extra.get("contextDigests")  # a launch the Go bridge made
    if not isinstance(digests, Mapping):
        return []
    channels = ["cwd"]
    if digests.get("argvSha256"):
        channels.append("argv")
    if digests.get("managedEnvSha256"):
        channels.append("managedEnv")
    if digests.get("contextEnvSha256") or digests.get("absentEnvNames"):
        channels.append("contextEnv")
    return sorted(channels)


def connection_delivery(claim: RuntimeState, welcome: Mapping[str, Any] | None) -> dict[str, Any]:
    """The verdict a new connection to ``claim``'s launch records, from its ``welcome``."""
    channels = _pinned_channels(claim)
    if not channels:
        return {"overall": "unknown", "reasons": {"overall": NOT_PINNED}}
    reported = welcome is not None and isinstance(welcome.get("observed"), Mapping)
    reason = NOT_COMPARED if reported else NOT_REPORTED
    return {
        "overall": "unknown",
        "channels": dict.fromkeys(channels, "unknown"),
        "reasons": dict.fromkeys(channels, reason),
    }


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
