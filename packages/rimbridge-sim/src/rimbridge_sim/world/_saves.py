"""Save files: the name RimWorld gives a save, and what a ``.rws`` file holds."""

from __future__ import annotations

from rimbridge_sim.world.model import Terrain
from rimbridge_sim.world.state import Game

__all__ = ["sanitize_save_name", "save_file"]

_INVALID_FILE_CHARS = set('<>:"/\\|?*') | {chr(c) for c in range(32)}


def sanitize_save_name(name: str) -> str:
    """What RimWorld makes of a save name: trimmed, characters a file name cannot hold
    turned into ``_``; any other character (non-ASCII included) kept as it is."""
    return "".join("_" if ch in _INVALID_FILE_CHARS else ch for ch in name.strip())


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def save_file(game: Game, name: str) -> bytes:
    """A small RimWorld-style save: the meta header and a summary of the game (the full
    snapshot stays in memory for loading)."""
    stone = sum(1 for t in game.map.terrain if t is Terrain.STONE)
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        "<savegame>",
        "  <meta>",
        "    <gameVersion>1.5-sim</gameVersion>",
        "    <modIds><li>ludeon.rimworld</li><li>brrainz.rimbridgeserver</li></modIds>",
        "  </meta>",
        "  <game>",
        f"    <name>{_escape(name)}</name>",
        f"    <tickManager><ticksGame>{game.tick}</ticksGame></tickManager>",
        f'    <map id="{game.map.id}" size="({game.map.width}, 1, {game.map.height})" '
        f'stoneCells="{stone}"/>',
        f'    <pawns count="{len(game.pawns)}">',
        *(f"      <li>{_escape(p.full_name)}</li>" for p in game.pawns.values()),
        "    </pawns>",
        f'    <things count="{len(game.things)}"/>',
        "  </game>",
        "</savegame>",
        "",
    ]
    return "\n".join(lines).encode("utf-8")
