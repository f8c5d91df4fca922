"""How a stop or kill acts without a hook, and how its result is checked: the built-in signal
to the claim's process (or every process of ``stopProcessName``), and one round of evidence
from every source the claim names (the pinned process, the process name, the status hook, the
GABP connection, another bridge's attachment lease)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from gabs.go_format import go_quote
from gabs.launch.hooks import run_status_hook
from gabs.launch.spawn import reap_finished
from gabs.runtime import RuntimeState
from gabs.runtime.liveness import attachment_is_live, owned_by
from gabs.runtime.procs import find_by_name, signal_process, verify_pid

from .core import Lifecycle, now

__all__ = ["StopEvidence", "gather_evidence", "quoted", "signal_game"]


def quoted(name: str) -> str:
    """``name`` in double quotes, as the Go bridge prints a process name in its evidence."""
    return json.dumps(name, ensure_ascii=False)


async def signal_game(claim: RuntimeState, action: str, warnings: list[str]) -> str:
    """Signal the game; an error text when nothing could be signalled."""
    force = action == "kill"
    if claim.pid_role == "workload" and claim.game_pid > 0:
        verdict, detail = verify_pid(claim.game_pid, claim.pid_start_time)
        if verdict == "running":
            try:
                signal_process(claim.game_pid, force=force)
            except OSError as exc:
                return f"failed to signal workload pid {claim.game_pid}: {exc}"
            return ""
        if verdict == "unknown":
            warnings.append(
                f"pinned workload PID {claim.game_pid} could not be verified ({detail}); not "
                "signaling it, falling back to the process name"
            )
    if not claim.stop_process_name:
        return ""
    try:
        pids = find_by_name(claim.stop_process_name)
    except OSError as exc:
        return f"process scan for {go_quote(claim.stop_process_name)} failed: {exc}"
    if len(pids) > 1:
        warnings.append(
            f"{len(pids)} processes named {go_quote(claim.stop_process_name)} "
            "matched; signaling all of them"
        )
    failures = 0
    last: OSError | None = None
    for pid in pids:
        try:
            signal_process(pid, force=force)
        except OSError as exc:
            failures += 1
            last = exc
            warnings.append(f"failed to signal pid {pid}: {exc}")
    if pids and failures == len(pids):
        return f"failed to signal any process named {go_quote(claim.stop_process_name)}: {last}"
    return ""


@dataclass
class StopEvidence:
    """One round of evidence on whether a stopped or killed game has ended."""

    sources: int = 0
    running: bool = False
    unknown: bool = False
    bridge_live: bool = False
    own_bridge: bool = False
    hook_stopped: bool = False
    truncated: bool = False
    details: list[str] = field(default_factory=list)

    @property
    def all_stopped(self) -> bool:
        return self.sources > 0 and not (self.running or self.unknown or self.bridge_live)

    @property
    def no_sources(self) -> bool:
        return self.sources == 0 and not self.bridge_live


async def gather_evidence(
    lc: Lifecycle, claim: RuntimeState, gabp_live: Callable[[], bool] | None, remaining: float
) -> StopEvidence:
    """Every evidence source of ``claim`` read once (a status hook given at most ``remaining``
    seconds)."""
    reap_finished()
    found = StopEvidence()
    if claim.pid_role == "workload" and claim.game_pid > 0:
        found.sources += 1
        verdict, detail = verify_pid(claim.game_pid, claim.pid_start_time)
        found.running |= verdict == "running"
        found.unknown |= verdict == "unknown"
        found.details.append(
            {
                "running": f"workload pid {claim.game_pid} is running",
                "stopped": f"workload pid {claim.game_pid} is gone",
            }.get(verdict, f"workload pid {claim.game_pid} could not be inspected ({detail})")
        )
    if claim.stop_process_name:
        found.sources += 1
        try:
            pids = find_by_name(claim.stop_process_name)
        except OSError as exc:
            found.unknown = True
            found.details.append(
                f"process scan for {go_quote(claim.stop_process_name)} failed: {exc}"
            )
        else:
            found.running |= bool(pids)
            found.details.append(
                f"{len(pids)} process(es) named {quoted(claim.stop_process_name)} still running"
                if pids
                else f"no process named {quoted(claim.stop_process_name)}"
            )
    hook = claim.lifecycle.status if claim.lifecycle else None
    if hook is not None:
        found.sources += 1
        verdict, result = await run_status_hook(
            hook, game_id=claim.game_id, profile=claim.effective_profile, max_wait=remaining
        )
        found.running |= verdict == "running"
        found.unknown |= verdict == "unknown"
        found.hook_stopped |= verdict == "stopped"
        # The deadline, not the hook, ended this run: it says nothing about the game.
        found.truncated = result.timed_out and remaining < float(hook.timeout_seconds or 5)
        found.details.append(result.verification_detail(verdict))
    if gabp_live is not None and gabp_live():
        found.bridge_live = found.own_bridge = True
        found.details.append("the GABP bridge connection is still live")
    attachment = claim.attachment
    if attachment is not None and not owned_by(attachment, lc.instance_id):
        verdict, _ = attachment_is_live(attachment, now())
        if verdict == "running":
            found.bridge_live = True
            found.details.append(
                f"another process (pid {attachment.owner_pid}) holds a "
                "fresh bridge attachment lease"
            )
        elif verdict == "unknown":
            found.unknown = True
            found.details.append(
                f"a bridge attachment lease owner (pid {attachment.owner_pid}) could not be "
                "inspected"
            )
    return found
