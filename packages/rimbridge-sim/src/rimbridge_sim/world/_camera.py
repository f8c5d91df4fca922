"""The map camera: jumping, moving, zooming and framing pawns or cell rectangles.
A subsystem of the world (``world.camera``)."""

from __future__ import annotations

from typing import Any, Final

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH, describe_camera
from rimbridge_sim.world.errors import RefusedError
from rimbridge_sim.world.model import Cell
from rimbridge_sim.world.state import Camera, Pawn

__all__ = ["MAX_ROOT_SIZE", "MIN_ROOT_SIZE", "CameraControl", "rect_payload"]

MIN_ROOT_SIZE: Final = 8.0
MAX_ROOT_SIZE: Final = 140.0
CONFIG_MAX_ROOT_SIZE: Final = 100.0
"""The top of the camera's configured zoom range while the mod runs (its full editor range)."""


def rect_payload(x: int, z: int, width: int, height: int) -> dict[str, int]:
    return {
        "x": x,
        "z": z,
        "width": width,
        "height": height,
        "maxX": x + width - 1,
        "maxZ": z + height - 1,
    }


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


class CameraControl:
    """Where the camera looks and how far it is zoomed out."""

    def __init__(self, world: WorldCore) -> None:
        self._world = world

    @property
    def camera(self) -> Camera:
        return self._world.ui.camera

    def state(self) -> dict[str, Any]:
        return describe_camera(self._world)

    def jump_to(self, cell: Cell) -> None:
        self.camera.x, self.camera.z = cell.x + 0.5, cell.z + 0.5

    def move(self, delta_x: float, delta_z: float) -> Cell:
        """Move from the cell the camera is over (its ``mapPosition``, the position truncated)
        by the deltas rounded half to even, kept on the map, as the mod moves it."""
        game = self._world.require_colony().game
        target = Cell(
            int(_clamp(round(int(self.camera.x) + delta_x), 0, game.map.width - 1)),
            int(_clamp(round(int(self.camera.z) + delta_z), 0, game.map.height - 1)),
        )
        self.jump_to(target)
        return target

    def zoom(self, delta: float) -> float:
        self.camera.root_size = _clamp(self.camera.root_size + delta, MIN_ROOT_SIZE, MAX_ROOT_SIZE)
        return self.camera.root_size

    def set_zoom(self, root_size: float) -> float:
        self.camera.root_size = _clamp(root_size, MIN_ROOT_SIZE, MAX_ROOT_SIZE)
        return self.camera.root_size

    def frame_pawns(self, pawns: list[Pawn]) -> float:
        if not pawns:
            raise RefusedError("No spawned pawns were available to frame.")
        xs = [p.position.x for p in pawns]
        zs = [p.position.z for p in pawns]
        self.camera.x = sum(xs) / len(xs) + 0.5
        self.camera.z = sum(zs) / len(zs) + 0.5
        span = max(max(xs) - min(xs) + 1, max(zs) - min(zs) + 1)
        self.camera.root_size = _clamp(span * 0.9 + 12, MIN_ROOT_SIZE, MAX_ROOT_SIZE)
        return self.camera.root_size

    def frame_rect(
        self, x: int, z: int, width: int, height: int, padding: int, root_size: float
    ) -> dict[str, Any]:
        """Centre a cell rectangle plus ``padding`` cells; zoom to ``root_size`` when > 0,
        else keep the zoom (and report whether the rectangle is fully visible)."""
        game = self._world.require_colony().game
        if width <= 0 or height <= 0:
            raise RefusedError("width and height must both be greater than zero.")
        if not game.map.contains(Cell(x, z)) or not game.map.contains(
            Cell(x + width - 1, z + height - 1)
        ):
            raise RefusedError(
                f"Requested rect ({x}, {z}, {width}, {height}) is out of bounds for the current "
                "map."
            )
        padding = max(0, padding)
        # the padding stops at the map's edges, as the mod's padded rect does
        min_x, min_z = max(0, x - padding), max(0, z - padding)
        max_x = min(game.map.width - 1, x + width - 1 + padding)
        max_z = min(game.map.height - 1, z + height - 1 + padding)
        padded = (min_x, min_z, max_x - min_x + 1, max_z - min_z + 1)
        required = _clamp(
            max(padded[3] / 2, padded[2] / 2 * SCREEN_HEIGHT / SCREEN_WIDTH), 0.01, MAX_ROOT_SIZE
        )
        mode = "explicit" if root_size > 0 else "current"
        # an explicit size is held to the camera's configured range, which the mod widens to
        # the editor's full 0..100 (not the 8..140 the zoom tools clamp to)
        applied = _clamp(root_size, 0.0, CONFIG_MAX_ROOT_SIZE) if root_size > 0 else None
        self.camera.x = (min_x + max_x + 1) / 2
        self.camera.z = (min_z + max_z + 1) / 2
        if applied is not None:
            self.camera.root_size = applied
        applied_size = self.camera.root_size
        return {
            "requestedRect": rect_payload(x, z, width, height),
            "paddedRect": rect_payload(*padded),
            "paddingCells": padding,
            "fullyVisible": applied_size >= required,
            "rootSizeMode": mode,
            "requestedRootSize": root_size if root_size > 0 else None,
            "requiredRootSize": round(required, 3),
            "appliedRootSize": round(applied_size, 3),
            "preparedFrameCount": self._world.frame,
        }

    def snapshot(self) -> Camera:
        return Camera(self.camera.x, self.camera.z, self.camera.root_size)

    def restore(self, saved: Camera) -> None:
        self.camera.x, self.camera.z, self.camera.root_size = saved.x, saved.z, saved.root_size
