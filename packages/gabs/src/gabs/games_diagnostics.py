"""A configured game's ``diagnostics`` on its ``games_status`` item, in the Go bridge's shape.

``code``/``severity``/``message`` name the one bridge-state issue found (``healthy``,
``runtime-state-error``, ``stale-runtime-cleaned``, ``process-bridge-environment-missing``);
``processEnvironment`` is what the running game process's environment holds of the bridge's
variables (the token only as a fingerprint); ``runtime`` is the claim as ``runtime.json`` has
it, with the status its processes resolve to and the owner's lease. Store launch modes, whose
final process may not inherit the bridge's environment, add ``warnings`` when it cannot be seen.
"""

from __future__ import annotations

import contextlib
import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from gabs.config import GameConfig
from gabs.lifecycle import LifecycleError, environment_actions, next_action
from gabs.runtime import RuntimeState
from gabs.runtime.procenv import bridge_variables
from gabs.runtime.procs import find_by_name, verify_pid

__all__ = ["diagnostics_next_actions", "refuse_missing_environment", "state_diagnostics"]

#: Launch modes where a platform client starts the final process.
PLATFORM_MODES: Final = ("SteamManaged", "SteamAppId", "EpicAppId")
RUNNING: Final = ("running", "shared-running", "running-disconnected", "disconnected")
#: How the Go bridge shows a time it never recorded (its zero ``time.Time`` in RFC 3339).
GO_ZERO_TIME: Final = "0001-01-01T00:00:00Z"


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _fingerprint(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:16] if token.strip() else ""


def _alive(pid: int) -> bool:
    return pid > 0 and verify_pid(pid, 0)[0] != "stopped"


def _named(name: str) -> list[int]:
    with contextlib.suppress(OSError):
        return find_by_name(name) if name else []
    return []


def process_environment(game: GameConfig, claim: RuntimeState | None) -> dict[str, Any]:
    """The bridge variables of the game's process: the claim's pid while alive, then the
    processes named ``stopProcessName``; the first one that carries any of them."""
    pids = [claim.game_pid] if claim is not None and _alive(claim.game_pid) else []
    pids += [pid for pid in _named(game.stop_process_name) if pid not in pids]
    error = ""
    for pid in pids:
        found = bridge_variables(pid)
        if found is None:
            error = error or f"the environment of process {pid} cannot be read"
            continue
        try:
            port = int(found.get("GABP_SERVER_PORT", "") or 0)
        except ValueError:
            port = 0
        token, game_id = found.get("GABP_TOKEN", ""), found.get("GABS_GAME_ID", "")
        if port > 0 or token or game_id:
            return {
                "present": True,
                "readable": True,
                "pid": pid,
                "port": port,
                "gameId": game_id,
                "tokenFingerprint": _fingerprint(token),
            }
    item: dict[str, Any] = {"present": False, "readable": bool(pids) and not error}
    if pids:
        item["pid"] = pids[0]
    if error:
        item["error"] = error
    return item


def _resolved_status(claim: RuntimeState) -> str:
    if _alive(claim.game_pid):
        return "starting" if claim.status == "starting" else "running"
    if _named(claim.stop_process_name):
        return "running"
    if claim.status == "starting" and _alive(claim.owner_pid):
        return "starting"
    return ""


def runtime_structured(claim: RuntimeState | None, lease: timedelta) -> dict[str, Any]:
    """The claim as the diagnostics show it (``{"present": false}`` without one)."""
    if claim is None:
        return {"present": False}
    item: dict[str, Any] = {
        "present": True,
        "gameId": claim.game_id,
        "status": claim.status,
        "ownerPid": claim.owner_pid,
        "ownerInstanceId": claim.owner_instance_id,
        "gamePid": claim.game_pid,
        "stopProcessName": claim.stop_process_name,
        # a claim that never recorded it shows Go's zero time, never the moment of asking
        "updatedAt": _rfc3339(claim.updated_at) if claim.updated_at else GO_ZERO_TIME,
        "resolvedStatus": _resolved_status(claim),
    }
    if claim.owner_last_active:
        item["ownerLastActive"] = _rfc3339(claim.owner_last_active)
    until = claim.owner_lease_until
    base = claim.owner_last_active or claim.updated_at
    if until is None and base is not None and lease > timedelta(0):
        until = base + lease
    if until is not None:
        now = datetime.now(UTC)
        item["ownerLeaseUntil"] = _rfc3339(until)
        item["ownerLeaseActive"] = now < until
        item["ownerLeaseRemainingMs"] = int((until - now).total_seconds() * 1000)
    return item


def _usable(game: GameConfig, environment: dict[str, Any]) -> bool:
    return bool(
        environment["present"]
        and environment.get("port", 0) > 0
        and environment.get("tokenFingerprint")
        and environment.get("gameId") in ("", game.id)
    )


def _missing_environment(game: GameConfig, environment: dict[str, Any]) -> str | None:
    """Why a store-launched game's readable process environment offers no endpoint to attach
    to (None when it does, or when it cannot be read)."""
    if not environment["readable"] or not environment.get("pid") or _usable(game, environment):
        return None
    other = environment.get("gameId")
    if environment["present"] and other not in ("", game.id):
        return (
            f"The game process's environment names GABS_GAME_ID {other!r}, not {game.id!r}; "
            "GABS does not attach through endpoint state cached elsewhere."
        )
    return (
        "The game process's environment can be read but lacks a usable "
        "GABP_SERVER_PORT/GABP_TOKEN pair: the launcher did not hand the bridge's "
        "variables on to it, so GABS does not attach through cached endpoint state."
    )


def refuse_missing_environment(game: GameConfig, claim: RuntimeState) -> None:
    """Raise Go's ``endpoint_unavailable`` when a store-launched game's process can be read and
    provably lacks the bridge's variables: no dial to the claim's endpoint can succeed."""
    if game.launch_mode not in PLATFORM_MODES:
        return
    environment = process_environment(game, claim)
    if environment.get("port", 0) > 0 and environment.get("tokenFingerprint"):
        return  # as Go: a complete pair is the claim's (attach) or a stale one (refused before)
    missing = _missing_environment(game, environment)
    if missing is None:
        return
    raise LifecycleError(
        "endpoint_unavailable",
        f"Failed to resolve live GABP endpoint for '{game.id}': {missing}",
        next_actions=environment_actions(game.id),  # Go's for an environment-class failure
        warnings_key="warnings",
    )


def _unverified_environment(game: GameConfig) -> str:
    """The Go bridge's warning, with its advice per launch mode, when the bridge's variables
    cannot be confirmed on a store-launched game's process."""
    lead = "Could not verify GABP environment on the real game process; "
    if game.launch_mode == "SteamAppId":
        return (
            f"{lead}SteamAppId launcher URL mode can reuse stale environment from an "
            f"already-running launcher. Run 'gabs games repair {game.id}' to switch to managed "
            "Steam launch."
        )
    if game.launch_mode == "SteamManaged":
        return (
            f"{lead}Steam-managed launch can still lose environment variables if the platform "
            "relaunches the app. Use DirectPath or CustomCommand when the final game process "
            "does not inherit the bridge environment."
        )
    return (
        f"{lead}{game.launch_mode} launchers can reuse stale environment from an "
        "already-running launcher."
    )


def state_diagnostics(
    game: GameConfig,
    status: str,
    claim: RuntimeState | None,
    claim_error: str,
    lease: timedelta,
) -> dict[str, Any]:
    """The ``diagnostics`` of a configured game's status item."""
    environment = process_environment(game, claim)
    code, severity, message = "healthy", "info", "No bridge state issue detected."
    if claim_error:
        code, severity = "runtime-state-error", "warning"
        message = f"Could not read runtime state: {claim_error}"
    elif status == "stale-runtime-cleaned":
        code, severity, message = status, "warning", "Stale runtime state was removed."
    warnings: list[str] = []
    platform = game.launch_mode in PLATFORM_MODES and status in RUNNING
    missing = _missing_environment(game, environment) if platform else None
    if missing is not None:
        code, severity, message = "process-bridge-environment-missing", "warning", missing
    if platform and not _usable(game, environment):
        warnings.append(_unverified_environment(game))
    diagnostics: dict[str, Any] = {
        "code": code,
        "severity": severity,
        "message": message,
        "processEnvironment": environment,
        "runtime": {"present": False, "error": claim_error}
        if claim_error
        else runtime_structured(claim, lease),
    }
    if warnings:
        diagnostics["warnings"] = warnings
    return diagnostics


def diagnostics_next_actions(
    game: GameConfig, diagnostics: dict[str, Any], fallback: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The status item's next actions once the diagnostics are known (as Go adjusts them)."""
    show = {"gameId": game.id}
    if diagnostics["code"] == "process-bridge-environment-missing":
        return [
            next_action(
                "games_show",
                show,
                "Check the launch configuration: the game process runs without a GABP "
                "endpoint this bridge can attach to.",
            )
        ]
    if game.launch_mode == "SteamAppId" and not diagnostics["processEnvironment"]["present"]:
        return [
            next_action(
                "games_show",
                show,
                f"Check this entry; 'gabs games repair {game.id}' (from a shell) moves it from "
                "the Steam launcher URL to a managed executable launch.",
            ),
            *fallback,
        ]
    return fallback
