"""Stage 2 of a start: decide whether a new launch may claim the game, and claim it.

An existing claim is judged by the liveness rule: running is ``already_running``, a step in
flight is ``operation_in_progress``, unknown is ``blocked_unknown_state`` (never a duplicate),
stopped clears it. Without a claim, the new claim is written whole under the transition lock
(``starting``, ``preflight``, the start step), as Go publishes it; then, holding it, every
profile's status hook and ``stopProcessName`` are asked whether the game runs anyway
(``external_instance_detected``; when exactly one answer fits, the claim becomes the external
instance's, so it can be stopped by id; otherwise it is removed). A status or another start
meanwhile sees the start in progress.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio

from gabs.config import GameConfig
from gabs.launch.resolve import Resolved
from gabs.runtime import (
    ClaimError,
    Evidence,
    LockBusy,
    Operation,
    RuntimeState,
    evaluate,
    load_claim,
    remove_claim,
    save_claim,
    transition_lock,
)
from gabs.runtime.claim import format_seconds, new_id
from gabs.runtime.legacy import LegacyContext, is_legacy, normalize_legacy_claim
from gabs.runtime.procs import verify_pid

from .codes import LifecycleError, next_action
from .core import Lifecycle, now
from .history import TrackRecord, context_hash, last_good_snapshot
from .probes import probe_external

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
    data["operation"] = _step_view(claim)
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


def _step_view(claim: RuntimeState) -> dict[str, str]:
    """A claim's step as a refusal shows it (Go's RFC 3339 times, to the second)."""
    operation = claim.operation
    assert operation is not None
    return {
        "action": operation.action,
        "attemptStartedAt": format_seconds(operation.attempt_started_at),
        "deadline": format_seconds(operation.deadline),
    }


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
        if not await lc.remove_if(game.id, claim.launch_id, **_as_observed(claim)):
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
    if not await lc.remove_if(game.id, claim.launch_id, self_live=live_now, **_as_observed(claim)):
        raise _Retry()


def _as_observed(claim: RuntimeState) -> dict[str, Any]:
    """The fence of a removal of the claim as the gate judged it: its step (or none), so
    a step admitted meanwhile keeps it (as Go's re-check of the operation's identity)."""
    if claim.operation is None:
        return {"idle": True}
    return {"operation_id": claim.operation.operation_id}


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
        lc.refresh_owner(claim, lease)
        # As Go: the claim is published before the probes, so a status or another start
        # meanwhile sees this start in progress; the probes then run holding it.
        async with _locked(game.id, folder, warnings):
            if load_claim(folder) is not None:
                continue
            save_claim(folder, claim)
        try:
            found = await probe_external(game, warnings, resolved.profile, resolved.config_revision)
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(ClaimError, LockBusy):
                await lc.remove_if(game.id, claim.launch_id)
            raise
        async with _locked(game.id, folder, warnings):
            current = load_claim(folder)
            if current is None or current.launch_id != claim.launch_id:
                raise _superseded_during_probes(game.id, warnings)
            if found is not None:
                external, snapshot = found
                if snapshot is None:
                    remove_claim(folder)
                else:
                    # Go's snapshot is this bridge's preflight claim rewritten: its owner stays.
                    snapshot.owner_pid, snapshot.owner_instance_id = lc.pid, lc.instance_id
                    save_claim(folder, snapshot)
                raise external
            # the probes took none of the start's budget (Go stamps it again here, changing
            # nothing else in the claim)
            moment = now()
            for held in (claim, current):
                if held.operation is not None:
                    held.operation.deadline = moment + timedelta(seconds=budget + 10)
                held.process_start_deadline = moment + timedelta(seconds=budget)
            save_claim(folder, current)
        return claim, warnings
    # Every attempt lost the claim to another start: Go's refusal, with that claim's step.
    data: dict[str, Any] = {}
    with contextlib.suppress(ClaimError):
        current = load_claim(folder)
        if current is not None:
            data["phase"] = current.phase
            if current.operation is not None:
                data["operation"] = _step_view(current)
    raise LifecycleError(
        "operation_in_progress",
        f"{game.id} is already starting in a concurrent operation",
        data=data,
        next_actions=[
            next_action(
                "games_status",
                {"gameId": game.id},
                "Re-check once the in-flight operation finishes.",
            )
        ],
        warnings=warnings,
        is_error=False,
    )


@contextlib.asynccontextmanager
async def _locked(game_id: str, folder: Path, warnings: list[str]) -> AsyncIterator[None]:
    """The transition lock of a start; held by another process too long, Go's unexpected-error
    branch of a start (the state is unresolved)."""
    try:
        async with transition_lock(folder):
            yield
    except LockBusy:
        raise LifecycleError(
            "blocked_unknown_state",
            f"Failed to start {game_id}: transition lock for {game_id}: transition lock "
            "held by another operation",
            warnings=warnings,
        ) from None


def _superseded_during_probes(game_id: str, warnings: list[str]) -> LifecycleError:
    return LifecycleError(
        "operation_in_progress",
        f"the start of {game_id} was superseded while pre-start probes ran; re-check games_status",
        next_actions=[
            next_action(
                "games_status",
                {"gameId": game_id},
                "Re-check once the in-flight operation finishes.",
            )
        ],
        warnings=warnings,
        is_error=False,
    )
