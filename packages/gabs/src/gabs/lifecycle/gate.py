"""Stage 2 of a start: decide whether a new launch may claim the game, and claim it.

An existing claim is judged by the liveness rule: running is ``already_running``, a step in
flight is ``operation_in_progress``, unknown is ``blocked_unknown_state`` (never a duplicate),
stopped clears it. Then the new claim is written whole, under the transition lock, and only
then, holding it, every profile's status hook and ``stopProcessName`` are asked whether the game
runs anyway (:mod:`.external`), as in the Go bridge: a concurrent start meanwhile sees
``operation_in_progress``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import anyio

from gabs.config import GameConfig, LooseGameDir
from gabs.launch.resolve import Resolved
from gabs.runtime import (
    ClaimError,
    Evidence,
    LockBusy,
    LockUnavailable,
    Operation,
    RuntimeState,
    evaluate,
    load_claim,
    transition_lock,
)
from gabs.runtime.claim import format_seconds, new_id
from gabs.runtime.legacy import LegacyContext, is_legacy, normalize_legacy_claim
from gabs.runtime.procs import verify_pid
from gabs.runtime.publish import publish_claim

from .codes import LifecycleError, next_action, recheck_action
from .core import Lifecycle, Superseded, now
from .external import as_external, probe_external
from .history import TrackRecord, context_hash, last_good_snapshot

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
        next_actions=[recheck_action(game_id)],
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
        if not await lc.remove_if(game.id, claim.launch_id, judged=claim):
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
            f"{game.id} is already running ({evidence.detail})",  # Go's start gate line
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
                    "games_stop",
                    {"gameId": game.id},
                    "Stop it first if the other profile is needed.",
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
            f"cannot determine whether {game.id} is still running ({evidence.detail}); a claim "
            "exists, so uncertainty blocks the start — verify manually, then repair "
            "--forget-runtime if it is truly gone",
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
    live_now = bool(live and live(claim))
    if not await lc.remove_if(game.id, claim.launch_id, self_live=live_now, judged=claim):
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
                f"an in-flight {operation.action} operation on {game_id} has an executor that "
                f"cannot be inspected ({detail}); uncertainty blocks the start",
                data={"phase": claim.phase},
                next_actions=[
                    next_action(
                        "games_status",
                        {"gameId": game_id},
                        "Gather evidence; use repair --forget-runtime only if the instance is "
                        "provably gone.",
                    )
                ],
            )
    if claim.source == "gabs" and claim.spawn_state == "preflight" and verdict == "stopped":
        return "clear"
    return "judge"


def _unreadable(game_id: str, exc: ClaimError) -> LifecycleError:
    return LifecycleError(
        "blocked_unknown_state",
        # the start gate's short refusal, as the Go bridge words it
        f"runtime claim for {game_id} is unreadable: {exc}; inspect it or run repair "
        "--forget-runtime",
    )


def _concurrent(game_id: str, current: RuntimeState | None, warnings: list[str]) -> LifecycleError:
    """Go's refusal of a start that lost the race for the claim on every attempt."""
    data: dict[str, Any] = {}
    if current is not None:
        data["phase"] = current.phase
        operation = current.operation
        if operation is not None:
            data["operation"] = {
                "action": operation.action,
                "attemptStartedAt": format_seconds(operation.attempt_started_at),
                "deadline": format_seconds(operation.deadline),
            }
    return LifecycleError(
        "operation_in_progress",
        f"{game_id} is already starting in a concurrent operation",
        data=data,
        warnings=warnings,
        next_actions=[recheck_action(game_id)],
        is_error=False,
    )


def _superseded_while_probing(game_id: str, warnings: list[str]) -> LifecycleError:
    """Go's refusal of a start whose fresh claim was taken over while its probes ran."""
    return LifecycleError(
        "operation_in_progress",
        f"the start of {game_id} was superseded while pre-start probes ran; re-check games_status",
        warnings=warnings,
        next_actions=[recheck_action(game_id)],
        is_error=False,
    )


def _fresh_claim(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    bucket: Any,
    budget: float,
) -> RuntimeState:
    """The complete claim of a launch that has not spawned yet (``preflight``), with its start
    step, and the input combination (its track-record bucket) pinned as Go's
    ``historySuccess.bucket``, so whichever step later verifies the start counts it there.
    This bridge owns it, active as of now but with no lease of its own (Go's
    ``NewRuntimeState``: the verified start takes one); until then others count the lease from
    ``ownerLastActive``."""
    moment = now()
    claim = RuntimeState(
        game_id=game.id,
        status="starting",
        owner_pid=lc.pid,
        owner_instance_id=lc.instance_id,
        owner_last_active=moment,
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
            deadline=moment + timedelta(seconds=budget),
        ),
        process_start_deadline=moment + timedelta(seconds=budget),
        history_context_hash=context_hash(game, resolved.profile),
    )
    claim.extra["historySuccess"] = {
        "bucket": bucket,
        "snapshot": last_good_snapshot(game, resolved.profile),
    }
    return claim


async def _take_claim(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    *,
    budget: float,
    live: LiveCheck | None,
    warnings: list[str],
) -> RuntimeState:
    """Judge the claim there is (a refusal, or removed as stale) and write a fresh one; a
    claim that appears meanwhile is judged in turn, three times at most, as in Go."""
    folder = lc.game_dir(game.id)
    bucket = TrackRecord(folder).accept(game, resolved)
    for _ in range(3):
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
                continue
            except LifecycleError as refusal:
                refusal.warnings = warnings
                raise
        claim = _fresh_claim(lc, game, resolved, bucket, budget)
        try:
            async with transition_lock(folder, game_id=game.id):
                if not publish_claim(folder, claim):
                    continue  # another start won the race: judge its claim
        except LockBusy:
            # Go's unexpected-error branch of a start: the state is unresolved
            raise LifecycleError(
                "blocked_unknown_state",
                f"Failed to start {game.id}: transition lock for {game.id}: transition lock "
                "held by another operation",
                warnings=warnings,
            ) from None
        except LooseGameDir as exc:
            # Go's unexpected-error branch too: the claim was never written
            raise LifecycleError(
                "blocked_unknown_state",
                f"Failed to start {game.id}: failed to create game config dir: {exc}",
                warnings=warnings,
            ) from None
        except LockUnavailable as exc:
            # the same branch: the folder or its lock file cannot be made or opened (Go has
            # published its preflight claim by then and leaves it; ours writes none)
            raise LifecycleError(
                "blocked_unknown_state", f"Failed to start {game.id}: {exc}", warnings=warnings
            ) from None
        return claim
    with contextlib.suppress(ClaimError):
        raise _concurrent(game.id, load_claim(folder), warnings)
    raise _concurrent(game.id, None, warnings)


async def claim_for_start(
    lc: Lifecycle,
    game: GameConfig,
    resolved: Resolved,
    *,
    budget: float,
    live: LiveCheck | None = None,
) -> tuple[RuntimeState, list[str]]:
    """Stage 2, as Go's start gate: write a new claim for this launch (phase ``starting``,
    ``spawnState: preflight``), then, holding it, ask whether the game runs anyway; raise a
    refusal otherwise. Holding the claim first means a concurrent start sees
    ``operation_in_progress`` while these probes run, and only one start ever probes."""
    try:
        lc.game_dir(game.id)  # refused when it would lead out of the config folder
    except ClaimError as exc:
        raise _unreadable(game.id, exc) from None
    warnings: list[str] = []
    claim = await _take_claim(lc, game, resolved, budget=budget, live=live, warnings=warnings)
    assert claim.operation is not None
    launch_id, operation_id = claim.launch_id, claim.operation.operation_id
    going_on = False
    try:
        found = await probe_external(game, warnings, resolved.profile)
        if found is not None:
            refusal, instance = found
            if instance is not None:
                # as Go: the fresh claim itself becomes the external instance's claim
                await lc.update(
                    game.id,
                    launch_id,
                    lambda state: as_external(state, instance, game.stop_process_name),
                    operation_id=operation_id,
                )
            raise refusal

        def restamp(state: RuntimeState) -> None:
            # the probes' time is not charged to the launch: its budget starts again, as Go's
            assert state.operation is not None
            moment = now()
            state.operation.deadline = moment + timedelta(seconds=budget)
            state.process_start_deadline = moment + timedelta(seconds=budget)

        claim = await lc.update(game.id, launch_id, restamp, operation_id=operation_id)
        going_on = True
    except Superseded:
        raise _superseded_while_probing(game.id, warnings) from None
    except OSError as exc:
        # the lock or the disk failed after the probes: unresolved, with what they found
        raise LifecycleError(
            "blocked_unknown_state", f"Failed to start {game.id}: {exc}", warnings=warnings
        ) from None
    finally:
        if not going_on:
            # Every other ending releases the fresh claim, fenced: a claim rewritten for an
            # external instance (its step is over) or taken over by another start stays.
            with anyio.CancelScope(shield=True):
                await lc.remove_if(game.id, launch_id, operation_id=operation_id)
    return claim, warnings
