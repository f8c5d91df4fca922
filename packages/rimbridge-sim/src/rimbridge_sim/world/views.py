"""Frozen, JSON-ready views of the world that operations return.

Every view has ``to_dict()``, which gives the camelCase JSON shape the RimBridge tools return
(cells become ``{"x": .., "z": ..}``, enums their values, tuples lists).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from rimbridge_sim.world.model import Cell

__all__ = [
    "CellInfo",
    "DesignationInfo",
    "DesignatorResult",
    "GameInfo",
    "JobInfo",
    "LetterInfo",
    "PawnInfo",
    "RejectedCell",
    "SaveInfo",
    "SpawnResult",
    "StepResult",
    "ThingInfo",
    "UiState",
    "WindowInfo",
]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _json(value: Any) -> Any:
    if isinstance(value, Cell):
        return {"x": value.x, "z": value.z}
    if isinstance(value, _View):
        return value.to_dict()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_json(item) for item in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


class _View:
    def to_dict(self) -> dict[str, Any]:
        assert dataclasses.is_dataclass(self)
        return {_camel(f.name): _json(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class JobInfo(_View):
    kind: str
    stage: str
    target: Cell | None
    ticks_remaining: int | None
    thing_id: str | None
    designation_id: str | None
    forced: bool
    operation_id: str | None


@dataclass(frozen=True)
class PawnInfo(_View):
    id: str
    name: str
    nickname: str
    position: Cell
    health: float
    downed: bool
    drafted: bool
    mood: float
    food: float
    job: JobInfo | None
    carrying: str | None
    selected: bool


@dataclass(frozen=True)
class ThingInfo(_View):
    id: str
    def_name: str
    label: str
    category: str
    position: Cell
    stack_count: int
    stack_limit: int


@dataclass(frozen=True)
class DesignationInfo(_View):
    id: str
    kind: str
    cell: Cell
    thing_id: str | None
    build_def: str | None
    claimed_by: str | None


@dataclass(frozen=True)
class CellInfo(_View):
    cell: Cell
    terrain: str
    passable: bool
    roofed: bool
    things: tuple[ThingInfo, ...]
    pawns: tuple[str, ...]
    designations: tuple[DesignationInfo, ...]


@dataclass(frozen=True)
class LetterInfo(_View):
    id: str
    label: str
    text: str
    kind: str
    tick: int
    read: bool


@dataclass(frozen=True)
class WindowInfo(_View):
    id: int
    kind: str
    title: str


@dataclass(frozen=True)
class SaveInfo(_View):
    name: str
    tick: int
    colonist_count: int
    map_width: int
    map_height: int
    size_bytes: int
    saved_order: int
    """Increases with every save; the newest save has the highest."""


@dataclass(frozen=True)
class GameInfo(_View):
    phase: str
    map_id: str | None
    map_width: int | None
    map_height: int | None
    tick: int | None
    date: str | None
    time_speed: int | None
    paused: bool | None
    colonist_count: int
    thing_count: int
    seed: int | None
    long_event: str | None


@dataclass(frozen=True)
class UiState(_View):
    phase: str
    map_id: str | None
    windows: tuple[WindowInfo, ...]
    selection: tuple[str, ...]
    time_speed: int | None
    paused: bool | None
    long_event: str | None
    unread_letters: int


@dataclass(frozen=True)
class SpawnResult(_View):
    def_name: str
    requested: int
    stacks: tuple[ThingInfo, ...]


@dataclass(frozen=True)
class RejectedCell(_View):
    cell: Cell
    reason: str


@dataclass(frozen=True)
class DesignatorResult(_View):
    kind: str
    accepted: tuple[DesignationInfo, ...]
    rejected: tuple[RejectedCell, ...]


@dataclass(frozen=True)
class StepResult(_View):
    ticks: int
    """Game ticks that actually ran."""
    tick: int | None
    """The game tick afterwards (``None`` when no game is loaded)."""
    phase: str
