"""The endings of a start that did not verify a running game, as the Go bridge words them:
a start superseded meanwhile, a spawn that failed, a game that exited during its start, and a
start that saw nothing (``unobserved``)."""

from __future__ import annotations

import signal
from typing import Any

from gabs.config import GameConfig
from gabs.launch.spawn import describe_exit
from gabs.runtime import ClaimError
from gabs.runtime.claim import format_seconds

from .codes import LifecycleError, next_action
from .core import Lifecycle, now

__all__ = ["exited_during_start", "spawn_failed", "superseded_refusal", "unobserved"]


async def superseded_refusal(lc: Lifecycle, game_id: str) -> LifecycleError:
    """The refusal of a start whose claim another launch took over meanwhile, judged by the
    claim there is now, as Go judges it: gone or in a step (``operation_in_progress``), active
    (``already_running``), else ``blocked_unknown_state``; with the next actions Go gives each
    of these start refusals."""
    head = f"the launch of '{game_id}' was superseded during startup"
    arguments = {"gameId": game_id}
    status = next_action(
        "games_status", arguments, "Re-check once the in-flight operation finishes."
    )
    try:
        current = await lc.load(game_id)
    except (ClaimError, OSError):
        current = None
    if current is None:
        message = f"{head} and the successor has since finished; re-check games_status"
        return LifecycleError(
            "operation_in_progress", message, next_actions=[status], is_error=False
        )
    data: dict[str, Any] = {"phase": current.phase}
    operation = current.operation
    if operation is not None and operation.in_flight(now()):
        deadline = format_seconds(operation.deadline)
        if current.effective_profile:  # as Go: left out when empty here
            data["activeProfile"] = current.effective_profile
        data["operation"] = {
            "action": operation.action,
            "attemptStartedAt": format_seconds(operation.attempt_started_at),
            "deadline": deadline,
        }
        message = f"{head}; a successor {operation.action} operation is in progress (deadline "
        return LifecycleError(
            "operation_in_progress",
            f"{message}{deadline})",
            data=data,
            next_actions=[status],
            is_error=False,
        )
    if current.phase == "active":
        data["activeProfile"] = current.effective_profile
        return LifecycleError(
            "already_running",
            f"{head}; a successor launch is active",
            data=data,
            next_actions=[
                next_action("games_status", arguments, "Inspect the active instance."),
                next_action(
                    "games_stop", arguments, "Stop it first if the other profile is needed."
                ),
            ],
            is_error=False,
        )
    return LifecycleError(
        "blocked_unknown_state",
        f"{head}; a successor claim exists in phase {current.phase} — re-check games_status",
        data=data,
        next_actions=[
            next_action(
                "games_status",
                arguments,
                "Gather evidence; use repair --forget-runtime only if the instance is provably "
                "gone.",
            )
        ],
    )


def spawn_failed(game: GameConfig, exc: OSError) -> LifecycleError:
    return LifecycleError(
        "spawn_failed",
        # the game, its mode and its target, as the Go bridge names them
        f"Failed to start {game.id}: failed to start game '{game.id}' (mode: {game.launch_mode}, "
        f"target: {game.target}): {exc.strerror or exc}",
        data={"osError": str(exc.strerror or exc)},
    )


def exited_during_start(
    game: GameConfig, code: int | None, tail: str, evidence: str = ""
) -> LifecycleError:
    """The failure of a game whose process ended before it was verified (or while connecting)."""
    if code is not None and code >= 0:
        how = f"exited during start (exit code {code})."  # the Go bridge's words
    else:  # a signal, or an end not seen: ours
        how = f"{describe_exit(code) if code is not None else 'stopped'} during start."
    # Go's exit code: -1 for a process ended by a signal (or not seen to end); the signal is ours
    data: dict[str, object] = {"exitCode": code if code is not None and code >= 0 else -1}
    if code is not None and code < 0:
        data["signal"] = _signal_name(-code)
    if tail:
        data["outputTail"] = tail
    if evidence:
        data["hookEvidence"] = evidence
    return LifecycleError(
        "exited_during_start",
        f"'{game.id}' {how} This is attributed to the game; read the output tail "
        "for the cause (a crash, missing or corrupt data, a mod loader failure, DRM or "
        "anti-cheat refusing the process, a required login, or a wrapper's own error)."
        + (f" Output tail:\n{tail}" if tail else " It wrote no output."),
        data=data,
    )


def unobserved(game: GameConfig) -> LifecycleError:
    return LifecycleError(
        "unobserved",
        f"Nothing observable for '{game.id}' within the start budget — the store launcher may be "
        "updating the game or showing a dialog (login, EULA); check the desktop and re-check "
        "games_status. The claim is kept while the launch may still appear.",
        # no next action of its own: the config class's (games_show), as Go's attribution does
        is_error=False,
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
