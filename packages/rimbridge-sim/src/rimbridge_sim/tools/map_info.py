"""Reading the map: one cell, a rectangle of cells, where a pawn or thing is, and generic
searches (a random cell near a point, a flood fill) under footprint criteria."""

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
    RefusedError,
    WorldError,
)
from rimbridge_sim.world._camera import rect_payload
from rimbridge_sim.world._cell_search import Criteria
from rimbridge_sim.world.describe import (
    cell_payload,
    describe_cell,
    describe_pawn,
    describe_thing,
    label_cap,
)

__all__ = ["MapInfoTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_CELL = (
    "{x, z, terrainDefName, roofDefName, fogged, walkable, thingCount, designationCount, "
    "blueprintBuildDefs, frameBuildDefs, solidThingDefs, zone, areaCount, areas, things, "
    "designations}"
)
_CRITERIA = {
    "width": "Footprint width in cells.",
    "height": "Footprint height in cells.",
    "footprint_anchor": "top_left or center: where the footprint sits on the candidate cell.",
    "require_walkable": "Every footprint cell walkable.",
    "require_standable": "Every footprint cell standable (no wall, table, water or rock).",
    "require_not_fogged": "Every footprint cell visible (not inside a mountain).",
    "require_no_impassable_things": "No wall or other impassable thing on the footprint.",
    "reachable_pawn_name": "The cell must be reachable by this pawn (by name).",
    "reachable_pawn_id": "The cell must be reachable by this pawn (by id).",
    "designator_id": "Every footprint cell must be valid for this Architect designator.",
}


def _criteria_parameters(function: Any) -> Any:
    for name, text in reversed(list(_CRITERIA.items())):
        function = parameter(name, text)(function)
    return function


_MAX_CELLS = 1024
"""The most cells rimworld/get_cells_info describes in one call, as in the mod."""


def _architect_failures(body: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """A cell tool refuses as the mod's Architect tools do: ``{success: false, message,
    devModeEnabled, godMode, state}``, then the sim's ``code``."""

    @functools.wraps(body)
    def run(self: MapInfoTools, *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return body(self, *args, **kwargs)
        except WorldError as error:
            if error.code not in _NO_GAME:
                raise
            world = self.host.world
            # The mod's TryGetMapContext text when there is no game.
            message = NO_GAME_SENTENCE if error.code == "no_game" else error.message
            return {
                "success": False,
                "message": message,
                "devModeEnabled": world.dev_mode,
                "godMode": world.god_mode,
                "state": world.state_snapshot(),
                "code": error.code,
            }

    return run


def _out_of_bounds(cell: Cell) -> InvalidCellError:
    return InvalidCellError(f"Cell ({cell.x}, {cell.z}) is out of bounds for the current map.")


class MapInfoTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimworld/get_cell_info",
        "Describe one cell: terrain, roof, fog, things, pawns, designations and blueprints, "
        "zone and areas.",
        title="Get cell info",
        result_description=f"{{success, cell: {_CELL}, state}}; a cell outside the map is a "
        "payload failure.",
    )
    @parameter("x", "Cell x (west to east, from 0).")
    @parameter("z", "Cell z (south to north, from 0).")
    @call_spec(world=True, quick=True, payload_codes=_NO_GAME)
    @_architect_failures
    def get_cell_info(self, x: int, z: int) -> dict[str, Any]:
        world = self.host.world
        cell = Cell(x, z)
        if not world.require_colony().game.map.contains(cell):
            raise _out_of_bounds(cell)
        return {
            "success": True,
            "cell": describe_cell(world, cell),
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/get_cells_info",
        "Describe every cell of a rectangle (at most 1024 cells).",
        title="Get cells info",
        result_description=f"{{success, rect, cellCount, cells: [{_CELL}], state}}.",
    )
    @parameter("x", "The rectangle's first cell x.")
    @parameter("z", "The rectangle's first cell z.")
    @parameter("width", "Cells along x; width * height at most 1024.")
    @parameter("height", "Cells along z; width * height at most 1024.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_architect_failures
    def get_cells_info(self, x: int, z: int, width: int = 1, height: int = 1) -> dict[str, Any]:
        world = self.host.world
        game = world.require_colony().game
        if width <= 0 or height <= 0:
            raise RefusedError("Width and height must be positive.")
        if width * height > _MAX_CELLS:
            raise RefusedError(
                f"Requested rectangle contains {width * height} cells, which exceeds the limit "
                f"of {_MAX_CELLS}."
            )
        cells = [Cell(x + dx, z + dz) for dz in range(height) for dx in range(width)]
        outside = [c for c in cells if not game.map.contains(c)]
        if outside:
            raise _out_of_bounds(outside[0])
        return {
            "success": True,
            "rect": {"x": x, "z": z, "width": width, "height": height},  # no maxX/maxZ here
            "cellCount": len(cells),
            "cells": [describe_cell(world, c) for c in cells],
            "state": world.state_snapshot(),
        }

    @tool(
        "rimworld/get_map_target_info",
        "Find a pawn (by name or id) or a thing (by id) on the map: its cell and rectangle.",
        title="Get map target info",
        result_description="{success, kind: 'pawn' | 'thing', label, thingId, pawnId, mapId, "
        "position, cellRect, target}.",
    )
    @parameter("thing_id", "A thing id (alternative to pawnName / pawnId).")
    @parameter("pawn_name", "A pawn's name.")
    @parameter("pawn_id", "A pawn's id.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def get_map_target_info(
        self, thing_id: str | None = None, pawn_name: str | None = None, pawn_id: str | None = None
    ) -> dict[str, Any]:
        world = self.host.world
        game = world.require_colony().game
        has_thing = bool(thing_id and thing_id.strip())
        has_pawn = bool((pawn_name and pawn_name.strip()) or (pawn_id and pawn_id.strip()))
        if has_thing == has_pawn:
            return {
                "success": False,
                "message": "Provide either thingId or pawnName/pawnId.",
                "code": InvalidArgumentError.code,
            }
        # The mod resolves a thingId among all the map's things, pawns included.
        pawn = game.pawns.get(thing_id.strip()) if thing_id and has_thing else None
        if has_thing and pawn is None:
            assert thing_id is not None
            thing = world.thing_by_id(thing_id.strip())
            target, kind, label, position = (
                describe_thing(world, thing),
                "thing",
                label_cap(thing),
                thing.position,
            )
            pawn_ref = None
        else:
            if pawn is None:
                pawn = world.resolve_pawn(pawn_name, pawn_id, what="current-map pawn")
            target, kind, label, position = (
                describe_pawn(world, pawn),
                "pawn",
                pawn.nickname,
                pawn.position,
            )
            pawn_ref = pawn.id
        return {
            "success": True,
            "kind": kind,
            "label": label,
            "thingId": target.get("thingId") or target.get("pawnId"),
            "pawnId": pawn_ref,
            "mapId": game.map.id,
            "mapIndex": 0,
            "position": cell_payload(position),
            "cellRect": rect_payload(position.x, position.z, 1, 1),
            "target": target,
        }

    def _criteria(self, **options: Any) -> Criteria:
        return self.host.world.cell_search.criteria(**options)

    @tool(
        "rimworld/find_random_cell_near",
        "Find a random cell near a point whose footprint meets the criteria, searching a "
        "radius that grows from startingSearchRadius to maxSearchRadius (deterministic for a "
        "seed).",
        title="Find random cell near",
        result_description="{success, method, near, cell, cellInfo, footprint, "
        "startingSearchRadius, maxSearchRadius, criteria, state}; none found is {success: "
        "false, message, ...}.",
    )
    @parameter("x", "Origin cell x.")
    @parameter("z", "Origin cell z.")
    @parameter("starting_search_radius", "First search radius, in cells.")
    @parameter("max_search_radius", "Largest search radius, in cells.")
    @_criteria_parameters
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_architect_failures
    def find_random_cell_near(
        self,
        x: int,
        z: int,
        starting_search_radius: int = 5,
        max_search_radius: int = 60,
        width: int = 1,
        height: int = 1,
        footprint_anchor: str = "top_left",
        require_walkable: bool = False,
        require_standable: bool = False,
        require_not_fogged: bool = False,
        require_no_impassable_things: bool = False,
        reachable_pawn_name: str | None = None,
        reachable_pawn_id: str | None = None,
        designator_id: str | None = None,
    ) -> dict[str, Any]:
        world = self.host.world
        game = world.require_colony().game
        if starting_search_radius <= 0:
            raise RefusedError("startingSearchRadius must be positive.")
        if max_search_radius < starting_search_radius:
            raise RefusedError(
                "maxSearchRadius must be greater than or equal to startingSearchRadius."
            )
        criteria = self._criteria(
            width=width,
            height=height,
            anchor=footprint_anchor,
            walkable=require_walkable,
            standable=require_standable,
            not_fogged=require_not_fogged,
            no_impassable_things=require_no_impassable_things,
            pawn_name=reachable_pawn_name,
            pawn_id=reachable_pawn_id,
            designator_id=designator_id,
        )
        near = Cell(x, z)
        if not game.map.contains(near):
            raise InvalidCellError(f"Cell ({x}, {z}) is out of bounds for the current map.")
        found = world.cell_search.random_near(
            near, starting_search_radius, max_search_radius, criteria
        )
        common = {
            "method": "RimWorld.RCellFinder.TryFindRandomCellNearWith",
            "near": cell_payload(near),
            "startingSearchRadius": starting_search_radius,
            "maxSearchRadius": max_search_radius,
            "criteria": criteria.to_wire(),
            "state": world.state_snapshot(),
        }
        if found is None:
            return {
                "success": False,
                "message": f"Could not find a nearby cell that satisfied the requested criteria "
                f"near ({x}, {z}).",
                **common,
                "code": InvalidCellError.code,
            }
        return {
            "success": True,
            "cell": cell_payload(found),
            "cellInfo": describe_cell(world, found),
            "footprint": world.cell_search.footprint_payload(found, criteria),
            **common,
        }

    @tool(
        "rimworld/flood_fill_cells",
        "Flood-fill from a root cell through neighbouring cells that meet the criteria, up to "
        "a processing limit, and report the area found.",
        title="Flood fill cells",
        result_description="{success, message, method, root, rootAccepted, visitedCellCount, "
        "minimumCellCount, maxCellsToProcess, hitCellProcessingLimit, maxTraversalDistance, "
        "stoppedEarly, returnedCellCount, returnedCellsTruncated, cells, bounds, criteria, "
        "state}.",
    )
    @parameter("x", "Root cell x.")
    @parameter("z", "Root cell z.")
    @parameter("max_cells_to_process", "Stop after visiting this many cells.")
    @parameter("minimum_cell_count", "Stop early once this many cells matched (0: no minimum).")
    @parameter("max_returned_cells", "Most cells to list in the answer.")
    @_criteria_parameters
    @call_spec(world=True, payload_codes=_NO_GAME)
    @_architect_failures
    def flood_fill_cells(
        self,
        x: int,
        z: int,
        max_cells_to_process: int = 256,
        minimum_cell_count: int = 0,
        max_returned_cells: int = 64,
        width: int = 1,
        height: int = 1,
        footprint_anchor: str = "top_left",
        require_walkable: bool = False,
        require_standable: bool = False,
        require_not_fogged: bool = False,
        require_no_impassable_things: bool = False,
        reachable_pawn_name: str | None = None,
        reachable_pawn_id: str | None = None,
        designator_id: str | None = None,
    ) -> dict[str, Any]:
        world = self.host.world
        game = world.require_colony().game
        if max_cells_to_process <= 0:
            raise RefusedError("maxCellsToProcess must be positive.")
        if minimum_cell_count < 0:
            raise RefusedError("minimumCellCount cannot be negative.")
        if max_returned_cells < 0:
            raise RefusedError("maxReturnedCells cannot be negative.")
        criteria = self._criteria(
            width=width,
            height=height,
            anchor=footprint_anchor,
            walkable=require_walkable,
            standable=require_standable,
            not_fogged=require_not_fogged,
            no_impassable_things=require_no_impassable_things,
            pawn_name=reachable_pawn_name,
            pawn_id=reachable_pawn_id,
            designator_id=designator_id,
        )
        root = Cell(x, z)
        if not game.map.contains(root):
            raise InvalidCellError(f"Cell ({x}, {z}) is out of bounds for the current map.")
        # No cap of the sim's own: the fill visits each map cell at most once, so the
        # requested limit is the one used and echoed, as in the mod.
        result = world.cell_search.flood_fill(
            root, criteria, max_cells_to_process, minimum_cell_count, max_returned_cells
        )
        return {**result, "state": world.state_snapshot()}
