"""The probes a start runs before it spawns, for a game running without a claim.

Every profile's status hook is asked at once (each within its own timeout), then, when none
says running, the processes named ``stopProcessName`` are looked up. One answer that fits
(``external_instance_detected``) turns the start's fresh claim into an *external* claim, so the
instance can be stopped by id; several are reported and nothing is recorded. The start holds its
claim while these probes run, so a concurrent start meanwhile sees ``operation_in_progress``,
as in the Go bridge.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import anyio

from gabs.config import GameConfig
from gabs.go_format import go_quote
from gabs.launch.hooks import HookResult, Verdict, run_status_hook
from gabs.launch.resolve import ResolvedHook, ResolvedLifecycle, profile_lifecycles
from gabs.runtime import RuntimeState
from gabs.runtime.procs import find_by_name

from .codes import LifecycleError, next_action
from .core import now
from .delivery import EXTERNAL_DELIVERY

__all__ = ["ExternalInstance", "as_external", "probe_external"]


@dataclass(frozen=True)
class ExternalInstance:
    """The one instance a start's probes found: the profile whose hook said running
    (``unknown`` when found by name) and that profile's hooks (none when found by name)."""

    observed_profile: str
    lifecycle: ResolvedLifecycle | None


def as_external(claim: RuntimeState, found: ExternalInstance, stop_process_name: str) -> None:
    """Rewrite a start's fresh claim into the claim of the external instance, as Go rewrites
    its preflight claim: ``active``, ``source: external``, nothing launched (no profile, pid,
    endpoint, step or launch inputs), the observed profile's hooks, no track-record identity
    (the refused start's context does not describe the instance), delivery ``unknown``. The
    owner stays, without a lease."""
    claim.status = "running"
    claim.phase = "active"
    claim.source = "external"
    claim.spawn_state = ""
    claim.operation = None
    claim.process_start_deadline = None
    claim.game_pid = 0
    claim.pid_start_time = 0
    claim.endpoint_port, claim.endpoint_token = 0, ""
    claim.profile = ""
    claim.observed_profile = found.observed_profile
    claim.applied_input_names = []
    claim.extra["appliedLaunchInputsState"] = "unavailable"
    claim.lifecycle = found.lifecycle
    claim.stop_process_name = stop_process_name
    claim.history_context_hash = ""
    claim.extra.pop("historySuccess", None)
    claim.context_delivery = copy.deepcopy(EXTERNAL_DELIVERY)
    claim.owner_lease_until = None
    claim.owner_last_active = now()


async def probe_external(
    game: GameConfig, warnings: list[str], requested: str = ""
) -> tuple[LifecycleError, ExternalInstance | None] | None:
    """``external_instance_detected`` (and the one instance to record, if there is exactly
    one) when the game runs outside GABS; ``None`` when the start may go on."""
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
    found = None
    if len(running) == 1:
        found = ExternalInstance(running[0], lifecycles.get(running[0]))
    elif not running and len(names) == 1:
        # found by name: no profile and no hooks can be attributed to it, as in Go
        found = ExternalInstance("unknown", None)
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
    data: dict[str, Any] = {"externalSnapshotPersisted": found is not None}
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
        if found is not None
        else [],
    )
    return refusal, found
