"""Generic map searches: a random cell near an origin (RimWorld's expanding-radius finder) and
a flood fill from a root, both under the same footprint criteria. Part of the world
(``world.cell_search``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rimbridge_sim.world._architect import Architect
from rimbridge_sim.world._catalogue import Placed
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._pathing import neighbours, reachable_from
from rimbridge_sim.world.describe import cell_payload, fogged
from rimbridge_sim.world.errors import RefusedError
from rimbridge_sim.world.model import Cell
from rimbridge_sim.world.state import Pawn, Thing

__all__ = ["CellSearch", "Criteria", "Probe"]


@dataclass
class Criteria:
    width: int = 1
    height: int = 1
    anchor: str = "top_left"
    walkable: bool = False
    standable: bool = False
    not_fogged: bool = False
    no_impassable_things: bool = False
    pawn: Pawn | None = None
    pawn_name: str | None = None
    pawn_id: str | None = None
    designator: Placed | None = None

    def origin(self, anchor: Cell) -> Cell:
        if self.anchor == "center":
            return Cell(anchor.x - self.width // 2, anchor.z - self.height // 2)
        return anchor

    def cells(self, anchor: Cell) -> Iterator[Cell]:
        """The footprint's cells, row by row, made one at a time (as the mod walks them): a
        check that stops at the first bad cell never builds a huge footprint."""
        origin = self.origin(anchor)
        for dz in range(self.height):
            for dx in range(self.width):
                yield Cell(origin.x + dx, origin.z + dz)

    def inside(self, anchor: Cell, width: int, height: int) -> bool:
        """Whether the whole footprint lies on a ``width`` x ``height`` map (the mod's walk
        fails at its first cell outside the map, whatever else it checks)."""
        origin = self.origin(anchor)
        return (
            origin.x >= 0
            and origin.z >= 0
            and origin.x + self.width <= width
            and origin.z + self.height <= height
        )

    def footprint(self, anchor: Cell) -> list[Cell]:
        return list(self.cells(anchor))

    def to_wire(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "footprintAnchor": self.anchor,
            "requireWalkable": self.walkable,
            "requireStandable": self.standable,
            "requireNotFogged": self.not_fogged,
            "requireNoImpassableThings": self.no_impassable_things,
            "reachablePawnName": self.pawn_name,
            "reachablePawnId": self.pawn_id,
            "designator": None
            if self.designator is None
            else {
                "id": self.designator.id,
                "label": self.designator.spec.label,
                "className": self.designator.spec.class_name,
                "applicationKind": self.designator.spec.application,
            },
        }


class CellSearch:
    def __init__(self, world: WorldCore, architect: Architect) -> None:
        self._world = world
        self._architect = architect

    def criteria(
        self,
        *,
        width: int,
        height: int,
        anchor: str,
        walkable: bool,
        standable: bool,
        not_fogged: bool,
        no_impassable_things: bool,
        pawn_name: str | None,
        pawn_id: str | None,
        designator_id: str | None,
    ) -> Criteria:
        if width <= 0 or height <= 0:
            raise RefusedError("Width and height must be positive.")
        normalized = (anchor or "top_left").strip().lower()
        if normalized in ("top_left", "top-left", "origin", ""):
            normalized = "top_left"
        elif normalized in ("center", "centre"):
            normalized = "center"
        else:
            raise RefusedError(
                f"Unsupported footprintAnchor '{anchor}'. Use 'top_left' or 'center'."
            )
        pawn = None
        if (pawn_name and pawn_name.strip()) or (pawn_id and pawn_id.strip()):
            pawn = self._world.resolve_pawn(pawn_name, pawn_id, what="current-map pawn")
        placed = None
        if designator_id and designator_id.strip():
            placed = self._architect.resolve(designator_id)
            if placed.spec.children:
                raise RefusedError(
                    f"Architect designator '{designator_id}' does not support direct cell "
                    "validation."
                )
        return Criteria(
            width,
            height,
            normalized,
            walkable,
            standable,
            not_fogged,
            no_impassable_things,
            pawn,
            pawn_name,
            pawn_id,
            placed,
        )

    def satisfies(self, anchor: Cell, criteria: Criteria) -> bool:
        return self.probe(criteria).satisfies(anchor)

    def probe(self, criteria: Criteria) -> Probe:
        """A checker of many candidate cells under ``criteria`` (valid while the world does
        not change)."""
        return Probe(self._world, self._architect, criteria)

    def random_near(
        self, near: Cell, start_radius: int, max_radius: int, criteria: Criteria
    ) -> Cell | None:
        """A random cell satisfying ``criteria`` within a radius that grows from
        ``start_radius`` to ``max_radius`` (deterministic: the game's random stream).

        Only cells on the map are candidates, each tried once, so the work is bounded by the
        map's size whatever the radii: the search ends once every cell has been tried."""
        colony = self._world.require_colony()
        game_map = colony.game.map
        rng = colony.game.rng
        probe = self.probe(criteria)
        radius = start_radius
        tried: set[Cell] = set()
        total = game_map.width * game_map.height
        while True:
            ring = [
                cell
                for cell in _disk_on_map(near, radius, game_map.width, game_map.height)
                if cell not in tried
            ]
            rng.shuffle(ring)
            for cell in ring:
                tried.add(cell)
                if probe.satisfies(cell):
                    return cell
            if radius >= max_radius or len(tried) >= total:
                return None
            radius = min(max_radius, radius * 2)

    def flood_fill(
        self,
        root: Cell,
        criteria: Criteria,
        max_cells: int,
        minimum: int,
        max_returned: int,
    ) -> dict[str, Any]:
        colony = self._world.require_colony()
        game_map = colony.game.map
        probe = self.probe(criteria)
        accepted_root = probe.satisfies(root)
        visited = 0
        returned: list[Cell] = []
        farthest = 0
        stopped = False
        bounds: list[int] | None = None
        if accepted_root:
            queue: deque[tuple[Cell, int]] = deque([(root, 0)])
            seen = {root}
            while queue and visited < max_cells:
                cell, distance = queue.popleft()
                visited += 1
                if len(returned) < max_returned:
                    returned.append(cell)
                farthest = max(farthest, distance)
                if bounds is None:
                    bounds = [cell.x, cell.x, cell.z, cell.z]
                else:
                    bounds = [
                        min(bounds[0], cell.x),
                        max(bounds[1], cell.x),
                        min(bounds[2], cell.z),
                        max(bounds[3], cell.z),
                    ]
                if minimum > 0 and visited >= minimum:
                    stopped = True
                    break
                for step in neighbours(cell, game_map.width, game_map.height):
                    if step.x != cell.x and step.z != cell.z:
                        continue  # four-connected, as RimWorld's flood filler
                    if step not in seen and probe.satisfies(step):
                        seen.add(step)
                        queue.append((step, distance + 1))
        meets = visited >= minimum if minimum > 0 else visited > 0
        if not accepted_root:
            message = "The root cell did not satisfy the requested criteria."
        elif meets:
            message = None
        else:
            message = (
                f"Flood fill found {visited} matching cells, below the requested minimum of "
                f"{minimum}."
            )
        return {
            "success": meets,
            "message": message,
            "method": "Verse.FloodFiller.FloodFill",
            "root": cell_payload(root),
            "rootAccepted": accepted_root,
            "visitedCellCount": visited,
            "minimumCellCount": minimum,
            "maxCellsToProcess": max_cells,
            "hitCellProcessingLimit": accepted_root and not stopped and visited >= max_cells,
            "maxTraversalDistance": farthest,
            "stoppedEarly": stopped,
            "returnedCellCount": len(returned),
            "returnedCellsTruncated": len(returned) < visited,
            "cells": [cell_payload(c) for c in returned],
            "bounds": None
            if bounds is None
            else {
                "minX": bounds[0],
                "maxX": bounds[1],
                "minZ": bounds[2],
                "maxZ": bounds[3],
                "width": bounds[1] - bounds[0] + 1,
                "height": bounds[3] - bounds[2] + 1,
            },
            "criteria": criteria.to_wire(),
        }

    def footprint_payload(self, anchor: Cell, criteria: Criteria) -> dict[str, Any]:
        cells = criteria.footprint(anchor)
        return {
            "anchor": cell_payload(anchor),
            "anchorMode": criteria.anchor,
            "origin": cell_payload(criteria.origin(anchor)),
            "width": criteria.width,
            "height": criteria.height,
            "cellCount": len(cells),
            "cells": [cell_payload(c) for c in cells],
        }


_WALK_LIMIT = 64
"""A footprint of more cells is checked against a table of counts over the map instead of
cell by cell: the answer is the same, in constant time per candidate."""


def _disk_on_map(near: Cell, radius: int, width: int, height: int) -> Iterator[Cell]:
    """The cells within ``radius`` of ``near`` that lie on the map, row by row: the rows and
    columns are clipped to the map first, so a huge radius costs no more than the map."""
    limit = radius * radius
    for z in range(max(0, near.z - radius), min(height, near.z + radius + 1)):
        dz = z - near.z
        for x in range(max(0, near.x - radius), min(width, near.x + radius + 1)):
            dx = x - near.x
            if dx * dx + dz * dz <= limit:
                yield Cell(x, z)


class Probe:
    """One search's view of the map, built once per call: the things indexed by cell and,
    with a reachable pawn, the cells it can reach (the world does not change during a call)."""

    def __init__(self, world: WorldCore, architect: Architect, criteria: Criteria) -> None:
        colony = world.require_colony()
        game_map = colony.game.map
        self._world = world
        self._architect = architect
        self._criteria = criteria
        self._width = game_map.width
        self._height = game_map.height
        self._map = game_map
        carried = colony.carried_ids()
        self._things: dict[Cell, list[Thing]] = {}
        for thing in colony.game.things.values():
            if thing.id not in carried:
                self._things.setdefault(thing.position, []).append(thing)
        self._per_cell = (
            criteria.not_fogged
            or criteria.walkable
            or criteria.standable
            or criteria.no_impassable_things
            or criteria.designator is not None
        )
        self._cell_ok: dict[Cell, bool] = {}
        self._table: list[int] | None = None
        self._reachable: set[Cell] | None = None
        if criteria.pawn is not None:
            self._reachable = reachable_from(
                criteria.pawn.position, colony.path_passable(), self._width, self._height
            )

    def satisfies(self, anchor: Cell) -> bool:
        criteria = self._criteria
        if not criteria.inside(anchor, self._width, self._height):
            return False
        if self._reachable is not None and anchor not in self._reachable:
            return False
        if not self._per_cell:
            return True
        if criteria.width * criteria.height > _WALK_LIMIT:
            return self._bad_cells_in(criteria.origin(anchor)) == 0
        known = self._cell_ok
        for cell in criteria.cells(anchor):
            ok = known.get(cell)
            if ok is None:
                ok = known[cell] = self._check(cell)
            if not ok:
                return False
        return True

    def _bad_cells_in(self, origin: Cell) -> int:
        """How many cells of the footprint at ``origin`` fail the per-cell criteria, from a
        table of running counts over the whole map (built at the first large footprint)."""
        if self._table is None:
            row_width = self._width + 1
            table = [0] * (row_width * (self._height + 1))
            for z in range(self._height):
                running = 0
                for x in range(self._width):
                    running += not self._check(Cell(x, z))
                    table[(z + 1) * row_width + x + 1] = table[z * row_width + x + 1] + running
            self._table = table
        table, row_width = self._table, self._width + 1
        x0, z0 = origin.x, origin.z
        x1, z1 = x0 + self._criteria.width, z0 + self._criteria.height
        return (
            table[z1 * row_width + x1]
            - table[z0 * row_width + x1]
            - table[z1 * row_width + x0]
            + table[z0 * row_width + x0]
        )

    def _check(self, cell: Cell) -> bool:
        """One footprint cell against the per-cell criteria (the same answer for every
        footprint it is part of, so each cell is checked once per search)."""
        criteria = self._criteria
        if criteria.not_fogged and fogged(self._world, cell):
            return False
        things = self._things.get(cell, ())
        passable = self._map.terrain_at(cell).passable and all(
            t.definition.passable for t in things
        )
        if criteria.walkable and not passable:
            return False
        if criteria.standable and (not passable or any(not t.definition.standable for t in things)):
            return False
        if criteria.no_impassable_things and any(not t.definition.passable for t in things):
            return False
        return criteria.designator is None or not self._architect.refusal(criteria.designator, cell)
