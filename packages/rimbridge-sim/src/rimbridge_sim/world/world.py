"""The :class:`World` facade: phases, games, time, saves and loads, and every operation the
RimBridge tools need.

Pure Python: no I/O, no threads, no clock. Time passes only through :meth:`World.step` (game
ticks, forced, as the real debug tool does) and :meth:`World.advance_realtime` (frames of the
process's tick loop, which respects pause and the time speed).
"""

from __future__ import annotations

import copy
import random
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NoReturn

from rimbridge_sim.world._colony import MAX_THINGS, Colony, Services
from rimbridge_sim.world._render import render_rgb, terrain_grid
from rimbridge_sim.world.errors import (
    InvalidArgumentError,
    InvalidCellError,
    LongEventError,
    NoGameError,
    StaleIdError,
    UnknownIdError,
)
from rimbridge_sim.world.generate import (
    FIRST_NAMES,
    LAST_NAMES,
    MAX_MAP_SIDE,
    MIN_MAP_SIDE,
    NICKNAMES,
    generate_map,
)
from rimbridge_sim.world.model import (
    THING_DEFS,
    Cell,
    Designation,
    DesignationKind,
    Game,
    Letter,
    LetterKind,
    LogLevel,
    LogRecord,
    Pawn,
    Phase,
    ScheduledLog,
    Terrain,
    Thing,
    ThingCategory,
    ThingDef,
    TimeSpeed,
    Window,
)
from rimbridge_sim.world.views import (
    CellInfo,
    DesignationInfo,
    DesignatorResult,
    GameInfo,
    JobInfo,
    LetterInfo,
    PawnInfo,
    RejectedCell,
    SaveInfo,
    SpawnResult,
    StepResult,
    ThingInfo,
    UiState,
    WindowInfo,
)

__all__ = ["LOAD_TICKS", "MAX_SAVES", "MAX_STEP_TICKS", "World"]

LOAD_TICKS = 30
"""Real-time frames a load's long event lasts."""
MAX_SAVES = 64
MAX_STEP_TICKS = 250_000
"""The most ticks one :meth:`World.step` call may force (a little over four in-game days)."""
MAX_COLONISTS = 10
MAX_WINDOWS = 32
_RETIRED_CAP = 20_000
_SAVE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$")
_QUADRUMS = ("Aprimay", "Jugust", "Septober", "Decembary")

CellLike = Cell | tuple[int, int] | Sequence[int]


@dataclass
class _Save:
    info: SaveInfo
    game: Game


@dataclass
class _Loading:
    save_name: str
    frames_remaining: int
    game: Game
    operation_id: str | None


@dataclass(frozen=True)
class _Retired:
    destroyed: bool
    map_id: str


class World:
    """A simulated RimWorld: the main menu, at most one running game, and a save store.

    ``log`` receives every :class:`LogRecord` the world writes, synchronously, in order.
    All randomness comes from ``seed``: the same seed and the same calls give the same
    results, ids and log lines.
    """

    def __init__(self, seed: int = 0, *, log: Callable[[LogRecord], None] | None = None) -> None:
        self.seed = seed
        self._log = log
        self._rng = random.Random(seed)
        self._next_number = 1
        self._next_window = 1
        self._games_started = 0
        self._saves_made = 0
        self._colony: Colony | None = None
        self._loading: _Loading | None = None
        self._saves: dict[str, _Save] = {}
        self._retired: OrderedDict[str, _Retired] = OrderedDict()
        self._windows: list[Window] = []
        self._selection: list[str] = []
        self._cause: str | None = None

    # -- state -----------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self._loading is not None:
            return Phase.LOADING
        return Phase.MAIN_MENU if self._colony is None else Phase.PLAYING

    @property
    def game(self) -> Game | None:
        """The running game's state (``None`` at the main menu and while loading).

        For inspection in tests and renderers; change the world through its operations."""
        return None if self._colony is None else self._colony.game

    @property
    def loaded(self) -> bool:
        """Whether a game is running and no long event is in progress."""
        return self.phase is Phase.PLAYING

    def is_game_loaded(self) -> bool:
        """The predicate ``rimbridge/wait_for_game_loaded`` polls."""
        return self.loaded

    @property
    def saves(self) -> dict[str, SaveInfo]:
        """The save store, by name (a copy)."""
        return {name: save.info for name, save in self._saves.items()}

    @contextmanager
    def caused_by(self, operation_id: str | None) -> Iterator[None]:
        """Attribute work started inside the block (jobs, designations, loads, scheduled
        lines, and the log lines they write later) to ``operation_id``."""
        previous, self._cause = self._cause, operation_id
        try:
            yield
        finally:
            self._cause = previous

    # -- the game's lifecycle --------------------------------------------------------------

    def start_debug_game(
        self,
        seed: int | None = None,
        map_size: tuple[int, int] = (50, 50),
        colonists: int = 3,
    ) -> GameInfo:
        """Start a new colony (replacing any running game, whose ids go stale).

        The game starts paused, with ``colonists`` colonists, starting supplies near the map
        centre and some trees."""
        self._require_no_long_event()
        width, height = self._check_map_size(map_size)
        if not isinstance(colonists, int) or not 1 <= colonists <= MAX_COLONISTS:
            raise InvalidArgumentError(
                f"colonists must be an integer from 1 to {MAX_COLONISTS}, got {colonists!r}"
            )
        game_seed = self._rng.randrange(2**31) if seed is None else seed
        if not isinstance(game_seed, int):
            raise InvalidArgumentError(f"seed must be an integer, got {game_seed!r}")
        self._drop_game()
        rng = random.Random(game_seed)
        game_map = generate_map(self._new_id("Map_"), width, height, rng)
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
        colony = Colony(game, self._services())
        self._colony = colony
        names: set[str] = set()
        for index in range(colonists):
            first, nick, last = _pick_name(rng, names)
            position = Cell(centre.x - colonists // 2 + index, centre.z - 1)
            pawn = Pawn(self._new_id("Thing_Human"), first, nick, last, position)
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
        self._emit(
            LogLevel.INFO,
            f"Started a new game on {game_map.id} ({width}x{height}, seed {game_seed}) "
            f"with {colonists} colonists",
            "world",
        )
        return self.get_game_info()

    def go_to_main_menu(self) -> GameInfo:
        """Drop the running game (no map afterwards; its ids go stale)."""
        self._require_no_long_event()
        if self._colony is not None:
            map_id = self._colony.game.map.id
            self._drop_game()
            self._emit(LogLevel.INFO, f"Went to the main menu; {map_id} was unloaded", "world")
        return self.get_game_info()

    def save_game(self, name: str) -> SaveInfo:
        """Store a deep snapshot of the running game under ``name`` (overwriting)."""
        colony = self._require_colony()
        if not isinstance(name, str) or not _SAVE_NAME.match(name):
            raise InvalidArgumentError(
                f"save name {name!r} must be 1 to 64 letters, digits, spaces, '_' or '-', "
                "starting with a letter or digit"
            )
        if name not in self._saves and len(self._saves) >= MAX_SAVES:
            raise InvalidArgumentError(f"the save store is full ({MAX_SAVES} saves)")
        game = colony.game
        snapshot = copy.deepcopy(game)
        self._saves_made += 1
        info = SaveInfo(
            name=name,
            tick=game.tick,
            colonist_count=len(game.pawns),
            map_width=game.map.width,
            map_height=game.map.height,
            size_bytes=_estimate_size(game),
            saved_order=self._saves_made,
        )
        self._saves.pop(name, None)
        self._saves[name] = _Save(info, snapshot)
        self._emit(LogLevel.INFO, f"Saved game '{name}' at tick {game.tick}", "save")
        return info

    def list_saves(self) -> list[SaveInfo]:
        """Saves, newest first."""
        return sorted(self.saves.values(), key=lambda s: -s.saved_order)

    def load_game(self, name: str) -> GameInfo:
        """Start loading ``name``: a long event of :data:`LOAD_TICKS` real-time frames.

        The running game (if any) is unloaded at once and its ids go stale. When the event
        ends, the saved game runs again on a new map id, with new ids for every pawn, thing,
        designation and letter, paused. Possible from the main menu too."""
        self._require_no_long_event()
        save = self._saves.get(name) if isinstance(name, str) else None
        if save is None:
            known = ", ".join(sorted(self._saves)) or "none"
            raise UnknownIdError(f"no save named {name!r} (saves: {known})")
        self._drop_game()
        self._loading = _Loading(name, LOAD_TICKS, copy.deepcopy(save.game), self._cause)
        self._emit(LogLevel.INFO, f"Loading save '{name}'", "load")
        return self.get_game_info()

    # -- time ------------------------------------------------------------------------------

    def step(self, ticks: int) -> StepResult:
        """Run exactly ``ticks`` game ticks now, paused or not.

        This is ``step_game_ticks``: like RimWorld's debug "tick N" action it forces the ticks
        whatever the time speed, and leaves the speed as it was."""
        colony = self._require_colony()
        if not isinstance(ticks, int) or not 0 <= ticks <= MAX_STEP_TICKS:
            raise InvalidArgumentError(
                f"ticks must be an integer from 0 to {MAX_STEP_TICKS}, got {ticks!r}"
            )
        for _ in range(ticks):
            colony.tick()
        return StepResult(ticks=ticks, tick=colony.game.tick, phase=self.phase.value)

    def advance_realtime(self, frames: int = 1) -> StepResult:
        """Advance ``frames`` real-time frames, as the process's tick loop does.

        A running long event advances one frame per frame. A game advances by its speed's
        ticks per frame (1, 3, 6 or 15) and not at all while paused. At the main menu nothing
        happens. Never raises for the phase."""
        if not isinstance(frames, int) or frames < 0:
            raise InvalidArgumentError(f"frames must be a non-negative integer, got {frames!r}")
        ran = 0
        for _ in range(frames):
            if self._loading is not None:
                self._loading.frames_remaining -= 1
                if self._loading.frames_remaining <= 0:
                    self._finish_loading()
                continue
            if self._colony is None:
                continue
            for _ in range(self._colony.game.time_speed.ticks_per_frame):
                self._colony.tick()
                ran += 1
        tick = None if self._colony is None else self._colony.game.tick
        return StepResult(ticks=ran, tick=tick, phase=self.phase.value)

    def set_time_speed(self, speed: int) -> GameInfo:
        """Set the speed: 0 paused, 1 normal, 2 fast, 3 superfast, 4 ultrafast."""
        colony = self._require_colony()
        if isinstance(speed, bool) or speed not in tuple(TimeSpeed):
            raise InvalidArgumentError(
                f"time speed must be 0 (paused), 1, 2, 3 or 4 (ultrafast), got {speed!r}"
            )
        colony.game.time_speed = TimeSpeed(speed)
        return self.get_game_info()

    def pause(self) -> GameInfo:
        return self.set_time_speed(TimeSpeed.PAUSED)

    def get_game_info(self) -> GameInfo:
        """What the world is doing; works in every phase."""
        long_event = None
        if self._loading is not None:
            long_event = f"loading {self._loading.save_name}"
        if self._colony is None:
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
        game = self._colony.game
        return GameInfo(
            phase=self.phase.value,
            map_id=game.map.id,
            map_width=game.map.width,
            map_height=game.map.height,
            tick=game.tick,
            date=_date(game.tick),
            time_speed=int(game.time_speed),
            paused=game.time_speed is TimeSpeed.PAUSED,
            colonist_count=len(game.pawns),
            thing_count=len(game.things),
            seed=game.seed,
            long_event=long_event,
        )

    # -- pawns -----------------------------------------------------------------------------

    def list_colonists(self) -> list[PawnInfo]:
        colony = self._require_colony()
        return [self._pawn_info(p) for p in colony.game.pawns.values()]

    def get_pawn(self, pawn_id: str) -> PawnInfo:
        return self._pawn_info(self._pawn(pawn_id))

    def set_draft(self, pawn_id: str, drafted: bool = True) -> PawnInfo:
        """Draft or release a colonist. Drafting drops the current job (and anything
        carried); a drafted colonist stands still until ordered."""
        pawn = self._pawn(pawn_id)
        colony = self._require_colony()
        if pawn.downed and drafted:
            raise InvalidArgumentError(f"pawn {pawn.id} ({pawn.label}) is downed: cannot draft")
        if pawn.drafted != drafted:
            pawn.drafted = drafted
            colony.end_job(pawn)
            state = "drafted" if drafted else "released"
            self._emit(LogLevel.INFO, f"{pawn.label} was {state}", "pawn")
        return self._pawn_info(pawn)

    def order_move(self, pawn_id: str, cell: CellLike) -> PawnInfo:
        """Give a colonist a forced ``Goto`` job to ``cell``.

        The job walks one cell every 7 ticks (slower on sand and marsh). A target that cannot
        be reached is not refused here: the job fails on its first tick with an error log, as
        RimWorld's pather does. Undrafted colonists may be ordered too (RimWorld's
        "prioritize"); they return to their own work on arrival."""
        pawn = self._pawn(pawn_id)
        colony = self._require_colony()
        target = self._cell(cell)
        terrain = colony.game.map.terrain_at(target)
        if not colony.passable(target):
            raise InvalidCellError(
                f"cell {target} is impassable ({terrain.value}): cannot go there"
            )
        self._require_able(pawn)
        colony.start_goto(pawn, target, forced=True, operation_id=self._cause)
        return self._pawn_info(pawn)

    def order_wait(self, pawn_id: str, ticks: int) -> PawnInfo:
        """Make a colonist wait where it stands for ``ticks`` ticks."""
        pawn = self._pawn(pawn_id)
        colony = self._require_colony()
        if not isinstance(ticks, int) or not 1 <= ticks <= MAX_STEP_TICKS:
            raise InvalidArgumentError(
                f"ticks must be an integer from 1 to {MAX_STEP_TICKS}, got {ticks!r}"
            )
        self._require_able(pawn)
        colony.start_wait(pawn, ticks, forced=True, operation_id=self._cause)
        return self._pawn_info(pawn)

    def order_haul(self, pawn_id: str, thing_id: str, cell: CellLike) -> PawnInfo:
        """Make a colonist carry an item stack to ``cell`` (a ``HaulToCell`` job)."""
        pawn = self._pawn(pawn_id)
        colony = self._require_colony()
        thing = self._thing(thing_id)
        destination = self._cell(cell)
        if thing.definition.category is not ThingCategory.ITEM:
            raise InvalidArgumentError(f"thing {thing.id} ({thing.def_name}) cannot be hauled")
        if thing.id in colony.carried_ids():
            raise InvalidArgumentError(f"thing {thing.id} is being carried already")
        refusal = colony.item_refusal(destination, thing.def_name)
        if refusal is not None and destination != thing.position:
            raise InvalidCellError(refusal)
        self._require_able(pawn)
        colony.start_haul(pawn, thing, destination, self._cause)
        return self._pawn_info(pawn)

    # -- selection -------------------------------------------------------------------------

    def select(self, ids: Iterable[str], *, append: bool = False) -> tuple[str, ...]:
        """Select pawns or things by id (replacing the selection unless ``append``)."""
        colony = self._require_colony()
        wanted = [ids] if isinstance(ids, str) else list(ids)
        for thing_id in wanted:
            if thing_id not in colony.game.pawns and thing_id not in colony.game.things:
                self._missing("pawn or thing", thing_id)
        selection = list(self._selection) if append else []
        for thing_id in wanted:
            if thing_id not in selection:
                selection.append(thing_id)
        self._selection = selection
        return tuple(self._selection)

    def clear_selection(self) -> tuple[str, ...]:
        self._require_colony()
        self._selection = []
        return ()

    # -- cells and things ------------------------------------------------------------------

    def get_cell_info(self, cell: CellLike) -> CellInfo:
        colony = self._require_colony()
        target = self._cell(cell)
        game_map = colony.game.map
        return CellInfo(
            cell=target,
            terrain=game_map.terrain_at(target).value,
            passable=colony.passable(target),
            roofed=game_map.roofed_at(target),
            things=tuple(self._thing_info(t) for t in colony.things_at(target)),
            pawns=tuple(p.id for p in colony.pawns_at(target)),
            designations=tuple(
                _designation_info(d) for d in colony.game.designations.values() if d.cell == target
            ),
        )

    def list_things(self, def_name: str | None = None) -> list[ThingInfo]:
        """Things on the map (carried ones excluded), optionally of one def."""
        colony = self._require_colony()
        if def_name is not None:
            self._thing_def(def_name)
        carried = colony.carried_ids()
        return [
            self._thing_info(t)
            for t in colony.game.things.values()
            if (def_name is None or t.def_name == def_name) and t.id not in carried
        ]

    def get_thing(self, thing_id: str) -> ThingInfo:
        return self._thing_info(self._thing(thing_id))

    def spawn_thing(self, def_name: str, count: int, cell: CellLike) -> SpawnResult:
        """Spawn ``count`` of ``def_name`` at ``cell``, split into stacks of the def's stack
        limit; extra stacks go to the nearest free cells. Buildings and plants spawn one at a
        time on an empty cell. Refuses water and rock, and anything that would not fit."""
        colony = self._require_colony()
        definition = self._thing_def(def_name)
        target = self._cell(cell)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidArgumentError(f"count must be a positive integer, got {count!r}")
        terrain = colony.game.map.terrain_at(target)
        if terrain.is_water:
            raise InvalidCellError(
                f"cell {target} is {terrain.value}: things cannot be spawned on water"
            )
        if terrain is Terrain.STONE:
            raise InvalidCellError(f"cell {target} is solid rock ({terrain.value})")
        if definition.category is not ThingCategory.ITEM:
            if count != 1:
                raise InvalidArgumentError(
                    f"count must be 1 for {def_name} (a {definition.category.value})"
                )
            occupied = colony.things_at(target) or colony.pawns_at(target)
            if occupied:
                raise InvalidCellError(f"cell {target} is not empty: cannot spawn {def_name}")
            if len(colony.game.things) >= MAX_THINGS:
                raise InvalidArgumentError(f"the map already holds {MAX_THINGS} things")
            stacks = [colony.new_thing(def_name, target)]
        else:
            refusal = colony.item_refusal(target, def_name)
            if refusal is not None and "already holds" not in refusal:
                raise InvalidCellError(refusal)
            room = colony.room_for(def_name, target)
            if count > room:
                raise InvalidArgumentError(
                    f"count {count} does not fit: room for {room} {def_name} on this map "
                    f"(at most {MAX_THINGS} things)"
                )
            stacks = colony.place_items(def_name, count, target)
        self._emit(LogLevel.INFO, f"Spawned {count} {def_name} at {target}", "debug")
        return SpawnResult(
            def_name=def_name,
            requested=count,
            stacks=tuple(self._thing_info(t) for t in stacks),
        )

    def destroy_thing(self, thing_id: str) -> ThingInfo:
        colony = self._require_colony()
        thing = self._thing(thing_id)
        info = self._thing_info(thing)
        for pawn in colony.game.pawns.values():
            if pawn.carrying == thing.id:
                pawn.carrying = None
                colony.end_job(pawn)
        colony.destroy(thing.id)
        return info

    # -- designations ----------------------------------------------------------------------

    def apply_designator(
        self, kind: str, cells: Iterable[CellLike], *, build_def: str = "Wall"
    ) -> DesignatorResult:
        """Designate ``cells`` for ``kind`` (Mine, Cut, Haul, Build, Deconstruct).

        Like dragging a designator in RimWorld, cells that are not valid targets are skipped
        and reported in ``rejected`` with the reason; cells outside the map refuse the whole
        call. Idle colonists take designated work on their own."""
        colony = self._require_colony()
        try:
            designation_kind = DesignationKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in DesignationKind)
            raise InvalidArgumentError(f"unknown designator {kind!r} (known: {known})") from None
        if designation_kind is DesignationKind.BUILD:
            definition = self._thing_def(build_def)
            if definition.category is not ThingCategory.BUILDING:
                raise InvalidArgumentError(f"build_def {build_def!r} is not a building")
        targets = [self._cell(c) for c in ([cells] if isinstance(cells, Cell) else cells)]
        if not targets:
            raise InvalidArgumentError("cells must name at least one cell")
        if len(targets) > 400:
            raise InvalidArgumentError(f"at most 400 cells per call, got {len(targets)}")
        accepted: list[DesignationInfo] = []
        rejected: list[RejectedCell] = []
        for cell in targets:
            reason = colony.designation_refusal(designation_kind, cell)
            if reason is not None:
                rejected.append(RejectedCell(cell, reason))
                continue
            designation = colony.add_designation(designation_kind, cell, build_def, self._cause)
            accepted.append(_designation_info(designation))
        if accepted:
            self._emit(
                LogLevel.INFO,
                f"Designated {len(accepted)} cell(s) for {designation_kind.value}",
                "designator",
            )
        return DesignatorResult(designation_kind.value, tuple(accepted), tuple(rejected))

    def list_designations(self, kind: str | None = None) -> list[DesignationInfo]:
        colony = self._require_colony()
        return [
            _designation_info(d)
            for d in colony.game.designations.values()
            if kind is None or d.kind.value == kind
        ]

    def cancel_designation(self, designation_id: str) -> DesignationInfo:
        """Remove a designation; a colonist working on it stops."""
        colony = self._require_colony()
        designation = colony.game.designations.get(designation_id)
        if designation is None:
            self._missing("designation", designation_id)
        info = _designation_info(designation)
        colony.remove_designation(designation_id)
        self._retire(designation_id, destroyed=True)
        return info

    # -- windows and letters ---------------------------------------------------------------

    def open_window(self, kind: str, title: str) -> WindowInfo:
        """Open a window on top of the stack (any phase but loading)."""
        self._require_no_long_event()
        if not kind or not title:
            raise InvalidArgumentError("a window needs a non-empty kind and title")
        if len(self._windows) >= MAX_WINDOWS:
            raise InvalidArgumentError(f"at most {MAX_WINDOWS} windows can be open")
        window = Window(self._next_window, kind, title)
        self._next_window += 1
        self._windows.append(window)
        return _window_info(window)

    def close_window(self, window_id: int | None = None) -> WindowInfo:
        """Close the window ``window_id``, or the top one."""
        if not self._windows:
            raise InvalidArgumentError("no window is open")
        if window_id is None:
            window = self._windows.pop()
            return _window_info(window)
        for window in self._windows:
            if window.id == window_id:
                self._windows.remove(window)
                return _window_info(window)
        open_ids = [w.id for w in self._windows]
        raise UnknownIdError(f"no open window with id {window_id!r} (open: {open_ids})")

    def list_windows(self) -> list[WindowInfo]:
        """Open windows, bottom first."""
        return [_window_info(w) for w in self._windows]

    def send_letter(self, label: str, text: str, kind: str = "neutral") -> LetterInfo:
        colony = self._require_colony()
        try:
            letter_kind = LetterKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in LetterKind)
            raise InvalidArgumentError(f"unknown letter kind {kind!r} (known: {known})") from None
        if not label:
            raise InvalidArgumentError("a letter needs a non-empty label")
        return _letter_info(colony.add_letter(label, text, letter_kind))

    def list_letters(self, *, unread_only: bool = False) -> list[LetterInfo]:
        """Letters, oldest first (at most 200 are kept)."""
        colony = self._require_colony()
        return [_letter_info(x) for x in colony.game.letters if not (unread_only and x.read)]

    def mark_letter_read(self, letter_id: str) -> LetterInfo:
        letter = self._letter(letter_id)
        letter.read = True
        return _letter_info(letter)

    def open_letter(self, letter_id: str) -> WindowInfo:
        """Mark a letter read and open it in a window."""
        letter = self._letter(letter_id)
        letter.read = True
        return self.open_window("Letter", letter.label)

    def snapshot(self) -> UiState:
        """The UI state: phase, open windows, selection, speed and any long event."""
        colony = self._colony
        game = None if colony is None else colony.game
        return UiState(
            phase=self.phase.value,
            map_id=None if game is None else game.map.id,
            windows=tuple(_window_info(w) for w in self._windows),
            selection=tuple(self._selection),
            time_speed=None if game is None else int(game.time_speed),
            paused=None if game is None else game.time_speed is TimeSpeed.PAUSED,
            long_event=None if self._loading is None else f"loading {self._loading.save_name}",
            unread_letters=0 if game is None else sum(not x.read for x in game.letters),
        )

    # -- logs and faults -------------------------------------------------------------------

    def write_log(self, level: str, message: str, source: str = "sim") -> LogRecord:
        """Write one log line now (for fault injection and tests)."""
        record = LogRecord(self._level(level), message, source, self._tick(), self._cause)
        if self._log is not None:
            self._log(record)
        return record

    def schedule_log(self, after_ticks: int, level: str, message: str, source: str = "sim") -> int:
        """Write a log line once ``after_ticks`` game ticks have passed, attributed to the
        current cause; returns the tick it is due. Dropped with the game if it is unloaded."""
        colony = self._require_colony()
        if not isinstance(after_ticks, int) or not 1 <= after_ticks <= MAX_STEP_TICKS:
            raise InvalidArgumentError(
                f"after_ticks must be an integer from 1 to {MAX_STEP_TICKS}, got {after_ticks!r}"
            )
        if len(colony.game.scheduled) >= 1000:
            raise InvalidArgumentError("at most 1000 log lines can be scheduled")
        due = colony.game.tick + after_ticks
        colony.game.scheduled.append(
            ScheduledLog(due, self._level(level), message, source, self._cause)
        )
        return due

    # -- rendering -------------------------------------------------------------------------

    def terrain_grid(self) -> list[list[str]]:
        """Terrain def names per cell: one list per row, north (highest z) first, each row
        from west (x = 0) to east."""
        colony = self._require_colony()
        return terrain_grid(colony)

    def render_rgb(self, width: int, height: int) -> bytes:
        """An RGB image (``width * height * 3`` bytes, rows top to bottom, north up) of what
        the screen shows: the map with things and pawns, the main menu, or a loading screen."""
        if not (isinstance(width, int) and isinstance(height, int)) or not (
            1 <= width <= 2048 and 1 <= height <= 2048
        ):
            raise InvalidArgumentError(
                f"image size must be 1 to 2048 pixels each way, got {width!r}x{height!r}"
            )
        return render_rgb(self._colony, self.phase, width, height)

    # -- internals -------------------------------------------------------------------------

    def _services(self) -> Services:
        return Services(
            new_id=self._new_id,
            emit=self._emit_from_game,
            destroyed=lambda thing_id: self._retire(thing_id, destroyed=True),
        )

    def _new_id(self, prefix: str) -> str:
        number = self._next_number
        self._next_number += 1
        return f"{prefix}{number}"

    def _tick(self) -> int:
        return 0 if self._colony is None else self._colony.game.tick

    def _emit(self, level: LogLevel, message: str, source: str) -> None:
        self._emit_from_game(level, message, source, self._cause)

    def _emit_from_game(
        self, level: LogLevel, message: str, source: str, operation_id: str | None
    ) -> None:
        if self._log is not None:
            self._log(LogRecord(level, message, source, self._tick(), operation_id))

    def _level(self, level: str) -> LogLevel:
        try:
            return LogLevel(level)
        except ValueError:
            known = ", ".join(x.value for x in LogLevel)
            raise InvalidArgumentError(f"unknown log level {level!r} (known: {known})") from None

    def _retire(self, some_id: str, *, destroyed: bool) -> None:
        map_id = "" if self._colony is None else self._colony.game.map.id
        self._retired.pop(some_id, None)
        self._retired[some_id] = _Retired(destroyed, map_id)
        while len(self._retired) > _RETIRED_CAP:
            self._retired.popitem(last=False)
        if some_id in self._selection:
            self._selection.remove(some_id)

    def _drop_game(self) -> None:
        """Unload the running game: every id it issued goes stale; UI state is reset."""
        colony = self._colony
        self._colony = None
        self._selection = []
        self._windows = []
        if colony is None:
            return
        game = colony.game
        map_id = game.map.id
        for some_id in [
            map_id,
            *game.pawns,
            *game.things,
            *game.designations,
            *(x.id for x in game.letters),
        ]:
            self._retired.pop(some_id, None)
            self._retired[some_id] = _Retired(False, map_id)
        while len(self._retired) > _RETIRED_CAP:
            self._retired.popitem(last=False)

    def _finish_loading(self) -> None:
        loading = self._loading
        assert loading is not None
        self._loading = None
        game = loading.game
        renamed: dict[str, str] = {}

        def fresh(old: str, prefix: str) -> str:
            renamed[old] = self._new_id(prefix)
            return renamed[old]

        game.map.id = self._new_id("Map_")
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
        self._colony = Colony(game, self._services())
        self._emit_from_game(
            LogLevel.INFO,
            f"Loaded save '{loading.save_name}' on {game.map.id} with {len(game.pawns)} colonists",
            "load",
            loading.operation_id,
        )

    def _require_no_long_event(self) -> None:
        if self._loading is not None:
            raise LongEventError(
                f"a long event is running: loading {self._loading.save_name} "
                f"({self._loading.frames_remaining} frames left)"
            )

    def _require_colony(self) -> Colony:
        self._require_no_long_event()
        if self._colony is None:
            raise NoGameError()
        return self._colony

    def _require_able(self, pawn: Pawn) -> None:
        if pawn.downed:
            raise InvalidArgumentError(f"pawn {pawn.id} ({pawn.label}) is downed")

    def _missing(self, what: str, some_id: object) -> NoReturn:
        if not isinstance(some_id, str):
            raise InvalidArgumentError(f"{what} id must be a string, got {some_id!r}")
        retired = self._retired.get(some_id)
        colony = self._colony
        current = "none" if colony is None else colony.game.map.id
        if retired is not None and not retired.destroyed:
            raise StaleIdError(
                f"unknown {what} id {some_id}: ids from before the last load are stale "
                f"(it belonged to {retired.map_id}; the current map is {current})"
            )
        if retired is not None:
            raise UnknownIdError(f"{what} {some_id} no longer exists (it was destroyed or removed)")
        raise UnknownIdError(f"unknown {what} id {some_id}")

    def _pawn(self, pawn_id: str) -> Pawn:
        colony = self._require_colony()
        pawn = colony.game.pawns.get(pawn_id)
        if pawn is None:
            if pawn_id in colony.game.things:
                raise InvalidArgumentError(f"{pawn_id} is a thing, not a pawn")
            self._missing("pawn", pawn_id)
        return pawn

    def _thing(self, thing_id: str) -> Thing:
        colony = self._require_colony()
        thing = colony.game.things.get(thing_id)
        if thing is None:
            if thing_id in colony.game.pawns:
                raise InvalidArgumentError(f"{thing_id} is a pawn, not a thing")
            self._missing("thing", thing_id)
        return thing

    def _letter(self, letter_id: str) -> Letter:
        colony = self._require_colony()
        for letter in colony.game.letters:
            if letter.id == letter_id:
                return letter
        self._missing("letter", letter_id)

    def _thing_def(self, def_name: str) -> ThingDef:
        definition = THING_DEFS.get(def_name)
        if definition is None:
            known = ", ".join(sorted(THING_DEFS))
            raise InvalidArgumentError(f"unknown thing def {def_name!r} (known: {known})")
        return definition

    def _cell(self, cell: CellLike) -> Cell:
        colony = self._require_colony()
        try:
            x, z = cell
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"a cell is a pair of integers (x, z), got {cell!r}"
            ) from None
        if (
            isinstance(x, bool)
            or isinstance(z, bool)
            or not (isinstance(x, int) and isinstance(z, int))
        ):
            raise InvalidArgumentError(f"a cell is a pair of integers (x, z), got {cell!r}")
        target = Cell(x, z)
        game_map = colony.game.map
        if not game_map.contains(target):
            raise InvalidCellError(
                f"cell {target} is outside the map ({game_map.width}x{game_map.height}: "
                f"x 0..{game_map.width - 1}, z 0..{game_map.height - 1})"
            )
        return target

    def _check_map_size(self, map_size: tuple[int, int]) -> tuple[int, int]:
        try:
            width, height = map_size
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"map_size is a pair (width, height), got {map_size!r}"
            ) from None
        for side in (width, height):
            if (
                isinstance(side, bool)
                or not isinstance(side, int)
                or not (MIN_MAP_SIDE <= side <= MAX_MAP_SIDE)
            ):
                raise InvalidArgumentError(
                    f"map_size sides must be integers from {MIN_MAP_SIDE} to {MAX_MAP_SIDE}, "
                    f"got {map_size!r}"
                )
        return width, height

    def _plant_trees(self, colony: Colony, rng: random.Random) -> None:
        game_map = colony.game.map
        fertile = (Terrain.SOIL, Terrain.RICH_SOIL)
        centre = colony.game.drop_spot
        trees = min(120, game_map.width * game_map.height // 60)
        for _ in range(trees * 4):
            if trees == 0:
                break
            cell = Cell(rng.randrange(game_map.width), rng.randrange(game_map.height))
            if abs(cell.x - centre.x) <= 4 and abs(cell.z - centre.z) <= 4:
                continue
            if game_map.terrain_at(cell) in fertile and not colony.things_at(cell):
                colony.new_thing("Plant_TreeOak", cell)
                trees -= 1

    def _pawn_info(self, pawn: Pawn) -> PawnInfo:
        job = pawn.job
        return PawnInfo(
            id=pawn.id,
            name=f"{pawn.first_name} '{pawn.nickname}' {pawn.last_name}",
            nickname=pawn.nickname,
            position=pawn.position,
            health=pawn.health,
            downed=pawn.downed,
            drafted=pawn.drafted,
            mood=pawn.mood,
            food=pawn.food,
            job=None
            if job is None
            else JobInfo(
                kind=job.kind.value,
                stage=job.stage,
                target=job.target,
                ticks_remaining=job.ticks_remaining,
                thing_id=job.thing_id,
                designation_id=job.designation_id,
                forced=job.forced,
                operation_id=job.operation_id,
            ),
            carrying=pawn.carrying,
            selected=pawn.id in self._selection,
        )

    def _thing_info(self, thing: Thing) -> ThingInfo:
        definition = thing.definition
        return ThingInfo(
            id=thing.id,
            def_name=thing.def_name,
            label=definition.label,
            category=definition.category.value,
            position=thing.position,
            stack_count=thing.stack_count,
            stack_limit=definition.stack_limit,
        )


def _designation_info(designation: Designation) -> DesignationInfo:
    return DesignationInfo(
        id=designation.id,
        kind=designation.kind.value,
        cell=designation.cell,
        thing_id=designation.thing_id,
        build_def=designation.build_def,
        claimed_by=designation.claimed_by,
    )


def _letter_info(letter: Letter) -> LetterInfo:
    return LetterInfo(
        letter.id, letter.label, letter.text, letter.kind.value, letter.tick, letter.read
    )


def _window_info(window: Window) -> WindowInfo:
    return WindowInfo(window.id, window.kind, window.title)


def _pick_name(rng: random.Random, taken: set[str]) -> tuple[str, str, str]:
    while True:
        first, nick, last = rng.choice(FIRST_NAMES), rng.choice(NICKNAMES), rng.choice(LAST_NAMES)
        if nick not in taken:
            taken.add(nick)
            return first, nick, last


def _date(tick: int) -> str:
    day = tick // 60_000
    quadrum = _QUADRUMS[(day // 15) % 4]
    year = 5500 + day // 60
    hour = (tick % 60_000) // 2_500
    return f"{day % 15 + 1} {quadrum} {year}, {hour}h"


def _estimate_size(game: Game) -> int:
    """Roughly what the save file would weigh, in bytes."""
    cells = game.map.width * game.map.height
    return (
        4_096
        + cells * 3
        + len(game.things) * 180
        + len(game.pawns) * 6_000
        + len(game.designations) * 90
        + len(game.letters) * 220
    )
