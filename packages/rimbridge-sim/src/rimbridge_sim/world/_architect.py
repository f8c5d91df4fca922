"""The Architect: listing, selecting and applying designators to cells, and god mode.
A subsystem of the world (``world.architect``); the menu itself is in ``_catalogue``."""

from __future__ import annotations

from typing import Any

from rimbridge_sim.world._catalogue import (
    CATEGORIES,
    Category,
    Placed,
    all_designators,
    category_key,
    normalize_segment,
)
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._zones import ZonesAndAreas
from rimbridge_sim.world.describe import cell_payload, describe_area, describe_zone
from rimbridge_sim.world.errors import MissingArgumentError, NotFoundError, RefusedError
from rimbridge_sim.world.model import (
    FLOOR_DEFS,
    Cell,
    DesignationKind,
    LogLevel,
    Terrain,
    ThingCategory,
)

__all__ = ["Architect"]


class Architect:
    """Categories, designators, the selected designator and applying it to cells."""

    def __init__(self, world: WorldCore, zones: ZonesAndAreas) -> None:
        self._world = world
        self._zones = zones

    # -- the catalogue -----------------------------------------------------------------------

    def categories(self, *, include_hidden: bool, include_empty: bool) -> list[Category]:
        del include_hidden  # every simulated category is visible
        return [c for c in CATEGORIES if include_empty or c.designators]

    def category(self, query: str) -> Category:
        if not query or not query.strip():
            raise MissingArgumentError("A category id is required.")
        wanted = category_key(query)
        for category in CATEGORIES:
            if wanted is not None and wanted == normalize_segment(category.def_name):
                return category
        raise NotFoundError(f"Could not find architect category '{query}'.")

    def resolve(self, designator_id: str) -> Placed:
        if not designator_id or not designator_id.strip():
            raise MissingArgumentError("A designator id is required.")
        wanted = designator_id.strip()  # compared exactly, as the mod does
        for category in CATEGORIES:
            for placed in all_designators(category):
                if placed.id == wanted:
                    return placed
        raise NotFoundError(f"Could not find architect designator '{designator_id}'.")

    def describe_category(self, category: Category) -> dict[str, Any]:
        placed = all_designators(category)
        return {
            "id": category.id,
            "categoryDefName": category.def_name,
            "label": category.label,
            "visible": True,
            "order": category.order,
            "preferredColumn": category.preferred_column,
            "showPowerGrid": category.show_power_grid,
            "designatorCount": sum(1 for p in placed if p.parent_id is None),
            "actionableDesignatorCount": sum(1 for p in placed if not p.spec.children),
            "dropdownCount": sum(1 for p in placed if p.spec.children),
            "buildDesignatorCount": sum(1 for p in placed if p.spec.application == "build"),
        }

    def describe(self, placed: Placed) -> dict[str, Any]:
        spec = placed.spec
        ui = self._world.ui
        selected = ui.designator == placed.id
        container = ui.designator is not None and ui.designator.startswith(placed.id + ":")
        zone = None
        if spec.application == "zone" and spec.zone_kind not in (None, "delete"):
            zone = self._zones.zone_or_none(ui.zone_targets.get(placed.id))
        active_child = ""
        if spec.children and container and ui.designator is not None:
            active_child = ui.designator
        return {
            "id": placed.id,
            "parentId": placed.parent_id,
            "categoryId": placed.category.id,
            "categoryDefName": placed.category.def_name,
            "categoryLabel": placed.category.label,
            "kind": spec.kind,
            "applicationKind": spec.application,
            "actionable": not spec.children,
            "supportsCellApplication": not spec.children,
            "supportsRectangleApplication": not spec.children
            and (spec.drag_measurements or spec.application in ("build", "zone", "area")),
            "dragDrawMeasurements": spec.drag_measurements,
            "drawStyleCategoryDefName": "FilledRectangle" if spec.drag_measurements else None,
            "visible": True,
            "selected": selected,
            "selectedContainer": container,
            "index": placed.index,
            "childIndex": placed.child_index,
            "childCount": len(spec.children),
            "label": spec.label,
            "description": spec.description,
            "className": spec.class_name,
            "highlightTag": None,
            "hotKey": None,
            "designationDefName": None
            if spec.designation is None
            else {"Cut": "CutPlant"}.get(spec.designation.value, spec.designation.value),
            "buildableDefName": spec.build_def,
            "buildableLabel": spec.label if spec.build_def else None,
            "stuffDefName": "WoodLog" if spec.build_def in ("Wall", "Door", "Bed") else None,
            "zoneTypeName": None
            if spec.zone_kind in (None, "delete")
            else f"RimWorld.Zone_{'Growing' if spec.zone_kind == 'Growing' else 'Stockpile'}",
            "selectedZone": describe_zone(zone) if spec.application == "zone" else None,
            "selectedAllowedArea": describe_area(self._zones.selected_allowed_area())
            if spec.application == "area"
            else None,
            "dropdownActiveChildId": active_child if spec.children else None,
        }

    def state(self) -> dict[str, Any]:
        """The designator-state payload: the selected designator and allowed area."""
        ui = self._world.ui
        selected = None
        container = None
        if ui.designator is not None and self._world.game is not None:
            placed = self.resolve(ui.designator)
            selected = self.describe(placed)
            if placed.parent_id is not None:
                container = self.describe(self.resolve(placed.parent_id))
        return {
            "hasSelection": selected is not None,
            "selectedDesignatorId": None if selected is None else selected["id"],
            "selectedDesignator": selected,
            "selectedContainerDesignatorId": None if container is None else container["id"],
            "selectedContainerDesignator": container,
            "selectedAllowedArea": describe_area(self._zones.selected_allowed_area()),
            "unmappedSelectedDesignator": None,
        }

    def select(self, designator_id: str) -> Placed:
        self._world.require_colony()
        placed = self.resolve(designator_id)
        if placed.spec.children:
            raise RefusedError(
                f"Architect designator '{designator_id}' is a dropdown; select one of its children."
            )
        self._world.ui.designator = placed.id
        return placed

    # -- applying ----------------------------------------------------------------------------

    def refusal(self, placed: Placed, cell: Cell) -> str | None:
        """Why the designator cannot take ``cell`` (``None`` when it can)."""
        colony = self._world.require_colony()
        game = colony.game
        spec = placed.spec
        if not game.map.contains(cell):
            return "Cell is out of bounds."
        terrain = game.map.terrain_at(cell)
        if spec.cancel:
            if not any(d.cell == cell for d in game.designations.values()):
                return "There is nothing to cancel here."
            return None
        if spec.designation is not None:
            return colony.designation_refusal(spec.designation, cell)
        if spec.application == "build":
            assert spec.build_def is not None
            if spec.build_def in FLOOR_DEFS:
                if (
                    not terrain.passable
                    or terrain in (Terrain.MARSH,)
                    or terrain is FLOOR_DEFS[spec.build_def]
                ):
                    return f"Cannot lay {spec.label.lower()} on {terrain.value}."
                if any(
                    d.cell == cell and d.kind is DesignationKind.BUILD
                    for d in game.designations.values()
                ):
                    return "Something is already planned here."
                return None
            refusal = colony.designation_refusal(DesignationKind.BUILD, cell)
            if refusal is not None:
                return refusal
            return None
        if spec.application == "zone":
            return self._zones.zone_refusal(placed.id, spec.zone_kind or "", cell)
        if spec.application == "area" and spec.area is not None:
            return self._zones.area_refusal(spec.area[0], spec.area[1], cell)
        return "This designator cannot be applied to cells."

    def apply(
        self, designator_id: str, cells: list[Cell], *, dry_run: bool, keep_selected: bool
    ) -> tuple[Placed, list[Cell], list[dict[str, Any]]]:
        """Validate every cell and, unless ``dry_run``, designate the accepted ones."""
        self._world.require_colony()
        placed = self.resolve(designator_id)
        if placed.spec.children:
            raise RefusedError(
                f"Architect designator '{designator_id}' does not support direct cell application."
            )
        self._world.ui.designator = placed.id
        accepted: list[Cell] = []
        rejected: list[dict[str, Any]] = []
        for cell in cells:
            reason = self.refusal(placed, cell)
            if reason is None:
                accepted.append(cell)
            else:
                rejected.append({**cell_payload(cell), "accepted": False, "reason": reason})
        if accepted and not dry_run:
            self._designate(placed, accepted)
        if not keep_selected:
            self._world.ui.designator = None
        return placed, accepted, rejected

    def _designate(self, placed: Placed, cells: list[Cell]) -> None:
        world = self._world
        colony = world.require_colony()
        spec = placed.spec
        if spec.cancel:
            for cell in cells:
                for designation in [d for d in colony.game.designations.values() if d.cell == cell]:
                    colony.remove_designation(designation.id)
                    world.retire(designation.id, destroyed=True)
        elif spec.application == "zone":
            self._zones.apply_zone(placed.id, spec.zone_kind or "", cells)
        elif spec.application == "area" and spec.area is not None:
            self._zones.apply_area(spec.area[0], spec.area[1], cells)
        elif world.god_mode:
            self._instant(spec.designation, spec.build_def, cells)
        else:
            kind = spec.designation or DesignationKind.BUILD
            for cell in cells:
                colony.add_designation(kind, cell, spec.build_def, world.cause)
        world.emit(
            LogLevel.INFO, f"Designated {len(cells)} cell(s) with {spec.label}", "designator"
        )

    def _instant(
        self, kind: DesignationKind | None, build_def: str | None, cells: list[Cell]
    ) -> None:
        """God mode: what the designator asks for happens at once."""
        colony = self._world.require_colony()
        game = colony.game
        for cell in cells:
            if kind is None and build_def is not None:
                floor = FLOOR_DEFS.get(build_def)
                if floor is not None:
                    game.map.terrain[game.map.index(cell)] = floor
                else:
                    colony.new_thing(build_def, cell)
            elif kind is DesignationKind.MINE:
                game.map.terrain[game.map.index(cell)] = Terrain.ROUGH_STONE
            else:
                wanted = (
                    {
                        DesignationKind.CUT: ThingCategory.PLANT,
                        DesignationKind.DECONSTRUCT: ThingCategory.BUILDING,
                    }.get(kind)
                    if kind is not None
                    else None
                )
                for thing in colony.things_at(cell):
                    if wanted is not None and thing.definition.category is wanted:
                        colony.destroy(thing.id)

    def set_god_mode(self, enabled: bool) -> bool:
        previous = self._world.god_mode
        self._world.debug_settings["godMode"] = enabled
        return previous
