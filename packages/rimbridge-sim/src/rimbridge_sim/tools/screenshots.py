"""Screenshots: what the screen shows (the map as the camera sees it, windows, the float menu
and the hover cursor), written as PNG files under ``Screenshots/`` in the data folder,
optionally cropped to a screen target or a cell rectangle.

Names follow the mod: the sanitized ``fileName`` (``rimbridge_<yyyyMMdd_HHmmss>``, local time,
when blank) is the full shot ``<name>.png``; a cropped shot is written beside it as
``<name>__clip.png`` (``<name>__cell_rect.png`` for a cell rectangle). A name used again,
the default one within the same second included, overwrites the earlier file, as in the mod."""

from __future__ import annotations

import math
import time
from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import call_spec
from rimbridge_sim.clock import iso_utc
from rimbridge_sim.host import ToolHost
from rimbridge_sim.png import encode_png
from rimbridge_sim.tools.camera import frame_refusal
from rimbridge_sim.world import RefusedError, World, WorldError, sanitize_name
from rimbridge_sim.world._render import crop_screen, render_screen
from rimbridge_sim.world._screen import Rect
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH

__all__ = ["SCREENSHOT_NAME_PREFIX", "ScreenshotTools"]

SCREENSHOT_NAME_PREFIX = "rimbridge"
"""The prefix of a screenshot's name when none is given."""

_SHOT = (
    "path (absolute, PNG: the cropped file when clipped), sourcePath (the full shot when "
    "clipped, else null), fileName (without .png), requestedFileName (the sanitized name), "
    "saveDataFolder, screenshotFolder, sizeBytes, capturedAtUtc, suppressMessage, clipped, "
    "clipTargetId, clipTargetKind, clipTargetLabel"
)


def _pixel_rect(
    box: Rect, padding: int, width: int, height: int
) -> tuple[int, int, int, int] | None:
    """The clip in the image's pixels, as the mod works it out: the target rectangle (UI
    pixels) plus padding, scaled to the image, widened to whole pixels and kept inside;
    ``None`` for an empty target or one wholly off the image."""
    if box.width <= 0 or box.height <= 0:
        return None
    scale_x, scale_y = width / SCREEN_WIDTH, height / SCREEN_HEIGHT
    left = max(0, math.floor(box.x * scale_x - padding * scale_x))
    top = max(0, math.floor(box.y * scale_y - padding * scale_y))
    right = min(width, math.ceil((box.x + box.width) * scale_x + padding * scale_x))
    bottom = min(height, math.ceil((box.y + box.height) * scale_y + padding * scale_y))
    if right <= left or bottom <= top:
        return None
    return left, top, right - left, bottom - top


def _failed_shot(error: WorldError) -> dict[str, Any]:
    """A screenshot that was not taken, as the mod answers it: every field of a shot, empty
    (null, 0 or false; ``sizeBytes`` is the mod's unset ``long?``, so null), after ``success``
    and ``message``; then the sim's ``code``."""
    return {
        "success": False,
        "message": error.message,
        "path": None,
        "sourcePath": None,
        "fileName": None,
        "requestedFileName": None,
        "saveDataFolder": None,
        "screenshotFolder": None,
        "sizeBytes": None,
        "capturedAtUtc": None,
        "suppressMessage": False,
        "clipped": False,
        "clipTargetId": None,
        "clipTargetKind": None,
        "clipTargetLabel": None,
        "clipPadding": 0,
        "clipRect": None,
        "screenTargets": None,
        "expectedPath": None,
        "code": error.code,
    }


class ScreenshotTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _capture(
        self,
        file_name: str | None,
        include_targets: bool,
        suppress_message: bool,
        clip: tuple[str, str, str, Rect] | None,
        padding: int,
        clip_suffix: str = "__clip",
    ) -> dict[str, Any]:
        """Write the full shot and, with ``clip`` (target id, kind, label, rect), the crop."""
        world: World = self.host.world
        name = sanitize_name(file_name, SCREENSHOT_NAME_PREFIX)
        game = world.game
        width, height, rgb = render_screen(
            world.colony,
            world.phase,
            world.ui.camera,
            world.windows.stack,
            world.screen.live_hover(),
            tab_bar=game is not None,
        )
        full = world.storage.write(f"Screenshots/{name}.png", encode_png(width, height, rgb))
        stored, source, output = full, None, name
        rect: tuple[int, int, int, int] | None = None
        if not suppress_message:
            world.notifications.message(f"Screenshot saved as {name}.png", "SilentInput")
        if clip is not None:
            pixels = _pixel_rect(clip[3], padding, width, height)
            if pixels is None:  # the full shot stays; the mod answers where it is
                failed = _failed_shot(
                    RefusedError(f"Target id '{clip[0]}' did not resolve to a valid clip rect.")
                )
                folder = {"saveDataFolder": world.storage.root}
                folder["screenshotFolder"] = f"{world.storage.root}/Screenshots"
                return {
                    **failed,
                    **{"path": full.path, "sourcePath": full.path, "fileName": name},
                    **{"requestedFileName": name, **folder},
                    "suppressMessage": suppress_message,
                }
            scale = width / SCREEN_WIDTH  # image pixels per UI pixel
            rect = pixels
            left, top, wide, high = (v / scale for v in pixels)
            width, height, rgb = crop_screen(width, height, rgb, (left, top, wide, high))
            output = name + clip_suffix
            png = encode_png(width, height, rgb)
            stored, source = world.storage.write(f"Screenshots/{output}.png", png), full.path
        return {
            "success": True,
            "path": stored.path,
            "sourcePath": source,
            "fileName": output,
            "requestedFileName": name,
            "saveDataFolder": world.storage.root,
            "screenshotFolder": f"{world.storage.root}/Screenshots",
            "sizeBytes": stored.size_bytes,
            "capturedAtUtc": iso_utc(time.time()),
            "suppressMessage": suppress_message,
            "clipped": clip is not None,
            "clipTargetId": None if clip is None else clip[0],
            "clipTargetKind": None if clip is None else clip[1],
            "clipTargetLabel": None if clip is None else clip[2],
            "clipPadding": 0 if clip is None else padding,
            "clipRect": None
            if rect is None
            else dict(zip(("x", "y", "width", "height"), rect, strict=True)),
            "screenTargets": world.screen.targets() if include_targets else None,
        }

    @tool(
        "rimworld/take_screenshot",
        "Take a screenshot of what the screen shows and write it as a PNG; with clipTargetId "
        "crop it to a window, float-menu option, main tab button, or a ui-surface / ui-element "
        "from rimworld/get_ui_layout, plus padding.",
        title="Take screenshot",
        result_description="{success, message (null), " + _SHOT + ", clipPadding (0 when "
        "not clipped), clipRect (the crop in the image's whole pixels), screenTargets (null "
        "unless includeTargets), expectedPath (null)}; the crop is <name>__clip.png beside the "
        "full shot <name>.png. An unknown clip target is a payload failure with the same "
        "fields, empty (null, 0 or false), and "
        "code; so is a clip target wholly off the image, which names the full shot it took "
        "(path, sourcePath, fileName, requestedFileName and the folders).",
    )
    @parameter(
        "file_name",
        "File name without extension (rimbridge_<yyyyMMdd_HHmmss>, local time, when omitted).",
    )
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
            try:
                kind, label, box = self.host.world.screen.resolve_rect(clip_target_id)
            except WorldError as error:
                return _failed_shot(error)
            clip = (clip_target_id, kind, label, box)
        shot = self._capture(
            file_name, include_targets, suppress_message, clip, max(0, clip_padding)
        )
        if not shot["success"]:
            return shot
        return {"success": True, "message": None, **shot, "expectedPath": None}

    @tool(
        "rimworld/screenshot_cell_rect",
        "Frame a cell rectangle plus padding, take a screenshot cropped to those cells, and "
        "put the camera back (unless doNotResetCamera).",
        title="Screenshot cell rectangle",
        result_description="{success, " + _SHOT + ", clipRect (the crop in the image's "
        "whole pixels), doNotResetCamera, cameraWasReset, requestedRect, paddedRect, "
        "paddingCells, fullyVisible, rootSizeMode, requestedRootSize, requiredRootSize, "
        "appliedRootSize, cameraBefore, cameraDuringCapture, cameraAfterCapture (the camera "
        "left on the rectangle; null when it was put back), cameraRestored (the camera put "
        "back; null with doNotResetCamera)}; clipTargetId and clipTargetKind "
        "are 'cellRect', and the crop is <name>__cell_rect.png beside the full shot <name>.png.",
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
    @call_spec(world=True)
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
        try:
            framed = camera.frame_rect(x, z, width, height, padding_cells, root_size)
        except RefusedError as refused:
            failure = frame_refusal(refused, x, z, width, height, padding_cells, root_size)
            code = failure.pop("code")
            return {**failure, "cameraBefore": before, "code": code}
        during = camera.state()
        if not framed["fullyVisible"]:
            # the mod refuses before it captures; its clean-up puts the camera back unless
            # doNotResetCamera (the framing itself worked)
            if not do_not_reset_camera:
                camera.restore(saved)
            return {
                "success": False,
                "message": "Requested cell rectangle does not fit in the viewport at the "
                "selected camera root size.",
                **{key: framed[key] for key in _CELL_RECT_FRAME_KEYS},
                "cameraBefore": before,
                "cameraDuringCapture": during,
                "code": RefusedError.code,
            }
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
                ("cellRect", "cellRect", _cell_rect_label(padded), box),
                0,
                "__cell_rect",
            )
        except RefusedError:
            camera.restore(saved)
            raise
        if not do_not_reset_camera:
            camera.restore(saved)
        after = camera.state()
        if not shot["success"]:
            return {**shot, **framed, "cameraBefore": before, "cameraDuringCapture": during}
        return {
            **{key: shot[key] for key in _CELL_RECT_SHOT_KEYS},
            "doNotResetCamera": do_not_reset_camera,
            "cameraWasReset": not do_not_reset_camera,
            **{key: framed[key] for key in _CELL_RECT_FRAME_KEYS},
            "cameraBefore": before,
            "cameraDuringCapture": during,
            "cameraAfterCapture": after if do_not_reset_camera else None,
            "cameraRestored": None if do_not_reset_camera else after,
        }


# The mod's success record of screenshot_cell_rect: the shot's fields without clipPadding and
# screenTargets, then the frame's without preparedFrameCount.
_CELL_RECT_SHOT_KEYS = (
    "success",
    "path",
    "sourcePath",
    "fileName",
    "requestedFileName",
    "saveDataFolder",
    "screenshotFolder",
    "sizeBytes",
    "capturedAtUtc",
    "suppressMessage",
    "clipped",
    "clipTargetId",
    "clipTargetKind",
    "clipTargetLabel",
    "clipRect",
)
_CELL_RECT_FRAME_KEYS = (
    "requestedRect",
    "paddedRect",
    "paddingCells",
    "fullyVisible",
    "rootSizeMode",
    "requestedRootSize",
    "requiredRootSize",
    "appliedRootSize",
)


def _cell_rect_label(padded: dict[str, int]) -> str:
    x, z, width, height = (padded[k] for k in ("x", "z", "width", "height"))
    return f"Cell rect ({x}, {z}, {width}, {height})"


def _cell(x: int, z: int) -> Any:
    from rimbridge_sim.world import Cell

    return Cell(x, z)
