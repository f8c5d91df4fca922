"""Claims written by Go bridge versions from before launch profiles ("legacy" claims).

Such a ``runtime.json`` has no ``schemaVersion`` (nor a launch id, phase or endpoint): only
``gameId``, ``status``, ``ownerPid``, ``gamePid``, ``stopProcessName`` and ``updatedAt``. Any
other ``schemaVersion``, older or newer, is never treated as legacy.

Reading one is harmless: status, list and show report what it says (its pid is weak evidence,
as it has no start-time fingerprint). The first *lifecycle touch* (a stop, a kill, a start's
duplicate check, a connect) normalizes it once, under the transition lock, exactly as the Go
bridge does: the schema marker is stamped and a launch id minted (fencing holds from then on),
the claim becomes ``active``, unprofiled and owned by ``gabs``, its launch mode and pid role
come from the game's current config entry (the one time a claim takes anything from the config),
its pid stays without a fingerprint, the built-in stop strategy is pinned, and
``normalizedFromLegacy`` records the migration with the config revision it used. A second touch
changes nothing.

A connect is the one touch that may also take the endpoint of such a launch from the old
``bridge.json``, once, while the lock is held (:func:`normalize_legacy_claim` with
``capture_endpoint``); the caller proves the candidate by connecting before it is written into
the claim.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gabs.runtime.claim import (
    SCHEMA_VERSION,
    RuntimeState,
    load_claim,
    new_id,
    save_claim,
    utcnow,
)
from gabs.runtime.endpoint import read_bridge_file
from gabs.runtime.lock import transition_lock

__all__ = [
    "LegacyContext",
    "LegacyEndpoint",
    "is_legacy",
    "normalize",
    "normalize_legacy_claim",
]

#: Launch modes whose recorded pid is a launcher's, not the game's.
_HELPER_MODES = frozenset({"SteamAppId", "EpicAppId"})


@dataclass(frozen=True)
class LegacyContext:
    """What a normalization takes from the game's current config entry."""

    launch_mode: str = ""
    config_revision: str = ""


@dataclass(frozen=True)
class LegacyEndpoint:
    """The endpoint a legacy launch's ``bridge.json`` names (unproven until connected)."""

    port: int
    token: str

    def __repr__(self) -> str:
        return f"LegacyEndpoint(port={self.port}, token=<hidden>)"


def is_legacy(claim: RuntimeState | None) -> bool:
    """True for a claim without the schema marker (written by an older Go bridge)."""
    return claim is not None and claim.schema_version == 0


def normalize(claim: RuntimeState, *, launch_mode: str, config_revision: str) -> None:
    """Bring a legacy ``claim`` into the current schema, in place (see the module doc)."""
    claim.schema_version = SCHEMA_VERSION
    claim.launch_id = new_id()
    claim.generation = 1 if claim.generation <= 0 else claim.generation + 1
    claim.phase = "active"
    claim.source = "gabs"
    claim.profile = ""
    claim.launch_mode = launch_mode
    claim.pid_role = "helper" if launch_mode in _HELPER_MODES else "workload"
    claim.pid_start_time = 0
    claim.graceful_strategy, claim.force_strategy = "sigterm", "sigkill"
    claim.applied_input_names = []
    claim.normalized_from_legacy = True
    claim.config_revision = config_revision
    claim.updated_at = utcnow()


def _candidate(folder: Path) -> LegacyEndpoint | None:
    saved = read_bridge_file(folder)
    if saved is None:
        return None
    port, token = saved.get("port"), saved.get("token")
    usable_port = isinstance(port, int) and not isinstance(port, bool) and port > 0
    if usable_port and isinstance(token, str) and token.strip():
        return LegacyEndpoint(int(port), token)  # type: ignore[arg-type]
    return None


async def normalize_legacy_claim(
    folder: str | os.PathLike[str], context: LegacyContext, *, capture_endpoint: bool = False
) -> tuple[RuntimeState | None, LegacyEndpoint | None]:
    """Normalize the legacy claim in ``folder``, once; the claim as it is now (None when there
    is none) and, with ``capture_endpoint``, the old ``bridge.json`` endpoint when this call
    did the normalization. A current claim is returned as it is, without a candidate.

    Raises :class:`~gabs.runtime.ClaimError` for an unreadable claim and
    :class:`~gabs.runtime.LockBusy` when the lock stays taken."""
    path = Path(folder)
    async with transition_lock(path):
        claim = load_claim(path)
        if claim is None or not is_legacy(claim):
            return claim, None
        candidate = _candidate(path) if capture_endpoint else None
        normalize(claim, launch_mode=context.launch_mode, config_revision=context.config_revision)
        save_claim(path, claim)
        return claim, candidate
