"""What the screen shows, as raw RGB pixels (the tool layer encodes the PNG).

The screen is :data:`~rimbridge_sim.world.describe.SCREEN_WIDTH` x ``SCREEN_HEIGHT`` logical
pixels; images are drawn at half that resolution. The map is drawn as the camera sees it,
then the main tab bar, open windows (the float menu included) and the hover cursor on top.
"""

from __future__ import annotations

from collections.abc import Sequence

from rimbridge_sim.world._colony import Colony
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH
from rimbridge_sim.world.model import Cell, Phase, Terrain, ThingCategory
from rimbridge_sim.world.state import Camera, Hover, Window

__all__ = ["IMAGE_SCALE", "crop_screen", "render_rgb", "render_screen", "terrain_grid"]

IMAGE_SCALE = 0.5
"""Image pixels per logical screen pixel."""

_TERRAIN_RGB: dict[Terrain, tuple[int, int, int]] = {
    Terrain.SOIL: (112, 88, 60),
    Terrain.RICH_SOIL: (84, 64, 40),
    Terrain.SAND: (206, 186, 136),
    Terrain.MARSH: (88, 104, 72),
    Terrain.WATER: (44, 84, 150),
    Terrain.STONE: (92, 92, 96),
    Terrain.ROUGH_STONE: (140, 138, 134),
    Terrain.WOOD_FLOOR: (150, 110, 70),
    Terrain.METAL_TILE: (120, 124, 130),
    Terrain.SILVER_TILE: (190, 190, 196),
}
_CATEGORY_RGB = {
    ThingCategory.ITEM: (230, 200, 60),
    ThingCategory.BUILDING: (60, 60, 64),
    ThingCategory.PLANT: (40, 130, 50),
}
_PAWN_RGB = (220, 60, 50)
_DRAFTED_RGB = (60, 120, 230)
_OFF_MAP_RGB = (10, 10, 12)
_MAIN_MENU_RGB = (24, 28, 36)
_LOADING_RGB = (60, 60, 60)
_WINDOW_RGB = (40, 44, 52)
_BORDER_RGB = (170, 170, 170)
_TAB_BAR_RGB = (30, 30, 34)
_HOVER_RGB = (255, 255, 255)


def terrain_grid(colony: Colony) -> list[list[str]]:
    game_map = colony.game.map
    return [
        [game_map.terrain[z * game_map.width + x].value for x in range(game_map.width)]
        for z in reversed(range(game_map.height))
    ]


def _cell_colours(colony: Colony) -> dict[Cell, tuple[int, int, int]]:
    colours: dict[Cell, tuple[int, int, int]] = {}
    carried = colony.carried_ids()
    for thing in colony.game.things.values():
        if thing.id not in carried:
            colours[thing.position] = _CATEGORY_RGB[thing.definition.category]
    for pawn in colony.game.pawns.values():
        colours[pawn.position] = _DRAFTED_RGB if pawn.drafted else _PAWN_RGB
    return colours


def render_rgb(colony: Colony | None, phase: Phase, width: int, height: int) -> bytes:
    """The whole map (not the camera view) scaled into ``width`` x ``height``."""
    if phase is Phase.LOADING or colony is None:
        background = _LOADING_RGB if phase is Phase.LOADING else _MAIN_MENU_RGB
        return bytes(background) * (width * height)
    game_map = colony.game.map
    overlay = _cell_colours(colony)
    pixels = bytearray()
    for row in range(height):
        z = game_map.height - 1 - row * game_map.height // height
        for column in range(width):
            x = column * game_map.width // width
            cell = Cell(x, z)
            colour = overlay.get(cell) or _TERRAIN_RGB[game_map.terrain[z * game_map.width + x]]
            pixels += bytes(colour)
    return bytes(pixels)


def _fill(
    canvas: list[bytearray],
    rect: tuple[float, float, float, float],
    colour: tuple[int, int, int],
    border: tuple[int, int, int] | None = None,
) -> None:
    height = len(canvas)
    width = len(canvas[0]) // 3
    x0 = max(0, int(rect[0] * IMAGE_SCALE))
    y0 = max(0, int(rect[1] * IMAGE_SCALE))
    x1 = min(width, int((rect[0] + rect[2]) * IMAGE_SCALE))
    y1 = min(height, int((rect[1] + rect[3]) * IMAGE_SCALE))
    if x1 <= x0 or y1 <= y0:
        return
    span = bytes(colour) * (x1 - x0)
    for y in range(y0, y1):
        canvas[y][x0 * 3 : x1 * 3] = span
    if border is not None:
        edge = bytes(border) * (x1 - x0)
        canvas[y0][x0 * 3 : x1 * 3] = edge
        canvas[y1 - 1][x0 * 3 : x1 * 3] = edge
        for y in range(y0, y1):
            canvas[y][x0 * 3 : x0 * 3 + 3] = bytes(border)
            canvas[y][(x1 - 1) * 3 : x1 * 3] = bytes(border)


def _draw_map(canvas: list[bytearray], colony: Colony, camera: Camera) -> None:
    game_map = colony.game.map
    overlay = _cell_colours(colony)
    height = len(canvas)
    width = len(canvas[0]) // 3
    scale = SCREEN_HEIGHT / (2 * camera.root_size) * IMAGE_SCALE  # image pixels per cell
    left = camera.x - width / 2 / scale
    top = camera.z + height / 2 / scale
    off = bytes(_OFF_MAP_RGB)
    for row in range(height):
        z = int(top - (row + 0.5) / scale)
        line = canvas[row]
        if not 0 <= z < game_map.height:
            line[:] = off * width
            continue
        column = 0
        while column < width:
            x = int(left + (column + 0.5) / scale)
            next_column = min(width, max(column + 1, int((x + 1 - left) * scale + 0.5)))
            if 0 <= x < game_map.width:
                cell = Cell(x, z)
                colour = overlay.get(cell) or _TERRAIN_RGB[game_map.terrain[z * game_map.width + x]]
            else:
                colour = _OFF_MAP_RGB
            line[column * 3 : next_column * 3] = bytes(colour) * (next_column - column)
            column = next_column


def render_screen(
    colony: Colony | None,
    phase: Phase,
    camera: Camera,
    windows: Sequence[Window],
    hover: Hover | None,
    *,
    tab_bar: bool,
) -> tuple[int, int, bytes]:
    """The whole screen as ``(width, height, rgb)``."""
    width = int(SCREEN_WIDTH * IMAGE_SCALE)
    height = int(SCREEN_HEIGHT * IMAGE_SCALE)
    if phase is Phase.LOADING or colony is None:
        background = _LOADING_RGB if phase is Phase.LOADING else _MAIN_MENU_RGB
        canvas = [bytearray(bytes(background) * width) for _ in range(height)]
    else:
        canvas = [bytearray(width * 3) for _ in range(height)]
        _draw_map(canvas, colony, camera)
    if tab_bar:
        _fill(canvas, (0, SCREEN_HEIGHT - 35, SCREEN_WIDTH, 35), _TAB_BAR_RGB, _BORDER_RGB)
    for window in windows:
        _fill(canvas, window.rect, _WINDOW_RGB, _BORDER_RGB)
    if hover is not None:
        _fill(canvas, (hover.screen_x - 4, hover.screen_y - 4, 8, 8), _HOVER_RGB)
    return width, height, b"".join(bytes(line) for line in canvas)


def crop_screen(
    width: int, height: int, rgb: bytes, clip: tuple[float, float, float, float]
) -> tuple[int, int, bytes]:
    """A rendered screen cut to ``clip`` (logical pixels, kept inside the screen)."""
    x0 = min(width - 1, max(0, int(clip[0] * IMAGE_SCALE)))
    y0 = min(height - 1, max(0, int(clip[1] * IMAGE_SCALE)))
    x1 = min(width, max(x0 + 1, int((clip[0] + clip[2]) * IMAGE_SCALE)))
    y1 = min(height, max(y0 + 1, int((clip[1] + clip[3]) * IMAGE_SCALE)))
    stride = width * 3
    rows = (rgb[row * stride + x0 * 3 : row * stride + x1 * 3] for row in range(y0, y1))
    return x1 - x0, y1 - y0, b"".join(rows)
