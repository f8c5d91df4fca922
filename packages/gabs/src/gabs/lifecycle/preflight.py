"""The claim a start publishes before its pre-start probes, as the Go bridge's Stage 2 does:
phase ``starting``, ``spawnState`` ``preflight``, the whole pre-spawn snapshot. While the
probes run, a concurrent start or a status from another process sees it (the start is in
progress), and a start killed there leaves a claim that any later touch removes as stale.
The start then changes it only while it is still its own (same launch and operation)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from gabs.config import GameConfig
from gabs.launch.resolve import Resolved
from gabs.runtime import (
    ClaimError,
    LockBusy,
    Operation,
    RuntimeState,
    load_claim,
    save_claim,
    transition_lock,
)
from gabs.runtime.claim import new_id, remove_claim

from .core import Lifecycle, now
from .history import context_hash, last_good_snapshot

__all__ = ["fresh_claim", "replace_own_claim"]


def fresh_claim(
    lc: Lifecycle, game: GameConfig, resolved: Resolved, *, budget: float, bucket: Any
) -> RuntimeState:
    """The claim of a new launch, before anything is spawned."""
    moment = now()
    claim = RuntimeState(
        game_id=game.id,
        status="starting",
        stop_process_name=game.stop_process_name,
        launch_id=new_id(),
        phase="starting",
        spawn_state="preflight",
        launch_mode=game.launch_mode,
        pid_role="helper" if game.url_mode else "workload",
        profile=resolved.profile,
        applied_input_names=list(resolved.applied_inputs),
        config_revision=resolved.config_revision,
        lifecycle=resolved.lifecycle,
        operation=Operation(
            operation_id=new_id(),
            action="start",
            executor_instance_id=lc.instance_id,
            executor_pid=lc.pid,
            executor_pid_start_time=lc.pid_start_time,
            attempt_started_at=moment,
            deadline=moment + timedelta(seconds=budget + 10),
        ),
        process_start_deadline=moment + timedelta(seconds=budget),
        history_context_hash=context_hash(game, resolved.profile),
    )
    claim.extra["historySuccess"] = {
        "bucket": bucket,
        "snapshot": last_good_snapshot(game, resolved.profile),
    }
    return claim


def _same_operation(current: RuntimeState | None, own: RuntimeState) -> bool:
    return (
        current is not None
        and current.launch_id == own.launch_id
        and current.operation is not None
        and own.operation is not None
        and current.operation.operation_id == own.operation.operation_id
    )


async def replace_own_claim(folder: Path, own: RuntimeState, new: RuntimeState | None) -> bool:
    """Write ``new`` in place of the start's own claim ``own`` (remove it when ``new`` is
    ``None``), under the transition lock; ``False``, changing nothing, when the claim is no
    longer the start's (another operation took it over, or it cannot be read)."""
    try:
        async with transition_lock(folder):
            try:
                current = load_claim(folder)
            except ClaimError:
                return False
            if not _same_operation(current, own):
                return False
            if new is None:
                remove_claim(folder)
            else:
                save_claim(folder, new)
            return True
    except LockBusy:
        return False
