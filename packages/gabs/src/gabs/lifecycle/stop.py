"""Stopping and killing a game from its claim, then verifying that it ended.

One step per game at a time: a stop or kill while another is in flight answers
``operation_in_progress`` at once. The action is the claim's pinned hook (``stop`` or
``kill``), else the built-in one: SIGTERM (stop) or SIGKILL (kill) to the recorded process,
else to every process named ``stopProcessName``. A stop never escalates to a kill, and a kill
never falls back to the stop hook (``stop_unsupported`` / ``kill_unsupported`` when nothing can
act). Success of the action is then checked against every evidence source for a bounded window:
``terminated`` (claim removed), ``action_succeeded_running``, ``termination_unverified``
(claim kept), or the action's own ``action_failed`` / ``action_timed_out``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import anyio

from gabs.launch.hooks import run_action_hook
from gabs.launch.resolve import ResolvedHook
from gabs.runtime import (
    ActionResult,
    ClaimError,
    LockBusy,
    Operation,
    RuntimeState,
    load_claim,
    save_claim,
    transition_lock,
)
from gabs.runtime.claim import format_seconds, new_id
from gabs.runtime.legacy import LegacyContext, is_legacy, normalize
from gabs.runtime.liveness import HOOK_CONTRADICTION

from .codes import LifecycleError, next_action, recheck_action
from .core import Lifecycle, now
from .gate import operation_refusal
from .history import TrackRecord, summary_line
from .stop_outcome import StopOutcome, complete
from .stop_signals import StopEvidence, gather_evidence, signal_game

__all__ = ["StopOutcome", "action_supported", "stop_game"]

BUILTIN_BUDGET = 10.0
VERIFY_DEFAULT = 15.0
_POLL = 0.5  # between two rounds of evidence, as Go's stopVerifyPollInterval


def _capability(claim: RuntimeState, action: str) -> tuple[ResolvedHook | None, bool]:
    lifecycle = claim.lifecycle
    hook = None
    if lifecycle is not None:
        hook = lifecycle.kill if action == "kill" else lifecycle.stop
    builtin = (claim.pid_role == "workload" and claim.game_pid > 0) or bool(claim.stop_process_name)
    return hook, builtin


def action_supported(claim: RuntimeState, action: str) -> bool:
    """Whether the claim's pinned lifecycle can carry out ``action`` (``stop`` or ``kill``): a
    pinned hook, or a workload pid or process name for the built-in fallback."""
    hook, builtin = _capability(claim, action)
    return hook is not None or builtin


def _unsupported(game_id: str, claim: RuntimeState, action: str) -> LifecycleError:
    mode = f" ({claim.launch_mode} launch)" if claim.launch_mode else ""
    data = {"phase": claim.phase, "action": action}
    if claim.effective_profile:
        data["activeProfile"] = claim.effective_profile
    if action == "kill":
        return LifecycleError(
            "kill_unsupported",
            f"no force-capable action exists for {game_id}{mode}: no kill hook is pinned and no "
            "workload PID or stopProcessName is available. Configure a kill hook or "
            "'stopProcessName' — kill never falls back to the graceful stop hook",
            data=data,
            next_actions=[
                next_action(
                    "games_show",
                    {"gameId": game_id},
                    "Add a kill hook or stopProcessName to enable force termination.",
                )
            ],
        )
    kill_hook, builtin = _capability(claim, "kill")
    actions = []
    if kill_hook is not None or builtin:
        actions.append(
            next_action(
                "games_kill",
                {"gameId": game_id},
                "Force termination is the configured way to end this game.",
            )
        )
    actions.append(
        next_action(
            "games_show",
            {"gameId": game_id},
            "Add a stop hook or stopProcessName to enable graceful stops.",
        )
    )
    return LifecycleError(
        "stop_unsupported",
        f"no graceful stop action exists for {game_id}{mode}: no stop hook is pinned and no "
        "workload PID or stopProcessName is available. Configure a stop hook or "
        "'stopProcessName' — stop never silently escalates to kill",
        data=data,
        next_actions=actions,
    )


def _unreadable(game_id: str, action: str, exc: ClaimError) -> LifecycleError:
    return LifecycleError(
        "blocked_unknown_state",
        f"The runtime claim for '{game_id}' is unreadable: {exc}. Inspect it, or use "
        f"'gabs games repair {game_id} --forget-runtime' if the game is provably gone.",
        data={"action": action, "trackRecord": summary_line(None)},
        warnings_key="warnings",
    )


def _attributed(
    folder: Path, claim: RuntimeState, error: LifecycleError, *, notice: bool = False
) -> LifecycleError:
    """``error`` with the track record of the context the claim pinned (as Go's stop results,
    never the current config's), and for an internal failure (``notice``) the once-per-edit
    ``editNotice`` of that context."""
    try:
        record = TrackRecord(folder)
        digest = claim.history_context_hash
        entry = record.entry(claim.effective_profile, digest) if digest else None
        error.data["trackRecord"] = summary_line(entry)
        if notice and digest:
            text = record.edit_notice(claim.effective_profile, digest)
            if text:
                error.data["editNotice"] = text
    except OSError:  # an unreadable record reads as none
        error.data["trackRecord"] = summary_line(None)
    return error


def _lock_busy(game_id: str, action: str) -> LifecycleError:
    return LifecycleError(
        "operation_in_progress",
        f"another lifecycle operation on {game_id} holds the transition lock; re-check "
        "games_status shortly",
        data={"action": action},
        next_actions=[recheck_action(game_id)],
        is_error=False,
        warnings_key="warnings",
    )


async def _admit(
    lc: Lifecycle,
    game_id: str,
    action: str,
    budget_for: Callable[[ResolvedHook | None], float],
    legacy: LegacyContext,
) -> tuple[RuntimeState, str] | None:
    """Admit the attempt under the transition lock: the claim (normalized when an older Go
    bridge wrote it) and the phase it had, with its operation saved; None without a claim.

    As Go's, a lock held past its timeout is ``operation_in_progress``, and a failure to
    take the lock or write the claim (a lock or disk failure) ``blocked_unknown_state``, in
    the track record of the claim's pinned context, with its ``editNotice``."""
    try:
        folder = lc.game_dir(game_id)  # refused when it would lead out of the config folder
    except ClaimError as exc:
        raise _unreadable(game_id, action, exc) from None
    normalizing = False
    try:
        async with transition_lock(folder, game_id=game_id):
            try:
                claim = load_claim(folder)
            except ClaimError as exc:
                raise _unreadable(game_id, action, exc) from None
            if claim is None:
                return None
            if is_legacy(claim):  # a stop or kill is a lifecycle touch: normalize it first
                normalize(
                    claim, launch_mode=legacy.launch_mode, config_revision=legacy.config_revision
                )
                normalizing = True
                save_claim(folder, claim)
                normalizing = False
            moment = now()
            current = claim.operation
            if current is not None and current.in_flight(moment):
                refusal = operation_refusal(game_id, claim, warnings_key="warnings")
                refusal.data = {"action": action, **refusal.data}
                raise _attributed(folder, claim, refusal)
            if current is not None:
                claim.last_action_result = ActionResult(
                    action=current.action,
                    outcome="interrupted",
                    detail=f"a previous {current.action} attempt begun "
                    f"{format_seconds(current.attempt_started_at)} never completed",
                    timestamp=moment,
                )
                claim.operation = None
                if claim.phase in ("stopping", "killing"):
                    claim.phase = "active"
            hook, builtin = _capability(claim, action)
            if hook is None and not builtin:
                raise _attributed(folder, claim, _unsupported(game_id, claim, action))
            prior = claim.phase
            claim.operation = Operation(
                operation_id=new_id(),
                action=action,
                executor_instance_id=lc.instance_id,
                executor_pid=lc.pid,
                executor_pid_start_time=lc.pid_start_time,
                attempt_started_at=moment,
                deadline=moment + timedelta(seconds=budget_for(hook)),
            )
            claim.phase = "killing" if action == "kill" else "stopping"
            claim.generation += 1
            save_claim(folder, claim)
            return claim, prior
    except LockBusy:
        busy = _lock_busy(game_id, action)
        found = _peek(folder)
        raise (busy if found is None else _attributed(folder, found, busy)) from None
    except OSError as exc:
        if normalizing:
            raise LifecycleError(
                "blocked_unknown_state",
                f"The pre-upgrade runtime claim for '{game_id}' could not be normalized: {exc}. "
                f"Retry, or use 'gabs games repair {game_id} --forget-runtime' if the game is "
                "provably gone.",
                data={"action": action, "trackRecord": summary_line(None)},
                warnings_key="warnings",
            ) from None
        found = _peek(folder)
        if found is None:
            return None  # no claim to act on: the caller's no-claim path
        raise _attributed(
            folder,
            found,
            LifecycleError(
                "blocked_unknown_state",
                f"Failed to {action} '{game_id}': {exc}",
                data={"action": action},
                warnings_key="warnings",
            ),
            notice=True,
        ) from None


def _peek(folder: Path) -> RuntimeState | None:
    """The claim read without the lock, for a result's attribution only; None when there is
    none or it cannot be read."""
    try:
        return load_claim(folder)
    except OSError:
        return None


async def stop_game(
    lc: Lifecycle,
    game_id: str,
    action: str,
    *,
    verify_window: float | None = None,
    gabp_live: Callable[[], bool] | None = None,
    legacy: LegacyContext | None = None,
    reap: Callable[[], None] | None = None,
) -> StopOutcome | None:
    """Stop (``action="stop"``) or kill the game of this claim; None when there is no claim.

    ``reap`` ends a launcher child this bridge started, called before a verified end removes
    the claim.

    A claim of an older Go bridge is normalized first, with the launch mode and config revision
    of ``legacy`` (the game's current entry; see :mod:`gabs.runtime.legacy`)."""

    def window(hook: ResolvedHook | None) -> float:
        if hook is not None and hook.verify_timeout_seconds:
            return float(hook.verify_timeout_seconds)
        return verify_window if verify_window is not None else VERIFY_DEFAULT

    def budget(hook: ResolvedHook | None) -> float:
        return (float(hook.timeout_seconds) if hook is not None else BUILTIN_BUDGET) + window(hook)

    admitted = await _admit(lc, game_id, action, budget, legacy or LegacyContext())
    if admitted is None:
        return None
    claim, prior = admitted
    assert claim.operation is not None
    operation_id, launch_id = claim.operation.operation_id, claim.launch_id
    hook, _ = _capability(claim, action)
    outcome = StopOutcome(
        code="",
        action=action,
        active_profile=claim.effective_profile,
        context_hash=claim.history_context_hash,
    )
    failed = ""
    if hook is not None:
        ok, result = await run_action_hook(hook, game_id=game_id, profile=claim.effective_profile)
        outcome.hook = result
        if not ok:
            failed = "action_timed_out" if result.timed_out else "action_failed"
            if result.exec_error:
                outcome.detail = f"{action} hook failed to run: {result.exec_error}"
    else:
        with anyio.move_on_after(BUILTIN_BUDGET):
            error = await signal_game(claim, action, outcome.warnings)
            if error:
                failed, outcome.detail = "action_failed", error
    if failed:
        outcome.code = failed
        await complete(lc, game_id, launch_id, operation_id, prior, outcome, gabp_live)
        return outcome
    # never past the deadline pinned in the claim: a later caller may by then recover the step
    assert claim.operation is not None and claim.operation.deadline is not None
    left = (claim.operation.deadline - now()).total_seconds()
    if left <= 0:
        outcome.code = "termination_unverified"
        outcome.detail = "the operation deadline elapsed before termination could be verified"
        await complete(lc, game_id, launch_id, operation_id, prior, outcome, gabp_live)
        return outcome
    deadline = anyio.current_time() + min(window(hook), left)
    last = StopEvidence()
    while True:
        remaining = deadline - anyio.current_time()
        if remaining <= 0:
            break
        try:
            current = load_claim(lc.game_dir(game_id))
        except ClaimError:
            current = claim
        if current is None or current.launch_id != launch_id:
            outcome.warnings.append(
                f"the runtime claim was removed or replaced while the {action} was verified; "
                "the result applies to the finished launch only"
            )
            outcome.code = "termination_unverified"
            outcome.detail = (
                "; ".join(last.details) or "verification abandoned: the claim was superseded"
            )
            await complete(lc, game_id, launch_id, operation_id, prior, outcome, gabp_live)
            return outcome
        claim = current
        current_round = await gather_evidence(lc, claim, gabp_live, remaining)
        if current_round.truncated and last.sources > 0:
            break  # keep the last complete round rather than a run the deadline cut short
        last = current_round
        if last.all_stopped or last.no_sources:
            break
        await anyio.sleep(min(_POLL, max(deadline - anyio.current_time(), 0)))
    detail = "; ".join(last.details)
    if last.own_bridge and last.hook_stopped:
        outcome.warnings.append(HOOK_CONTRADICTION)
        outcome.code = "action_succeeded_running"
    elif last.no_sources:
        outcome.code = "terminated"
        detail = (
            "no independent evidence source exists; the successful action stands as "
            "termination evidence"
        )
    elif last.all_stopped:
        outcome.code = "terminated"
    elif last.running:
        outcome.code = "action_succeeded_running"
    else:
        outcome.code = "termination_unverified"
    outcome.detail = detail
    if outcome.code == "terminated" and reap is not None:
        reap()  # a launcher child this bridge started ends before its claim goes (as Go)
    await complete(lc, game_id, launch_id, operation_id, prior, outcome, gabp_live)
    return outcome
