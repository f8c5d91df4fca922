"""The start step that proves the Steam client ready before a macOS ``SteamManaged`` spawn.

While it waits (at most the start's connect timeout), the claim's operation and process-start
deadlines are moved out to cover the wait, so no other bridge takes the start for abandoned (a
start whose deadline has already passed is not extended: it ends as a superseded one, as in the
Go bridge); when Steam is proven ready, the spawn gets a fresh start budget. When it is not,
the start ends with ``store_client_not_ready`` before anything is spawned (the claim is
released by the caller, and the track record is not touched: nothing of the game ran). See
:mod:`gabs.launch.steam_ready` for the probe.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import anyio
import anyio.to_thread

from gabs.config import GameConfig
from gabs.launch.resolve import Resolved
from gabs.launch.steam_ready import ReadinessResult, ensure_ready_within, readiness_supported
from gabs.runtime import RuntimeState

from .codes import LifecycleError, next_action
from .core import DeadlinePassed, Lifecycle, now

__all__ = ["needs_store_readiness", "prove_store_ready", "store_client_not_ready"]


def needs_store_readiness(game: GameConfig) -> bool:
    """Whether this start must prove the store client ready first (``SteamManaged`` on macOS)."""
    return game.launch_mode == "SteamManaged" and readiness_supported()


def store_client_not_ready(
    game: GameConfig, resolved: Resolved, result: ReadinessResult
) -> LifecycleError:
    """The refusal for a start whose Steam client was not proven ready (nothing spawned)."""
    message = (
        f"Steam readiness for '{game.id}' could not be proven at stage {result.stage} "
        f"({result.reason}); no game process was started. Repeat the original games_start "
        "request unchanged after Steam settles"
    )
    if result.reason == "readiness_timeout":
        message += "; a longer timeout may help if Steam is still starting or updating"
    else:
        message += (
            "; the installed Steam client library or readiness helper must become usable "
            "before retrying"
        )
    if result.detail:
        message += f". Detail: {result.detail}"
    data: dict[str, object] = {
        "store": "steam",
        "reason": result.reason,
        "readinessStage": result.stage,
        "waitedMs": int(result.waited * 1000),
        "timeoutMs": int(result.timeout * 1000),
        "retryable": result.retryable,
        "processStarted": False,
    }
    if result.detail:
        data["detail"] = result.detail
    retry = {"gameId": game.id, **({"profile": resolved.profile} if resolved.profile else {})}
    action = next_action(
        "games_start",
        retry,
        "Repeat the original start request with the same profile and launch inputs; "
        "launch-input values are intentionally not echoed. A longer timeout may help only for "
        "readiness_timeout.",
    )
    if resolved.applied_inputs:
        action["preserveOriginalLaunchInputs"] = list(resolved.applied_inputs)
    return LifecycleError("store_client_not_ready", message + ".", data=data, next_actions=[action])


async def prove_store_ready(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    claim: RuntimeState,
    *,
    timeout: float,
    budget: float,
) -> RuntimeState:
    """Wait up to ``timeout`` seconds for Steam to be ready for ``game``; the refusal when it
    is not (see the module doc). ``budget`` is the spawn's start budget, restamped after: the
    claim so restamped is returned."""
    assert claim.operation is not None
    launch_id, operation_id = claim.launch_id, claim.operation.operation_id

    def deadlines(seconds: float, *, fenced: bool) -> Callable[[RuntimeState], None]:
        moment = now()
        until = moment + timedelta(seconds=seconds)

        def change(state: RuntimeState) -> None:
            assert state.operation is not None
            if fenced and (state.operation.deadline is None or moment >= state.operation.deadline):
                # past its deadline the start may be taken over: it is not extended (as Go)
                raise DeadlinePassed("the start's deadline passed", release="after")
            state.operation.deadline = state.process_start_deadline = until

        return change

    await lc.update(game.id, launch_id, deadlines(timeout, fenced=True), operation_id=operation_id)
    result = await anyio.to_thread.run_sync(
        ensure_ready_within, game.target, timeout, abandon_on_cancel=True
    )
    if not result.ready:
        raise store_client_not_ready(game, resolved, result)
    return await lc.update(
        game.id, launch_id, deadlines(budget, fenced=False), operation_id=operation_id
    )
