"""What the tests of ``gabs`` share: a games config from entries, an MCP session with a bridge
in this process (the official SDK's in-memory client against ``build_server``), and a tool
result's structured content and text."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server

__all__ = ["QUICK_START", "bridge", "data", "games_config", "mcp_client", "text"]

#: The start timeouts of :func:`games_config`: a start looks for the game's process for 1 s
#: (the tests' games run or fail at once).
QUICK_START = {"startup": {"processStartSeconds": 1}}


def games_config(tmp_path: Path, games: dict[str, dict[str, Any]], **top: Any) -> GabsConfig:
    """A config of ``games`` (each entry given its ``id`` and, unless it has them, the name
    ``Game <id>`` and ``DirectPath``) in the folder ``tmp_path``, with :data:`QUICK_START`
    and the ``top``-level keys given."""
    entries = {
        gid: {"id": gid, "name": f"Game {gid}", "launchMode": "DirectPath", **entry}
        for gid, entry in games.items()
    }
    document = {"version": "1.0", "timeouts": QUICK_START, "games": entries, **top}
    return GabsConfig.from_json(document, config_dir=tmp_path)


@asynccontextmanager
async def bridge(config: GabsConfig, **client: Any) -> AsyncIterator[tuple[GameManager, Client]]:
    """The games of ``config`` and an MCP session with the bridge over them."""
    notifier = ToolListNotifier()
    manager = GameManager(config, on_tools_changed=notifier, liveness_interval=60)
    async with manager, Client(build_server(manager, notifier=notifier), **client) as session:
        yield manager, session


@asynccontextmanager
async def mcp_client(config: GabsConfig, **client: Any) -> AsyncIterator[Client]:
    """An MCP session with the bridge over the games of ``config``."""
    async with bridge(config, **client) as (_, session):
        yield session


def data(result: types.CallToolResult) -> dict[str, Any]:
    """A tool result's structured content (which it must have)."""
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def text(result: types.CallToolResult) -> str:
    """A tool result's text, its text parts joined by newlines."""
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def read_raw_frame(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """One ``Content-Length`` framed GABP message read by hand (a fake game's side of the
    wire, as the Go tests' fake servers read it); ``None`` at the end of the stream."""
    length = None
    while line := (await reader.readline()).strip():
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if length is None:
        return None
    message: dict[str, Any] = json.loads(await reader.readexactly(length))
    return message


def raw_frame(message: dict[str, Any]) -> bytes:
    """``message`` framed by hand with its ``Content-Length`` header."""
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def write_raw_frame(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    """Write ``message`` framed by hand (see :func:`raw_frame`)."""
    writer.write(raw_frame(message))
