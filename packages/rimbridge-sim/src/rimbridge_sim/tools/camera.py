"""The map camera: where it looks and how far it is zoomed out (RimWorld's rootSize: half the
visible height in cells, 8 to 140)."""

from __future__ import annotations

from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import call_spec
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import Cell, InvalidCellError, RefusedError
from rimbridge_sim.world.describe import describe_pawn

__all__ = ["CameraTools", "frame_refusal", "parse_list"]

_CAMERA = (
    "camera {success, mapId, rootSize, zoomRootSize, zoomRange, mapPosition {x, z}, viewRect "
    "{minX, minZ, maxX, maxZ, width, height}}"
)


def parse_list(text: str | None) -> list[str]:
    """Names or ids separated by commas, semicolons, pipes or new lines."""
    if text is None:
        return []
    for separator in ";|\n":
        text = text.replace(separator, ",")
    return [part.strip() for part in text.split(",") if part.strip()]


def frame_refusal(
    refused: RefusedError,
    x: int,
    z: int,
    width: int,
    height: int,
    padding_cells: int,
    root_size: float,
) -> dict[str, Any]:
    """The mod's answer when a cell rect cannot be framed: the rect as asked, the padding and
    the root size (``frame_cell_rect``; ``screenshot_cell_rect`` adds ``cameraBefore``)."""
    return {
        "success": False,
        "message": refused.message,
        "requestedRect": {
            "x": x,
            "z": z,
            "width": width,
            "height": height,
            "maxX": x + width - 1 if width > 0 else x - 1,
            "maxZ": z + height - 1 if height > 0 else z - 1,
        },
        "paddingCells": max(padding_cells, 0),
        "rootSize": root_size,
        "code": refused.code,
    }


class CameraTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimworld/get_camera_state",
        "Show the camera: the cell it centres on, the zoom and the visible cell rectangle.",
        title="Get camera state",
        result_description="{success, map, mapId, mapIndex, rootSize, zoomRootSize, "
        "zoomRange, mapPosition {x, z}, viewRect}.",
    )
    @call_spec(world=True, quick=True)
    def get_camera_state(self) -> dict[str, Any]:
        return self.host.world.camera.state()

    @tool(
        "rimworld/jump_camera_to_pawn",
        "Centre the camera on a pawn and select it.",
        title="Jump camera to pawn",
        result_description=f"{{success, target (its name), targetPawn, {_CAMERA}}}.",
    )
    @parameter("pawn_name", "The pawn's name.")
    @parameter("pawn_id", "The pawn's id.")
    @call_spec(world=True)
    def jump_camera_to_pawn(
        self, pawn_name: str | None = None, pawn_id: str | None = None
    ) -> dict[str, Any]:
        world = self.host.world
        pawn = world.resolve_pawn(pawn_name, pawn_id, what="current-map pawn")
        world.camera.jump_to(pawn.position)
        world.selection.select(pawn.id, append=False)
        return {
            "success": True,
            "target": pawn.nickname,
            "targetPawn": describe_pawn(world, pawn),
            "camera": world.camera.state(),
        }

    @tool(
        "rimworld/jump_camera_to_cell",
        "Centre the camera on a cell.",
        title="Jump camera to cell",
        result_description=f"{{success, cell {{x, z}}, {_CAMERA}}}.",
    )
    @parameter("x", "Cell x.")
    @parameter("z", "Cell z.")
    @call_spec(world=True)
    def jump_camera_to_cell(self, x: int, z: int) -> dict[str, Any]:
        world = self.host.world
        game = world.require_colony().game
        cell = Cell(x, z)
        if not game.map.contains(cell):
            raise InvalidCellError(f"Cell ({x}, {z}) is out of bounds for the current map.")
        world.camera.jump_to(cell)
        return {"success": True, "cell": {"x": x, "z": z}, "camera": world.camera.state()}

    @tool(
        "rimworld/move_camera",
        "Move the camera by a number of cells (kept on the map).",
        title="Move camera",
        result_description=f"{{success, cell {{x, z}} (the new centre), {_CAMERA}}}.",
    )
    @parameter("delta_x", "Cells to move east (negative: west).")
    @parameter("delta_z", "Cells to move north (negative: south).")
    @call_spec(world=True)
    def move_camera(self, delta_x: float, delta_z: float) -> dict[str, Any]:
        world = self.host.world
        cell = world.camera.move(delta_x, delta_z)
        return {"success": True, "cell": {"x": cell.x, "z": cell.z}, "camera": world.camera.state()}

    @tool(
        "rimworld/zoom_camera",
        "Zoom by changing rootSize: positive deltas zoom out, negative zoom in (8 to 140).",
        title="Zoom camera",
        result_description=f"{{success, rootSize, {_CAMERA}}}.",
    )
    @parameter("delta", "Change of rootSize.")
    @call_spec(world=True)
    def zoom_camera(self, delta: float) -> dict[str, Any]:
        world = self.host.world
        size = world.camera.zoom(delta)
        return {"success": True, "rootSize": size, "camera": world.camera.state()}

    @tool(
        "rimworld/set_camera_zoom",
        "Set the camera's rootSize (clamped to 8..140).",
        title="Set camera zoom",
        result_description=f"{{success, rootSize, {_CAMERA}}}.",
    )
    @parameter("root_size", "The rootSize to set.")
    @call_spec(world=True)
    def set_camera_zoom(self, root_size: float) -> dict[str, Any]:
        world = self.host.world
        size = world.camera.set_zoom(root_size)
        return {"success": True, "rootSize": size, "camera": world.camera.state()}

    @tool(
        "rimworld/frame_pawns",
        "Centre and zoom the camera so the named pawns (or the selected ones) fit.",
        title="Frame pawns",
        result_description=f"{{success, framedPawns, framedPawnDetails, rootSize, {_CAMERA}}}.",
    )
    @parameter(
        "pawn_names_csv", "Pawn names separated by commas; omit both lists for the selection."
    )
    @parameter("pawn_ids_csv", "Pawn ids separated by commas.")
    @call_spec(world=True)
    def frame_pawns(
        self, pawn_names_csv: str | None = None, pawn_ids_csv: str | None = None
    ) -> dict[str, Any]:
        world = self.host.world
        world.require_colony()
        names, ids = parse_list(pawn_names_csv), parse_list(pawn_ids_csv)
        if not names and not ids:
            pawns = world.selected_pawns()
        else:
            pawns = [world.resolve_pawn(n, None, what="current-map pawn") for n in names]
            pawns += [world.resolve_pawn(None, i, what="current-map pawn") for i in ids]
            pawns = list({p.id: p for p in pawns}.values())
        size = world.camera.frame_pawns(pawns)
        return {
            "success": True,
            "framedPawns": [p.nickname for p in pawns],
            "framedPawnDetails": [describe_pawn(world, p) for p in pawns],
            "rootSize": size,
            "camera": world.camera.state(),
        }

    @tool(
        "rimworld/frame_cell_rect",
        "Centre the camera on a cell rectangle plus padding, at the current zoom or at an "
        "explicit rootSize, and say whether all of it is visible.",
        title="Frame cell rectangle",
        result_description="{success, requestedRect, paddedRect, paddingCells, fullyVisible, "
        "rootSizeMode, requestedRootSize, requiredRootSize, appliedRootSize, "
        "preparedFrameCount, camera}; a rectangle off the map or of no size is {success: "
        "false, message, requestedRect, paddingCells, rootSize}.",
    )
    @parameter("x", "The rectangle's first cell x.")
    @parameter("z", "The rectangle's first cell z.")
    @parameter("width", "Cells along x.")
    @parameter("height", "Cells along z.")
    @parameter("padding_cells", "Margin around the rectangle, in cells.")
    @parameter("root_size", "Zoom to this rootSize (at most 100); 0 keeps the current zoom.")
    @call_spec(world=True)
    def frame_cell_rect(
        self,
        x: int,
        z: int,
        width: int = 1,
        height: int = 1,
        padding_cells: int = 4,
        root_size: float = 0.0,
    ) -> dict[str, Any]:
        world = self.host.world
        try:
            framed = world.camera.frame_rect(x, z, width, height, padding_cells, root_size)
        except RefusedError as refused:
            return frame_refusal(refused, x, z, width, height, padding_cells, root_size)
        return {"success": True, **framed, "camera": world.camera.state()}
