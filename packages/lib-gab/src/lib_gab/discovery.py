"""Finding out whether, and how, a GABS bridge launched this process.

The rule is Lib.GAB 1.0.3's: the process runs under GABS when ``GABP_SERVER_PORT`` holds a
port from 1 to 65535 and ``GABP_TOKEN`` is not empty; ``GABS_GAME_ID`` then names the game.
Nothing else is a fallback for port or token: ``GABS_BRIDGE_PATH`` is the path of the launch's
``bridge.json``, a file the bridge keeps for diagnostics, read here only as that path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["GabsLaunch", "gabs_launch", "is_running_under_gabs"]


@dataclass(frozen=True)
class GabsLaunch:
    """What GABS put in the environment of a game it launched."""

    port: int
    token: str = field(repr=False)
    game_id: str | None = None
    bridge_path: Path | None = None
    """``GABS_BRIDGE_PATH``: the launch's ``bridge.json`` (diagnostics only; never read for
    the port or the token)."""


def gabs_launch(env: Mapping[str, str] | None = None) -> GabsLaunch | None:
    """The launch GABS describes in ``env`` (default ``os.environ``), or None when there is none."""
    if env is None:
        env = os.environ
    raw_port = (env.get("GABP_SERVER_PORT") or "").strip()
    token = env.get("GABP_TOKEN") or ""
    # ASCII digits only, as .NET's int.Parse reads them ("²".isdigit() is true, int() refuses it)
    if not (raw_port.isascii() and raw_port.isdigit()) or not token:
        return None
    port = int(raw_port)
    if not 1 <= port <= 65535:
        return None
    bridge_path = env.get("GABS_BRIDGE_PATH") or None
    return GabsLaunch(
        port=port,
        token=token,
        game_id=env.get("GABS_GAME_ID") or None,
        bridge_path=Path(bridge_path) if bridge_path else None,
    )


def is_running_under_gabs(env: Mapping[str, str] | None = None) -> bool:
    """True when GABS launched this process (a usable port and a token in the environment)."""
    return gabs_launch(env) is not None
