"""The vocabulary of the simulated colony: enums, defs and constants (no state).

The mutable state lives in :mod:`rimbridge_sim.world.state`, the rules that change it in the
world's private modules, and what callers get back in :mod:`rimbridge_sim.world.views`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import NamedTuple

__all__ = [
    "FLOOR_DEFS",
    "LETTER_CAP",
    "TERRAIN_DEFS",
    "THING_DEFS",
    "Cell",
    "DesignationKind",
    "JobKind",
    "LetterKind",
    "LogLevel",
    "LogRecord",
    "Phase",
    "ProgramState",
    "Terrain",
    "ThingCategory",
    "ThingDef",
    "TimeSpeed",
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
    """RimWorld's time speeds; :attr:`label` is the name ``set_time_speed`` takes."""

    PAUSED = 0
    NORMAL = 1
    FAST = 2
    SUPERFAST = 3
    ULTRAFAST = 4

    @property
    def ticks_per_frame(self) -> int:
        """Game ticks per real-time frame (1/60 s) at this speed, as in RimWorld."""
        return (0, 1, 3, 6, 15)[self.value]

    @property
    def label(self) -> str:
        """``Paused``, ``Normal``, ``Fast``, ``Superfast`` or ``Ultrafast``."""
        return ("Paused", "Normal", "Fast", "Superfast", "Ultrafast")[self]  # an int itself

    @classmethod
    def parse(cls, name: str) -> TimeSpeed:
        """The speed called ``name`` (case ignored); :class:`ValueError` for others."""
        for speed in cls:
            if speed.label.lower() == str(name).strip().lower():
                return speed
        raise ValueError(name)


class ProgramState(StrEnum):
    """RimWorld's ``Current.ProgramState``."""

    ENTRY = "Entry"
    MAP_INITIALIZING = "MapInitializing"
    PLAYING = "Playing"


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
    WOOD_FLOOR = "WoodPlankFloor"
    METAL_TILE = "MetalTile"
    SILVER_TILE = "SilverTile"

    @property
    def passable(self) -> bool:
        return self not in (Terrain.WATER, Terrain.STONE)

    @property
    def label(self) -> str:
        return TERRAIN_DEFS[self]

    @property
    def fertile(self) -> bool:
        return self in (Terrain.SOIL, Terrain.RICH_SOIL)

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


TERRAIN_DEFS: Mapping[Terrain, str] = {
    Terrain.SOIL: "soil",
    Terrain.RICH_SOIL: "rich soil",
    Terrain.SAND: "sand",
    Terrain.MARSH: "marsh",
    Terrain.WATER: "deep water",
    Terrain.STONE: "granite",
    Terrain.ROUGH_STONE: "rough granite",
    Terrain.WOOD_FLOOR: "wood floor",
    Terrain.METAL_TILE: "steel tile",
    Terrain.SILVER_TILE: "silver tile",
}


@dataclass(frozen=True)
class ThingDef:
    def_name: str
    label: str
    category: ThingCategory
    stack_limit: int = 1
    passable: bool = True
    """Pawns can walk through it (a door, a bed); walls and columns block."""
    standable: bool = True
    """A pawn can stand on it (false for walls, columns and tables)."""
    work: int = 300
    """Work ticks to build it."""


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
        ThingDef("Potato", "potatoes", ThingCategory.ITEM, 75),
        ThingDef("Wall", "wall", ThingCategory.BUILDING, passable=False, standable=False),
        ThingDef("Door", "door", ThingCategory.BUILDING, work=400),
        ThingDef("Column", "column", ThingCategory.BUILDING, passable=False, standable=False),
        ThingDef("Bed", "bed", ThingCategory.BUILDING, work=500),
        ThingDef("Table1x2c", "table (1x2)", ThingCategory.BUILDING, standable=False),
        ThingDef("Stool", "stool", ThingCategory.BUILDING, work=200),
        ThingDef("Campfire", "campfire", ThingCategory.BUILDING, work=150),
        ThingDef("ButcherSpot", "butcher spot", ThingCategory.BUILDING, work=1),
        ThingDef("TorchLamp", "torch lamp", ThingCategory.BUILDING, work=150),
        ThingDef("Plant_TreeOak", "oak tree", ThingCategory.PLANT),
        ThingDef("Plant_Potato", "potato plant", ThingCategory.PLANT),
    )
}
"""Every thing def the world knows, by def name."""

FLOOR_DEFS: Mapping[str, Terrain] = {
    floor.value: floor for floor in (Terrain.WOOD_FLOOR, Terrain.METAL_TILE, Terrain.SILVER_TILE)
}
"""Floors a Build designation can lay (terrain, not things)."""


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
