"""Is the game running? One rule, in order of precedence (the Go bridge's):

1. a live GABP connection of this bridge, or another live bridge's fresh attachment lease;
2. the status hook, when one is configured (running / stopped / unknown by exit code);
3. the recorded pid with its start-time fingerprint, then ``stopProcessName``.

``unknown`` never clears a claim and never lets a duplicate start; a failed inspection is
``unknown``, never ``stopped``. A store mode's recorded pid is the opener's, never the game's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gabs.go_format import go_duration, go_quote
from gabs.launch.hooks import HookResult, run_status_hook
from gabs.launch.resolve import ResolvedHook

from .claim import Attachment, RuntimeState
from .procs import Verdict, find_by_name, verify_pid

__all__ = ["HOOK_CONTRADICTION", "Evidence", "attachment_is_live", "evaluate", "owned_by"]

HOOK_CONTRADICTION = (
    "status hook reports stopped while the GABP bridge is live; the bridge wins — check the "
    "hook's exit-code contract"
)


@dataclass
class Evidence:
    """A verdict and what it rests on."""

    verdict: Verdict
    source: str
    detail: str
    hook_result: HookResult | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, str]:
        return {"verdict": self.verdict, "source": self.source, "detail": self.detail}


def owned_by(attachment: Attachment, instance_id: str) -> bool:
    if instance_id and attachment.owner_instance_id:
        return attachment.owner_instance_id == instance_id
    return attachment.owner_pid == os.getpid()


def attachment_is_live(attachment: Attachment, now: datetime) -> tuple[Verdict, str]:
    """Whether another bridge's attachment record proves a live connection now."""
    fresh = (
        attachment.owner_pid > 0
        and attachment.owner_pid_start_time != 0
        and attachment.lease_deadline is not None
        and now < attachment.lease_deadline
    )
    if not fresh:
        return "stopped", "no fresh bridge attachment lease"
    return verify_pid(attachment.owner_pid, attachment.owner_pid_start_time)


async def _hook(
    claim: RuntimeState | None, hook: ResolvedHook, game_id: str
) -> tuple[Verdict, HookResult]:
    profile = claim.effective_profile if claim is not None else ""
    return await run_status_hook(hook, game_id=game_id, profile=profile)


async def evaluate(
    claim: RuntimeState | None,
    *,
    game_id: str,
    gabp_live: bool = False,
    instance_id: str = "",
    status_hook: ResolvedHook | None = None,
    stop_process_name: str = "",
    now: datetime | None = None,
) -> Evidence:
    """The liveness verdict for a game from everything that can be seen."""
    now = now or datetime.now(UTC)
    if status_hook is None and claim is not None and claim.lifecycle is not None:
        status_hook = claim.lifecycle.status
    taint = ""
    if gabp_live:
        evidence = Evidence("running", "gabp", "live GABP connection")
        await _contradiction(evidence, claim, status_hook, game_id)
        return evidence
    if (
        claim is not None
        and claim.attachment is not None
        and not owned_by(claim.attachment, instance_id)
    ):
        verdict, detail = attachment_is_live(claim.attachment, now)
        if verdict == "running":
            owner = claim.attachment
            until = owner.lease_deadline
            lease = f", lease until {until.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}" if until else ""
            evidence = Evidence(
                "running",
                "attachment_lease",
                f"bridge attachment lease fresh (owner pid {owner.owner_pid} alive{lease})",
            )
            await _contradiction(evidence, claim, status_hook, game_id)
            return evidence
        if verdict == "unknown":
            taint = (
                f"a fresh bridge attachment lease's owner (pid {claim.attachment.owner_pid}) "
                f"could not be inspected ({detail})"
            )
    evidence = await _below_bridge(claim, game_id, status_hook, stop_process_name)
    if taint and evidence.verdict == "stopped":
        return Evidence(
            "unknown",
            "attachment_lease",
            taint + "; downstream stopped evidence cannot clear the claim past it",
            evidence.hook_result,
            evidence.warnings,
        )
    return evidence


async def _contradiction(
    evidence: Evidence, claim: RuntimeState | None, hook: ResolvedHook | None, game_id: str
) -> None:
    if hook is None:
        return
    verdict, result = await _hook(claim, hook, game_id)
    evidence.hook_result = result
    if verdict == "stopped":
        evidence.warnings.append(HOOK_CONTRADICTION)


def _hook_detail(result: HookResult) -> str:
    """A status hook's run as the evidence's detail, in the Go bridge's words."""
    if result.timed_out:
        return f"status hook timed out after {go_duration(result.duration)}"
    if result.exec_error is not None:
        return f"status hook failed to run: {result.exec_error}"
    return f"status hook exit code {result.exit_code}"


async def _below_bridge(
    claim: RuntimeState | None, game_id: str, hook: ResolvedHook | None, stop_name: str
) -> Evidence:
    if hook is not None:
        verdict, result = await _hook(claim, hook, game_id)
        return Evidence(verdict, "status_hook", _hook_detail(result), result)
    if claim is None:
        if stop_name:
            try:
                pids = find_by_name(stop_name)
            except OSError as exc:
                return Evidence(
                    "unknown",
                    "stop_process_name",
                    f"no runtime claim; process scan for {go_quote(stop_name)} failed: {exc}",
                )
            if pids:
                return Evidence(
                    "running",
                    "stop_process_name",
                    f"no runtime claim, but {len(pids)} process(es) named {go_quote(stop_name)} — "
                    "external instance candidate",
                )
        return Evidence("stopped", "none", "no runtime claim")
    pid_verdict: Verdict | None = None
    if claim.pid_role == "helper":
        pid_detail = "tracked PID is the URL-opener helper; not workload evidence"
    elif claim.game_pid > 0:
        pid_verdict, pid_detail = verify_pid(claim.game_pid, claim.pid_start_time)
        if claim.schema_version == 0 and pid_detail.endswith(")"):
            pid_detail = pid_detail[:-1] + "; legacy claim)"  # an older Go bridge's claim
        if pid_verdict == "running":
            return Evidence("running", "pid_fingerprint", pid_detail)
    else:
        pid_detail = "no workload PID recorded"
    name = claim.stop_process_name or stop_name
    if name:
        try:
            pids = find_by_name(name)
        except OSError as exc:
            return Evidence(
                "unknown", "stop_process_name", f"process scan for {go_quote(name)} failed: {exc}"
            )
        if pids:
            return Evidence(
                "running", "stop_process_name", f"{len(pids)} process(es) named {go_quote(name)}"
            )
        if pid_verdict == "unknown":
            return Evidence("unknown", "pid_fingerprint", pid_detail)
        return Evidence(
            "stopped", "stop_process_name", f"no process named {go_quote(name)} ({pid_detail})"
        )
    if pid_verdict == "stopped":
        return Evidence("stopped", "pid_fingerprint", pid_detail)
    if pid_verdict == "unknown":
        return Evidence("unknown", "pid_fingerprint", pid_detail)
    return Evidence("unknown", "none", pid_detail)
