"""The vocabulary of the simulated colony: enums, defs, and the mutable game state.

The mutable classes here (:class:`Game`, :class:`GameMap`, :class:`Pawn`, :class:`Thing`, ...)
belong to the :class:`~rimbridge_sim.world.World` that owns them. Callers get frozen views
(see :mod:`rimbridge_sim.world.views`) instead, so nothing outside the world can change it by
accident.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import NamedTuple

__all__ = [
    "LETTER_CAP",
    "THING_DEFS",
    "Cell",
    "Designation",
    "DesignationKind",
    "Game",
    "GameMap",
    "Job",
    "JobKind",
    "Letter",
    "LetterKind",
    "LogLevel",
    "LogRecord",
    "Pawn",
    "Phase",
    "ScheduledLog",
    "Terrain",
    "Thing",
    "ThingCategory",
    "ThingDef",
    "TimeSpeed",
    "Window",
]

LETTER_CAP = 200
"""At most this many letters are kept; the oldest is dropped first."""


class Phase(StrEnum):
    """Where the world is: at the main menu, in a game, or inside a loading long event."""

    MAIN_MENU = "main_menu"
    PLAYING = "playing"
    LOADING = "loading"


class LogLevel(StrEnum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    FATAL = "fatal"


@dataclass(frozen=True)
class LogRecord:
    """One line the game would write to its log.

    ``operation_id`` is the operation (GABP request id) that caused the work which logged the
    line, when the work was started inside :meth:`World.caused_by`; a job or a load carries it
    for as long as it runs.
    """

    level: LogLevel
    message: str
    source: str
    tick: int
    operation_id: str | None = None


class TimeSpeed(IntEnum):
    """RimWorld's speeds; the value is what ``set_time_speed`` takes."""

    PAUSED = 0
    NORMAL = 1
    FAST = 2
    SUPERFAST = 3
    ULTRAFAST = 4

    @property
    def ticks_per_frame(self) -> int:
        """Game ticks per real-time frame (1/60 s) at this speed, as in RimWorld."""
        return (0, 1, 3, 6, 15)[self.value]


class Cell(NamedTuple):
    """A map cell; RimWorld calls the horizontal axes x and z."""

    x: int
    z: int

    def __str__(self) -> str:
        return f"({self.x}, {self.z})"


class Terrain(StrEnum):
    """Terrain defs. ``Granite`` is solid rock (impassable, mineable); mining leaves
    ``GraniteRough``, a rough stone floor."""

    SOIL = "Soil"
    RICH_SOIL = "SoilRich"
    SAND = "Sand"
    MARSH = "Marsh"
    WATER = "WaterDeep"
    STONE = "Granite"
    ROUGH_STONE = "GraniteRough"

    @property
    def passable(self) -> bool:
        return self not in (Terrain.WATER, Terrain.STONE)

    @property
    def ticks_per_cell(self) -> int:
        """How many ticks a pawn needs to walk onto a cell of this terrain."""
        return {Terrain.MARSH: 14, Terrain.SAND: 9}.get(self, 7)

    @property
    def is_water(self) -> bool:
        return self is Terrain.WATER


class ThingCategory(StrEnum):
    ITEM = "item"
    BUILDING = "building"
    PLANT = "plant"


@dataclass(frozen=True)
class ThingDef:
    def_name: str
    label: str
    category: ThingCategory
    stack_limit: int = 1
    passable: bool = True


THING_DEFS: Mapping[str, ThingDef] = {
    d.def_name: d
    for d in (
        ThingDef("Steel", "steel", ThingCategory.ITEM, 75),
        ThingDef("WoodLog", "wood", ThingCategory.ITEM, 75),
        ThingDef("MealSimple", "simple meal", ThingCategory.ITEM, 10),
        ThingDef("ComponentIndustrial", "component", ThingCategory.ITEM, 25),
        ThingDef("MedicineHerbal", "herbal medicine", ThingCategory.ITEM, 25),
        ThingDef("Silver", "silver", ThingCategory.ITEM, 500),
        ThingDef("ChunkGranite", "granite chunk", ThingCategory.ITEM, 1),
        ThingDef("Wall", "wall", ThingCategory.BUILDING, 1, passable=False),
        ThingDef("Plant_TreeOak", "oak tree", ThingCategory.PLANT, 1),
    )
}
"""Every def the world knows, by def name."""


class DesignationKind(StrEnum):
    MINE = "Mine"
    CUT = "Cut"
    HAUL = "Haul"
    BUILD = "Build"
    DECONSTRUCT = "Deconstruct"


class LetterKind(StrEnum):
    POSITIVE = "positive"
    NEUTRAL = "neutral"
    NEGATIVE = "negative"
    THREAT = "threat"


class JobKind(StrEnum):
    WAIT = "Wait"
    WAIT_DRAFTED = "Wait_Combat"
    GOTO = "Goto"
    WANDER = "GotoWander"
    HAUL = "HaulToCell"
    MINE = "Mine"
    CUT = "CutPlant"
    BUILD = "Build"
    DECONSTRUCT = "Deconstruct"
    INGEST = "Ingest"


@dataclass
class Job:
    """What a pawn is doing.

    A job first walks ``path`` (one cell every few ticks, by terrain), then works for
    ``work_ticks``. ``stage`` is ``"walk"``, ``"work"`` or, for hauling, ``"carry"``.
    """

    kind: JobKind
    target: Cell | None = None
    path: list[Cell] = field(default_factory=list)
    move_cooldown: int = 0
    work_ticks: int = 0
    ticks_remaining: int | None = None
    thing_id: str | None = None
    designation_id: str | None = None
    destination: Cell | None = None
    stage: str = "walk"
    forced: bool = False
    operation_id: str | None = None


@dataclass
class Pawn:
    id: str
    first_name: str
    nickname: str
    last_name: str
    position: Cell
    health: float = 1.0
    downed: bool = False
    drafted: bool = False
    mood: float = 0.6
    food: float = 0.8
    job: Job | None = None
    carrying: str | None = None
    hunger_warning: int = 0
    """0: none given, 1: 'is hungry' given, 2: 'is starving' given."""
    mood_warned: bool = False

    @property
    def label(self) -> str:
        return self.nickname


@dataclass
class Thing:
    id: str
    def_name: str
    position: Cell
    stack_count: int = 1

    @property
    def definition(self) -> ThingDef:
        return THING_DEFS[self.def_name]


@dataclass
class Designation:
    id: str
    kind: DesignationKind
    cell: Cell
    thing_id: str | None = None
    build_def: str | None = None
    claimed_by: str | None = None
    operation_id: str | None = None


@dataclass
class Letter:
    id: str
    label: str
    text: str
    kind: LetterKind
    tick: int
    read: bool = False


@dataclass
class Window:
    id: int
    kind: str
    title: str


@dataclass
class ScheduledLog:
    """A log line to write once the game reaches ``tick`` (for follow-up faults)."""

    tick: int
    level: LogLevel
    message: str
    source: str
    operation_id: str | None


@dataclass
class GameMap:
    id: str
    width: int
    height: int
    terrain: list[Terrain]
    roofed: list[bool]

    def contains(self, cell: Cell) -> bool:
        return 0 <= cell.x < self.width and 0 <= cell.z < self.height

    def index(self, cell: Cell) -> int:
        return cell.z * self.width + cell.x

    def terrain_at(self, cell: Cell) -> Terrain:
        return self.terrain[self.index(cell)]

    def roofed_at(self, cell: Cell) -> bool:
        return self.roofed[self.index(cell)]


@dataclass
class Game:
    """One running colony: everything a save holds."""

    name: str
    seed: int
    map: GameMap
    things: dict[str, Thing]
    pawns: dict[str, Pawn]
    drop_spot: Cell
    rng: random.Random
    designations: dict[str, Designation] = field(default_factory=dict)
    letters: deque[Letter] = field(default_factory=lambda: deque(maxlen=LETTER_CAP))
    scheduled: list[ScheduledLog] = field(default_factory=list)
    tick: int = 0
    time_speed: TimeSpeed = TimeSpeed.PAUSED
