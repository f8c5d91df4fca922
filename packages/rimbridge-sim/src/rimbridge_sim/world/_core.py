"""The world's core: its state, ids, log output, stale-id bookkeeping and lookups.

:class:`WorldCore` is the base every part of the :class:`~rimbridge_sim.world.World` builds on
(the lifecycle, the map operations and the UI, architect, notification, mod and debug
subsystems). It holds the state and the primitives they share and changes nothing by itself.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from rimbridge_sim.world._colony import Colony, Services
from rimbridge_sim.world.errors import (
    InvalidArgumentError,
    InvalidCellError,
    LongEventError,
    NoGameError,
    StaleIdError,
    UnknownIdError,
)
from rimbridge_sim.world.generate import MAX_MAP_SIDE, MIN_MAP_SIDE
from rimbridge_sim.world.model import (
    THING_DEFS,
    Cell,
    LogLevel,
    LogRecord,
    Phase,
    ProgramState,
    ThingDef,
    TimeSpeed,
)
from rimbridge_sim.world.state import Game, Interface, Letter, LongEvent, Pawn, Thing
from rimbridge_sim.world.storage import MemoryStorage, Storage

__all__ = ["FADE_FRAMES", "CellLike", "SaveRecord", "WorldCore"]

FADE_FRAMES = 12
"""Frames the screen fade lasts after a map appears (``visual`` readiness waits for it)."""
_RETIRED_CAP = 20_000
_PLACED = ("current-map ", "player-controlled ", "selected ")
"""How the mod's lookup texts say where they looked; a bare word gets ``current-map``."""

CellLike = Cell | tuple[int, int] | Sequence[int]


@dataclass
class SaveRecord:
    name: str
    path: str
    tick: int
    colonist_count: int
    map_width: int
    map_height: int
    size_bytes: int
    saved_order: int
    saved_at: float
    game: Game


@dataclass(frozen=True)
class _Retired:
    destroyed: bool
    map_id: str


class _CausedBy:
    """The block of :meth:`WorldCore.caused_by`: a class rather than a generator, as every
    tool call of the world enters one and this costs a third as much."""

    __slots__ = ("_operation_id", "_previous", "_world")

    def __init__(self, world: WorldCore, operation_id: str | None) -> None:
        self._world = world
        self._operation_id = operation_id
        self._previous: str | None = None

    def __enter__(self) -> None:
        world = self._world
        self._previous, world._cause = world._cause, self._operation_id

    def __exit__(self, *exc_info: object) -> None:
        self._world._cause = self._previous


class WorldCore:
    """State and primitives shared by every part of the world (see the module doc)."""

    def __init__(
        self,
        seed: int = 0,
        *,
        log: Callable[[LogRecord], None] | None = None,
        storage: Storage | None = None,
    ) -> None:
        self.seed = seed
        self._log = log
        self.storage: Storage = storage if storage is not None else MemoryStorage()
        self._rng = random.Random(seed)
        self._next_number = 1
        self._next_window = 1
        self._games_started = 0
        self._saves_made = 0
        self._colony: Colony | None = None
        self._long_event: LongEvent | None = None
        self._saves: dict[str, SaveRecord] = {}
        self._retired: OrderedDict[str, _Retired] = OrderedDict()
        self.ui = Interface()
        self._cause: str | None = None
        self.program_state = ProgramState.ENTRY
        self.fade_frames = 0
        """Frames of screen fade left (0: clear)."""
        self.frame = 0
        """Real-time frames run so far (the tick loop and stepped ticks both count)."""
        self.dev_mode = True
        self.debug_settings: dict[str, bool] = {}
        self.language = "English"
        self.map_size = 50

    # -- state -----------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self._long_event is not None and self._long_event.kind != "SwitchingLanguage":
            return Phase.LOADING
        return Phase.MAIN_MENU if self._colony is None else Phase.PLAYING

    def windows_force_pause(self) -> bool:
        """Whether an open window has ``forcePause`` (the world with a window stack says)."""
        return False

    def is_paused(self) -> bool:
        """RimWorld's ``TickManager.Paused``: the speed is Paused or a window forces a pause."""
        game = self.game
        return game is not None and (
            game.time_speed is TimeSpeed.PAUSED or self.windows_force_pause()
        )

    @property
    def game(self) -> Game | None:
        """The running game's state (``None`` at the main menu and while loading).

        For inspection in tests and renderers; change the world through its operations."""
        return None if self._colony is None else self._colony.game

    @property
    def colony(self) -> Colony | None:
        return self._colony

    @property
    def long_event(self) -> LongEvent | None:
        return self._long_event

    @property
    def god_mode(self) -> bool:
        return self.debug_settings.get("godMode", False)

    def caused_by(self, operation_id: str | None) -> _CausedBy:
        """Attribute work started inside the block (jobs, designations, loads, scheduled
        lines, and the log lines they write later) to ``operation_id``."""
        return _CausedBy(self, operation_id)

    @property
    def cause(self) -> str | None:
        return self._cause

    # -- ids, log output and stale ids -------------------------------------------------------

    def services(self) -> Services:
        return Services(
            new_id=self.new_id,
            emit=self.emit_from_game,
            destroyed=lambda thing_id: self.retire(thing_id, destroyed=True),
            setting=lambda name: self.debug_settings.get(name, False),
        )

    def new_id(self, prefix: str) -> str:
        number = self._next_number
        self._next_number += 1
        return f"{prefix}{number}"

    def new_window_id(self) -> int:
        number = self._next_window
        self._next_window += 1
        return number

    def current_tick(self) -> int:
        return 0 if self._colony is None else self._colony.game.tick

    def emit(self, level: LogLevel, message: str, source: str) -> None:
        self.emit_from_game(level, message, source, self._cause)

    def emit_from_game(
        self, level: LogLevel, message: str, source: str, operation_id: str | None
    ) -> None:
        if self._log is not None:
            self._log(LogRecord(level, message, source, self.current_tick(), operation_id))

    def parse_level(self, level: str) -> LogLevel:
        try:
            return LogLevel(level)
        except ValueError:
            known = ", ".join(x.value for x in LogLevel)
            raise InvalidArgumentError(f"unknown log level {level!r} (known: {known})") from None

    def retire(self, some_id: str, *, destroyed: bool) -> None:
        map_id = "" if self._colony is None else self._colony.game.map.id
        self._retired.pop(some_id, None)
        self._retired[some_id] = _Retired(destroyed, map_id)
        while len(self._retired) > _RETIRED_CAP:
            self._retired.popitem(last=False)
        if some_id in self.ui.selection:
            self.ui.selection.remove(some_id)

    def drop_game(self) -> None:
        """Unload the running game: every id it issued goes stale; the UI is reset."""
        colony = self._colony
        self._colony = None
        camera = self.ui.camera
        self.ui = Interface()
        self.ui.camera = camera
        if colony is None:
            return
        game = colony.game
        map_id = game.map.id
        for some_id in [
            map_id,
            *game.pawns,
            *game.things,
            *game.designations,
            *game.zones,
            *game.areas,
            *(x.id for x in game.letters),
        ]:
            self._retired.pop(some_id, None)
            self._retired[some_id] = _Retired(False, map_id)
        while len(self._retired) > _RETIRED_CAP:
            self._retired.popitem(last=False)

    # -- requirements and lookups ------------------------------------------------------------

    def require_no_long_event(self) -> None:
        event = self._long_event
        if event is not None:
            raise LongEventError(
                f"a long event is running: {event.label} ({event.frames_remaining} frames left)"
            )

    def require_colony(self) -> Colony:
        self.require_no_long_event()
        if self._colony is None:
            raise NoGameError()
        return self._colony

    def require_able(self, pawn: Pawn) -> None:
        if pawn.downed:
            raise InvalidArgumentError(f"pawn {pawn.id} ({pawn.label}) is downed")

    def missing(self, what: str, some_id: object, shown: str | None = None) -> NoReturn:
        """Refuse ``some_id`` in the mod's words (``what`` gets ``current-map`` unless it
        already says where it looked; ``shown`` is the id as the caller gave it)."""
        if not isinstance(some_id, str):
            raise InvalidArgumentError(f"{what} id must be a string, got {some_id!r}")
        retired = self._retired.get(some_id)
        colony = self._colony
        current = "none" if colony is None else colony.game.map.id
        where = what if what.startswith(_PLACED) else f"current-map {what}"
        # the mod's text, then (the sim's addition) why the id is not there
        text = f"Could not find {where} id '{some_id if shown is None else shown}'"
        if retired is not None and not retired.destroyed:
            raise StaleIdError(
                f"{text}: ids from before the last load are stale "
                f"(it belonged to {retired.map_id}; the current map is {current})."
            )
        if retired is not None:
            raise UnknownIdError(f"{text}: it was destroyed or removed.")
        raise UnknownIdError(f"{text}.")

    def pawn_by_id(self, pawn_id: str) -> Pawn:
        colony = self.require_colony()
        pawn = colony.game.pawns.get(pawn_id)
        if pawn is None:
            if pawn_id in colony.game.things:
                raise InvalidArgumentError(f"{pawn_id} is a thing, not a pawn")
            self.missing("pawn", pawn_id)
        return pawn

    def resolve_pawn(
        self,
        name: str | None,
        pawn_id: str | None,
        *,
        among: Sequence[Pawn] | None = None,
        what: str = "current-map colonist",
    ) -> Pawn:
        """A pawn by id, else by name (its short name or full name, ``First 'Nick' Last``:
        an exact match first, then a unique partial one; case ignored), as the real mod
        resolves ``pawnName`` / ``pawnId`` (``ToStringShort``, ``ToStringFull`` and the
        labels, which here are the short name).
        ``what`` is the mod's word for where it looked (``player-controlled colonist``,
        ``selected pawn``, ``current-map pawn``), used as it is in the refusals."""
        colony = self.require_colony()
        pawns = list(colony.game.pawns.values()) if among is None else list(among)
        if pawn_id is not None and pawn_id.strip():
            wanted = pawn_id.strip()
            for pawn in pawns:
                if pawn.id == wanted:
                    return pawn
            if among is None:
                self.missing(what, wanted, shown=pawn_id)
            raise UnknownIdError(f"Could not find {what} id '{pawn_id}'.")
        if name is None or not name.strip():
            raise InvalidArgumentError(f"A {what} name or id is required.")
        query = name.strip().lower()

        def names(pawn: Pawn) -> list[str]:
            return [pawn.nickname, pawn.full_name]

        exact = [p for p in pawns if any(n.lower() == query for n in names(p))]
        if len(exact) == 1:
            return exact[0]
        partial = exact or [p for p in pawns if any(query in n.lower() for n in names(p))]
        if len(partial) == 1:
            return partial[0]
        if partial:
            listed = ", ".join(p.nickname for p in partial)
            raise InvalidArgumentError(f"Ambiguous {what} name '{name}'. Matches: {listed}")
        raise UnknownIdError(f"Could not find {what} '{name}'.")

    def thing_by_id(self, thing_id: str) -> Thing:
        colony = self.require_colony()
        thing = colony.game.things.get(thing_id)
        if thing is None:
            if thing_id in colony.game.pawns:
                raise InvalidArgumentError(f"{thing_id} is a pawn, not a thing")
            self.missing("thing", thing_id)
        return thing

    def letter_by_id(self, letter_id: str) -> Letter:
        colony = self.require_colony()
        for letter in colony.game.letters:
            if letter.id == letter_id:
                return letter
        self.missing("letter", letter_id)

    def thing_def(self, def_name: str) -> ThingDef:
        definition = THING_DEFS.get(def_name)
        if definition is None:
            known = ", ".join(sorted(THING_DEFS))
            raise InvalidArgumentError(f"unknown thing def {def_name!r} (known: {known})")
        return definition

    def cell(self, cell: CellLike) -> Cell:
        """``cell`` as a :class:`Cell` inside the map (:class:`InvalidCellError` outside)."""
        colony = self.require_colony()
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

    def check_map_size(self, map_size: tuple[int, int]) -> tuple[int, int]:
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

    def selected_pawns(self) -> list[Pawn]:
        colony = self._colony
        if colony is None:
            return []
        return [colony.game.pawns[i] for i in self.ui.selection if i in colony.game.pawns]
