"""Finding out whether, and how, a GABS bridge launched this process.

The rule is Lib.GAB 1.0.3's: the process runs under GABS when ``GABP_SERVER_PORT`` holds a
port from 1 to 65535 (surrounding blanks and a leading ``+`` allowed, as .NET's ``int.TryParse``
reads it) and ``GABP_TOKEN`` is not empty; ``GABS_GAME_ID`` then names the game. Nothing else is
a fallback for port or token: ``GABS_BRIDGE_PATH`` is the path of the launch's ``bridge.json``,
a file the bridge keeps for diagnostics, read here only as that path.

Where Lib.GAB goes on alone, :func:`gabs_launch` refuses: when either ``GABP_`` variable is set
but the pair is not usable (a port of ``0``, ``abc`` or ``70000``, a token missing), the bridge
is waiting on the port it set with the token it made, and a server on a port and token of its
own would never be reached.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lib_gab._server_config import ServerConfigError

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
    """The launch GABS describes in ``env`` (default ``os.environ``), or None when there is none.

    Raises :class:`ServerConfigError` naming the variable when ``GABP_SERVER_PORT`` or
    ``GABP_TOKEN`` is set but the two do not make a usable launch.
    """
    if env is None:
        env = os.environ
    raw_port = env.get("GABP_SERVER_PORT") or ""
    token = env.get("GABP_TOKEN") or ""
    if not raw_port and not token:
        return None
    port = _port(raw_port)
    if port is None:
        given = (
            f"is {raw_port!r}, not a port from 1 to 65535" if raw_port else "is empty or not set"
        )
        raise ServerConfigError(
            f"GABP_SERVER_PORT {given}{', while GABP_TOKEN is set' if token else ''}: the "
            "bridge waits on the port it gave, so the server will not listen on one of its own"
        )
    if not token:
        raise ServerConfigError(
            "GABP_TOKEN is empty or not set, while GABP_SERVER_PORT is: the bridge sends the "
            "token it made, so the server will not make up one of its own"
        )
    bridge_path = env.get("GABS_BRIDGE_PATH") or None
    return GabsLaunch(
        port=port,
        token=token,
        game_id=env.get("GABS_GAME_ID") or None,
        bridge_path=Path(bridge_path) if bridge_path else None,
    )


def is_running_under_gabs(env: Mapping[str, str] | None = None) -> bool:
    """True when GABS launched this process (a usable port and a token in the environment);
    False for an unusable one too, as Lib.GAB answers (:func:`gabs_launch` says what is wrong)."""
    try:
        return gabs_launch(env) is not None
    except ServerConfigError:
        return False


def _port(raw: str) -> int | None:
    text = raw.strip()
    text = text[1:] if text.startswith("+") else text
    # ASCII digits only, as .NET's int.Parse reads them ("²".isdigit() is true, int() refuses it)
    if not (text.isascii() and text.isdigit()):
        return None
    port = int(text)
    return port if 1 <= port <= 65535 else None
