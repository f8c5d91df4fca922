"""Screenshots: what the screen shows (the map as the camera sees it, windows, the float menu
and the hover cursor), written as PNG files under ``Screenshots/`` in the data folder,
optionally cropped to a screen target or a cell rectangle."""

from __future__ import annotations

import re
import time
from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import DEFAULT_PAYLOAD_CODES, call_spec
from rimbridge_sim.clock import iso_utc
from rimbridge_sim.host import ToolHost
from rimbridge_sim.png import encode_png
from rimbridge_sim.world import RefusedError, World
from rimbridge_sim.world._render import render_screen
from rimbridge_sim.world._screen import Rect

__all__ = ["ScreenshotTools"]

_NO_GAME = DEFAULT_PAYLOAD_CODES | {"no_game"}
_FILE_CHARS = re.compile(r'[<>:"/\\|?*\x00-\x1f]')
_SHOT = (
    "{success, path (absolute, PNG), sourcePath, fileName, requestedFileName, "
    "saveDataFolder, screenshotFolder, sizeBytes, width, height, capturedAtUtc, "
    "suppressMessage, clipped, clipTargetId, clipTargetKind, clipTargetLabel, clipPadding, "
    "clipRect, screenTargets (when includeTargets)}"
)


class ScreenshotTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host
        self._count = 0

    def _capture(
        self,
        file_name: str | None,
        include_targets: bool,
        suppress_message: bool,
        clip: tuple[str, str, Rect] | None,
        padding: int,
        clip_id: str | None,
    ) -> dict[str, Any]:
        world: World = self.host.world
        self._count += 1
        requested = file_name
        name = (
            _FILE_CHARS.sub("_", file_name.strip())
            if file_name and file_name.strip()
            else (f"screenshot_{self._count:04d}")
        )
        rect = None
        if clip is not None:
            box = clip[2]
            rect = Rect(
                box.x - padding, box.y - padding, box.width + 2 * padding, box.height + 2 * padding
            )
        game = world.game
        width, height, rgb = render_screen(
            world.colony,
            world.phase,
            world.ui.camera,
            world.windows.stack,
            world.ui.hover,
            tab_bar=game is not None,
            clip=None if rect is None else (rect.x, rect.y, rect.width, rect.height),
        )
        stored = world.storage.write(f"Screenshots/{name}.png", encode_png(width, height, rgb))
        if not suppress_message:
            world.notifications.message(f"Screenshot saved as {name}.png", "SilentInput")
        result: dict[str, Any] = {
            "success": True,
            "path": stored.path,
            "sourcePath": stored.path,
            "fileName": f"{name}.png",
            "requestedFileName": requested,
            "saveDataFolder": world.storage.root,
            "screenshotFolder": f"{world.storage.root}/Screenshots",
            "sizeBytes": stored.size_bytes,
            "width": width,
            "height": height,
            "capturedAtUtc": iso_utc(time.time()),
            "suppressMessage": suppress_message,
            "clipped": clip is not None,
            "clipTargetId": clip_id,
            "clipTargetKind": None if clip is None else clip[0],
            "clipTargetLabel": None if clip is None else clip[1],
            "clipPadding": padding,
            "clipRect": None if rect is None else rect.to_wire(),
            "mapId": None if game is None else game.map.id,
            "phase": world.phase.value,
        }
        if include_targets:
            result["screenTargets"] = world.screen.targets()
        return result

    @tool(
        "rimworld/take_screenshot",
        "Take a screenshot of what the screen shows and write it as a PNG; with clipTargetId "
        "crop it to a window, float-menu option, main tab button, or a ui-surface / ui-element "
        "from rimworld/get_ui_layout, plus padding.",
        title="Take screenshot",
        result_description=_SHOT + "; an unknown clip target is a payload failure.",
    )
    @parameter("file_name", "File name without extension (screenshot_NNNN when omitted).")
    @parameter("include_targets", "Also return the current screen targets.")
    @parameter("suppress_message", "Do not show the 'screenshot saved' message in the game.")
    @parameter("clip_target_id", "A target id to crop to (see rimworld/get_screen_targets).")
    @parameter("clip_padding", "Pixels of margin around the clip target.")
    @call_spec(world=True)
    def take_screenshot(
        self,
        file_name: str | None = None,
        include_targets: bool = True,
        suppress_message: bool = True,
        clip_target_id: str | None = None,
        clip_padding: int = 8,
    ) -> dict[str, Any]:
        clip = None
        if clip_target_id and clip_target_id.strip():
            clip = self.host.world.screen.resolve_rect(clip_target_id)
        return self._capture(
            file_name,
            include_targets,
            suppress_message,
            clip,
            max(0, clip_padding),
            clip_target_id,
        )

    @tool(
        "rimworld/screenshot_cell_rect",
        "Frame a cell rectangle plus padding, take a screenshot cropped to those cells, and "
        "put the camera back (unless doNotResetCamera).",
        title="Screenshot cell rectangle",
        result_description=_SHOT + ", requestedRect, paddedRect, fullyVisible, rootSizeMode, "
        "requiredRootSize, appliedRootSize, cameraBefore, cameraDuringCapture, "
        "cameraAfterCapture, doNotResetCamera, cameraWasReset.",
    )
    @parameter("x", "The rectangle's first cell x.")
    @parameter("z", "The rectangle's first cell z.")
    @parameter("width", "Cells along x.")
    @parameter("height", "Cells along z.")
    @parameter("padding_cells", "Margin around the rectangle, in cells.")
    @parameter("file_name", "File name without extension.")
    @parameter("include_targets", "Also return the current screen targets.")
    @parameter("suppress_message", "Do not show the 'screenshot saved' message in the game.")
    @parameter("do_not_reset_camera", "Leave the camera on the rectangle afterwards.")
    @parameter("root_size", "Zoom to this rootSize for the capture; 0 keeps the zoom.")
    @call_spec(world=True, payload_codes=_NO_GAME)
    def screenshot_cell_rect(
        self,
        x: int,
        z: int,
        width: int = 1,
        height: int = 1,
        padding_cells: int = 4,
        file_name: str | None = None,
        include_targets: bool = True,
        suppress_message: bool = True,
        do_not_reset_camera: bool = False,
        root_size: float = 0.0,
    ) -> dict[str, Any]:
        world = self.host.world
        camera = world.camera
        before = camera.state()
        saved = camera.snapshot()
        framed = camera.frame_rect(x, z, width, height, padding_cells, root_size)
        during = camera.state()
        padded = framed["paddedRect"]
        corner_low = world.screen.cell_to_screen(_cell(padded["x"], padded["maxZ"]))
        corner_high = world.screen.cell_to_screen(_cell(padded["maxX"], padded["z"]))
        half = world.screen.pixels_per_cell() / 2
        box = Rect(
            corner_low[0] - half,
            corner_low[1] - half,
            corner_high[0] - corner_low[0] + 2 * half,
            corner_high[1] - corner_low[1] + 2 * half,
        )
        try:
            shot = self._capture(
                file_name,
                include_targets,
                suppress_message,
                ("cell_rect", "cells", box),
                0,
                None,
            )
        except RefusedError:
            camera.restore(saved)
            raise
        if not do_not_reset_camera:
            camera.restore(saved)
        return {
            **shot,
            **framed,
            "doNotResetCamera": do_not_reset_camera,
            "cameraWasReset": not do_not_reset_camera,
            "cameraBefore": before,
            "cameraDuringCapture": during,
            "cameraAfterCapture": camera.state(),
        }


def _cell(x: int, z: int) -> Any:
    from rimbridge_sim.world import Cell

    return Cell(x, z)
