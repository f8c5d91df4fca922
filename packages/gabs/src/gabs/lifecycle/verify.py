"""Stage 4 of a start: seeing the spawned game run, or why it did not.

A direct launch is looked at once, 0.5 s after the spawn (its first tick in the Go bridge): a
process still running is started; one that ended is judged by the status hook or
``stopProcessName`` (running: adopted; stopped by the hook: ``exited_during_start``; nothing to
tell: ``unobserved``). A store or URL launch is polled until the game is seen or the budget
ends.
"""

from __future__ import annotations

import signal

import anyio

from gabs.config import GameConfig
from gabs.launch.spawn import SpawnedGame, describe_exit
from gabs.runtime import RuntimeState, evaluate

from .codes import LifecycleError
from .core import Lifecycle

__all__ = ["exited_during_start", "verify_running"]

_FIRST_LOOK = 0.5
_POLL = 0.5


def exited_during_start(
    game: GameConfig, code: int | None, tail: str, evidence: str = ""
) -> LifecycleError:
    """The failure of a game whose process ended before it was verified (or while connecting)."""
    if code is not None and code >= 0:
        how = f"exited during start (exit code {code})."  # the Go bridge's words
    else:  # a signal, or an end not seen: ours
        how = f"{describe_exit(code) if code is not None else 'stopped'} during start."
    # Go's exit code: -1 for a process ended by a signal (or not seen to end); the signal is ours
    data: dict[str, object] = {"exitCode": code if code is not None and code >= 0 else -1}
    if code is not None and code < 0:
        data["signal"] = _signal_name(-code)
    if tail:
        data["outputTail"] = tail
    if evidence:
        data["hookEvidence"] = evidence
    return LifecycleError(
        "exited_during_start",
        f"'{game.id}' {how} This is attributed to the game; read the output tail "
        "for the cause (a crash, missing or corrupt data, a mod loader failure, DRM or "
        "anti-cheat refusing the process, a required login, or a wrapper's own error)."
        + (f" Output tail:\n{tail}" if tail else " It wrote no output."),
        data=data,
    )


async def verify_running(
    lc: Lifecycle, game: GameConfig, claim: RuntimeState, spawned: SpawnedGame, budget: float
) -> bool:
    """Stage 4: True when adopted; raise ``exited_during_start`` or ``unobserved``."""
    deadline = anyio.current_time() + budget
    if not game.url_mode:
        first_look = anyio.current_time() + min(_FIRST_LOOK, budget)
        code = await spawned.wait(min(_FIRST_LOOK, budget))
        if code is None:
            return False
        # As Go, the first look is never earlier, even when the launcher ended at once: the
        # workload a detaching launcher leaves behind gets that long to show to the hook.
        await anyio.sleep(max(first_look - anyio.current_time(), 0))
        evidence = await evaluate(claim, game_id=game.id, instance_id=lc.instance_id)
        if evidence.verdict == "running":
            return True
        if evidence.verdict == "unknown":
            raise _unobserved(game)
        hook = evidence.detail if evidence.source == "status_hook" else ""
        raise exited_during_start(game, code, spawned.tail(), hook)
    has_source = bool(claim.stop_process_name) or bool(claim.lifecycle and claim.lifecycle.status)
    while True:
        evidence = await evaluate(claim, game_id=game.id, instance_id=lc.instance_id)
        if evidence.verdict == "running":
            # The game was found by name or hook; once the opener has handed over and ended,
            # the launch is adopted, as the Go bridge calls it (it looks after its own poll).
            await spawned.wait(min(_POLL, max(deadline - anyio.current_time(), 0)))
            return spawned.exited
        if evidence.verdict == "stopped" and evidence.source == "status_hook":
            raise exited_during_start(game, spawned.poll(), spawned.tail(), evidence.detail)
        if not has_source and spawned.exited:
            raise _unobserved(game)
        if anyio.current_time() >= deadline:
            raise _unobserved(game)
        await anyio.sleep(min(_POLL, max(deadline - anyio.current_time(), 0)))


def _unobserved(game: GameConfig) -> LifecycleError:
    return LifecycleError(
        "unobserved",
        f"Nothing observable for '{game.id}' within the start budget — the store launcher may be "
        "updating the game or showing a dialog (login, EULA); check the desktop and re-check "
        "games_status. The claim is kept while the launch may still appear.",
        # no next action of its own: the config class's (games_show), as Go's attribution does
        is_error=False,
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
