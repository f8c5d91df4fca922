"""The simulated RimWorld colony: a deterministic, tick-based world with no I/O.

Start with :class:`World`. What it returns is a frozen view from :mod:`rimbridge_sim.world.views`
or a plain JSON object from :mod:`rimbridge_sim.world.describe`; every refusal is a
:class:`WorldError`. State lives in :mod:`~rimbridge_sim.world.state`, the vocabulary in
:mod:`~rimbridge_sim.world.model`, the rules in the world's private modules.
"""

import functools

from rimbridge_sim.world._lifecycle import (
    GENERATE_FRAMES,
    LOAD_TICKS,
    MAX_SAVES,
    MAX_STEP_TICKS,
)
from rimbridge_sim.world._lifecycle import game_date as _game_date
from rimbridge_sim.world._saves import sanitize_name, sanitize_save_name
from rimbridge_sim.world.errors import (
    InvalidArgumentError,
    InvalidCellError,
    LongEventError,
    MissingArgumentError,
    NoGameError,
    NotFoundError,
    RefusedError,
    StaleIdError,
    UnknownIdError,
    WorldError,
)
from rimbridge_sim.world.model import (
    LETTER_CAP,
    THING_DEFS,
    Cell,
    DesignationKind,
    JobKind,
    LetterKind,
    LogLevel,
    LogRecord,
    Phase,
    ProgramState,
    Terrain,
    ThingCategory,
    ThingDef,
    TimeSpeed,
)
from rimbridge_sim.world.storage import DiskStorage, FileInfo, MemoryStorage, Storage
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
)
from rimbridge_sim.world.world import World

__all__ = [
    "GENERATE_FRAMES",
    "LETTER_CAP",
    "LOAD_TICKS",
    "MAX_SAVES",
    "MAX_STEP_TICKS",
    "THING_DEFS",
    "Cell",
    "CellInfo",
    "DesignationInfo",
    "DesignationKind",
    "DesignatorResult",
    "DiskStorage",
    "FileInfo",
    "GameInfo",
    "InvalidArgumentError",
    "InvalidCellError",
    "JobInfo",
    "JobKind",
    "LetterInfo",
    "LetterKind",
    "LogLevel",
    "LogRecord",
    "LongEventError",
    "MemoryStorage",
    "MissingArgumentError",
    "NoGameError",
    "NotFoundError",
    "PawnInfo",
    "Phase",
    "ProgramState",
    "RefusedError",
    "RejectedCell",
    "SaveInfo",
    "SpawnResult",
    "StaleIdError",
    "StepResult",
    "Storage",
    "Terrain",
    "ThingCategory",
    "ThingDef",
    "ThingInfo",
    "TimeSpeed",
    "UiState",
    "UnknownIdError",
    "World",
    "WorldError",
    "game_date",
    "sanitize_name",
    "sanitize_save_name",
]

game_date = functools.lru_cache(maxsize=256)(_game_date)
"""The in-game date of a tick (``5 Aprimay 5500, 7h``), kept for the last 256 ticks asked
about: a game hour is 2,500 ticks, and agents poll ``get_game_info`` often."""
