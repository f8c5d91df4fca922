"""The Architect menu and zones: discover designators by stable id, apply them to a cell
rectangle (mine, cut, haul, build, zones, areas), and manage zones and areas.

Designations carry this call's operation: the colonists who work them later log under it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import DEFAULT_PAYLOAD_CODES, NO_GAME_SENTENCE, call_spec
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import (
    Cell,
    InvalidArgumentError,
    InvalidCellError,
    MissingArgumentError,
    ProgramState,
    RefusedError,
    World,
    WorldError,
)
from rimbridge_sim.world.describe import cell_payload, describe_area, describe_cell, describe_zone

__all__ = ["ArchitectTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_ZONE_PAYLOAD = _NO_GAME | {InvalidArgumentError.code}
"""A zone or area tool answers a blank id in its payload too (``An id is required.``)."""
_STATE = (
    "designatorState {hasSelection, selectedDesignatorId, selectedDesignator, "
    "selectedContainerDesignatorId, selectedAllowedArea}"
)


def _failure(world: World, message: str, code: str) -> dict[str, Any]:
    """The mod's ``RimWorldArchitect.Failure``: the message, dev and god mode, and the tool
    state snapshot, then the sim's ``code`` (the reason as a word, as every payload failure)."""
    failure = {
        "success": False,
        "message": message,
        "devModeEnabled": world.dev_mode,
        "godMode": world.god_mode,
        "state": world.state_snapshot(),
    }
    return {**failure, "code": code}


def _without_map(world: World) -> dict[str, Any] | None:
    """The mod's Architect failure when there is no map to work on (its ``TryGetMapContext``):
    no game at all, or a game that is not playing yet; ``None`` when a map is there."""
    if not world.has_current_game():
        return _failure(world, NO_GAME_SENTENCE, "no_game")
    if world.game is None or world.program_state is not ProgramState.PLAYING:
        return _failure(world, "Architect tools require an active map.", "no_game")
    return None


def _zone_tool(body: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """A zone or area tool: its answer carries the tool ``state`` snapshot, as the mod's does,
    and a refusal is the mod's Architect failure (``devModeEnabled``, ``godMode``, ``state``)."""

    @functools.wraps(body)
    def run(self: ArchitectTools, *args: Any, **kwargs: Any) -> dict[str, Any]:
        world = self.host.world
        if (failure := _without_map(world)) is not None:
            return failure
        try:
            result = body(self, *args, **kwargs)
        except WorldError as error:
            if error.code not in _ZONE_PAYLOAD:
                raise
            # The mod's TryGetMapContext text when there is no game.
            message = NO_GAME_SENTENCE if error.code == "no_game" else error.message
            return _failure(world, message, error.code)
        return {**result, "state": world.state_snapshot()}

    return run


class ArchitectTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimworld/get_designator_state",
        "Show the Architect selection: the selected designator and allowed area, and god mode.",
        title="Get designator state",
        result_description=f"{{success, devModeEnabled, godMode, {_STATE}, state}}.",
    )
    @call_spec(world=True, quick=True)
    def get_designator_state(self) -> dict[str, Any]:
        world = self.host.world
        return {
            "success": True,
            "devModeEnabled": world.dev_mode,
            "godMode": world.god_mode,
            "designatorState": world.architect.state(),
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/list_architect_categories",
        "List the Architect categories (Orders, Zone, Structure, ...) with their stable ids.",
        title="List architect categories",
        result_description="{success, devModeEnabled, godMode, categoryCount, categories: "
        "[{id, categoryDefName, label, visible, order, designatorCount, "
        "actionableDesignatorCount, dropdownCount, buildDesignatorCount}], state}.",
    )
    @parameter("include_hidden", "Include categories that are hidden now.")
    @parameter("include_empty", "Include categories without designators.")
    @call_spec(world=True)
    def list_architect_categories(
        self, include_hidden: bool = False, include_empty: bool = False
    ) -> dict[str, Any]:
        world = self.host.world
        if (failure := _without_map(world)) is not None:
            return failure
        categories = world.architect.categories(
            include_hidden=include_hidden, include_empty=include_empty
        )
        return {
            "success": True,
            "devModeEnabled": world.dev_mode,
            "godMode": world.god_mode,
            "categoryCount": len(categories),
            "categories": [world.architect.describe_category(c) for c in categories],
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/list_architect_designators",
        "List one category's designators with stable ids, dropdowns flattened into their "
        "children (a dropdown itself cannot be applied).",
        title="List architect designators",
        result_description=f"{{success, category, designatorCount, designators: [{{id, "
        "parentId, kind, applicationKind, actionable, supportsRectangleApplication, label, "
        f"designationDefName, buildableDefName, selected}}], {_STATE}, state}}.",
    )
    @parameter(
        "category_id",
        "A category id from rimworld/list_architect_categories, or its def name (e.g. Orders).",
    )
    @parameter("include_hidden", "Include designators that are hidden now.")
    @call_spec(world=True)
    def list_architect_designators(
        self, category_id: str, include_hidden: bool = False
    ) -> dict[str, Any]:
        from rimbridge_sim.world._catalogue import all_designators

        world = self.host.world
        if (failure := _without_map(world)) is not None:
            return failure
        try:
            category = world.architect.category(category_id)
        except (RefusedError, MissingArgumentError) as error:
            return _failure(world, error.message, error.code)
        placed = all_designators(category)
        return {
            "success": True,
            "devModeEnabled": world.dev_mode,
            "godMode": world.god_mode,
            "category": world.architect.describe_category(category),
            "designatorCount": len(placed),
            "designators": [world.architect.describe(p) for p in placed],
            "designatorState": world.architect.state(),
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/select_architect_designator",
        "Select an Architect designator by its stable id (as clicking it in the menu does).",
        title="Select architect designator",
        result_description=f"{{success, designator, {_STATE}, state}}.",
    )
    @parameter("designator_id", "A designator id from rimworld/list_architect_designators.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def select_architect_designator(self, designator_id: str) -> dict[str, Any]:
        world = self.host.world
        if (failure := _without_map(world)) is not None:
            return failure
        try:
            placed = world.architect.select(designator_id)
        except (RefusedError, MissingArgumentError) as error:
            return _failure(world, error.message, error.code)
        return {
            "success": True,
            "designator": world.architect.describe(placed),
            "designatorState": world.architect.state(),
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/apply_architect_designator",
        "Apply an Architect designator to the cell rectangle starting at x/z (width x height "
        "cells), as dragging it does: cells it cannot take are listed with the reason; with "
        "dryRun nothing changes. Idle colonists take designated work on their own, carrying "
        "this call's operation.",
        title="Apply architect designator",
        result_description="{success (some cell accepted), dryRun, designator, "
        "requestedCellCount, acceptedCellCount, appliedCellCount, rejectedCellCount, "
        "acceptedCells: [{x, z}], rejectedCells: [{x, z, accepted, reason}], keepSelected, "
        "designatorState, sampleCell (one-cell calls), state}.",
    )
    @parameter("designator_id", "A designator id from rimworld/list_architect_designators.")
    @parameter("x", "The rectangle's first cell x.")
    @parameter("z", "The rectangle's first cell z.")
    @parameter("width", "Cells along x (from x).")
    @parameter("height", "Cells along z (from z).")
    @parameter("dry_run", "Only check the cells; change nothing.")
    @parameter("keep_selected", "Keep the designator selected afterwards.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def apply_architect_designator(
        self,
        designator_id: str,
        x: int,
        z: int,
        width: int = 1,
        height: int = 1,
        dry_run: bool = False,
        keep_selected: bool = True,
    ) -> dict[str, Any]:
        world = self.host.world
        if (failure := _without_map(world)) is not None:
            return failure
        if width <= 0 or height <= 0:
            return _failure(world, "Width and height must be positive.", RefusedError.code)
        if width * height > 10_000:
            return _failure(world, "At most 10000 cells per call.", RefusedError.code)
        cells = [Cell(x + dx, z + dz) for dz in range(height) for dx in range(width)]
        try:
            placed, accepted, rejected = world.architect.apply(
                designator_id, cells, dry_run=dry_run, keep_selected=keep_selected
            )
        except (RefusedError, MissingArgumentError) as error:
            return _failure(world, error.message, error.code)
        game = world.game
        sample = None
        if len(cells) == 1 and game is not None and game.map.contains(cells[0]):
            sample = describe_cell(world, cells[0])
        return {
            "success": bool(accepted),
            "dryRun": dry_run,
            "designator": world.architect.describe(placed),
            "requestedCellCount": len(cells),
            "acceptedCellCount": len(accepted),
            "appliedCellCount": 0 if dry_run else len(accepted),
            "rejectedCellCount": len(rejected),
            "acceptedCells": [cell_payload(c) for c in accepted],
            "rejectedCells": rejected,
            "keepSelected": keep_selected,
            "designatorState": world.architect.state(),
            "sampleCell": sample,
            "state": world.state_snapshot(),
            **({} if accepted else {"code": InvalidCellError.code}),
        }

    # -- zones and areas -----------------------------------------------------------------------

    @tool(
        "rimworld/list_zones",
        "List the current map's zones (stockpiles, growing zones).",
        title="List zones",
        result_description="{success, count, zones: [{id, label, className, cellCount, hidden, "
        "position, kind}], state}.",
    )
    @parameter("include_hidden", "Include hidden zones.")
    @parameter("include_empty", "Include zones without cells.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def list_zones(
        self, include_hidden: bool = False, include_empty: bool = False
    ) -> dict[str, Any]:
        zones = self.host.world.zones.zones(
            include_hidden=include_hidden, include_empty=include_empty
        )
        return {"success": True, "count": len(zones), "zones": [describe_zone(z) for z in zones]}

    @tool(
        "rimworld/list_areas",
        "List the current map's areas: home, roof areas and the player's allowed areas.",
        title="List areas",
        result_description="{success, count, selectedAllowedArea, areas: [{id, label, "
        "className, cellCount, listPriority, mutable, assignableAsAllowed}], state}.",
    )
    @parameter("include_empty", "Include areas without cells.")
    @parameter("include_assignable_only", "Only areas a colonist can be restricted to.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def list_areas(
        self, include_empty: bool = False, include_assignable_only: bool = False
    ) -> dict[str, Any]:
        zones = self.host.world.zones
        areas = zones.areas(include_empty=include_empty, assignable_only=include_assignable_only)
        return {
            "success": True,
            "count": len(areas),
            "selectedAllowedArea": describe_area(zones.selected_allowed_area()),
            "areas": [describe_area(a) for a in areas],
        }

    def _areas_result(self, **extra: Any) -> dict[str, Any]:
        world = self.host.world
        return {
            "success": True,
            **extra,
            "selectedAllowedArea": describe_area(world.zones.selected_allowed_area()),
            "designatorState": world.architect.state(),
        }

    @tool(
        "rimworld/create_allowed_area",
        "Create an allowed area (empty; grow it with the Expand allowed area designator) and "
        "select it as the allowed-area target unless select is false.",
        title="Create allowed area",
        result_description="{success, created, area, selectedAllowedArea, designatorState, state}.",
    )
    @parameter("label", "The area's name (Area N when omitted).")
    @parameter("select", "Make it the target of the allowed-area designators.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def create_allowed_area(self, label: str | None = None, select: bool = True) -> dict[str, Any]:
        area = self.host.world.zones.create_allowed(label, select)
        return self._areas_result(created=True, area=describe_area(area))

    @tool(
        "rimworld/select_allowed_area",
        "Choose the allowed area the allowed-area designators change; omit areaId to clear.",
        title="Select allowed area",
        result_description="{success, area | cleared, selectedAllowedArea, designatorState, "
        "state}.",
    )
    @parameter("area_id", "An area id from rimworld/list_areas; omit to clear the choice.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def select_allowed_area(self, area_id: str | None = None) -> dict[str, Any]:
        world = self.host.world
        area = world.zones.select_allowed(area_id)
        if area is None:
            return self._areas_result(cleared=True)
        # the mod names the selected allowed area first here, then the area asked for
        return {
            "success": True,
            "selectedAllowedArea": describe_area(world.zones.selected_allowed_area()),
            "area": describe_area(area),
            "designatorState": world.architect.state(),
        }

    @tool(
        "rimworld/set_zone_target",
        "Make a zone-add designator grow an existing zone instead of starting a new one; omit "
        "zoneId to clear.",
        title="Set zone target",
        result_description="{success, designator, zone | cleared, designatorState, state}.",
    )
    @parameter("designator_id", "A zone-add designator id (stockpile, growing zone).")
    @parameter("zone_id", "A zone id from rimworld/list_zones; omit to clear.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def set_zone_target(self, designator_id: str, zone_id: str | None = None) -> dict[str, Any]:
        world = self.host.world
        placed = world.architect.resolve(designator_id)
        kind = placed.spec.zone_kind
        if placed.spec.application != "zone" or kind in (None, "delete"):
            raise RefusedError(
                f"Architect designator '{designator_id}' does not support explicit "
                "existing-zone targeting."
            )
        # the mod selects the designator first (its TrySelectDescriptor), then sets the target
        world.architect.select(placed.id)
        zone = world.zones.set_target(placed.id, kind or "", zone_id, designator_id)
        designator = world.architect.describe(placed)
        if zone is None:
            return {
                "success": True,
                "cleared": True,
                "designator": designator,
                "designatorState": world.architect.state(),
            }
        return {
            "success": True,
            "designator": designator,
            "zone": describe_zone(zone),
            "designatorState": world.architect.state(),
        }

    @tool(
        "rimworld/clear_area",
        "Remove every cell from a player area (built-in areas cannot be cleared).",
        title="Clear area",
        result_description="{success, previousCellCount, area, selectedAllowedArea, "
        "designatorState, state}.",
    )
    @parameter("area_id", "An area id from rimworld/list_areas.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def clear_area(self, area_id: str) -> dict[str, Any]:
        zones = self.host.world.zones
        previous = len(zones.area(area_id).cells)
        area = zones.clear_area(area_id)
        return self._areas_result(previousCellCount=previous, area=describe_area(area))

    @tool(
        "rimworld/delete_area",
        "Delete a player area (built-in areas cannot be deleted).",
        title="Delete area",
        result_description="{success, deletedArea, selectedAllowedArea, designatorState, state}.",
    )
    @parameter("area_id", "An area id from rimworld/list_areas.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def delete_area(self, area_id: str) -> dict[str, Any]:
        deleted = describe_area(self.host.world.zones.delete_area(area_id))
        return self._areas_result(deletedArea=deleted)

    @tool(
        "rimworld/delete_zone",
        "Delete a zone and free its cells.",
        title="Delete zone",
        result_description="{success, deletedZone, designatorState, state}.",
    )
    @parameter("zone_id", "A zone id from rimworld/list_zones.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_zone_tool
    def delete_zone(self, zone_id: str) -> dict[str, Any]:
        world = self.host.world
        deleted = describe_zone(world.zones.delete_zone(zone_id))
        return {
            "success": True,
            "deletedZone": deleted,
            "designatorState": world.architect.state(),
        }
