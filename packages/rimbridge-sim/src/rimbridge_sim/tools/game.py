"""``rimworld/*``: the game.

Every tool here runs under the world lock (the main loop) and inside ``world.caused_by`` of
its operation, so the jobs, designations and loads it starts carry the call's id. None carries
an allowlist tag: a bridge gates all of them while blocking attention is open.

Refusals follow one rule (see :data:`rimbridge_sim.integration.DEFAULT_PAYLOAD_CODES`):
``unknown_id``, ``stale_id`` and ``invalid_cell`` are payload failures (``success: false``);
``no_game``, ``long_event`` and ``invalid_argument`` are exceptions (in-band error plus
attention).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from lib_gab import current_operation
from rimbridge_annotations import parameter, tool
from rimbridge_sim.integration import call_spec, payload_failure
from rimbridge_sim.png import encode_png
from rimbridge_sim.tools._wire import Cell, wire
from rimbridge_sim.world import MAX_STEP_TICKS, TimeSpeed

if TYPE_CHECKING:
    from rimbridge_sim.integration import RimBridge

__all__ = ["GameTools"]

PawnId = Annotated[str, wire("pawnId", min_length=1)]
Coordinate = Annotated[int, Field(ge=0)]
SaveName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$")]
Designator = Literal["Mine", "Cut", "Haul", "Build", "Deconstruct"]

_GAME_INFO = (
    "{success, phase (main_menu | playing | loading), mapId, mapWidth, mapHeight, tick, date, "
    "timeSpeed (0-4), paused, colonistCount, thingCount, seed, longEvent}"
)
_PAWN = (
    "{id, name, nickname, position {x, z}, health, downed, drafted, mood, food, job (null or "
    "{kind, stage, target, ticksRemaining, thingId, designationId, forced, operationId}), "
    "carrying, selected}"
)
_THING = "{id, defName, label, category, position {x, z}, stackCount, stackLimit}"
_DESIGNATION = "{id, kind, cell {x, z}, thingId, buildDef, claimedBy}"
_LOOKUP = " An unknown or stale id is a payload failure (code unknown_id or stale_id)."


class GameTools:
    """The game tools; ``bridge.world`` is only touched inside a call (world lock held)."""

    def __init__(self, bridge: RimBridge) -> None:
        self.bridge = bridge
        self.world = bridge.world
        self._resume_speed = TimeSpeed.NORMAL

    def _info(self) -> dict[str, Any]:
        return {"success": True, **self.world.get_game_info().to_dict()}

    # -- game and time --------------------------------------------------------------------------

    @tool(
        "rimworld/get_game_info",
        "Describe the game: phase, map, tick and date, time speed and pause, colonist and "
        "thing counts. Works at the main menu and while loading.",
        title="Get game info",
        result_description=_GAME_INFO + ".",
        tags=("game",),
    )
    @call_spec(world=True)
    def get_game_info(self) -> dict[str, Any]:
        return self._info()

    @tool(
        "rimworld/pause_game",
        "Pause the game, or unpause it to the speed it had before the pause (normal if none).",
        title="Pause game",
        result_description=_GAME_INFO + " after the change.",
        tags=("game", "time"),
    )
    @parameter("paused", "True to pause, false to resume.")
    @call_spec(world=True)
    def pause_game(self, paused: bool = True) -> dict[str, Any]:
        game = self.world.get_game_info()
        if paused:
            if game.time_speed:
                self._resume_speed = TimeSpeed(game.time_speed)
            self.world.pause()
        elif game.paused:
            self.world.set_time_speed(self._resume_speed)
        return self._info()

    @tool(
        "rimworld/set_time_speed",
        "Set the time speed: 0 paused, 1 normal, 2 fast, 3 superfast, 4 ultrafast (ticks per "
        "frame 1, 3, 6, 15).",
        title="Set time speed",
        result_description=_GAME_INFO + " after the change.",
        tags=("game", "time"),
    )
    @parameter("speed", "0 (paused) to 4 (ultrafast).")
    @call_spec(world=True)
    def set_time_speed(self, speed: Annotated[int, Field(ge=0, le=4)]) -> dict[str, Any]:
        self.world.set_time_speed(speed)
        return self._info()

    @tool(
        "rimworld/step_game_ticks",
        "Run exactly this many game ticks now, paused or not (the debug 'tick N' action); the "
        "time speed is left as it was. Jobs, needs, incidents and scheduled lines advance.",
        title="Step game ticks",
        result_description="{success, ticks (ticks run), tick (the game tick afterwards), phase}.",
        tags=("game", "time"),
    )
    @parameter("ticks", f"Ticks to run, 1 to {MAX_STEP_TICKS}.")
    @call_spec(world=True)
    def step_game_ticks(
        self, ticks: Annotated[int, Field(ge=1, le=MAX_STEP_TICKS)]
    ) -> dict[str, Any]:
        return {"success": True, **self.world.step(ticks).to_dict()}

    # -- pawns ----------------------------------------------------------------------------------

    @tool(
        "rimworld/list_colonists",
        "List the colonists with their position, health, needs, drafted state and job.",
        title="List colonists",
        result_description=f"{{success, colonists: [{_PAWN}]}}.",
        tags=("game", "pawn"),
    )
    @call_spec(world=True)
    def list_colonists(self) -> dict[str, Any]:
        colonists = [pawn.to_dict() for pawn in self.world.list_colonists()]
        return {"success": True, "colonists": colonists}

    @tool(
        "rimworld/get_pawn",
        "Show one colonist." + _LOOKUP,
        title="Get pawn",
        result_description=f"{{success, pawn: {_PAWN}}}.",
        tags=("game", "pawn"),
    )
    @parameter("pawn_id", "The colonist's id, e.g. Thing_Human12.")
    @call_spec(world=True)
    def get_pawn(self, pawn_id: PawnId) -> dict[str, Any]:
        return {"success": True, "pawn": self.world.get_pawn(pawn_id).to_dict()}

    @tool(
        "rimworld/select_pawn",
        "Select a colonist (replacing the selection unless append)." + _LOOKUP,
        title="Select pawn",
        result_description="{success, selection: [ids]}.",
        tags=("game", "pawn", "ui"),
    )
    @parameter("pawn_id", "The colonist's id.")
    @parameter("append", "Add to the current selection instead of replacing it.")
    @call_spec(world=True)
    def select_pawn(self, pawn_id: PawnId, append: bool = False) -> dict[str, Any]:
        selection = self.world.select([pawn_id], append=append)
        return {"success": True, "selection": list(selection)}

    @tool(
        "rimworld/set_draft",
        "Draft or release a colonist. Drafting drops the current job; a drafted colonist "
        "stands still until ordered." + _LOOKUP,
        title="Set draft",
        result_description=f"{{success, pawn: {_PAWN}}} after the change.",
        tags=("game", "pawn"),
    )
    @parameter("pawn_id", "The colonist's id.")
    @parameter("drafted", "True to draft, false to release.")
    @call_spec(world=True)
    def set_draft(self, pawn_id: PawnId, drafted: bool = True) -> dict[str, Any]:
        return {"success": True, "pawn": self.world.set_draft(pawn_id, drafted).to_dict()}

    @tool(
        "rimworld/order_move",
        "Order a colonist to walk to a cell (a forced Goto job, carried by this call's "
        "operation: its later log lines name this call). An unreachable target fails the job "
        "on its first tick with an error line." + _LOOKUP + " An impassable cell is a payload "
        "failure (code invalid_cell).",
        title="Order move",
        result_description=f"{{success, pawn: {_PAWN}}} with the new job.",
        tags=("game", "pawn"),
    )
    @parameter("pawn_id", "The colonist's id.")
    @parameter("x", "Target cell x (west to east, from 0).")
    @parameter("z", "Target cell z (south to north, from 0).")
    @call_spec(world=True)
    def order_move(self, pawn_id: PawnId, x: Coordinate, z: Coordinate) -> dict[str, Any]:
        return {"success": True, "pawn": self.world.order_move(pawn_id, (x, z)).to_dict()}

    # -- cells and things -----------------------------------------------------------------------

    @tool(
        "rimworld/get_cell_info",
        "Describe one cell: terrain, passability, roof, things, pawns and designations. A cell "
        "outside the map is a payload failure (code invalid_cell).",
        title="Get cell info",
        result_description=f"{{success, cell {{x, z}}, terrain, passable, roofed, things: "
        f"[{_THING}], pawns: [ids], designations: [{_DESIGNATION}]}}.",
        tags=("game", "map"),
    )
    @parameter("x", "Cell x (west to east, from 0).")
    @parameter("z", "Cell z (south to north, from 0).")
    @call_spec(world=True)
    def get_cell_info(self, x: Coordinate, z: Coordinate) -> dict[str, Any]:
        return {"success": True, **self.world.get_cell_info((x, z)).to_dict()}

    @tool(
        "rimworld/list_things",
        "List the things on the map (items, buildings, plants; carried ones excluded), "
        "optionally of one def. An unknown def name is an exception.",
        title="List things",
        result_description=f"{{success, things: [{_THING}], count}}.",
        tags=("game", "map"),
    )
    @parameter("def_name", "Only things of this def, e.g. Steel, WoodLog, Plant_TreeOak.")
    @call_spec(world=True)
    def list_things(
        self, def_name: Annotated[str | None, wire("defName", min_length=1)] = None
    ) -> dict[str, Any]:
        things = [thing.to_dict() for thing in self.world.list_things(def_name)]
        return {"success": True, "things": things, "count": len(things)}

    @tool(
        "rimworld/spawn_thing",
        "Spawn things at a cell (debug action): items split into stacks spread to the nearest "
        "free cells; buildings and plants one at a time on an empty cell. An unknown def or a "
        "count that does not fit is an exception; water, rock or an occupied cell is a payload "
        "failure (code invalid_cell).",
        title="Spawn thing",
        result_description=f"{{success, defName, requested, stacks: [{_THING}]}}.",
        tags=("game", "map", "debug"),
    )
    @parameter("def_name", "The thing def, e.g. Steel, MealSimple, Wall.")
    @parameter("count", "How many (1 for buildings and plants).")
    @parameter("x", "Cell x.")
    @parameter("z", "Cell z.")
    @call_spec(world=True)
    def spawn_thing(
        self,
        def_name: Annotated[str, wire("defName", min_length=1)],
        x: Coordinate,
        z: Coordinate,
        count: Annotated[int, Field(ge=1, le=10_000)] = 1,
    ) -> dict[str, Any]:
        return {"success": True, **self.world.spawn_thing(def_name, count, (x, z)).to_dict()}

    # -- designations ---------------------------------------------------------------------------

    @tool(
        "rimworld/apply_architect_designator",
        "Drag an architect designator over cells: Mine, Cut, Haul, Build (with buildDef) or "
        "Deconstruct. Cells that are not valid targets are skipped and listed in rejected; "
        "idle colonists take the work on their own, carrying this call's operation.",
        title="Apply architect designator",
        result_description=f"{{success, kind, accepted: [{_DESIGNATION}], rejected: [{{cell, "
        "reason}]}. A cell outside the map refuses the whole call (payload failure, code "
        "invalid_cell).",
        tags=("game", "map"),
    )
    @parameter("designator", "Mine, Cut, Haul, Build or Deconstruct.")
    @parameter("cells", "The cells, [{x, z}], 1 to 400.")
    @parameter("build_def", "What Build places (a building def, e.g. Wall).")
    @call_spec(world=True)
    def apply_architect_designator(
        self,
        designator: Designator,
        cells: Annotated[list[Cell], Field(min_length=1, max_length=400)],
        build_def: Annotated[str, wire("buildDef", min_length=1)] = "Wall",
    ) -> dict[str, Any]:
        result = self.world.apply_designator(
            designator, [(cell.x, cell.z) for cell in cells], build_def=build_def
        )
        return {"success": True, **result.to_dict()}

    @tool(
        "rimworld/list_designations",
        "List the designations on the map (work waiting for colonists).",
        title="List designations",
        result_description=f"{{success, designations: [{_DESIGNATION}]}}.",
        tags=("game", "map"),
    )
    @call_spec(world=True)
    def list_designations(self) -> dict[str, Any]:
        designations = [d.to_dict() for d in self.world.list_designations()]
        return {"success": True, "designations": designations}

    @tool(
        "rimworld/cancel_designation",
        "Remove a designation; a colonist working on it stops." + _LOOKUP,
        title="Cancel designation",
        result_description=f"{{success, designation: {_DESIGNATION}}} (the removed one).",
        tags=("game", "map"),
    )
    @parameter("designation_id", "The designation's id, e.g. Designation_40.")
    @call_spec(world=True)
    def cancel_designation(
        self, designation_id: Annotated[str, wire("designationId", min_length=1)]
    ) -> dict[str, Any]:
        return {
            "success": True,
            "designation": self.world.cancel_designation(designation_id).to_dict(),
        }

    # -- saves and the game's lifecycle ---------------------------------------------------------

    @tool(
        "rimworld/list_saves",
        "List the saved games, newest first.",
        title="List saves",
        result_description="{success, saves: [{name, tick, colonistCount, mapWidth, mapHeight, "
        "sizeBytes, savedOrder}]}.",
        tags=("game", "save"),
    )
    @call_spec(world=True)
    def list_saves(self) -> dict[str, Any]:
        return {"success": True, "saves": [save.to_dict() for save in self.world.list_saves()]}

    @tool(
        "rimworld/save_game",
        "Save the running game under a name (overwriting a save of that name).",
        title="Save game",
        result_description="{success, save: {name, tick, colonistCount, mapWidth, mapHeight, "
        "sizeBytes, savedOrder}}.",
        tags=("game", "save"),
    )
    @parameter(
        "name", "1 to 64 letters, digits, spaces, '_' or '-', starting with a letter or digit."
    )
    @call_spec(world=True)
    def save_game(self, name: SaveName) -> dict[str, Any]:
        return {"success": True, "save": self.world.save_game(name).to_dict()}

    @tool(
        "rimworld/load_game",
        "Start loading a save: a long event that unloads the running game at once and, some "
        "frames later, runs the saved game on a new map with new ids for everything (old ids "
        "go stale). The load is follow-up work: a child operation of this call, completed when "
        "the long event ends; wait for it with rimbridge/wait_for_game_loaded or "
        "rimbridge/wait_for_operation. The finished load logs 'Map replaced: <old> -> <new>' "
        "and 'Game loaded: <save>'. An unknown save is a payload failure (code unknown_id).",
        title="Load game",
        result_description="{success, loading: true, save, operationId (the load's child "
        "operation), phase: 'loading'}.",
        tags=("game", "save"),
    )
    @parameter("name", "The save's name (see rimworld/list_saves).")
    @call_spec(world=True)
    def load_game(self, name: Annotated[str, Field(min_length=1)]) -> dict[str, Any]:
        operation = current_operation()
        assert operation is not None  # invoke runs every tool under an operation
        child = self.bridge.begin_load(name, operation.id)
        return {
            "success": True,
            "loading": True,
            "save": name,
            "operationId": child,
            "phase": self.world.phase.value,
        }

    @tool(
        "rimworld/go_to_main_menu",
        "Leave the running game for the main menu (its map and ids are gone). Logs 'Returned "
        "to main menu'. Map tools then throw (no_game) until a game is started or loaded.",
        title="Go to main menu",
        result_description=_GAME_INFO + " (phase main_menu).",
        tags=("game",),
    )
    @call_spec(world=True)
    def go_to_main_menu(self) -> dict[str, Any]:
        self.world.go_to_main_menu()
        return self._info()

    @tool(
        "rimworld/start_debug_game",
        "Start a new colony on a generated square map, paused, replacing any running game "
        "(whose ids go stale; logs 'Map replaced: <old> -> <new>').",
        title="Start debug game",
        result_description=_GAME_INFO + " of the new game.",
        tags=("game",),
    )
    @parameter("seed", "Map seed (omit for one drawn from the world's seed).")
    @parameter("map_size", "Side of the square map in cells, 10 to 250.")
    @parameter("colonists", "Starting colonists, 1 to 10.")
    @call_spec(world=True)
    def start_debug_game(
        self,
        seed: Annotated[int | None, Field(ge=0)] = None,
        map_size: Annotated[int, wire("mapSize", ge=10, le=250)] = 50,
        colonists: Annotated[int, Field(ge=1, le=10)] = 3,
    ) -> dict[str, Any]:
        self.world.start_debug_game(seed=seed, map_size=(map_size, map_size), colonists=colonists)
        return self._info()

    # -- UI -------------------------------------------------------------------------------------

    @tool(
        "rimworld/get_ui_state",
        "Describe the UI: phase, open windows, selection, time speed, long event and unread "
        "letters.",
        title="Get UI state",
        result_description="{success, phase, mapId, windows: [{id, kind, title}], selection: "
        "[ids], timeSpeed, paused, longEvent, unreadLetters}.",
        tags=("game", "ui"),
    )
    @call_spec(world=True)
    def get_ui_state(self) -> dict[str, Any]:
        return {"success": True, **self.world.snapshot().to_dict()}

    @tool(
        "rimworld/close_window",
        "Close an open window, or the top one. No open window, or an unknown window id, is a "
        "payload failure (code no_window or unknown_id).",
        title="Close window",
        result_description="{success, closed: {id, kind, title}, windows: [the ones still open]}.",
        tags=("game", "ui"),
    )
    @parameter("window_id", "The window's id (see rimworld/get_ui_state); omit for the top one.")
    @call_spec(world=True)
    def close_window(
        self, window_id: Annotated[int | None, wire("windowId", ge=1)] = None
    ) -> dict[str, Any]:
        if not self.world.list_windows():
            return payload_failure("no window is open", "no_window")
        closed = self.world.close_window(window_id)
        windows = [window.to_dict() for window in self.world.list_windows()]
        return {"success": True, "closed": closed.to_dict(), "windows": windows}

    @tool(
        "rimworld/list_letters",
        "List the letters (the event notifications on the right of the screen), oldest first.",
        title="List letters",
        result_description="{success, letters: [{id, label, text, kind, tick, read}]}.",
        tags=("game", "ui"),
    )
    @parameter("unread_only", "Only letters not yet opened.")
    @call_spec(world=True)
    def list_letters(
        self, unread_only: Annotated[bool, wire("unreadOnly")] = False
    ) -> dict[str, Any]:
        letters = self.world.list_letters(unread_only=unread_only)
        return {"success": True, "letters": [letter.to_dict() for letter in letters]}

    @tool(
        "rimworld/open_letter",
        "Open a letter: mark it read and show it in a window." + _LOOKUP,
        title="Open letter",
        result_description="{success, letter: {id, label, text, kind, tick, read}, window: "
        "{id, kind, title}}.",
        tags=("game", "ui"),
    )
    @parameter("letter_id", "The letter's id, e.g. Letter_31.")
    @call_spec(world=True)
    def open_letter(
        self, letter_id: Annotated[str, wire("letterId", min_length=1)]
    ) -> dict[str, Any]:
        window = self.world.open_letter(letter_id)
        letter = next(x for x in self.world.list_letters() if x.id == letter_id)
        return {"success": True, "letter": letter.to_dict(), "window": window.to_dict()}

    @tool(
        "rimworld/take_screenshot",
        "Render what the screen shows (the map with things and pawns, the main menu or a "
        "loading screen) and write it as a PNG file on the game's machine.",
        title="Take screenshot",
        result_description="{success, path (absolute path of the PNG), width, height, "
        "sizeBytes, mapId (null without a map), phase}.",
        tags=("game", "ui"),
    )
    @parameter("width", "Image width in pixels, 16 to 1024.")
    @parameter("height", "Image height in pixels, 16 to 1024.")
    @call_spec(world=True)
    def take_screenshot(
        self,
        width: Annotated[int, Field(ge=16, le=1024)] = 320,
        height: Annotated[int, Field(ge=16, le=1024)] = 240,
    ) -> dict[str, Any]:
        bridge = self.bridge
        data = encode_png(width, height, self.world.render_rgb(width, height))
        game = self.world.game
        map_id = None if game is None else game.map.id
        bridge.screenshot_dir.mkdir(parents=True, exist_ok=True)
        number = len(list(bridge.screenshot_dir.glob("screenshot-*.png"))) + 1
        path = bridge.screenshot_dir / f"screenshot-{number:04d}-{map_id or 'menu'}.png"
        path.write_bytes(data)
        return {
            "success": True,
            "path": str(path.resolve()),
            "width": width,
            "height": height,
            "sizeBytes": len(data),
            "mapId": map_id,
            "phase": self.world.phase.value,
        }
