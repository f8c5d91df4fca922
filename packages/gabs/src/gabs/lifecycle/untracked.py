"""Stopping or killing a game that has no runtime claim, by its ``stopProcessName``.

The Go bridge's ``games_stop`` and ``games_kill`` do this when no claim exists (a game started
by hand or by a launcher, or one whose claim was cleaned up): every process with that exact name
(its ``comm``, ``argv[0]`` or the base name of ``argv[0]``, the same match a claim's stop uses)
gets SIGTERM (stop) or SIGKILL (kill). Like the Go bridge, this looks at the name only, not at
the owner; signalling a process of another user simply fails for it. This bridge's own process
is never signalled, even when its name matches.

Unlike the Go bridge, which answers success as soon as the signals are sent, the name is then
watched for a bounded window: ``terminated`` once no process of that name is left,
``action_succeeded_running`` when one still runs at the end (a stop never escalates to a kill),
``action_failed`` when no process could be signalled or the process table could not be read.
No claim is created, removed or counted in the track record: nothing records this launch.
"""

from __future__ import annotations

import os

import anyio

from gabs.go_format import go_quote
from gabs.runtime import ClaimError, LockBusy, load_claim, transition_lock
from gabs.runtime.procs import ProcessGone, find_by_name, process_start_time, signal_process

from .codes import LifecycleError
from .core import Lifecycle
from .stop import VERIFY_DEFAULT, StopOutcome
from .stop_signals import quoted

__all__ = ["stop_untracked"]

_POLL = 0.1


def _busy(game_id: str) -> LifecycleError:
    return LifecycleError(
        "operation_in_progress",
        f"another lifecycle operation on {game_id} holds the transition lock; re-check "
        "games_status shortly",
        is_error=False,
        warnings_key="warnings",
    )


def _running(name: str) -> list[int]:
    """The processes named ``name`` other than this bridge, ended-but-unreaped ones left out."""
    found = []
    for pid in find_by_name(name):
        if pid == os.getpid():
            continue
        try:
            process_start_time(pid)
        except ProcessGone:
            continue
        except (OSError, ValueError):
            pass  # cannot tell: count it as running
        found.append(pid)
    return found


def _signal(name: str, pids: list[int], force: bool, outcome: StopOutcome) -> bool:
    """Signal every pid; whether at least one signal was delivered."""
    if len(pids) > 1:
        outcome.warnings.append(
            f"{len(pids)} processes named {go_quote(name)} matched; signaling all of them"
        )
    delivered = 0
    for pid in pids:
        try:
            signal_process(pid, force=force)
        except ProcessLookupError:
            delivered += 1  # it ended between the scan and the signal
        except OSError as exc:
            outcome.warnings.append(f"failed to signal pid {pid}: {exc}")
        else:
            delivered += 1
    return delivered > 0


async def stop_untracked(
    lc: Lifecycle,
    game_id: str,
    name: str,
    action: str,
    *,
    verify_window: float | None = None,
) -> StopOutcome | None:
    """Stop (``action="stop"``) or kill the processes named ``name``; None when none runs.

    Raises ``operation_in_progress`` when a lifecycle step holds the game's transition lock or a
    claim appeared meanwhile (a start is under way: it owns the game now)."""
    outcome = StopOutcome(code="", action=action)
    try:
        async with transition_lock(lc.game_dir(game_id), game_id=game_id):
            try:
                claimed = load_claim(lc.game_dir(game_id)) is not None
            except ClaimError:
                claimed = True
            if claimed:
                raise _busy(game_id)
            try:
                pids = _running(name)
            except OSError as exc:
                outcome.code = "action_failed"
                outcome.detail = f"process scan for {go_quote(name)} failed: {exc}"
                return outcome
            if not pids:
                return None
            if not _signal(name, pids, action == "kill", outcome):
                outcome.code = "action_failed"
                outcome.detail = f"failed to signal any process named {go_quote(name)}"
                return outcome
    except LockBusy:
        raise _busy(game_id) from None
    window = verify_window if verify_window is not None else VERIFY_DEFAULT
    left: list[int] = pids
    with anyio.move_on_after(window):
        while True:
            try:
                left = await anyio.to_thread.run_sync(_running, name)
            except OSError as exc:
                outcome.code = "termination_unverified"
                outcome.detail = f"process scan for {go_quote(name)} failed: {exc}"
                return outcome
            if not left:
                break
            await anyio.sleep(_POLL)
    if left:
        outcome.code = "action_succeeded_running"
        outcome.detail = f"{len(left)} process(es) named {quoted(name)} still running"
    else:
        outcome.code = "terminated"
        outcome.detail = f"no process named {quoted(name)}"
    return outcome
