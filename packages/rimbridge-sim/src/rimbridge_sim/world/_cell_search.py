"""Generic map searches: a random cell near an origin (RimWorld's expanding-radius finder) and
a flood fill from a root, both under the same footprint criteria. Part of the world
(``world.cell_search``)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from rimbridge_sim.world._architect import Architect
from rimbridge_sim.world._catalogue import Placed
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._pathing import find_path, neighbours
from rimbridge_sim.world.describe import cell_payload, fogged
from rimbridge_sim.world.errors import RefusedError
from rimbridge_sim.world.model import Cell
from rimbridge_sim.world.state import Pawn

__all__ = ["CellSearch", "Criteria"]


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

    def footprint(self, anchor: Cell) -> list[Cell]:
        origin = self.origin(anchor)
        return [
            Cell(origin.x + dx, origin.z + dz)
            for dz in range(self.height)
            for dx in range(self.width)
        ]

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
        colony = self._world.require_colony()
        game_map = colony.game.map
        if criteria.pawn is not None:
            path = find_path(
                criteria.pawn.position,
                [anchor],
                colony.path_passable(),
                game_map.width,
                game_map.height,
            )
            if path is None:
                return False
        for cell in criteria.footprint(anchor):
            if not game_map.contains(cell):
                return False
            if criteria.not_fogged and fogged(self._world, cell):
                return False
            passable = colony.passable(cell)
            if criteria.walkable and not passable:
                return False
            if criteria.standable and (
                not passable or any(not t.definition.standable for t in colony.things_at(cell))
            ):
                return False
            if criteria.no_impassable_things and any(
                not t.definition.passable for t in colony.things_at(cell)
            ):
                return False
            if criteria.designator is not None and self._architect.refusal(
                criteria.designator, cell
            ):
                return False
        return True

    def random_near(
        self, near: Cell, start_radius: int, max_radius: int, criteria: Criteria
    ) -> Cell | None:
        """A random cell satisfying ``criteria`` within a radius that grows from
        ``start_radius`` to ``max_radius`` (deterministic: the game's random stream)."""
        colony = self._world.require_colony()
        game_map = colony.game.map
        rng = colony.game.rng
        radius = start_radius
        tried: set[Cell] = set()
        while True:
            ring = [
                Cell(near.x + dx, near.z + dz)
                for dz in range(-radius, radius + 1)
                for dx in range(-radius, radius + 1)
                if dx * dx + dz * dz <= radius * radius
            ]
            ring = [c for c in ring if game_map.contains(c) and c not in tried]
            rng.shuffle(ring)
            for cell in ring:
                tried.add(cell)
                if self.satisfies(cell, criteria):
                    return cell
            if radius >= max_radius:
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
        accepted_root = self.satisfies(root, criteria)
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
                    if step not in seen and self.satisfies(step, criteria):
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
