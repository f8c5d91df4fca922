"""How a stop or kill ends (:class:`StopOutcome`), and its completion: the outcome recorded
in the claim under the transition lock, fenced by the launch and operation ids, or the claim
removed when the game was verified to have ended (never under a live bridge attachment)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from gabs.launch.hooks import HookResult
from gabs.runtime import ActionResult, load_claim, save_claim, transition_lock

from .codes import cause_class
from .core import Lifecycle, now
from .history import TrackRecord
from .pending import remove_with_credits

__all__ = ["StopOutcome", "complete"]


@dataclass
class StopOutcome:
    """How a stop or kill ended."""

    code: str
    action: str
    detail: str = ""
    active_profile: str = ""
    final_phase: str = ""
    claim_removed: bool = False
    hook: HookResult | None = None
    warnings: list[str] = field(default_factory=list)
    context_hash: str = ""  # the claim's pinned track-record context (not in the JSON)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code,
            "action": self.action,
            "claimRemoved": self.claim_removed,
        }
        if self.active_profile:
            data["activeProfile"] = self.active_profile
        if self.final_phase:
            data["phase"] = self.final_phase
        if self.detail:
            data["evidence"] = self.detail
        if self.warnings:
            data["warnings"] = self.warnings
        if self.hook is not None:
            data["exitCode"] = self.hook.exit_code
            if self.hook.stderr_tail:
                data["stderrTail"] = self.hook.stderr_tail
            if self.hook.tree_kill_warning:
                data["treeKillWarning"] = True
        return data


async def complete(
    lc: Lifecycle,
    game_id: str,
    launch_id: str,
    operation_id: str,
    prior: str,
    outcome: StopOutcome,
    gabp_live: Callable[[], bool] | None = None,
) -> None:
    """Record the outcome in the claim (fenced), or remove the claim when terminated; a write
    that fails is a warning of the outcome (the action ran), as Go's."""
    folder = lc.game_dir(game_id)
    with anyio.CancelScope(shield=True):
        try:
            async with transition_lock(folder, game_id=game_id):
                _settle(lc, folder, launch_id, operation_id, prior, outcome, gabp_live)
        except OSError as exc:  # the lock or the disk failed: the operation stays for recovery
            if outcome.code == "terminated" and not outcome.claim_removed:
                outcome.warnings.append(
                    f"verified termination, but the claim could not be removed: {exc}"
                )
            else:
                outcome.warnings.append(
                    f"the {outcome.action} result and its history could not be persisted "
                    f"atomically; the operation remains fenced for recovery: {exc}"
                )


def _settle(
    lc: Lifecycle,
    folder: Path,
    launch_id: str,
    operation_id: str,
    prior: str,
    outcome: StopOutcome,
    gabp_live: Callable[[], bool] | None,
) -> None:
    """:func:`_complete` under the transition lock."""
    claim = load_claim(folder)
    if (
        claim is None
        or claim.launch_id != launch_id
        or claim.operation is None
        or claim.operation.operation_id != operation_id
    ):
        outcome.warnings.append(
            f"the {outcome.action} completion was superseded and left the current claim untouched"
            if outcome.code == "terminated"
            else f"the {outcome.action} result was not persisted: the runtime claim "
            "was superseded while the action ran"
        )
        return
    live = gabp_live() if gabp_live is not None else None
    if outcome.code == "terminated" and lc.removal_blocked(claim, live):
        # a bridge attached after the last evidence round: never cleared under a live bridge
        outcome.code = "termination_unverified"
        outcome.detail = "a live bridge attachment appeared during verification; " + outcome.detail
    if outcome.code == "terminated":
        remove_with_credits(folder, claim)
        outcome.claim_removed = True
        # a verified stop of this launch: cleanStops++ in its pinned context (as Go)
        TrackRecord(folder).count(claim.effective_profile, claim.history_context_hash, "cleanStops")
        return
    if outcome.code in ("action_failed", "action_timed_out"):
        # a failed action of this launch: consecutiveFailures++ in its context (as Go)
        TrackRecord(folder).failed(
            claim.effective_profile,
            claim.history_context_hash,
            outcome.code,
            cause_class(outcome.code),
            claim.applied_input_names,
        )
    claim.operation = None
    claim.phase = "active" if outcome.code == "action_succeeded_running" else prior
    if outcome.code == "action_succeeded_running":
        claim.status = "running"
    hook = outcome.hook
    claim.last_action_result = ActionResult(
        action=outcome.action,
        outcome=outcome.code,
        exit_code=hook.exit_code if hook else None,
        stderr_tail=hook.stderr_tail if hook else "",
        detail=outcome.detail,
        tree_kill_warning=bool(hook and hook.tree_kill_warning),
        timestamp=now(),
    )
    claim.generation += 1
    save_claim(folder, claim)
    outcome.final_phase = claim.phase
