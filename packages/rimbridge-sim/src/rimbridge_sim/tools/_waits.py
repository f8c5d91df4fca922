"""Bounded waits on the main loop, shaped like the real mod's (``satisfied``, ``attempts``,
``probeFailureCount``, ...), and the readiness levels ``wait_for_game_loaded`` knows."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import anyio

from rimbridge_sim.calls import MainLoopTimeout
from rimbridge_sim.clock import whole_ms
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import InvalidArgumentError, World
from rimbridge_sim.world.errors import argument_out_of_range

__all__ = [
    "READINESS",
    "TIMED_OUT",
    "Probe",
    "WaitOutcome",
    "poll_pause",
    "refuse_negative_wait",
    "resolve_readiness",
    "wait_for_readiness",
    "wait_response",
    "wait_until",
]


READINESS: Final = ("gameData", "mapData", "currentMap", "playable", "visual")
TIMED_OUT: Final = "timed_out"
"""The ``code`` of a wait that ran out of time before its condition held."""
_KEYS: Final = {
    "gameData": "gameDataReady",
    "mapData": "mapDataReady",
    "currentMap": "currentMapReady",
    "playable": "playable",
    "visual": "visualReady",
}
_SATISFIED: Final = {
    "gameData": "game data is available",
    "mapData": "map data is available",
    "currentMap": "current map is available",
    "playable": "has a loaded playable game",
    "visual": "has a loaded visual-ready game",
}


@dataclass
class Probe:
    satisfied: bool
    message: str
    snapshot: Any = None
    blocking_reason: str | None = None


@dataclass
class WaitOutcome:
    satisfied: bool
    message: str
    elapsed_ms: int
    attempts: int
    probe_failures: int
    last_probe_error: str | None
    snapshot: Any
    blocking_reason: str | None


def _frames(poll_ms: int) -> int:
    return max(1, round(max(0, poll_ms) * 60 / 1000))


async def poll_pause(host: ToolHost, poll_ms: int) -> None:
    """The pause between two probes, as the mod's ``ConditionWaiter`` sleeps it: ``poll_ms``
    of real time while the tick loop runs the frames, whatever its frame rate. Without a tick
    loop (``--tick-rate 0``) the wait runs the frames 60 frames a second would run in that
    time itself, at once, so that the game can get where the wait looks for it. An interval
    of 0 pauses 1 ms (the mod probes without pausing at all)."""
    if host.config.tick_rate > 0:
        await anyio.sleep(max(1, poll_ms) / 1000)
    else:
        await host.let_frames_pass(_frames(poll_ms))


def refuse_negative_wait(timeout_ms: int, poll_ms: int) -> None:
    """Refuse a negative timeout or poll interval as the mod's ``ConditionWaiter`` does: an
    ``ArgumentOutOfRangeException`` naming its option, the timeout checked first."""
    for name, value in (("TimeoutMs", timeout_ms), ("PollIntervalMs", poll_ms)):
        if value < 0:
            raise InvalidArgumentError(argument_out_of_range(name))


async def wait_until(
    host: ToolHost,
    probe: Callable[[], Probe],
    *,
    timeout_ms: int,
    poll_ms: int,
    timeout_message: str,
    busy_message: str = "RimWorld's main thread was busy; retrying.",
) -> WaitOutcome:
    """Probe on the main loop until satisfied or ``timeout_ms`` ran out; a probe the main
    loop does not answer (a stall) counts as a probe failure and the wait goes on, keeping the
    last state a probe saw.

    A negative timeout or poll interval is refused before the first probe, by an exception
    (the mod's waiter throws ``ArgumentOutOfRangeException``, whose message under RimWorld's
    Mono names the parameter on a line of its own, as :func:`argument_out_of_range` writes).
    A wait that times out says ``timeout_message``, plus the last probe error if a probe
    failed."""
    refuse_negative_wait(timeout_ms, poll_ms)
    started = time.monotonic()
    deadline = started + max(0, timeout_ms) / 1000
    attempts = 0
    failures = 0
    last_error: str | None = None
    last: Probe | None = None
    snapshot: Any = None
    while True:
        attempts += 1
        remaining = max(0.0, deadline - time.monotonic())
        try:
            last = await host.on_main_thread(probe, timeout=min(max(remaining, 0.05), 10.0))
        except MainLoopTimeout as error:
            # as the mod's waiter: a probe that could not run keeps the last state seen and
            # names no blocking reason of its own
            failures += 1
            last_error = str(error)
            last = Probe(False, busy_message, snapshot)
        if last.snapshot is not None:
            snapshot = last.snapshot
        if last.satisfied:
            break
        if time.monotonic() >= deadline:
            break
        await poll_pause(host, poll_ms)
    elapsed = whole_ms(time.monotonic() - started)
    return WaitOutcome(
        last.satisfied,
        last.message if last.satisfied else _timed_out(timeout_message, last_error),
        elapsed,
        attempts,
        failures,
        last_error,
        last.snapshot if last.snapshot is not None else snapshot,
        None if last.satisfied else last.blocking_reason,
    )


def _timed_out(message: str, last_error: str | None) -> str:
    if last_error and last_error != message:
        return f"{message} Last probe error: {last_error}"
    return message


def wait_response(outcome: WaitOutcome, target: str | None = None) -> dict[str, Any]:
    return {
        "success": outcome.satisfied,
        "satisfied": outcome.satisfied,
        "message": outcome.message,
        "targetReadiness": target,
        "blockingReason": outcome.blocking_reason,
        "elapsedMs": outcome.elapsed_ms,
        "attempts": outcome.attempts,
        "probeFailureCount": outcome.probe_failures,
        "lastProbeError": None if outcome.satisfied else outcome.last_probe_error,
        "state": outcome.snapshot,
        **({} if outcome.satisfied else {"code": TIMED_OUT}),
    }


def resolve_readiness(readiness: str, target: str | None, visual: bool) -> str:
    """``waitForVisualReady`` wins, then ``targetReadiness``, then ``readiness``."""
    if visual:
        return "visual"
    return target if target else readiness


def _blocking_reason(world: World, ready: dict[str, Any], target: str) -> str:
    if not ready["gameDataReady"]:
        return "No current game is loaded."
    if target == "gameData":
        return ""
    if not ready["mapDataReady"]:
        return "No RimWorld map data is available yet."
    if target == "mapData":
        return ""
    if target == "currentMap":
        return "" if ready["currentMapReady"] else "No current map is active yet."
    if not ready["playable"]:
        if world.program_state.value != "Playing":
            return f"RimWorld programState is {world.program_state.value}, not Playing."
        if ready["longEventPending"]:
            return "RimWorld still has a pending long event."
        return "RimWorld is not playable yet."
    if target == "playable":
        return ""
    return f"RimWorld screen fade is still active (alpha {ready['fadeOverlayAlpha']:.3g})."


async def wait_for_readiness(
    host: ToolHost, timeout_ms: int, poll_ms: int, target: str, pause_if_needed: bool
) -> dict[str, Any]:
    """Wait until the world reaches readiness ``target``; pause it then if asked."""
    world = host.world

    def probe() -> Probe:
        state = world.state_snapshot()
        satisfied = bool(state[_KEYS[target]])
        if satisfied and pause_if_needed and world.game is not None and not state["paused"]:
            world.pause(True)
            state = world.state_snapshot()
        if not satisfied:
            reason = _blocking_reason(world, state, target)
            message = f"Waiting for RimWorld readiness '{target}'. {reason}"
            return Probe(False, message, state, reason)
        message = f"RimWorld {_SATISFIED[target]}."
        if pause_if_needed:
            message = f"RimWorld {_SATISFIED[target]} and is paused for automation."
        return Probe(True, message, state)

    outcome = await wait_until(
        host,
        probe,
        timeout_ms=timeout_ms,
        poll_ms=poll_ms,
        timeout_message=f"Timed out waiting for RimWorld readiness '{target}'.",
    )
    return wait_response(outcome, target)


async def sleep_ms(milliseconds: int) -> None:
    await anyio.sleep(max(0, milliseconds) / 1000)
