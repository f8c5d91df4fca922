"""What the compatibility suite needs to drive any GABS bridge: a config directory in the Go
bridge's ``config.json`` format (:class:`ConfigDir`) and an MCP stdio session with the bridge
through the official SDK client (:func:`bridge_session`), running
``<bridge> server stdio --configDir DIR --log-level warn``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters

from .results import process_alive, text_of, wait_gone

__all__ = [
    "FAULTY_GAME",
    "GAME_SCRIPT",
    "HANDSHAKE_GAME",
    "INTERLEAVING_GAME",
    "LIBGAB_WIRE_GAME",
    "REQUEST_TIMEOUT",
    "ConfigDir",
    "OpenBridge",
    "bridge_environment",
    "bridge_session",
    "process_alive",
    "run_cli",
    "start_game",
    "structured",
    "text_of",
    "wait_gone",
]

HERE = Path(__file__).resolve().parent
GAME_SCRIPT = HERE / "compat_game.py"
#: The game that fails a call the way a ``fault/act`` argument names.
FAULTY_GAME = HERE / "faulty_game.py"
#: The scriptable game that varies or misbehaves at session setup (``HANDSHAKE_MODE``).
HANDSHAKE_GAME = HERE / "handshake_game.py"
#: The game that interleaves overlapping replies as the C# runtime 1.0.3 does.
INTERLEAVING_GAME = HERE / "interleaving_game.py"
#: The game that answers with the C# runtime 1.0.3's wire output, quirks included.
LIBGAB_WIRE_GAME = HERE / "libgab_wire_game.py"
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
        self.top: dict[str, Any] = {}
        """Top-level keys of ``config.json`` besides ``version`` and ``games`` (``apiKey``,
        ``toolNormalization``, ...)."""

    def game(
        self,
        game_id: str,
        *,
        name: str | None = None,
        script: Path = GAME_SCRIPT,
        env: dict[str, str] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Add a game as ``game_id`` (``CustomCommand``: this Python, the script; by default
        the compat game)."""
        entry: dict[str, Any] = {
            "id": game_id,
            "name": name or f"Compat game {game_id}",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": [str(script)],
            "description": "A small GABP game of the compatibility suite.",
            "env": {"COMPAT_GAME_DIR": str(self.games_dir), **(env or {})},
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
            **self.top,
        }
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "config.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
        return self.path

    def launch_report(self, game_id: str) -> dict[str, Any] | None:
        """What the game reported it was handed (arguments, cwd, the bridge's variables)."""
        try:
            data: dict[str, Any] = json.loads(
                (self.games_dir / f"{game_id}.launch.json").read_text(encoding="utf-8")
            )
        except (FileNotFoundError, ValueError):
            return None
        return data

    def game_pid(self, game_id: str) -> int | None:
        """The process id the game reported, if it started."""
        try:
            return int((self.games_dir / f"{game_id}.pid").read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None


def bridge_environment(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a host gives the bridge: no GABS_/GABP_ leftovers, a private home (and
    ``extra``)."""
    keep = {
        name: value for name, value in os.environ.items() if not name.startswith(("GABS_", "GABP_"))
    }
    return {**keep, "HOME": str(home), "USERPROFILE": str(home), **(extra or {})}


OpenBridge = Callable[..., AbstractAsyncContextManager[Client]]


def bridge_session(command: list[str], home: Path) -> OpenBridge:
    """A function that opens an MCP session with the bridge ``command`` for a config
    (``open_bridge(config_dir, env={...})`` adds to the bridge's environment)."""

    @asynccontextmanager
    async def session(
        config: ConfigDir, env: dict[str, str] | None = None
    ) -> AsyncIterator[Client]:
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
            env=bridge_environment(home, env),
        )
        async with Client(params, mode="legacy", read_timeout_seconds=REQUEST_TIMEOUT) as client:
            yield client

    return session


def run_cli(
    command: list[str],
    home: Path,
    config: ConfigDir,
    *arguments: str,
    env: dict[str, str] | None = None,
    timeout: float = REQUEST_TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    """``<bridge> <arguments> --configDir DIR`` as a shell user runs it (stdin closed)."""
    directory = config.write()
    return subprocess.run(
        [*command, *arguments, "--configDir", str(directory)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        env=bridge_environment(home, env),
    )


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def start_game(client: Client, game_id: str = "compat") -> types.CallToolResult:
    """``games_start`` of ``game_id``, which must answer ``started_connected``."""
    started = await client.call_tool("games_start", {"gameId": game_id})
    assert not started.is_error, text_of(started)
    assert structured(started).get("code") == "started_connected", text_of(started)
    return started
