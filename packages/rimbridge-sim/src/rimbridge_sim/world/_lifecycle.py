"""The game's lifecycle and time: starting, leaving, saving and loading games, long events,
the screen fade, frames and ticks, time speed, and the readiness RimBridge waits for."""

from __future__ import annotations

import copy
import random
from typing import Any

from rimbridge_sim.world._colony import Colony
from rimbridge_sim.world._core import FADE_FRAMES, SaveRecord, WorldCore
from rimbridge_sim.world._saves import sanitize_save_name, save_file
from rimbridge_sim.world.errors import InvalidArgumentError, RefusedError, UnknownIdError
from rimbridge_sim.world.generate import FIRST_NAMES, LAST_NAMES, NICKNAMES, generate_map
from rimbridge_sim.world.model import Cell, LogLevel, ProgramState, TimeSpeed
from rimbridge_sim.world.state import Area, Game, LongEvent, Pawn
from rimbridge_sim.world.views import GameInfo, StepResult

__all__ = [
    "GENERATE_FRAMES",
    "LOAD_TICKS",
    "MAX_SAVES",
    "MAX_STEP_TICKS",
    "LifecycleOps",
    "game_date",
]

LOAD_TICKS = 30
"""Real-time frames a load's long event lasts."""
GENERATE_FRAMES = 20
"""Real-time frames generating a debug game's map takes."""
LANGUAGE_FRAMES = 6
MAX_SAVES = 64
MAX_STEP_TICKS = 250_000
"""The most ticks one :meth:`LifecycleOps.step` call may force (a little over four days)."""
MAX_COLONISTS = 10
_QUADRUMS = ("Aprimay", "Jugust", "Septober", "Decembary")


class LifecycleOps(WorldCore):
    """Starting and leaving games, saves and loads, long events, frames, ticks and speed."""

    # -- starting a game -------------------------------------------------------------------

    def start_debug_game(
        self,
        seed: int | None = None,
        map_size: tuple[int, int] | None = None,
        colonists: int = 3,
    ) -> GameInfo:
        """Generate a colony now (replacing any running game, whose ids go stale).

        Used at launch and by tests; the ``rimworld/start_debug_game`` tool queues the same
        generation as a long event instead (:meth:`queue_debug_game`)."""
        self.require_no_long_event()
        self._generate(seed, map_size, colonists)
        self.fade_frames = 0
        return self.get_game_info()

    def queue_debug_game(self) -> None:
        """Queue the quick-test colony as RimWorld does from the main menu: a long event of
        :data:`GENERATE_FRAMES` frames, then a screen fade. Refused, in the mod's order, while a
        long event runs, outside the main menu (a running game included), or with a game."""
        if self._long_event is not None:
            raise RefusedError(
                "RimWorld is busy with another long event. Wait for it to finish before "
                "starting a debug game."
            )
        if self.program_state is not ProgramState.ENTRY:
            raise RefusedError("Debug game start is only supported from the main menu entry scene.")
        if self._colony is not None:
            raise RefusedError(
                "A game is already loaded. Return to the main menu before starting a new "
                "debug game."
            )
        self._long_event = LongEvent(
            "GeneratingMap", "generating map", GENERATE_FRAMES, GENERATE_FRAMES, self._cause
        )
        self.program_state = ProgramState.MAP_INITIALIZING
        self.emit(LogLevel.INFO, "Queued quick test start: generating map", "world")

    def _generate(self, seed: int | None, map_size: tuple[int, int] | None, colonists: int) -> None:
        side = self.map_size
        width, height = self.check_map_size(map_size or (side, side))
        if not isinstance(colonists, int) or not 1 <= colonists <= MAX_COLONISTS:
            raise InvalidArgumentError(
                f"colonists must be an integer from 1 to {MAX_COLONISTS}, got {colonists!r}"
            )
        game_seed = self._rng.randrange(2**31) if seed is None else seed
        if not isinstance(game_seed, int):
            raise InvalidArgumentError(f"seed must be an integer, got {game_seed!r}")
        self.drop_game()
        rng = random.Random(game_seed)
        game_map = generate_map(self.new_id("Map_"), width, height, rng)
        centre = Cell(width // 2, height // 2)
        self._games_started += 1
        game = Game(
            name=f"Colony {self._games_started}",
            seed=game_seed,
            map=game_map,
            things={},
            pawns={},
            drop_spot=centre,
            rng=rng,
        )
        colony = Colony(game, self.services())
        self._colony = colony
        self.program_state = ProgramState.PLAYING
        taken: set[str] = set()
        for index in range(colonists):
            first, nick, last = _pick_name(rng, taken)
            position = Cell(centre.x - colonists // 2 + index, centre.z - 1)
            pawn = Pawn(self.new_id("Thing_Human"), first, nick, last, position)
            pawn.food = round(rng.uniform(0.6, 0.9), 3)
            pawn.mood = round(rng.uniform(0.5, 0.7), 3)
            game.pawns[pawn.id] = pawn
        for def_name, count in (
            ("Steel", 150),
            ("WoodLog", 100),
            ("MealSimple", 20),
            ("ComponentIndustrial", 10),
            ("MedicineHerbal", 8),
        ):
            colony.place_items(def_name, count, Cell(centre.x, centre.z + 2))
        self._plant_trees(colony, rng)
        home = {
            Cell(x, z)
            for x in range(max(0, centre.x - 6), min(width, centre.x + 7))
            for z in range(max(0, centre.z - 6), min(height, centre.z + 7))
        }
        for kind, label, cells, priority in (
            ("Home", "Home", home, 10),
            ("BuildRoof", "Build roof", set(), 9),
            ("NoRoof", "No roof", set(), 8),
            ("SnowClear", "Snow clear", set(), 7),
        ):
            area = Area(self.new_id("Area_"), kind, label, cells, priority)
            game.areas[area.id] = area
        camera = self.ui.camera
        camera.x, camera.z = centre.x + 0.5, centre.z + 0.5
        self.emit(
            LogLevel.INFO,
            f"Started a new game on {game_map.id} ({width}x{height}, seed {game_seed}) "
            f"with {colonists} colonists",
            "world",
        )

    def _plant_trees(self, colony: Colony, rng: random.Random) -> None:
        game_map = colony.game.map
        centre = colony.game.drop_spot
        trees = min(120, game_map.width * game_map.height // 60)
        for _ in range(trees * 4):
            if trees == 0:
                break
            cell = Cell(rng.randrange(game_map.width), rng.randrange(game_map.height))
            if abs(cell.x - centre.x) <= 4 and abs(cell.z - centre.z) <= 4:
                continue
            if game_map.terrain_at(cell).fertile and not colony.things_at(cell):
                colony.new_thing("Plant_TreeOak", cell)
                trees -= 1

    # -- leaving, saving and loading --------------------------------------------------------

    def go_to_main_menu(self) -> GameInfo:
        """Drop the running game (no map afterwards; its ids go stale)."""
        if self._long_event is not None:
            raise RefusedError(
                "RimWorld is busy with another long event. Wait for it to finish before "
                "returning to the main menu."
            )
        if self._colony is not None:
            map_id = self._colony.game.map.id
            self.drop_game()
            self.emit(LogLevel.INFO, f"Went to the main menu; {map_id} was unloaded", "world")
        self.program_state = ProgramState.ENTRY
        self.fade_frames = 0
        return self.get_game_info()

    @property
    def at_main_menu(self) -> bool:
        return (
            self.program_state is ProgramState.ENTRY
            and self._colony is None
            and self._long_event is None
        )

    def save_game(self, name: str) -> SaveRecord:
        """Save the running game as ``Saves/<name>.rws`` (overwriting) and keep a snapshot.

        The name is sanitized as the mod does (:func:`sanitize_save_name`): non-ASCII names
        are kept, and a blank one becomes ``rimbridge_save_<yyyyMMdd_HHmmss>``."""
        colony = self.require_colony()
        clean = sanitize_save_name(name if isinstance(name, str) else None)
        if len(clean) > 200:
            raise InvalidArgumentError(f"save name is too long ({len(clean)} characters)")
        if clean not in self._saves and len(self._saves) >= MAX_SAVES:
            raise InvalidArgumentError(f"the save store is full ({MAX_SAVES} saves)")
        game = colony.game
        self._saves_made += 1
        stored = self.storage.write(f"Saves/{clean}.rws", save_file(game, clean))
        record = SaveRecord(
            name=clean,
            path=stored.path,
            tick=game.tick,
            colonist_count=len(game.pawns),
            map_width=game.map.width,
            map_height=game.map.height,
            size_bytes=stored.size_bytes,
            saved_order=self._saves_made,
            saved_at=stored.modified,
            game=copy.deepcopy(game),
        )
        self._saves.pop(clean, None)
        self._saves[clean] = record
        self.emit(LogLevel.INFO, f"Saved game '{clean}' at tick {game.tick}", "save")
        return record

    def list_saves(self) -> list[SaveRecord]:
        """Saves made in this session, newest first."""
        return sorted(self._saves.values(), key=lambda s: -s.saved_order)

    def save_path(self, name: str | None) -> str:
        return f"{self.storage.root}/Saves/{sanitize_save_name(name)}.rws"

    def find_save(self, name: str | None) -> SaveRecord | None:
        return self._saves.get(sanitize_save_name(name if isinstance(name, str) else None))

    def load_game(self, name: str) -> GameInfo:
        """Start loading ``name``: a long event of :data:`LOAD_TICKS` real-time frames.

        The running game (if any) is unloaded at once and its ids go stale. When the event
        ends, the saved game runs again on a new map id, with new ids for every pawn, thing,
        designation, zone, area and letter, paused. Possible from the main menu too."""
        self.require_no_long_event()
        save = self.find_save(name)
        if save is None:
            known = ", ".join(sorted(self._saves)) or "none"
            raise UnknownIdError(f"no save named {name!r} (saves: {known})")
        self.drop_game()
        self._long_event = LongEvent(
            "LoadingGame",
            f"loading {save.name}",
            LOAD_TICKS,
            LOAD_TICKS,
            self._cause,
            (save.name, copy.deepcopy(save.game)),
        )
        self.program_state = ProgramState.MAP_INITIALIZING
        self.emit(LogLevel.INFO, f"Loading save '{save.name}'", "load")
        return self.get_game_info()

    def queue_language(self, language: str) -> None:
        """Switch the language as a short long event (RimWorld reloads its texts)."""
        self.require_no_long_event()
        self._long_event = LongEvent(
            "SwitchingLanguage",
            f"switching language to {language}",
            LANGUAGE_FRAMES,
            LANGUAGE_FRAMES,
            self._cause,
            language,
        )

    def _finish_long_event(self) -> None:
        event = self._long_event
        assert event is not None
        self._long_event = None
        if event.kind == "GeneratingMap":
            with self.caused_by(event.operation_id):
                self._generate(None, None, 3)
            self.fade_frames = FADE_FRAMES
        elif event.kind == "LoadingGame":
            save_name, game = event.payload
            self._install_loaded(save_name, game, event.operation_id)
            self.fade_frames = FADE_FRAMES
        elif event.kind == "SwitchingLanguage":
            self.language = event.payload
            self.emit_from_game(
                LogLevel.INFO, f"Language switched to {event.payload}", "ui", event.operation_id
            )

    def _install_loaded(self, save_name: str, game: Game, operation_id: str | None) -> None:
        renamed: dict[str, str] = {}

        def fresh(old: str, prefix: str) -> str:
            renamed[old] = self.new_id(prefix)
            return renamed[old]

        game.map.id = self.new_id("Map_")
        game.pawns = {fresh(k, "Thing_Human"): p for k, p in game.pawns.items()}
        for new_id, pawn in game.pawns.items():
            pawn.id = new_id
        game.things = {fresh(k, f"Thing_{t.def_name}"): t for k, t in game.things.items()}
        for new_id, thing in game.things.items():
            thing.id = new_id
        game.designations = {fresh(k, "Designation_"): d for k, d in game.designations.items()}
        for new_id, designation in game.designations.items():
            designation.id = new_id
            designation.thing_id = renamed.get(designation.thing_id or "")
            designation.claimed_by = renamed.get(designation.claimed_by or "")
            designation.operation_id = None
        game.zones = {fresh(k, "Zone_"): z for k, z in game.zones.items()}
        for new_id, zone in game.zones.items():
            zone.id = new_id
        game.areas = {fresh(k, "Area_"): a for k, a in game.areas.items()}
        for new_id, area in game.areas.items():
            area.id = new_id
        for letter in game.letters:
            letter.id = fresh(letter.id, "Letter_")
        for pawn in game.pawns.values():
            pawn.carrying = renamed.get(pawn.carrying or "")
            if pawn.job is not None:
                pawn.job.thing_id = renamed.get(pawn.job.thing_id or "")
                pawn.job.designation_id = renamed.get(pawn.job.designation_id or "")
                pawn.job.operation_id = None
        game.scheduled = []
        game.time_speed = TimeSpeed.PAUSED
        self._colony = Colony(game, self.services())
        self.program_state = ProgramState.PLAYING
        self.ui.camera.x, self.ui.camera.z = game.drop_spot.x + 0.5, game.drop_spot.z + 0.5
        self.emit_from_game(
            LogLevel.INFO,
            f"Loaded save '{save_name}' on {game.map.id} with {len(game.pawns)} colonists",
            "load",
            operation_id,
        )

    # -- frames, ticks and speed ------------------------------------------------------------

    def step(self, ticks: int) -> StepResult:
        """Run exactly ``ticks`` game ticks now, paused or not, one frame each (the debug
        "tick once" path); the time speed is left as it was."""
        colony = self.require_colony()
        if not isinstance(ticks, int) or not 0 <= ticks <= MAX_STEP_TICKS:
            raise InvalidArgumentError(
                f"ticks must be an integer from 0 to {MAX_STEP_TICKS}, got {ticks!r}"
            )
        for _ in range(ticks):
            colony.tick()
            self.frame += 1
            if self._colony is not colony:
                break
        tick = None if self._colony is None else self._colony.game.tick
        return StepResult(ticks=ticks, tick=tick, phase=self.phase.value)

    def advance_realtime(self, frames: int = 1) -> StepResult:
        """Advance ``frames`` real-time frames, as the process's tick loop does.

        A long event advances one frame per frame; the screen fade clears; a game advances by
        its speed's ticks per frame (1, 3, 6 or 15) and not at all while paused."""
        if not isinstance(frames, int) or frames < 0:
            raise InvalidArgumentError(f"frames must be a non-negative integer, got {frames!r}")
        ran = 0
        for _ in range(frames):
            self.frame += 1
            event = self._long_event
            if event is not None:
                event.frames_remaining -= 1
                if event.frames_remaining <= 0:
                    self._finish_long_event()
                if event.kind != "SwitchingLanguage":
                    continue
            if self.fade_frames > 0:
                self.fade_frames -= 1
            colony = self._colony
            if colony is None:
                continue
            for _ in range(0 if self.is_paused() else colony.game.time_speed.ticks_per_frame):
                colony.tick()
                ran += 1
        tick = None if self._colony is None else self._colony.game.tick
        return StepResult(ticks=ran, tick=tick, phase=self.phase.value)

    def set_time_speed(self, speed: int | TimeSpeed) -> GameInfo:
        """Set the speed: 0 paused, 1 normal, 2 fast, 3 superfast, 4 ultrafast."""
        colony = self.require_colony()
        if isinstance(speed, bool) or speed not in tuple(TimeSpeed):
            raise InvalidArgumentError(
                f"time speed must be 0 (paused), 1, 2, 3 or 4 (ultrafast), got {speed!r}"
            )
        # RimWorld's CurTimeSpeed setter: the speed to unpause to is left as it was
        colony.game.time_speed = TimeSpeed(speed)
        return self.get_game_info()

    def pause(self, paused: bool = True) -> GameInfo:
        """Pause, or unpause to the speed before the last pause, or Normal when that was a
        pause too (RimWorld's toggle, which alone remembers the speed to return to)."""
        game = self.require_colony().game  # the mod toggles when Paused differs from the ask
        if paused != self.is_paused() and game.time_speed is not TimeSpeed.PAUSED:
            game.paused_speed = game.time_speed  # a forced pause makes an unpause pause
            return self.set_time_speed(TimeSpeed.PAUSED)
        if paused != self.is_paused():
            back = game.paused_speed
            return self.set_time_speed(TimeSpeed.NORMAL if back is TimeSpeed.PAUSED else back)
        return self.get_game_info()

    # -- what the world is doing ------------------------------------------------------------

    def is_game_loaded(self) -> bool:
        return self._colony is not None and self._long_event is None

    def has_current_game(self) -> bool:
        """RimWorld's ``Current.Game != null``: true once a generation or load is halfway."""
        event = self._long_event
        if event is not None and event.kind in ("GeneratingMap", "LoadingGame"):
            return event.frames_remaining <= event.frames_total // 2
        return self._colony is not None

    def readiness(self) -> dict[str, bool]:
        """The readiness levels ``wait_for_game_loaded`` checks, as the mod evaluates them:
        playable needs a game, program state ``Playing`` and no long event at all (a language
        switch included); visual also needs the screen fade over."""
        has_game = self.has_current_game()
        has_map = self._colony is not None
        playable = (
            has_game and self.program_state is ProgramState.PLAYING and self._long_event is None
        )
        clear = self.fade_frames == 0
        return {
            "gameDataReady": has_game,
            "mapDataReady": has_game and has_map,
            "currentMapReady": has_game and has_map,
            "screenFadeClear": clear,
            "playable": playable,
            "visualReady": playable and clear,
        }

    def state_snapshot(self) -> dict[str, Any]:
        """The ``state`` object tools return: program state, map, long events, readiness."""
        ready = self.readiness()
        game = self.game
        program = self.program_state
        return {
            "programState": program.value,
            "inEntryScene": program is ProgramState.ENTRY,
            "hasCurrentGame": self.has_current_game(),
            "currentMapId": None if game is None else game.map.id,
            "currentMapIndex": None if game is None else 0,
            "mapCount": 0 if game is None else 1,
            "longEventPending": self._long_event is not None,
            "paused": self.is_paused(),
            "timeSpeed": None if game is None else game.time_speed.label,
            "screenFading": self.fade_frames > 0,
            "fadeOverlayAlpha": round(self.fade_frames / FADE_FRAMES, 4),
            **ready,
            "automationReady": ready["visualReady"],
        }

    def get_game_info(self) -> GameInfo:
        """What the world is doing; works in every phase."""
        event = self._long_event
        long_event = None if event is None else event.label
        game = self.game
        if game is None:
            return GameInfo(
                phase=self.phase.value,
                map_id=None,
                map_width=None,
                map_height=None,
                tick=None,
                date=None,
                time_speed=None,
                paused=None,
                colonist_count=0,
                thing_count=0,
                seed=None,
                long_event=long_event,
            )
        return GameInfo(
            phase=self.phase.value,
            map_id=game.map.id,
            map_width=game.map.width,
            map_height=game.map.height,
            tick=game.tick,
            date=game_date(game.tick),
            time_speed=int(game.time_speed),
            paused=self.is_paused(),
            colonist_count=len(game.pawns),
            thing_count=len(game.things),
            seed=game.seed,
            long_event=long_event,
        )


def game_date(tick: int) -> str:
    day = tick // 60_000
    quadrum = _QUADRUMS[(day // 15) % 4]
    year = 5500 + day // 60
    hour = (tick % 60_000) // 2_500
    return f"{day % 15 + 1} {quadrum} {year}, {hour}h"


def _pick_name(rng: random.Random, taken: set[str]) -> tuple[str, str, str]:
    while True:
        first, nick, last = rng.choice(FIRST_NAMES), rng.choice(NICKNAMES), rng.choice(LAST_NAMES)
        if nick not in taken:
            taken.add(nick)
            return first, nick, last
