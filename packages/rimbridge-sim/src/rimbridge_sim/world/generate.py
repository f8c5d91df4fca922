"""Seeded map and colonist generation (value noise on a coarse lattice, no I/O)."""

from __future__ import annotations

import random

from rimbridge_sim.world.model import Cell, Terrain
from rimbridge_sim.world.state import GameMap

__all__ = ["FIRST_NAMES", "LAST_NAMES", "MAX_MAP_SIDE", "MIN_MAP_SIDE", "NICKNAMES", "generate_map"]

MIN_MAP_SIDE = 10
MAX_MAP_SIDE = 250

FIRST_NAMES = (
    "Ada",
    "Bjorn",
    "Cassia",
    "Dorian",
    "Engie",
    "Faye",
    "Gideon",
    "Hana",
    "Ivo",
    "Jun",
    "Kira",
    "Lars",
    "Mina",
    "Nico",
    "Oona",
    "Petra",
    "Quill",
    "Rosa",
    "Silas",
    "Tova",
)
NICKNAMES = (
    "Ace",
    "Badger",
    "Cricket",
    "Dusty",
    "Echo",
    "Flint",
    "Gus",
    "Hex",
    "Ink",
    "Jinx",
    "Kit",
    "Lucky",
    "Moss",
    "Nettle",
    "Otter",
    "Pip",
    "Rook",
    "Sparrow",
    "Tinker",
    "Wren",
)
LAST_NAMES = (
    "Abbot",
    "Brandt",
    "Castillo",
    "Drake",
    "Eriksen",
    "Fujita",
    "Garver",
    "Holm",
    "Ibarra",
    "Jansen",
    "Kowal",
    "Lindqvist",
    "Moreau",
    "Novak",
    "Okafor",
    "Quinn",
    "Reyes",
    "Sato",
)


def _noise(rng: random.Random, width: int, height: int, scale: int) -> list[float]:
    """Smooth value noise in [0, 1): random values on a lattice, bilinearly interpolated."""
    cols = width // scale + 2
    rows = height // scale + 2
    lattice = [[rng.random() for _ in range(cols)] for _ in range(rows)]
    values = []
    for z in range(height):
        gz, fz = divmod(z / scale, 1.0)
        for x in range(width):
            gx, fx = divmod(x / scale, 1.0)
            i, j = int(gx), int(gz)
            sx = fx * fx * (3 - 2 * fx)
            sz = fz * fz * (3 - 2 * fz)
            top = lattice[j][i] * (1 - sx) + lattice[j][i + 1] * sx
            bottom = lattice[j + 1][i] * (1 - sx) + lattice[j + 1][i + 1] * sx
            values.append(top * (1 - sz) + bottom * sz)
    return values


def generate_map(map_id: str, width: int, height: int, rng: random.Random) -> GameMap:
    """A map with rock in the high ground, water and marsh in the low ground, soil between.

    The centre (a square of radius 3, the landing site) is always plain soil, so colonists and
    starting items have somewhere to stand.
    """
    scale = max(4, min(width, height) // 6)
    elevation = _noise(rng, width, height, scale)
    fertility = _noise(rng, width, height, max(3, scale // 2))
    terrain: list[Terrain] = []
    for index, height_value in enumerate(elevation):
        fertile = fertility[index]
        if height_value > 0.74:
            kind = Terrain.STONE
        elif height_value < 0.2:
            kind = Terrain.WATER
        elif height_value < 0.27:
            kind = Terrain.MARSH
        elif height_value < 0.33:
            kind = Terrain.SAND
        elif fertile > 0.7:
            kind = Terrain.RICH_SOIL
        else:
            kind = Terrain.SOIL
        terrain.append(kind)
    centre = Cell(width // 2, height // 2)
    for z in range(centre.z - 3, centre.z + 4):
        for x in range(centre.x - 3, centre.x + 4):
            terrain[z * width + x] = Terrain.SOIL
    roofed = [
        kind is Terrain.STONE and elevation[index] > 0.8 for index, kind in enumerate(terrain)
    ]
    return GameMap(id=map_id, width=width, height=height, terrain=terrain, roofed=roofed)
