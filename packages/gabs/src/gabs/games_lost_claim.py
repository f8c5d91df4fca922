"""A game this bridge launched that still runs after its runtime claim was lost (removed by
hand or by another tool): a start finds it and publishes the claim again instead of launching a
second copy (the Go bridge's in-process fast path, ``PublishTrackedControllerSnapshot``)."""

from __future__ import annotations

import copy

import anyio

from gabs.games_runtime import GameRuntime
from gabs.lifecycle import LifecycleError, next_action
from gabs.lifecycle.core import Lifecycle, now
from gabs.lifecycle.delivery import LOST_CLAIM_DELIVERY
from gabs.runtime import ClaimError, RuntimeState
from gabs.runtime.claim import new_id
from gabs.runtime.procs import find_by_name, fingerprint

__all__ = ["claim_lost", "republish"]


async def claim_lost(lc: Lifecycle, runtime: GameRuntime) -> bool:
    """Whether the process this bridge started still runs while its claim is gone (Go's
    in-process fast path: such a start is refused, never launched a second time). A
    direct child that ended (a launcher) still runs by its launch's ``stopProcessName``."""
    spawned = runtime.spawned
    if spawned is None:
        return False
    if spawned.exited:
        name = runtime.stop_process_name
        if not name or not await anyio.to_thread.run_sync(find_by_name, name):
            return False
    try:
        return await lc.load(runtime.game_id) is None
    except ClaimError:
        return False  # the start's own gate judges a claim that cannot be read


async def republish(lc: Lifecycle, runtime: GameRuntime) -> None:
    """Publish a claim again for the process this bridge started when its claim was lost
    (as Go): an unattributed ``external`` snapshot with only what the process itself
    tells (its pid while it runs, the ``stopProcessName`` it was launched with, never one
    edited into the config since), so other bridges see it and stop and kill reach it.
    Refused as ``blocked_unknown_state`` when it cannot be written."""
    spawned = runtime.spawned
    assert spawned is not None
    # The child is not reaped while it runs, so its pid cannot have been reused.
    pid = 0 if spawned.exited else spawned.pid
    started = fingerprint(pid) if pid else 0
    config = runtime.config
    state = RuntimeState(
        game_id=runtime.game_id,
        status="running",
        owner_pid=lc.pid,
        owner_instance_id=lc.instance_id,
        owner_last_active=now(),
        game_pid=pid if started else 0,
        pid_start_time=started,
        stop_process_name=runtime.stop_process_name,
        launch_id=new_id(),
        phase="active",
        spawn_state="",
        source="external",
        launch_mode=config.launch_mode if config is not None else "",
        observed_profile="unknown",
        extra={"appliedLaunchInputsState": "unavailable"},
        context_delivery=copy.deepcopy(LOST_CLAIM_DELIVERY),
    )
    try:
        await lc.publish_absent(runtime.game_id, state)
    except OSError as exc:
        raise LifecycleError(
            "blocked_unknown_state",
            f"'{runtime.game_id}' still runs in this bridge but its runtime claim was lost "
            f"and could not be written again ({exc}); refusing to report it as running "
            "while other bridges cannot see it.",
            data={"phase": "active"},
            next_actions=[
                next_action("games_status", {"gameId": runtime.game_id}, "Inspect the claim.")
            ],
        ) from None
