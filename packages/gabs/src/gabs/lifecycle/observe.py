"""Status from a claim: what ``games_status`` and ``gabs games status`` report.

The claim is judged by the liveness rule (without blocking on a step in flight). On the way,
a status observation also tidies: a start that was never observed is promoted to ``active``
when the game shows up (and counted as a verified start in the track record), a step whose
bridge process died or whose deadline passed is recorded as ``interrupted``, and a claim whose
game is provably gone is removed (``stale-runtime-cleaned``). ``unknown`` never removes
anything. A tidying write that the lock or the disk refuses leaves the claim as it is: the
status is then ``unknown`` (``starting`` for a promotion), as Go's.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime

from gabs.launch.spawn import reap_finished
from gabs.runtime import ActionResult, ClaimError, Evidence, RuntimeState, evaluate
from gabs.runtime.claim import format_seconds

from .core import Lifecycle, Superseded, now
from .history import TrackRecord
from .pending import has_pending

__all__ = ["Observation", "observe"]


@dataclass
class Observation:
    """A status and its evidence; ``claim`` as it stands afterwards (None when gone)."""

    status: str
    evidence: Evidence | None
    claim: RuntimeState | None
    error: str = ""


async def observe(lc: Lifecycle, game_id: str, *, gabp_live: bool = False) -> Observation:
    """The game's status from its claim (``stopped`` when there is none)."""
    reap_finished()
    for _ in range(4):
        try:
            claim = await lc.load(game_id)
        except ClaimError as exc:
            return Observation("unknown", None, None, str(exc))
        if claim is None:
            return Observation("stopped", Evidence("stopped", "none", "no runtime claim"), None)
        try:
            return await _once(lc, game_id, claim, gabp_live)
        except Superseded:
            continue
        except OSError:
            # the lock or the disk failed while a dead step was recovered: as Go's, unknown,
            # the claim kept for a later observation
            return Observation("unknown", None, claim)
    return Observation("unknown", None, None, "the runtime claim kept changing")


async def _once(lc: Lifecycle, game_id: str, claim: RuntimeState, gabp_live: bool) -> Observation:
    moment = now()
    operation = claim.operation
    if operation is not None and not operation.in_flight(moment):
        return await _recover(lc, game_id, claim, gabp_live, moment)
    in_flight = operation is not None
    evidence = await evaluate(
        claim, game_id=game_id, gabp_live=gabp_live, instance_id=lc.instance_id
    )
    if evidence.verdict == "running":
        if has_pending(claim):  # a live claim's pending credits (Go's status reconcile)
            with contextlib.suppress(OSError):  # a later status settles them
                claim = await lc.update(game_id, claim.launch_id, lambda state: None, settle=True)
        if claim.phase == "starting" and not in_flight:

            def promote(state: RuntimeState) -> None:
                if state.operation is not None or state.phase != "starting":
                    raise Superseded("the claim changed")
                state.phase, state.status = "active", "running"

            try:
                claim = await lc.update(game_id, claim.launch_id, promote)
            except OSError:  # not written: a later observation promotes it (as Go)
                return Observation("starting", evidence, claim)
            TrackRecord(lc.game_dir(game_id)).promoted(claim)  # the start is verified now
            return Observation("running", evidence, claim)
        if claim.phase == "starting":
            return Observation("starting", evidence, claim)
        if claim.phase in ("stopping", "killing") and in_flight:
            return Observation(claim.phase, evidence, claim)
        return Observation("running", evidence, claim)
    if evidence.verdict == "unknown":
        if claim.phase == "starting":
            return Observation("starting", evidence, claim)
        if claim.phase in ("stopping", "killing") and in_flight:
            return Observation(claim.phase, evidence, claim)
        return Observation("unknown", evidence, claim)
    if in_flight:
        phase = claim.phase if claim.phase in ("stopping", "killing") else "starting"
        return Observation(phase, evidence, claim)
    if claim.phase == "starting" and claim.spawn_state == "spawned":
        positive = evidence.source == "status_hook" or (
            evidence.source == "pid_fingerprint" and claim.pid_role == "workload"
        )
        if not positive:
            return Observation("starting", evidence, claim)
    try:
        removed = await lc.remove_if(game_id, claim.launch_id, idle=True, self_live=gabp_live)
    except OSError:
        # the lock or the disk failed: the claim stays, so the game's state is not settled
        # (Go's "unknown", with the evidence that found it stopped)
        return Observation("unknown", evidence, claim)
    if not removed:
        raise Superseded("the claim changed")
    return Observation("stale-runtime-cleaned", evidence, None)


async def _recover(
    lc: Lifecycle, game_id: str, claim: RuntimeState, gabp_live: bool, moment: datetime
) -> Observation:
    """A claim whose step is dead (deadline passed, or its executor provably gone): a start
    that never spawned is removed once its executor is gone; otherwise the step is cleared,
    the claim becomes ``active`` (a dead stop or kill recorded as ``interrupted``) and is judged
    by its evidence. The dead step is never replayed."""
    operation = claim.operation
    assert operation is not None
    gone = operation.executor_gone()
    if claim.phase == "starting" and claim.spawn_state == "preflight":
        if not gone:
            return Observation("starting", None, claim)
        if not await lc.remove_if(game_id, claim.launch_id, operation_id=operation.operation_id):
            raise Superseded("the claim changed")
        return Observation("stale-runtime-cleaned", None, None)
    evidence = await evaluate(
        claim, game_id=game_id, gabp_live=gabp_live, instance_id=lc.instance_id
    )
    if evidence.verdict == "stopped":
        if not await lc.remove_if(
            game_id, claim.launch_id, operation_id=operation.operation_id, self_live=gabp_live
        ):
            raise Superseded("the claim changed")
        return Observation("stale-runtime-cleaned", evidence, None)
    if evidence.verdict == "unknown" and claim.phase == "starting":
        return Observation("starting", evidence, claim)
    reason = "its executor is no longer running" if gone else "its pinned deadline expired"

    def normalize(state: RuntimeState) -> None:
        if operation.action in ("stop", "kill"):
            state.last_action_result = ActionResult(
                action=operation.action,
                outcome="interrupted",
                detail=f"a {operation.action} attempt begun "
                f"{format_seconds(operation.attempt_started_at)} was interrupted ({reason})",
                timestamp=moment,
            )
        state.operation = None
        state.phase = "active"
        if evidence.verdict == "running":
            state.status = "running"

    started = claim.phase == "starting" and operation.action == "start"
    claim = await lc.update(
        game_id, claim.launch_id, normalize, operation_id=operation.operation_id
    )
    if started and evidence.verdict == "running":
        # a dead start whose game runs is that launch's verified start; a dead stop or kill
        # is not (its game started earlier and was counted then)
        TrackRecord(lc.game_dir(game_id)).promoted(claim)
    return Observation("running" if evidence.verdict == "running" else "unknown", evidence, claim)
