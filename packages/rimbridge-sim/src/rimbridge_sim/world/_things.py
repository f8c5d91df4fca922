"""Colony rules, part 1: what is where, placing and destroying things, designations.

:class:`ThingRules` wraps one :class:`~rimbridge_sim.world.state.Game` and changes it. It asks
its owner for ids, reports log lines and destroyed things through :class:`Services`, and never
raises for something the game itself would survive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rimbridge_sim.world.model import (
    THING_DEFS,
    Cell,
    DesignationKind,
    LogLevel,
    Terrain,
    ThingCategory,
)
from rimbridge_sim.world.state import Designation, Game, Pawn, Thing

__all__ = ["MAX_THINGS", "Services", "ThingRules"]

MAX_THINGS = 500
"""A map holds at most this many things (items, buildings and plants)."""


@dataclass(frozen=True)
class Services:
    """What a colony needs from the world that owns it."""

    new_id: Callable[[str], str]
    emit: Callable[[LogLevel, str, str, str | None], None]
    destroyed: Callable[[str], None]
    setting: Callable[[str], bool] = lambda name: False
    """Whether a debug setting (``godMode``, ``neverHungry``, ...) is on."""


class ThingRules:
    def __init__(self, game: Game, services: Services) -> None:
        self.game = game
        self._services = services

    # -- queries ---------------------------------------------------------------------------

    def carried_ids(self) -> set[str]:
        return {p.carrying for p in self.game.pawns.values() if p.carrying is not None}

    def things_at(self, cell: Cell) -> list[Thing]:
        carried = self.carried_ids()
        return [t for t in self.game.things.values() if t.position == cell and t.id not in carried]

    def pawns_at(self, cell: Cell) -> list[Pawn]:
        return [p for p in self.game.pawns.values() if p.position == cell]

    def passable(self, cell: Cell) -> bool:
        if not self.game.map.terrain_at(cell).passable:
            return False
        return all(t.definition.passable for t in self.things_at(cell))

    def path_passable(self) -> Callable[[Cell], bool]:
        """A fast :meth:`passable` for one path search (buildings indexed once)."""
        game_map = self.game.map
        blocked = {t.position for t in self.game.things.values() if not t.definition.passable}

        def passable(cell: Cell) -> bool:
            return game_map.terrain[cell.z * game_map.width + cell.x].passable and (
                cell not in blocked
            )

        return passable

    def item_refusal(self, cell: Cell, def_name: str | None = None) -> str | None:
        """Why an item cannot be put on ``cell`` (``None`` when it can)."""
        terrain = self.game.map.terrain_at(cell)
        if terrain.is_water:
            return f"cell {cell} is {terrain.value}: things cannot be placed on water"
        if not terrain.passable:
            return f"cell {cell} is solid rock ({terrain.value})"
        for thing in self.things_at(cell):
            if thing.definition.category is ThingCategory.BUILDING:
                return f"cell {cell} holds a building ({thing.def_name})"
            if thing.definition.category is ThingCategory.ITEM and (
                thing.def_name != def_name or thing.stack_count >= thing.definition.stack_limit
            ):
                return f"cell {cell} already holds an item stack ({thing.def_name})"
        return None

    # -- things ----------------------------------------------------------------------------

    def new_thing(self, def_name: str, cell: Cell, count: int = 1) -> Thing:
        thing = Thing(self._services.new_id(f"Thing_{def_name}"), def_name, cell, count)
        self.game.things[thing.id] = thing
        return thing

    def place_items(self, def_name: str, count: int, near: Cell) -> list[Thing]:
        """Put ``count`` items near ``near``: top up same-def stacks, then fill empty cells
        outward (RimWorld's ``GenPlace``). Returns the stacks touched, in placement order."""
        limit = THING_DEFS[def_name].stack_limit
        touched: list[Thing] = []
        remaining = count
        for cell in self.cells_by_distance(near):
            if remaining == 0:
                break
            if self.item_refusal(cell, def_name) is not None:
                continue
            existing = [t for t in self.things_at(cell) if t.def_name == def_name]
            if existing:
                stack = existing[0]
                added = min(limit - stack.stack_count, remaining)
                stack.stack_count += added
            else:
                if len(self.game.things) >= MAX_THINGS:
                    break
                added = min(limit, remaining)
                stack = self.new_thing(def_name, cell, added)
            remaining -= added
            touched.append(stack)
        if remaining:
            # The caller checked capacity; anything left here is genuinely lost, and says so.
            self._services.emit(
                LogLevel.WARNING,
                f"Could not place {remaining} {def_name} near {near}: no room",
                "world",
                None,
            )
        return touched

    def room_for(self, def_name: str, near: Cell) -> int:
        """How many items of ``def_name`` :meth:`place_items` could place near ``near``."""
        limit = THING_DEFS[def_name].stack_limit
        free_slots = MAX_THINGS - len(self.game.things)
        room = 0
        for cell in self.cells_by_distance(near):
            if self.item_refusal(cell, def_name) is not None:
                continue
            existing = [t for t in self.things_at(cell) if t.def_name == def_name]
            if existing:
                room += limit - existing[0].stack_count
            elif free_slots > 0:
                free_slots -= 1
                room += limit
        return room

    def cells_by_distance(self, near: Cell) -> Iterator[Cell]:
        """Map cells nearest first (ties by z, then x); a small square first, so the common
        case does not sort the whole map."""
        game_map = self.game.map

        def key(c: Cell) -> tuple[int, int, int]:
            return ((c.x - near.x) ** 2 + (c.z - near.z) ** 2, c.z, c.x)

        radius = 8
        inner = [
            Cell(x, z)
            for z in range(max(0, near.z - radius), min(game_map.height, near.z + radius + 1))
            for x in range(max(0, near.x - radius), min(game_map.width, near.x + radius + 1))
        ]
        inner = [c for c in inner if key(c)[0] <= radius * radius]
        yield from sorted(inner, key=key)
        seen = set(inner)
        rest = [
            Cell(x, z)
            for z in range(game_map.height)
            for x in range(game_map.width)
            if Cell(x, z) not in seen
        ]
        yield from sorted(rest, key=key)

    # -- designations ----------------------------------------------------------------------

    def designation_refusal(self, kind: DesignationKind, cell: Cell) -> str | None:
        """Why ``kind`` cannot be designated on ``cell`` (``None`` when it can)."""
        if any(d.cell == cell and d.kind is kind for d in self.game.designations.values()):
            return f"cell {cell} is already designated for {kind.value}"
        terrain = self.game.map.terrain_at(cell)
        things = self.things_at(cell)
        if kind is DesignationKind.MINE:
            if terrain is not Terrain.STONE:
                return f"cell {cell} is {terrain.value}, not mineable rock"
        elif kind is DesignationKind.CUT:
            if not any(t.definition.category is ThingCategory.PLANT for t in things):
                return f"cell {cell} has no plant to cut"
        elif kind is DesignationKind.HAUL:
            items = [t for t in things if t.definition.category is ThingCategory.ITEM]
            if not items:
                return f"cell {cell} has no item to haul"
        elif kind is DesignationKind.DECONSTRUCT:
            if not any(t.definition.category is ThingCategory.BUILDING for t in things):
                return f"cell {cell} has no building to deconstruct"
        elif kind is DesignationKind.BUILD:
            if not terrain.passable or terrain in (Terrain.MARSH,):
                return f"cell {cell} is {terrain.value}: cannot build here"
            if things:
                return f"cell {cell} is not empty ({things[0].def_name})"
        return None

    def add_designation(
        self,
        kind: DesignationKind,
        cell: Cell,
        build_def: str | None,
        operation_id: str | None,
    ) -> Designation:
        thing_id = None
        things = self.things_at(cell)
        wanted = {
            DesignationKind.CUT: ThingCategory.PLANT,
            DesignationKind.HAUL: ThingCategory.ITEM,
            DesignationKind.DECONSTRUCT: ThingCategory.BUILDING,
        }.get(kind)
        if wanted is not None:
            thing_id = next(t.id for t in things if t.definition.category is wanted)
        designation = Designation(
            id=self._services.new_id("Designation_"),
            kind=kind,
            cell=cell,
            thing_id=thing_id,
            build_def=build_def if kind is DesignationKind.BUILD else None,
            operation_id=operation_id,
        )
        self.game.designations[designation.id] = designation
        return designation
