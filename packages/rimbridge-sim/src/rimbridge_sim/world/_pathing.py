"""Breadth-first paths over the 8-connected cell grid (no corner cutting)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection

from rimbridge_sim.world.model import Cell

__all__ = ["find_path", "neighbours", "reachable_from"]

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def neighbours(cell: Cell, width: int, height: int) -> list[Cell]:
    """The in-bounds cells around ``cell``, straight ones first."""
    result = []
    for dx, dz in _STEPS:
        x, z = cell.x + dx, cell.z + dz
        if 0 <= x < width and 0 <= z < height:
            result.append(Cell(x, z))
    return result


def _step_allowed(current: Cell, step: Cell, passable: Callable[[Cell], bool]) -> bool:
    if not passable(step):
        return False
    return (
        step.x == current.x
        or step.z == current.z
        or (passable(Cell(step.x, current.z)) and passable(Cell(current.x, step.z)))
    )


def find_path(
    start: Cell,
    goals: Collection[Cell],
    passable: Callable[[Cell], bool],
    width: int,
    height: int,
) -> list[Cell] | None:
    """The shortest walk from ``start`` to the nearest of ``goals``.

    The path excludes ``start`` and ends on the goal reached (``[]`` when ``start`` is a goal);
    ``None`` when no goal can be reached. Diagonal steps need both straight neighbours to be
    passable, as in RimWorld.
    """
    goal_set = set(goals)
    if not goal_set:
        return None
    if start in goal_set:
        return []
    came_from: dict[Cell, Cell] = {start: start}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for step in neighbours(current, width, height):
            if step in came_from or not _step_allowed(current, step, passable):
                continue
            came_from[step] = current
            if step in goal_set:
                path = [step]
                while came_from[path[-1]] != start:
                    path.append(came_from[path[-1]])
                path.reverse()
                return path
            queue.append(step)
    return None


def reachable_from(
    start: Cell, passable: Callable[[Cell], bool], width: int, height: int
) -> set[Cell]:
    """Every cell :func:`find_path` can reach from ``start`` (``start`` itself included), found
    in one walk: a search that asks about many goals asks this once."""
    seen = {start}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for step in neighbours(current, width, height):
            if step not in seen and _step_allowed(current, step, passable):
                seen.add(step)
                queue.append(step)
    return seen
