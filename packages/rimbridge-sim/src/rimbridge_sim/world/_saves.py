"""File names the mod gives saves and screenshots, and what a ``.rws`` save file holds."""

from __future__ import annotations

import time

from rimbridge_sim.world.model import Terrain
from rimbridge_sim.world.state import Game

__all__ = ["SAVE_NAME_PREFIX", "sanitize_name", "sanitize_save_name", "save_file"]

SAVE_NAME_PREFIX = "rimbridge_save"
"""The prefix of the name a save gets when none is given."""

_INVALID_FILE_CHARS = set('<>:"/\\|?*') | {chr(c) for c in range(32)}


def sanitize_name(name: str | None, fallback_prefix: str, now: float | None = None) -> str:
    """The file name (without extension) the mod makes of ``name``.

    A missing or blank name becomes ``<fallback_prefix>_<yyyyMMdd_HHmmss>`` in local time
    (``now``, a Unix time, defaults to the current one); any other is trimmed, and the
    characters a file name cannot hold become ``_`` (others, non-ASCII included, are kept).
    Two blank names within the same second give the same name, as in the mod."""
    if name is None or not name.strip():
        # ``time.localtime(None)`` reads a coarse clock that can lag ``time.time()`` across a
        # second; the precise one is used so the stamp never predates the call.
        stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(time.time() if now is None else now))
        return f"{fallback_prefix}_{stamp}"
    return "".join("_" if ch in _INVALID_FILE_CHARS else ch for ch in name.strip())


def sanitize_save_name(name: str | None, now: float | None = None) -> str:
    """The name a save is stored under (``rimbridge_save_<yyyyMMdd_HHmmss>`` when blank)."""
    return sanitize_name(name, SAVE_NAME_PREFIX, now)


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
        "    <gameVersion>1.6.4850</gameVersion>",
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
