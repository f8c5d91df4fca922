"""What the screen would show, as raw RGB pixels (the tool layer encodes the PNG)."""

from __future__ import annotations

from rimbridge_sim.world._colony import Colony
from rimbridge_sim.world.model import Cell, Phase, Terrain, ThingCategory

__all__ = ["render_rgb", "terrain_grid"]

_TERRAIN_RGB: dict[Terrain, tuple[int, int, int]] = {
    Terrain.SOIL: (112, 88, 60),
    Terrain.RICH_SOIL: (84, 64, 40),
    Terrain.SAND: (206, 186, 136),
    Terrain.MARSH: (88, 104, 72),
    Terrain.WATER: (44, 84, 150),
    Terrain.STONE: (92, 92, 96),
    Terrain.ROUGH_STONE: (140, 138, 134),
}
_CATEGORY_RGB = {
    ThingCategory.ITEM: (230, 200, 60),
    ThingCategory.BUILDING: (60, 60, 64),
    ThingCategory.PLANT: (40, 130, 50),
}
_PAWN_RGB = (220, 60, 50)
_DRAFTED_RGB = (60, 120, 230)
_MAIN_MENU_RGB = (24, 28, 36)
_LOADING_RGB = (60, 60, 60)


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
