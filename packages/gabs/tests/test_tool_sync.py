"""A game that answers ``tools/list`` with a GABP error, as the Go bridge (GABS 1.1.0) treats
it (pinned here, the Go binary is not needed): the session is set up; discovery for the game
answers ``Game '<id>' is connected, but syncing GABP tools failed: <why>`` and asks again each
time; a call goes to the game by its GABP name; once the game lists its tools, they are there."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from gabs.config import GabsConfig
from gabs.game_tools import MirroredTool
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs_test_support import text

TOKEN = "t" * 64
WHY = "the game answered tools/list with error -32603: tools exploded"


class ListlessGame:
    """A raw GABP game whose ``tools/list`` fails while :attr:`failing`."""

    def __init__(self) -> None:
        self.failing = True
        self.called: list[str] = []

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        method, params = message.get("method"), message.get("params") or {}
        reply: dict[str, Any] = {"v": "gabp/1", "id": message.get("id"), "type": "response"}
        if method == "session/hello":
            reply["result"] = {
                "agentId": "a",
                "app": {"name": "Listless", "version": "1"},
                "capabilities": {"methods": ["tools/list", "tools/call"], "events": []},
                "schemaVersion": "1.0",
            }
        elif method == "tools/list" and self.failing:
            reply["error"] = {"code": -32603, "message": "tools exploded"}
        elif method == "tools/list":
            reply["result"] = {"tools": [{"name": "g/echo", "inputSchema": {"type": "object"}}]}
        else:
            self.called.append(str(params.get("name")))
            arguments = params.get("arguments") or {}
            reply["result"] = {"text": str(arguments.get("text", ""))}
        return reply

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                length = 0
                while (line := await reader.readline()).strip():
                    name, _, value = line.decode().partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if not length:
                    return
                body = json.dumps(self.answer(json.loads(await reader.readexactly(length))))
                writer.write(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            writer.close()


@asynccontextmanager
async def connected(tmp_path: Path, game: ListlessGame) -> AsyncIterator[Client]:
    document = {
        "version": "1.0",
        "games": {"a": {"id": "a", "name": "Game a", "launchMode": "DirectPath", "target": "/a"}},
    }
    notifier = ToolListNotifier()
    listener = await asyncio.start_server(game.serve, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    manager = GameManager(
        GabsConfig.from_json(document, config_dir=tmp_path),
        on_tools_changed=notifier,
        liveness_interval=60,
    )
    async with listener, manager, Client(build_server(manager, notifier=notifier)) as client:
        await manager.connect("a", port=port, token=TOKEN)
        yield client


async def test_discovery_answers_the_sync_error_and_calls_reach_the_game(tmp_path: Path) -> None:
    game = ListlessGame()
    with anyio.fail_after(20):
        async with connected(tmp_path, game) as client:
            for tool in ("games_tool_names", "games_tools"):
                refused = await client.call_tool(tool, {"gameId": "a"})
                assert refused.is_error
                assert (
                    text(refused) == f"Game 'a' is connected, but syncing GABP tools failed: {WHY}"
                )
                assert refused.structured_content == {"gameId": "a", "error": WHY}
            detail = await client.call_tool("games_tool_detail", {"gameId": "a", "tool": "g/echo"})
            assert detail.is_error and text(detail).startswith("Game 'a' is connected, but")
            everything = await client.call_tool("games_tool_names", {})
            assert not everything.is_error  # without gameId such a game just lists nothing
            assert everything.structured_content is not None
            assert everything.structured_content["tools"] == []

            for name in ("g/echo", "a.g.echo", "a/g/echo"):
                called = await client.call_tool(
                    "games_call_tool", {"gameId": "a", "tool": name, "arguments": {"text": name}}
                )
                assert not called.is_error, text(called)
                assert text(called) == name
            alone = await client.call_tool(
                "games_call_tool", {"tool": "g/echo", "arguments": {"text": "one game"}}
            )
            assert text(alone) == "one game"
            assert game.called == ["g/echo"] * 4

            status = await client.call_tool("games_status", {"gameId": "a"})
            assert status.structured_content is not None
            assert status.structured_content["connection"]["toolsError"] == WHY

            game.failing = False  # the game can list its tools now: the next discovery asks
            listed = await client.call_tool("games_tool_names", {"gameId": "a"})
            assert not listed.is_error, text(listed)
            assert listed.structured_content is not None
            assert [t["gabpName"] for t in listed.structured_content["tools"]] == ["g/echo"]
            status = await client.call_tool("games_status", {"gameId": "a"})
            assert status.structured_content is not None
            assert "toolsError" not in status.structured_content["connection"]


async def test_a_tool_detail_shows_null_for_an_output_schema_the_game_did_not_send(
    tmp_path: Path,
) -> None:
    # Go 1.1.0's games_tool_detail: "outputSchema": null when the game's descriptor has none,
    # and the game's own object (a Lib.GAB game sends {}) when it has one
    game = ListlessGame()
    game.failing = False
    with anyio.fail_after(20):
        async with connected(tmp_path, game) as client:
            detail = await client.call_tool("games_tool_detail", {"gameId": "a", "tool": "g/echo"})
            assert not detail.is_error, text(detail)
            assert detail.structured_content is not None
            assert detail.structured_content["outputSchema"] is None
    sent = MirroredTool.from_descriptor({"name": "g/x", "outputSchema": {}})
    assert sent.output_schema_sent and sent.output_schema == {}
