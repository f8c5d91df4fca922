"""Stage 2 of a start: decide whether a new launch may claim the game, and claim it.

An existing claim is judged by the liveness rule: running is ``already_running``, a step in
flight is ``operation_in_progress``, unknown is ``blocked_unknown_state`` (never a duplicate),
stopped clears it. Without a claim, every profile's status hook and ``stopProcessName`` are
asked whether the game runs anyway (``external_instance_detected``; when exactly one answer
fits, the instance is recorded as an external claim so it can be stopped by id). Then the new
claim is written whole, under the transition lock.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio

from gabs.config import GameConfig
from gabs.go_format import go_quote
from gabs.launch.hooks import HookResult, Verdict, run_status_hook
from gabs.launch.resolve import Resolved, ResolvedHook, profile_lifecycles
from gabs.runtime import (
    ClaimError,
    Evidence,
    LockBusy,
    RuntimeState,
    evaluate,
    load_claim,
    save_claim,
    transition_lock,
)
from gabs.runtime.claim import format_seconds, new_id
from gabs.runtime.legacy import LegacyContext, is_legacy, normalize_legacy_claim
from gabs.runtime.procs import find_by_name, verify_pid

from .codes import LifecycleError, next_action
from .core import Lifecycle, now
from .delivery import EXTERNAL_DELIVERY
from .history import TrackRecord
from .preflight import fresh_claim, replace_own_claim

__all__ = ["claim_for_start", "operation_refusal"]

LiveCheck = Callable[[RuntimeState], bool]


def operation_refusal(game_id: str, claim: RuntimeState, *, warnings_key: str) -> LifecycleError:
    """``operation_in_progress`` for a claim whose step is still within its deadline (a start's
    refusal, ``warnings_key="startWarnings"``, is worded as the Go bridge's start gate words it)."""
    operation = claim.operation
    assert operation is not None
    begun = format_seconds(operation.attempt_started_at)
    deadline = format_seconds(operation.deadline)
    if warnings_key == "startWarnings":
        what = (
            "already starting: a start operation"
            if operation.action == "start"
            else f"{operation.action} operation"
        )
        message = f"{game_id} is {what} begun {begun} is still in progress (deadline {deadline})"
    else:
        message = (
            f"a {operation.action} operation on {game_id} begun {begun} is still in progress "
            f"(deadline {deadline}); re-check after the deadline"
        )
    data: dict[str, Any] = {"phase": claim.phase}
    if claim.effective_profile:
        data["activeProfile"] = claim.effective_profile
    data["operation"] = {
        "action": operation.action,
        "attemptStartedAt": begun,
        "deadline": deadline,
    }
    return LifecycleError(
        "operation_in_progress",
        message,
        data=data,
        next_actions=[
            next_action(
                "games_status",
                {"gameId": game_id},
                "Re-check once the in-flight operation finishes.",
            )
        ],
        is_error=False,
        warnings_key=warnings_key,
    )


_SUPERSEDED = (
    "an earlier start of this game was never observed and its budget has passed; it is "
    "superseded, but an abandoned store launch could still appear"
)


def _unobserved_claim(claim: RuntimeState) -> bool:
    """A start that spawned and then saw nothing (``unobserved``): its step is over, the claim
    still ``starting``."""
    return claim.phase == "starting" and claim.operation is None and claim.spawn_state == "spawned"


def _reclaimable(claim: RuntimeState) -> bool:
    """A start that saw nothing (``unobserved``) and whose budget has passed."""
    deadline = claim.process_start_deadline
    return _unobserved_claim(claim) and deadline is not None and now() > deadline


def _positive_stop(claim: RuntimeState, evidence: Evidence) -> bool:
    """Stopped evidence that is more than absence: a status hook's verdict, or the recorded
    workload process proven gone (a name not found is only absence, as in Go)."""
    return evidence.source == "status_hook" or (
        evidence.source == "pid_fingerprint" and claim.pid_role == "workload"
    )


def _judge_unobserved(game: GameConfig, claim: RuntimeState, evidence: Evidence) -> str:
    """Go's rule for a claim an ``unobserved`` start left: absence of evidence is not stopped
    within its budget (``blocked_unknown_state``); past it the claim is superseded with a
    warning. Returns the warning, or "" when the verdict stands as it is."""
    if not _unobserved_claim(claim):
        return ""
    if evidence.verdict == "unknown" and evidence.source != "none":
        return ""  # a source that cannot tell blocks, whatever the budget
    if evidence.verdict == "stopped" and _positive_stop(claim, evidence):
        return ""
    if evidence.verdict == "running":
        return ""
    if _reclaimable(claim):
        return _SUPERSEDED
    raise LifecycleError(
        "blocked_unknown_state",
        f"The last start of '{game.id}' saw nothing yet and its start budget has not passed; "
        "the store launcher may still bring the game up, so finding nothing does not mean it "
        "stopped. Re-check games_status, or start again once the budget is over.",
        data={"phase": claim.phase, "evidence": evidence.to_json()},
        next_actions=[
            next_action("games_status", {"gameId": game.id}, "Re-check whether the game came up.")
        ],
    )


async def _judge_existing(
    lc: Lifecycle,
    game: GameConfig,
    claim: RuntimeState,
    live: LiveCheck | None,
    warnings: list[str],
    requested: str = "",
) -> None:
    """Raise unless the existing claim is provably stale (then remove it); ``requested`` is the
    profile this start resolved to."""
    if _executor_gate(game.id, claim) == "clear":
        if not await lc.remove_if(game.id, claim.launch_id):
            raise _Retry()
        return
    evidence = await evaluate(
        claim, game_id=game.id, gabp_live=bool(live and live(claim)), instance_id=lc.instance_id
    )
    warnings += evidence.warnings
    if evidence.verdict == "running":
        profile = claim.effective_profile
        raise LifecycleError(
            "already_running",
            f"Game '{game.id}' is already running"
            + (f" with profile '{profile}'" if profile else "")
            + " (another start, CLI or GABS session launched it). Use it as it is — connect with "
            "games_connect — or stop it first.",
            data={
                "activeProfile": profile,
                "phase": claim.phase,
                "evidence": evidence.to_json(),
                **({"requestedProfile": requested} if requested else {}),
            },
            next_actions=[
                next_action("games_status", {"gameId": game.id}, "Inspect the active instance."),
                next_action(
                    "games_connect",
                    {"gameId": game.id},
                    "Attach this session to the running game instead of launching a duplicate.",
                ),
                next_action(
                    "games_stop", {"gameId": game.id}, "Stop it first if another profile is needed."
                ),
            ],
            is_error=False,
        )
    superseded = _judge_unobserved(game, claim, evidence)
    if superseded:
        warnings.append(superseded)
    elif evidence.verdict == "unknown":
        raise LifecycleError(
            "blocked_unknown_state",
            f"A runtime claim exists for '{game.id}' but whether the game still runs cannot "
            f"be determined ({evidence.detail}); refusing to start a duplicate. Use "
            f"'gabs games repair {game.id} --forget-runtime' only if it is provably gone.",
            data={"phase": claim.phase, "evidence": evidence.to_json()},
            next_actions=[
                next_action(
                    "games_status",
                    {"gameId": game.id},
                    "Gather evidence; use repair --forget-runtime only if the instance is "
                    "provably gone.",
                )
            ],
        )
    if not await lc.remove_if(game.id, claim.launch_id):
        raise _Retry()


class _Retry(Exception):
    pass


def _executor_gate(game_id: str, claim: RuntimeState) -> str:
    """The start gate's look at the step a claim carries, as Go's: a step within its deadline
    refuses the start while its executor runs (``operation_in_progress``) and blocks it while
    the executor cannot be inspected (``blocked_unknown_state``: unknown is not gone); a step
    without an executor pid is no refusal (the claim is judged by its evidence). A start that
    never spawned (``preflight``) whose executor is provably gone is ``clear``: nothing was
    launched, so the claim is removed without asking for evidence."""
    operation = claim.operation
    if operation is None or operation.executor_pid <= 0:
        return "judge"
    verdict, detail = verify_pid(operation.executor_pid, operation.executor_pid_start_time)
    if operation.deadline is not None and now() < operation.deadline:
        if verdict == "running":
            raise operation_refusal(game_id, claim, warnings_key="startWarnings")
        if verdict == "unknown":
            raise LifecycleError(
                "blocked_unknown_state",
                f"The {operation.action} operation on '{game_id}' is within its deadline and "
                f"its executor cannot be inspected ({detail}); it may still be running, so the "
                "start is refused.",
                data={"phase": claim.phase},
                next_actions=[
                    next_action(
                        "games_status",
                        {"gameId": game_id},
                        "Re-check once the operation's deadline has passed.",
                    )
                ],
            )
    if claim.source == "gabs" and claim.spawn_state == "preflight" and verdict == "stopped":
        return "clear"
    return "judge"


async def _probe_external(
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


def _unreadable(game_id: str, exc: ClaimError) -> LifecycleError:
    return LifecycleError(
        "blocked_unknown_state",
        # the start gate's short refusal, as the Go bridge words it
        f"runtime claim for {game_id} is unreadable: {exc}; inspect it or run repair "
        "--forget-runtime",
    )


def _superseded(game_id: str, warnings: list[str]) -> LifecycleError:
    return LifecycleError(
        "operation_in_progress",
        f"the start of {game_id} was superseded while pre-start probes ran; re-check games_status",
        warnings=warnings,
        is_error=False,
    )


async def _probe_holding(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    folder: Path,
    claim: RuntimeState,
    warnings: list[str],
    budget: float,
) -> tuple[RuntimeState, list[str]]:
    """The pre-start probes, run while the fresh claim is published (as Go runs them): an
    instance found turns the claim into its external snapshot (or, several found, removes
    it); else the claim's deadlines start afresh, so the probes cost the spawn nothing."""
    try:
        found = await _probe_external(game, warnings, resolved.profile, resolved.config_revision)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await replace_own_claim(folder, claim, None)
        raise
    if found is not None:
        external, snapshot = found
        if snapshot is not None:
            # Go's snapshot is this start's claim rewritten: its launch and owner stay.
            snapshot.launch_id = claim.launch_id
            snapshot.owner_pid, snapshot.owner_instance_id = lc.pid, lc.instance_id
            if not await replace_own_claim(folder, claim, snapshot):
                raise _superseded(game.id, warnings)
        else:
            await replace_own_claim(folder, claim, None)
        raise external
    started = copy.deepcopy(claim)
    moment = now()
    started.process_start_deadline = moment + timedelta(seconds=budget)
    if started.operation is not None:
        started.operation.deadline = moment + timedelta(seconds=budget + 10)
    if not await replace_own_claim(folder, claim, started):
        raise _superseded(game.id, warnings)
    return started, warnings


async def claim_for_start(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    *,
    budget: float,
    lease: timedelta,
    live: LiveCheck | None = None,
) -> tuple[RuntimeState, list[str]]:
    """Write a new claim for this launch (phase ``starting``); raise a refusal otherwise.

    The start's input combination (its track-record bucket) is pinned as Go's
    ``historySuccess.bucket``, so whichever step later verifies the start counts it there."""
    try:
        folder = lc.game_dir(game.id)  # refused when it would lead out of the config folder
    except ClaimError as exc:
        raise _unreadable(game.id, exc) from None
    bucket = TrackRecord(folder).accept(game, resolved)
    warnings: list[str] = []
    for _ in range(4):
        try:
            existing = load_claim(folder)
        except ClaimError as exc:
            raise _unreadable(game.id, exc) from None
        if is_legacy(existing):
            # a start's duplicate check is a lifecycle touch: an older Go bridge's claim is
            # normalized first and then judged like any other
            with contextlib.suppress(ClaimError, LockBusy):
                existing, _ = await normalize_legacy_claim(
                    folder, LegacyContext(game.launch_mode, resolved.config_revision)
                )
        if existing is not None:
            try:
                await _judge_existing(lc, game, existing, live, warnings, resolved.profile)
            except _Retry:
                pass
            except LifecycleError as refusal:
                refusal.warnings = warnings
                raise
            continue
        claim = fresh_claim(lc, game, resolved, budget=budget, bucket=bucket)
        lc.refresh_owner(claim, lease)
        try:
            async with transition_lock(folder):
                if load_claim(folder) is not None:
                    continue
                save_claim(folder, claim)
        except LockBusy:
            # Go's unexpected-error branch of a start: the state is unresolved
            raise LifecycleError(
                "blocked_unknown_state",
                f"Failed to start {game.id}: transition lock for {game.id}: transition lock "
                "held by another operation",
                warnings=warnings,
            ) from None
        return await _probe_holding(lc, game, resolved, folder, claim, warnings, budget)
    raise LifecycleError(
        "operation_in_progress",
        f"the runtime claim of '{game.id}' kept changing while starting; re-check games_status",
        warnings=warnings,
        is_error=False,
    )
