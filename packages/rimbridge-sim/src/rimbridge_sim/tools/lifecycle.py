"""Starting, leaving, saving and loading games, and waiting for them to be ready.

The ``*_ready`` tools and the waits are async: they take the main loop only for short probes,
so the game keeps running (and, without a tick loop, they run the frames they wait for).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from lib_gab import current_operation
from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import (
    DEFAULT_PAYLOAD_CODES,
    NO_GAME_SENTENCE,
    call_spec,
    without_game,
)
from rimbridge_sim.clock import iso_utc
from rimbridge_sim.host import ToolHost
from rimbridge_sim.tools._waits import (
    TIMED_OUT,
    Probe,
    WaitOutcome,
    resolve_readiness,
    wait_for_readiness,
    wait_response,
    wait_until,
)
from rimbridge_sim.world import (
    ProgramState,
    RefusedError,
    UnknownIdError,
    World,
    WorldError,
    sanitize_save_name,
)

__all__ = ["LifecycleTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_READY = (
    "{success, message, state, entry (the wait for the main menu), start (the queued start), "
    "wait (the readiness wait: satisfied, targetReadiness, blockingReason, elapsedMs, "
    "attempts, probeFailureCount, state)}."
)
F = TypeVar("F", bound=Callable[..., Any])

_READINESS_DOC = "Readiness to reach: gameData, mapData, currentMap, playable or visual."


def _readiness_parameters(timeout_doc: str) -> Callable[[F], F]:
    """The descriptions of the readiness-wait parameters the mod's waits share."""

    def describe(function: F) -> F:
        for name, text in reversed(
            [
                ("timeout_ms", timeout_doc),
                ("poll_interval_ms", "How often to look, in milliseconds."),
                ("readiness", _READINESS_DOC),
                ("pause_if_needed", "Pause the game once it is ready, if it is running."),
                ("target_readiness", "Same as readiness; wins over it when given."),
                ("wait_for_visual_ready", "Shortcut for readiness visual."),
            ]
        ):
            function = parameter(name, text)(function)
        return function

    return describe


def _refused(world: World, error: RefusedError) -> dict[str, Any]:
    """A start or a return to the menu the game refused, in the mod's shape (the message and
    the state), then the sim's ``code``."""
    return {
        "success": False,
        "message": error.message,
        "state": world.state_snapshot(),
        "code": error.code,
    }


def _missing_save(safe: str, path: str) -> dict[str, Any]:
    """A load of a save that does not exist, in the mod's shape, then the sim's ``code``."""
    return {
        "success": False,
        "message": f"Save '{safe}' does not exist.",
        "path": path,
        "code": UnknownIdError.code,
    }


def _start(world: World) -> dict[str, Any]:
    try:
        world.queue_debug_game()
    except RefusedError as error:
        return _refused(world, error)
    return {
        "success": True,
        "status": "queued",
        "message": "Queued RimWorld quick test start.",
        "scenario": "Crashlanded",
        "storyteller": "Cassandra",
        "difficulty": "Rough",
        "mapSize": world.map_size,
        "state": world.state_snapshot(),
    }


def _queue_failure(
    safe: str, path: str, message: str, idle: WaitOutcome, code: str
) -> dict[str, Any]:
    """``load_game_ready`` when the load could not be queued, in the mod's shape, then the
    sim's ``code``."""
    return {
        "success": False,
        "saveName": safe,
        "path": path,
        "message": message,
        "state": idle.snapshot,
        "queue": {
            "success": False,
            "message": message,
            "attempts": idle.attempts,
            "elapsedMs": idle.elapsed_ms,
            "probeFailureCount": idle.probe_failures,
            "lastProbeError": idle.last_probe_error,
            "blockingReason": idle.blocking_reason,
            "code": code,
        },
        "code": code,
    }


def _code_of(wait: dict[str, Any]) -> dict[str, Any]:
    """The failed wait's ``code`` for a call that answers with the wait's outcome."""
    return {} if wait["success"] else {"code": wait["code"]}


class LifecycleTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    # -- waits -----------------------------------------------------------------------------------

    @tool(
        "rimbridge/wait_for_game_loaded",
        "Wait until the game reaches a readiness level: gameData (a game object exists), "
        "mapData (its map exists), currentMap, playable (no long event, playing) or visual "
        "(playable and the screen fade is over). Optionally pause the game once it is ready.",
        title="Wait for game loaded",
        result_description="{success, satisfied, message, targetReadiness, blockingReason, "
        "elapsedMs, attempts, probeFailureCount, lastProbeError, state}.",
    )
    @_readiness_parameters("How long to wait, in milliseconds.")
    async def wait_for_game_loaded(
        self,
        timeout_ms: int = 30000,
        poll_interval_ms: int = 50,
        readiness: str = "mapData",
        pause_if_needed: bool = False,
        target_readiness: str | None = None,
        wait_for_visual_ready: bool = False,
    ) -> dict[str, Any]:
        target = resolve_readiness(readiness, target_readiness, wait_for_visual_ready)
        return await wait_for_readiness(
            self.host, timeout_ms, poll_interval_ms, target, pause_if_needed
        )

    @tool(
        "rimbridge/wait_for_long_event_idle",
        "Wait until no long event (map generation, a load, a language switch) is running.",
        title="Wait for long event idle",
        result_description="{success, satisfied, message, elapsedMs, attempts, "
        "probeFailureCount, lastProbeError, state}.",
    )
    @parameter("timeout_ms", "How long to wait, in milliseconds.")
    @parameter("poll_interval_ms", "How often to look, in milliseconds.")
    async def wait_for_long_event_idle(
        self, timeout_ms: int = 30000, poll_interval_ms: int = 100
    ) -> dict[str, Any]:
        world = self.host.world

        def probe() -> Probe:
            idle = world.long_event is None
            message = "RimWorld is idle." if idle else "Waiting for RimWorld long events to finish."
            return Probe(idle, message, world.state_snapshot())

        outcome = await wait_until(
            self.host,
            probe,
            timeout_ms=timeout_ms,
            poll_ms=poll_interval_ms,
            timeout_message="Timed out waiting for RimWorld long events to finish.",
        )
        return wait_response(outcome)

    # -- starting and leaving ------------------------------------------------------------------

    @tool(
        "rimworld/start_debug_game",
        "Queue the quick-test colony from the main menu (a long event generates the map; wait "
        "with rimbridge/wait_for_game_loaded). Refused while a game is loaded or a long event "
        "runs.",
        title="Start debug game",
        result_description="{success, status: 'queued', message, scenario, storyteller, "
        "difficulty, mapSize, state}; a refusal is {success: false, message, state}.",
    )
    @call_spec(world=True)
    def start_debug_game(self) -> dict[str, Any]:
        return _start(self.host.world)

    async def _entry(self, timeout_ms: int, poll_ms: int) -> dict[str, Any]:
        world = self.host.world

        def probe() -> Probe:
            ready = world.at_main_menu
            if ready:
                return Probe(
                    True, "RimWorld entry scene can queue a debug game.", world.state_snapshot()
                )
            if world.has_current_game():
                reason = "A game is already loaded."
            elif world.program_state is not ProgramState.ENTRY:
                reason = f"RimWorld programState is {world.program_state.value}, not Entry."
            else:
                reason = "RimWorld is not in the entry scene."
            return Probe(
                False,
                "Waiting for RimWorld entry scene to accept a debug-game start.",
                world.state_snapshot(),
                reason,
            )

        outcome = await wait_until(
            self.host,
            probe,
            timeout_ms=timeout_ms,
            poll_ms=poll_ms,
            timeout_message="Timed out waiting for RimWorld entry scene readiness.",
        )
        return wait_response(outcome, "entryScene")

    @tool(
        "rimworld/start_debug_game_ready",
        "From the main menu: wait until a debug game can start, queue it, then wait for the "
        "readiness level asked for, in one call.",
        title="Start debug game (ready)",
        result_description=_READY,
    )
    @_readiness_parameters("Time for the whole call, in milliseconds.")
    async def start_debug_game_ready(
        self,
        timeout_ms: int = 120000,
        poll_interval_ms: int = 50,
        readiness: str = "mapData",
        pause_if_needed: bool = False,
        target_readiness: str | None = None,
        wait_for_visual_ready: bool = False,
    ) -> dict[str, Any]:
        host = self.host
        target = resolve_readiness(readiness, target_readiness, wait_for_visual_ready)
        started = time.monotonic()
        entry = await self._entry(timeout_ms, poll_interval_ms)
        if not entry["success"]:
            return {
                "success": False,
                "message": entry["message"],
                "state": entry["state"],
                "entry": entry,
                "code": entry["code"],
            }
        start = await host.on_main_thread(lambda: _start(host.world))
        if not start["success"]:
            return {
                "success": False,
                "message": start["message"],
                "state": start["state"],
                "start": start,
                "code": start["code"],
            }
        remaining = max(1, timeout_ms - round((time.monotonic() - started) * 1000))
        wait = await wait_for_readiness(host, remaining, poll_interval_ms, target, pause_if_needed)
        return {
            "success": wait["success"],
            "message": wait["message"],
            "state": wait["state"],
            "entry": entry,
            "start": start,
            "wait": wait,
            **_code_of(wait),
        }

    @tool(
        "rimworld/go_to_main_menu",
        "Leave the running game for the main menu (its map and ids are gone; logs 'Returned "
        "to main menu'). A no-op at the main menu; refused during a long event.",
        title="Go to main menu",
        result_description="{success, status: 'queued' | 'noop', message, state}.",
    )
    @call_spec(world=True)
    def go_to_main_menu(self) -> dict[str, Any]:
        world = self.host.world
        if world.at_main_menu:
            return {
                "success": True,
                "status": "noop",
                "message": "RimWorld is already at the main menu entry scene.",
                "state": world.state_snapshot(),
            }
        try:
            world.go_to_main_menu()
        except RefusedError as error:
            return _refused(world, error)
        return {
            "success": True,
            "status": "queued",
            "message": "Queued return to the RimWorld main menu.",
            "state": world.state_snapshot(),
        }

    # -- saves -----------------------------------------------------------------------------------

    @tool(
        "rimworld/list_saves",
        "List the saved games (files under Saves/ in the game's data folder), newest first.",
        title="List saves",
        result_description="{success, saveFolder, count, saves: [{name, path, "
        "lastWriteTimeUtc, sizeBytes, tick, colonistCount}]}.",
    )
    @call_spec(world=True)
    def list_saves(self) -> dict[str, Any]:
        world = self.host.world
        saves = [
            {
                "name": record.name,
                "path": record.path,
                "lastWriteTimeUtc": iso_utc(record.saved_at),
                "sizeBytes": record.size_bytes,
                "tick": record.tick,
                "colonistCount": record.colonist_count,
            }
            for record in world.list_saves()
        ]
        return {
            "success": True,
            "saveFolder": f"{world.storage.root}/Saves",
            "count": len(saves),
            "saves": saves,
        }

    @tool(
        "rimworld/save_game",
        "Save the running game under a name (characters a file name cannot hold become _; "
        "any other, non-ASCII included, is kept; a blank name becomes "
        "rimbridge_save_<yyyyMMdd_HHmmss>, local time), overwriting a save of that name.",
        title="Save game",
        result_description="{success, saveName, path, exists, sizeBytes}; without a game "
        "{success: false, message: 'No game is currently loaded.', code: 'no_game'}.",
    )
    @parameter("save_name", "The save's name, without extension (blank: a timestamped name).")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def save_game(self, save_name: str) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        record = world.save_game(save_name)
        return {
            "success": True,
            "saveName": record.name,
            "path": record.path,
            "exists": True,
            "sizeBytes": record.size_bytes,
        }

    def _queue_load(self, save_name: str) -> dict[str, Any]:
        world = self.host.world
        safe = sanitize_save_name(save_name)
        path = world.save_path(safe)
        if world.find_save(safe) is None:
            return _missing_save(safe, path)
        operation = current_operation()
        assert operation is not None  # tools always run under an operation
        child = self.host.begin_load(safe, operation.id)
        return {
            "success": True,
            "status": "queued",
            "saveName": safe,
            "path": path,
            "loadOperationId": child,
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/load_game",
        "Queue loading a save: the running game is unloaded at once and a long event loads "
        "the save on a new map with new ids (old ids go stale). The load is a child operation "
        "of this call (loadOperationId) that completes when it ends; it logs 'Map replaced: "
        "<old> -> <new>' and 'Game loaded: <save>'.",
        title="Load game",
        result_description="{success, status: 'queued', saveName, path, loadOperationId, "
        "state}; an unknown save is {success: false, message, path}.",
    )
    @parameter("save_name", "The save's name, without extension (see rimworld/list_saves).")
    @call_spec(world=True)
    def load_game(self, save_name: str) -> dict[str, Any]:
        return self._queue_load(save_name)

    @tool(
        "rimworld/load_game_ready",
        "Queue loading a save and wait for the readiness level asked for, in one call. A long "
        "event already running (a load, a return to the menu) ends first.",
        title="Load game (ready)",
        result_description="{success, saveName, path, message, state, load (the queued load), "
        "wait (the readiness wait)}; an unknown save is {success: false, message, path}; a "
        "load that could not be queued in time {success: false, saveName, path, message, "
        "state, queue {success, message, attempts, elapsedMs, probeFailureCount, "
        "lastProbeError, blockingReason}}.",
    )
    @parameter("save_name", "The save's name, without extension.")
    @_readiness_parameters("Time for the whole call, in milliseconds.")
    async def load_game_ready(
        self,
        save_name: str,
        timeout_ms: int = 120000,
        poll_interval_ms: int = 50,
        readiness: str = "mapData",
        pause_if_needed: bool = False,
        target_readiness: str | None = None,
        wait_for_visual_ready: bool = False,
    ) -> dict[str, Any]:
        host = self.host
        world = host.world
        target = resolve_readiness(readiness, target_readiness, wait_for_visual_ready)
        started = time.monotonic()
        safe = sanitize_save_name(save_name)
        path = world.save_path(safe)
        if world.find_save(safe) is None:
            return _missing_save(safe, path)
        # the mod queues the load behind a running long event; the sim lets that event end
        # first, within the call's time
        idle = await wait_until(
            host,
            lambda: Probe(
                world.long_event is None,
                "RimWorld main thread accepted automation work.",
                world.state_snapshot(),
            ),
            timeout_ms=timeout_ms,
            poll_ms=poll_interval_ms,
            timeout_message="Timed out waiting for RimWorld main thread before queueing save load.",
        )
        if not idle.satisfied:
            return _queue_failure(safe, path, idle.message, idle, TIMED_OUT)
        try:
            load = await host.on_main_thread(lambda: self._queue_load(save_name))
        except WorldError as error:
            return _queue_failure(safe, path, error.message, idle, error.code)
        if not load["success"]:
            return load
        remaining = max(1, timeout_ms - round((time.monotonic() - started) * 1000))
        wait = await wait_for_readiness(host, remaining, poll_interval_ms, target, pause_if_needed)
        return {
            "success": wait["success"],
            "saveName": load["saveName"],
            "path": load["path"],
            "message": wait["message"],
            "state": wait["state"] or load["state"],
            "load": load,
            "wait": wait,
            **_code_of(wait),
        }
