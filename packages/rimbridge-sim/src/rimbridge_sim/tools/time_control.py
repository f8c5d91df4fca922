"""Time: pausing, the time speed, playing for a while, and stepping exact ticks."""

from __future__ import annotations

import time
from typing import Any

import anyio

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import (
    DEFAULT_PAYLOAD_CODES,
    NO_GAME_MESSAGE,
    NO_GAME_SENTENCE,
    call_spec,
    without_game,
)
from rimbridge_sim.clock import iso_utc, whole_ms
from rimbridge_sim.host import ToolHost
from rimbridge_sim.tools._waits import poll_pause
from rimbridge_sim.world import MAX_STEP_TICKS, ProgramState, TimeSpeed, World

__all__ = ["TimeTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_NEVER_FORCE_NORMAL_SPEED = "neverForceNormalSpeed"
"""The debug view setting that stops RimWorld forcing Normal speed (its key in the world's
debug settings; no menu lists it)."""
_MUST_BE_PAUSED = (
    "RimWorld must be paused before deterministic tick stepping. Pass pauseFirst=true or pause "
    "the game first."
)


def _playback_state_message(world: World) -> str | None:
    """What stops ``play_for`` from playing now, in the mod's words (its playback probe), or
    ``None`` when time can run."""
    if world.game is None or world.program_state is not ProgramState.PLAYING:
        if world.program_state is ProgramState.ENTRY:
            return "RimWorld returned to the main menu."
        return "No playable game is currently loaded."
    if world.long_event is not None:
        return "RimWorld is busy with a long event."
    return None


def playback_unavailable(world: World) -> str | None:
    """Why time cannot run now, in the mod's words (no playable game, or a long event), or
    ``None`` when it can."""
    if world.game is None or world.program_state is not ProgramState.PLAYING:
        return "No playable game is currently loaded."
    if world.long_event is not None:
        return "RimWorld is busy with a long event."
    return None


def _step_refused(world: World, message: str, code: str) -> dict[str, Any]:
    """A step that never started, as the mod's stepper reports one: every field of a step,
    nothing requested, the game's tick as both start and end."""
    tick = 0 if world.game is None else world.game.tick
    return {
        "success": False,
        "stepId": None,
        "status": "failed",
        "requestedTicks": 0,
        "completedTicks": 0,
        "remainingTicks": 0,
        "startTicksGame": tick,
        "endTicksGame": tick,
        "advancedTicks": 0,
        "initialFrame": 0,
        "lastFrame": 0,
        "advancedFrames": 0,
        "initialTimeSpeed": None,
        "startedAtUtc": None,
        "completedAtUtc": None,
        "message": message,
        "state": world.state_snapshot(),
        "code": code,
    }


class TimeTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host
        self._steps = 0

    @tool(
        "rimworld/pause_game",
        "Pause the game, or unpause it back to the speed it had before the pause.",
        title="Pause game",
        result_description="{success, paused, message}; without a game {success: false, "
        "message: 'No game is currently loaded', code: 'no_game'}.",
    )
    @parameter("pause", "True to pause, false to unpause.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def pause_game(self, pause: bool = True) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_MESSAGE)) is not None:
            return failure
        world.pause(pause)
        paused = world.state_snapshot()["paused"]
        return {
            "success": True,
            "paused": paused,
            "message": "Game paused" if pause else "Game unpaused",
        }

    @tool(
        "rimworld/set_time_speed",
        "Set the time speed: Paused, Normal, Fast, Superfast or Ultrafast (1, 3, 6 and 15 "
        "game ticks per frame).",
        title="Set time speed",
        result_description="{success, timeSpeed, paused, message, state}; without a game "
        "{success: false, message: 'No game is currently loaded.', code: 'no_game', state}.",
    )
    @parameter("speed", "Paused, Normal, Fast, Superfast or Ultrafast.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def set_time_speed(self, speed: str = "Normal") -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return {**failure, "state": world.state_snapshot()}
        world.set_time_speed(TimeSpeed.parse(speed))
        state = world.state_snapshot()
        return {
            "success": True,
            "timeSpeed": state["timeSpeed"],
            "paused": state["paused"],
            "message": f"Time speed set to {state['timeSpeed']}.",
            "state": state,
        }

    @tool(
        "rimworld/play_for",
        "Unpause at a speed for a stretch of real time, then pause again; pausing from "
        "elsewhere ends the run early (without a tick loop the frames of that stretch run at "
        "once).",
        title="Play for",
        result_description="{success, requestedDurationMs, elapsedMs, pollIntervalMs, "
        "timeSpeed, forceRequestedSpeed, previousNeverForceNormalSpeed and "
        "restoredNeverForceNormalSpeed (the debug setting before the run and as restored "
        "after it; null unless forceRequestedSpeed), finalNeverForceNormalSpeed, "
        "finalTimeSpeed, paused, initiallyPaused, startTick, endTick, advancedTicks, attempts, "
        "probeFailureCount, lastProbeError, message, state}.",
    )
    @parameter("duration_ms", "Real time to play, in milliseconds (> 0).")
    @parameter("speed", "Normal, Fast, Superfast or Ultrafast.")
    @parameter("poll_interval_ms", "How often to check the game while it plays.")
    @parameter("force_requested_speed", "Keep the speed even where RimWorld would slow down.")
    @call_spec(payload_codes=_NO_GAME)
    async def play_for(
        self,
        duration_ms: int,
        speed: str = "Normal",
        poll_interval_ms: int = 25,
        force_requested_speed: bool = False,
    ) -> dict[str, Any]:
        host = self.host
        world = host.world
        if duration_ms <= 0 or poll_interval_ms < 0:
            problem = (
                "durationMs must be greater than 0."
                if duration_ms <= 0
                else ("pollIntervalMs cannot be negative.")
            )
            return {
                "success": False,
                "message": problem,
                "state": await host.on_main_thread(world.state_snapshot),
                "code": "invalid_argument",
            }

        settings = world.debug_settings
        label = TimeSpeed.parse(speed).label
        previous_never_force: bool | None = None

        def answer(fields: dict[str, Any]) -> dict[str, Any]:
            failed = (
                {}
                if fields["success"]
                else {"code": "no_game" if world.game is None else "refused"}
            )
            return {
                "success": fields["success"],
                "requestedDurationMs": duration_ms,
                "elapsedMs": fields["elapsedMs"],
                "pollIntervalMs": poll_interval_ms,
                "timeSpeed": label,
                "forceRequestedSpeed": force_requested_speed,
                "previousNeverForceNormalSpeed": previous_never_force,
                "restoredNeverForceNormalSpeed": previous_never_force,
                "finalNeverForceNormalSpeed": settings.get(_NEVER_FORCE_NORMAL_SPEED, False),
                "finalTimeSpeed": fields["state"]["timeSpeed"],
                "paused": fields["paused"],
                "initiallyPaused": fields["initiallyPaused"],
                "startTick": fields["startTick"],
                "endTick": fields["endTick"],
                "advancedTicks": max(0, fields["endTick"] - fields["startTick"]),
                "attempts": fields["attempts"],
                "probeFailureCount": 0,
                "lastProbeError": None,
                "message": fields["message"],
                "state": fields["state"],
                **failed,
            }

        def begin() -> dict[str, Any] | tuple[bool, int, object]:
            nonlocal previous_never_force
            if (unavailable := _playback_state_message(world)) is not None:
                game = world.game
                playable = game is not None and world.program_state is ProgramState.PLAYING
                paused = playable and world.is_paused()
                tick = game.tick if playable and game is not None else 0
                return answer(
                    {
                        "success": False,
                        "elapsedMs": 0,
                        "state": world.state_snapshot(),
                        "paused": paused,
                        "initiallyPaused": paused,
                        "startTick": tick,
                        "endTick": tick,
                        "attempts": 0,
                        "message": unavailable,
                    }
                )
            game = world.require_colony().game
            initially = world.is_paused()
            if force_requested_speed:
                # DebugViewSettings.neverForceNormalSpeed, held on for the run as the mod does
                # (the sim never slows down on its own, so the setting changes nothing else).
                previous_never_force = settings.get(_NEVER_FORCE_NORMAL_SPEED, False)
                settings[_NEVER_FORCE_NORMAL_SPEED] = True
            world.set_time_speed(TimeSpeed.parse(speed))
            if world.is_paused():
                world.pause(False)  # the mod's toggle: under a forced pause it pauses
            return initially, game.tick, game

        def restore() -> None:
            if previous_never_force is not None:
                settings[_NEVER_FORCE_NORMAL_SPEED] = previous_never_force

        def interrupted(session: object, played_ms: float) -> str | None:
            """Why the run ends early, as the mod's playback probe decides it, in its order:
            the game cannot play (gone, or a long event), a different game runs now, or the
            game was paused by someone else before the duration was over."""
            if (unavailable := _playback_state_message(world)) is not None:
                return unavailable
            game = world.game
            early = f"after {round(played_ms)}ms, before the requested {duration_ms}ms elapsed."
            if game is not session:
                return f"Game session changed {early}"
            if game is not None and world.is_paused() and played_ms < duration_ms:
                return f"Game was paused externally {early}"
            return None

        begun = await host.on_main_thread(begin)
        if isinstance(begun, dict):
            return begun
        initially_paused, start_tick, session = begun
        started = time.monotonic()
        attempts = 0
        stopped: str | None = None
        try:
            if host.config.tick_rate > 0:
                # the mod's waiter: probe, then pause pollIntervalMs; the run ends at the first
                # probe that finds the duration over (so it may play up to one interval longer)
                while True:
                    attempts += 1
                    played_ms = (time.monotonic() - started) * 1000
                    if (stopped := interrupted(session, played_ms)) is not None:
                        break
                    if played_ms >= duration_ms:
                        break
                    await poll_pause(host, poll_interval_ms)
            else:
                attempts = 1
                await host.let_frames_pass(max(1, duration_ms * 60 // 1000))
        except BaseException:
            # cancelled or failed mid-run: the setting is put back all the same, as the mod
            # puts it back on its error path
            with anyio.CancelScope(shield=True):
                await host.on_main_thread(restore)
            raise

        def end() -> tuple[dict[str, Any], str | None]:
            game = world.game
            if game is not None and not world.is_paused():
                # RimWorld's pause toggle, which the mod uses even while a long event runs
                game.paused_speed = game.time_speed
                game.time_speed = TimeSpeed.PAUSED
            restore()
            return world.state_snapshot(), _playback_state_message(world)

        state, gone = await host.on_main_thread(end)
        game = world.game
        elapsed = whole_ms(time.monotonic() - started)
        if stopped is not None:
            message = stopped
        elif gone is not None:
            message = gone
        else:
            message = f"Game played for {duration_ms}ms and is now paused."
        return answer(
            {
                "success": gone is None and stopped is None,
                "elapsedMs": elapsed,
                "state": state,
                "paused": state["paused"],
                "initiallyPaused": initially_paused,
                "startTick": start_tick,
                "endTick": 0 if game is None else game.tick,
                "attempts": attempts,
                "message": message,
            }
        )

    @tool(
        "rimworld/step_game_ticks",
        "Advance a paused game by an exact number of ticks, one frame per tick (RimWorld's "
        "tick-once), then stay paused. Jobs, needs, incidents and scheduled lines advance.",
        title="Step game ticks",
        result_description="{success, stepId, status, requestedTicks, completedTicks, "
        "remainingTicks, startTicksGame, endTicksGame, advancedTicks, initialFrame, lastFrame, "
        "advancedFrames, initialTimeSpeed, startedAtUtc, completedAtUtc, message, state}.",
    )
    @parameter("ticks", f"Ticks to run (1 to {MAX_STEP_TICKS}).")
    @parameter("timeout_ms", "Give up after this many milliseconds.")
    @parameter("poll_interval_ms", "How often to check progress, in milliseconds.")
    @parameter("pause_first", "Pause before stepping; if false the game must be paused.")
    @parameter("play_sound", "Play the tick sound (nothing to hear in the simulation).")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def step_game_ticks(
        self,
        ticks: int = 1,
        timeout_ms: int = 10000,
        poll_interval_ms: int = 10,
        pause_first: bool = True,
        play_sound: bool = False,
    ) -> dict[str, Any]:
        world = self.host.world
        problem = None
        if ticks <= 0:
            problem = "ticks must be greater than 0."
        elif timeout_ms < 0:
            problem = "timeoutMs cannot be negative."
        elif poll_interval_ms < 0:
            problem = "pollIntervalMs cannot be negative."
        elif ticks > MAX_STEP_TICKS:
            problem = f"ticks must be at most {MAX_STEP_TICKS}."
        if problem is not None:
            return {
                "success": False,
                "message": problem,
                "state": world.state_snapshot(),
                "code": "invalid_argument",
            }
        if (unavailable := playback_unavailable(world)) is not None:
            return _step_refused(world, unavailable, "no_game")
        game = world.require_colony().game
        if pause_first:  # the mod sets CurTimeSpeed, which a forced pause leaves as it is
            world.set_time_speed(TimeSpeed.PAUSED)
        elif game.time_speed is not TimeSpeed.PAUSED:
            return _step_refused(world, _MUST_BE_PAUSED, "refused")
        self._steps += 1
        initial_speed = game.time_speed.label
        started = time.time()
        start_tick, start_frame = game.tick, world.frame
        world.step(ticks)
        end_tick = None if world.game is None else world.game.tick
        done = ticks if end_tick is not None else 0
        # a game that went away mid-step keeps the last tick the step saw, as the mod's does
        last_tick = start_tick if end_tick is None else end_tick
        return {
            "success": end_tick is not None,
            "stepId": f"step-{self._steps}",
            "status": "completed" if end_tick is not None else "cancelled",
            "requestedTicks": ticks,
            "completedTicks": done,
            "remainingTicks": ticks - done,
            "startTicksGame": start_tick,
            "endTicksGame": last_tick,
            "advancedTicks": last_tick - start_tick,
            # the frame of the first tick; the mod counts frames from it to the last inclusive
            "initialFrame": start_frame + 1,
            "lastFrame": world.frame,
            "advancedFrames": world.frame - start_frame,
            "initialTimeSpeed": initial_speed,
            "startedAtUtc": iso_utc(started),
            "completedAtUtc": iso_utc(time.time()),
            "message": f"Advanced {done} game tick(s) across "
            f"{max(1, world.frame - start_frame)} Unity update frame(s).",
            "state": world.state_snapshot(),
            **({} if end_tick is not None else {"code": "no_game"}),
        }
