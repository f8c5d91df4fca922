"""What the compatibility suite needs to drive any GABS bridge: a config directory in the Go
bridge's ``config.json`` format (:class:`ConfigDir`) and an MCP stdio session with the bridge
through the official SDK client (:func:`bridge_session`), running
``<bridge> server stdio --configDir DIR --log-level warn``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent
GAME_SCRIPT = HERE / "compat_game.py"
#: Seconds a bridge may take to answer one MCP request (a start included).
REQUEST_TIMEOUT = 60.0


class ConfigDir:
    """A bridge config directory: ``config.json`` in the Go bridge's format, plus a folder the
    test game reports its process id in."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.games_dir = path.parent / f"{path.name}-games"
        self.games_dir.mkdir(parents=True, exist_ok=True)
        self.games: dict[str, dict[str, Any]] = {}

    def game(self, game_id: str, *, name: str | None = None, **extra: Any) -> dict[str, Any]:
        """Add the compat game as ``game_id`` (``CustomCommand``: this Python, the script)."""
        entry: dict[str, Any] = {
            "id": game_id,
            "name": name or f"Compat game {game_id}",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": [str(GAME_SCRIPT)],
            "description": "A small GABP game of the compatibility suite.",
            "env": {"COMPAT_GAME_DIR": str(self.games_dir)},
            **extra,
        }
        self.games[game_id] = entry
        return entry

    def write(self) -> Path:
        """Write ``config.json`` and return the directory."""
        document: dict[str, Any] = {
            "version": "1.0",
            "timeouts": {"startup": {"processStartSeconds": 20, "gabpConnectSeconds": 30}},
            "games": self.games,
        }
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "config.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
        return self.path

    def game_pid(self, game_id: str) -> int | None:
        """The process id the game reported, if it started."""
        try:
            return int((self.games_dir / f"{game_id}.pid").read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None


def bridge_environment(home: Path) -> dict[str, str]:
    """The environment a host gives the bridge: no GABS_/GABP_ leftovers, a private home."""
    keep = {
        name: value for name, value in os.environ.items() if not name.startswith(("GABS_", "GABP_"))
    }
    return {**keep, "HOME": str(home), "USERPROFILE": str(home)}


OpenBridge = Callable[[ConfigDir], AbstractAsyncContextManager[Client]]


def bridge_session(command: list[str], home: Path) -> OpenBridge:
    """A function that opens an MCP session with the bridge ``command`` for a config."""

    @asynccontextmanager
    async def session(config: ConfigDir) -> AsyncIterator[Client]:
        directory = config.write()
        params = StdioServerParameters(
            command=command[0],
            args=[
                *command[1:],
                "server",
                "stdio",
                "--configDir",
                str(directory),
                "--log-level",
                "warn",
            ],
            env=bridge_environment(home),
        )
        async with Client(params, mode="legacy", read_timeout_seconds=REQUEST_TIMEOUT) as client:
            yield client

    return session
