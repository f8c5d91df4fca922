"""The probes before a start: is the game running although no claim says so?

Every profile's status hook is asked at once, each within its own timeout, and then the
processes named ``stopProcessName``. One answer that fits is an instance started outside GABS:
it is recorded as an external claim (so it can be stopped by id) and the start is refused
(``external_instance_detected``); several answers are refused without a record.
"""

from __future__ import annotations

import copy
from typing import Any

import anyio

from gabs.config import GameConfig
from gabs.go_format import go_quote
from gabs.launch.hooks import HookResult, Verdict, run_status_hook
from gabs.launch.resolve import ResolvedHook, profile_lifecycles
from gabs.runtime import RuntimeState
from gabs.runtime.claim import new_id
from gabs.runtime.procs import find_by_name

from .codes import LifecycleError, next_action
from .core import now
from .delivery import EXTERNAL_DELIVERY

__all__ = ["probe_external"]


async def probe_external(
    game: GameConfig, warnings: list[str], requested: str = "", revision: str = ""
) -> tuple[LifecycleError, RuntimeState | None] | None:
    """``external_instance_detected`` (and the external claim to record) when the game runs
    without a claim."""
    running: list[str] = []
    lifecycles = profile_lifecycles(game)
    hooks = {name: found.status for name, found in lifecycles.items() if found.status is not None}
    verdicts: dict[str, tuple[Verdict, HookResult]] = {}

    async def probe(profile: str, hook: ResolvedHook) -> None:
        verdicts[profile] = await run_status_hook(hook, game_id=game.id, profile=profile)

    # Every profile's hook at once, each within its own timeout, as Go probes them.
    async with anyio.create_task_group() as group:
        for profile, hook in hooks.items():
            group.start_soon(probe, profile, hook)
    undecided: list[str] = []
    for profile in sorted(verdicts):
        verdict, result = verdicts[profile]
        if verdict == "running":
            running.append(profile)
        elif verdict == "unknown":
            undecided.append(
                f"status hook of profile {profile or '(default)'!r} could not tell whether the "
                f"game runs ({result.describe()})"
            )
    if not running:  # as Go: a profile found running makes the others' silence moot
        warnings.extend(undecided)
    names: list[int] = []
    if game.stop_process_name and not running:
        try:
            names = find_by_name(game.stop_process_name)
        except OSError as exc:
            warnings.append(
                f"process scan for {go_quote(game.stop_process_name)} failed before starting: {exc}"
            )
    if not running and not names:
        return None
    snapshot = None
    if len(running) == 1 or (not running and len(names) == 1):
        profile = running[0] if running else "unknown"
        moment = now()
        snapshot = RuntimeState(
            game_id=game.id,
            status="running",
            stop_process_name=game.stop_process_name,
            launch_id=new_id(),
            generation=2,  # as Go's: its snapshot is a transition of the fresh preflight claim
            phase="active",
            spawn_state="",  # nothing was spawned: Go's snapshot has no spawnState
            source="external",
            config_revision=revision,
            launch_mode=game.launch_mode,
            pid_role="workload",
            observed_profile=profile,  # Go leaves ``profile`` empty: nothing was launched
            lifecycle=lifecycles.get(running[0]) if running else lifecycles.get(""),
            owner_last_active=moment,
            extra={"appliedLaunchInputsState": "unavailable"},
            context_delivery=copy.deepcopy(EXTERNAL_DELIVERY),
        )
    # The Go bridge's words: a status hook's profiles, else the processes of the name.
    name = go_quote(game.stop_process_name)
    pids = ", ".join(f"pid {pid}" for pid in names)
    # Candidates only where the start found several and chose none, as in Go.
    if len(running) > 1:
        candidates = running
    elif not running and len(names) > 1:
        candidates = [f"pid {pid}" for pid in names]
    else:
        candidates = []
    if len(running) > 1:
        message = (
            f"multiple profiles of {game.id} report running ({', '.join(running)}); resolve "
            "manually before starting"
        )
    elif running:
        message = (
            f"an instance of {game.id} (profile {running[0] or 'none'}) is already running "
            "outside GABS management; it is now tracked by ID for status/stop/kill"
        )
    elif len(names) == 1:
        message = (
            f"a process named {name} (pid {names[0]}) is already running; it is now tracked "
            f"as an external instance of {game.id}"
        )
    else:
        message = (
            f"multiple processes named {name} are running ({pids}); resolve manually before "
            "starting"
        )
    data: dict[str, Any] = {"externalSnapshotPersisted": snapshot is not None}
    if candidates:
        data["candidates"] = candidates
    if requested:
        data["requestedProfile"] = requested
    refusal = LifecycleError(
        "external_instance_detected",
        message,
        data=data,
        warnings=warnings,
        next_actions=[
            next_action(
                "games_status", {"gameId": game.id}, "The external instance is tracked by ID."
            ),
            next_action(
                "games_stop", {"gameId": game.id}, "Stop the external instance to free the game."
            ),
        ]
        if snapshot is not None
        else [],
    )
    return refusal, snapshot
