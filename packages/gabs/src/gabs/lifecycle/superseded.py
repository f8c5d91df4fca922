"""A start whose claim another launch took over (or removed) while it ran.

The Go bridge fences every step of a start to its launch; a step that finds the claim replaced
or gone ends the start with a refusal judged by the claim there is now, never with the outcome
the start reached (``SupersededStartRefusal``).
"""

from __future__ import annotations

from typing import Any

import anyio

from gabs.runtime import ClaimError
from gabs.runtime.claim import format_seconds

from .codes import LifecycleError, next_action, recheck_action
from .core import Lifecycle, Superseded, now

__all__ = ["keep_unobserved", "superseded_refusal"]


async def keep_unobserved(
    lc: Lifecycle, game_id: str, launch_id: str, operation_id: str, warnings: list[str]
) -> None:
    """Keep the claim of an unobserved start, its step over (Go's ``keepClaimUnobserved``):
    the refusal when the claim was replaced or removed meanwhile, ``blocked_unknown_state``
    when it cannot be written (the failure is then not recorded either)."""
    try:
        with anyio.CancelScope(shield=True):
            await lc.update(
                game_id,
                launch_id,
                lambda state: setattr(state, "operation", None),
                operation_id=operation_id,
            )
    except Superseded:
        refusal = await superseded_refusal(lc, game_id)
        refusal.warnings = warnings
        raise refusal from None
    except (ClaimError, OSError) as exc:
        raise LifecycleError(
            "blocked_unknown_state",
            f"the unobserved outcome could not be persisted for '{game_id}': {exc} — the claim "
            "remains occupied; re-check games_status and retry",
            warnings=warnings,
        ) from None


async def superseded_refusal(lc: Lifecycle, game_id: str) -> LifecycleError:
    """The refusal of a start whose claim another launch took over meanwhile, judged by the
    claim there is now, as Go judges it: gone or in a step (``operation_in_progress``), active
    (``already_running``), else ``blocked_unknown_state``; with the next actions Go gives each
    of these start refusals."""
    head = f"the launch of '{game_id}' was superseded during startup"
    arguments = {"gameId": game_id}
    status = recheck_action(game_id)
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
