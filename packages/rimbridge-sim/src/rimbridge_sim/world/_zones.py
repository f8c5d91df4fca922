"""Zones (stockpiles, growing zones) and areas (home, roof, allowed areas): listing,
creating, changing and deleting them. A subsystem of the world (``world.zones``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world.describe import zone_base_label
from rimbridge_sim.world.errors import InvalidArgumentError, RefusedError, UnknownIdError
from rimbridge_sim.world.model import Cell, LogLevel
from rimbridge_sim.world.state import Area, Zone

__all__ = ["ZonesAndAreas", "zone_class"]

_T = TypeVar("_T", Zone, Area)

_ZONE_LABELS = {
    "Stockpile": "Stockpile zone",
    "DumpingStockpile": "Dumping stockpile",
    "Growing": "Growing zone",
}
MAX_ALLOWED_AREAS = 10


def zone_class(kind: str) -> str:
    """The zone's .NET class: a dumping stockpile is a ``Zone_Stockpile`` too."""
    return "RimWorld.Zone_Growing" if kind == "Growing" else "RimWorld.Zone_Stockpile"


def _by_identity(
    candidates: Iterable[_T], requested: str, labels: Callable[[_T], tuple[str, ...]]
) -> _T:
    """The mod's ``TryResolveByIdentity``: the exact id, else the one candidate whose label
    matches ignoring case; its texts name the id as it was given (untrimmed)."""
    if not requested or not requested.strip():
        raise InvalidArgumentError("An id is required.")
    wanted = requested.strip()
    listed = list(candidates)
    exact = next((c for c in listed if c.id == wanted), None)
    if exact is not None:
        return exact
    folded = wanted.casefold()
    matches = [c for c in listed if any(label.casefold() == folded for label in labels(c))]
    if len(matches) > 1:
        raise RefusedError(
            f"'{requested}' matched multiple entries. Use the exact unique id instead."
        )
    if not matches:
        raise UnknownIdError(f"Could not find '{requested}'.")
    return matches[0]


class ZonesAndAreas:
    def __init__(self, world: WorldCore) -> None:
        self._world = world

    # -- zones -------------------------------------------------------------------------------

    def zones(self, *, include_hidden: bool, include_empty: bool) -> list[Zone]:
        game = self._world.require_colony().game
        found = [
            z
            for z in game.zones.values()
            if (include_hidden or not z.hidden) and (include_empty or z.cells)
        ]
        # the mod's order: base label, then id (both ordinal)
        return sorted(found, key=lambda z: (zone_base_label(z), z.id))

    def zone(self, zone_id: str) -> Zone:
        """A zone by id, else by its label or base label (case ignored), as the mod resolves."""
        game = self._world.require_colony().game
        return _by_identity(game.zones.values(), zone_id, lambda z: (z.label, zone_base_label(z)))

    def zone_or_none(self, zone_id: str | None) -> Zone | None:
        game = self._world.game
        if game is None or zone_id is None:
            return None
        return game.zones.get(zone_id)

    def zone_at(self, cell: Cell) -> Zone | None:
        game = self._world.game
        if game is None:
            return None
        return next((z for z in game.zones.values() if cell in z.cells), None)

    def delete_zone(self, zone_id: str) -> Zone:
        zone = self.zone(zone_id)
        game = self._world.require_colony().game
        del game.zones[zone.id]
        self._world.retire(zone.id, destroyed=True)
        for key, target in list(self._world.ui.zone_targets.items()):
            if target == zone.id:
                del self._world.ui.zone_targets[key]
        self._world.emit(LogLevel.INFO, f"Deleted {zone.label}", "zones")
        return zone

    def set_target(
        self, designator_id: str, kind: str, zone_id: str | None, requested: str
    ) -> Zone | None:
        """Point the zone-add designator ``designator_id`` (placing ``kind``) at a zone, or
        clear its target; ``requested`` is the designator id as the caller gave it."""
        if zone_id is None or not zone_id.strip():
            self._world.ui.zone_targets.pop(designator_id, None)
            return None
        zone = self.zone(zone_id)
        if zone_class(zone.kind) != zone_class(kind):
            raise RefusedError(
                f"Zone '{zone_id}' is not compatible with architect designator '{requested}'."
            )
        self._world.ui.zone_targets[designator_id] = zone.id
        return zone

    def zone_refusal(self, designator_id: str, kind: str, cell: Cell) -> str | None:
        colony = self._world.require_colony()
        terrain = colony.game.map.terrain_at(cell)
        existing = self.zone_at(cell)
        if kind == "delete":
            return None if existing is not None else "There is no zone here."
        if not terrain.passable:
            return f"Cannot zone {terrain.value}."
        if any(not t.definition.passable for t in colony.things_at(cell)):
            return "A building is in the way."
        target = self.zone_or_none(self._world.ui.zone_targets.get(designator_id))
        if existing is not None and existing is not target:
            return f"The cell already belongs to {existing.label}."
        if kind == "Growing" and not terrain.fertile:
            return f"{terrain.label.capitalize()} is not fertile enough to grow plants."
        return None

    def apply_zone(self, designator_id: str, kind: str, cells: list[Cell]) -> Zone | None:
        game = self._world.require_colony().game
        if kind == "delete":
            for cell in cells:
                zone = self.zone_at(cell)
                if zone is not None:
                    zone.cells.discard(cell)
            return None
        target = self.zone_or_none(self._world.ui.zone_targets.get(designator_id))
        if target is None:
            number = 1 + sum(1 for z in game.zones.values() if z.kind == kind)
            target = Zone(
                self._world.new_id("Zone_"),
                kind,
                f"{_ZONE_LABELS.get(kind, kind)} {number}",
                plant_def="Plant_Potato" if kind == "Growing" else None,
            )
            game.zones[target.id] = target
        target.cells.update(cells)
        return target

    # -- areas -------------------------------------------------------------------------------

    def areas(self, *, include_empty: bool, assignable_only: bool) -> list[Area]:
        game = self._world.require_colony().game
        found = [
            a
            for a in game.areas.values()
            if (include_empty or a.cells) and (not assignable_only or a.assignable)
        ]
        # the mod's order: list priority, then label and id (ordinal)
        return sorted(found, key=lambda a: (a.list_priority, a.label, a.id))

    def area(self, area_id: str) -> Area:
        """An area by id, else by its label (case ignored), as the mod resolves."""
        game = self._world.require_colony().game
        return _by_identity(game.areas.values(), area_id, lambda a: (a.label,))

    def selected_allowed_area(self) -> Area | None:
        game = self._world.game
        selected = self._world.ui.allowed_area
        if game is None or selected is None:
            return None
        return game.areas.get(selected)

    def create_allowed(self, label: str | None, select: bool) -> Area:
        game = self._world.require_colony().game
        allowed = [a for a in game.areas.values() if a.kind == "Allowed"]
        if len(allowed) >= MAX_ALLOWED_AREAS:
            raise RefusedError("RimWorld could not create a new allowed area for the current map.")
        # RimWorld names a new allowed area "Area N" with the first N no area's label has
        taken = {a.label for a in game.areas.values()}
        number = next(n for n in range(1, len(taken) + 2) if f"Area {n}" not in taken)
        name = label.strip() if label and label.strip() else f"Area {number}"
        area = Area(self._world.new_id("Area_"), "Allowed", name, set(), 1)
        game.areas[area.id] = area
        if select:
            self._world.ui.allowed_area = area.id
        self._world.emit(LogLevel.INFO, f"Created allowed area '{name}'", "zones")
        return area

    def select_allowed(self, area_id: str | None) -> Area | None:
        if area_id is None or not area_id.strip():
            self._world.ui.allowed_area = None
            return None
        area = self.area(area_id)
        if not area.assignable or area.kind != "Allowed":
            raise RefusedError(f"Area '{area_id}' cannot be used as an allowed area.")
        self._world.ui.allowed_area = area.id
        return area

    def clear_area(self, area_id: str) -> Area:
        area = self.area(area_id)
        if not area.mutable:
            raise RefusedError(
                f"Area '{area_id}' is not mutable and cannot be cleared through this helper."
            )
        area.cells.clear()
        return area

    def delete_area(self, area_id: str) -> Area:
        area = self.area(area_id)
        if not area.mutable:
            raise RefusedError(
                f"Area '{area_id}' is not mutable and cannot be deleted through this helper."
            )
        game = self._world.require_colony().game
        del game.areas[area.id]
        self._world.retire(area.id, destroyed=True)
        if self._world.ui.allowed_area == area.id:
            self._world.ui.allowed_area = None
        return area

    def _area_of_kind(self, kind: str) -> Area | None:
        if kind == "Allowed":
            return self.selected_allowed_area()
        game = self._world.require_colony().game
        return next((a for a in game.areas.values() if a.kind == kind), None)

    def area_refusal(self, kind: str, expand: bool, cell: Cell) -> str | None:
        area = self._area_of_kind(kind)
        if area is None:
            if kind == "Allowed":
                return "No allowed area is selected (rimworld/select_allowed_area)."
            return f"There is no {kind} area on this map."
        if expand and cell in area.cells:
            return f"The cell is already in {area.label}."
        if not expand and cell not in area.cells:
            return f"The cell is not in {area.label}."
        return None

    def apply_area(self, kind: str, expand: bool, cells: list[Cell]) -> None:
        area = self._area_of_kind(kind)
        if area is None:
            return
        if expand:
            area.cells.update(cells)
        else:
            area.cells.difference_update(cells)
