"""How a game's tools are named and looked up, as the Go bridge's own user documentation
(OPENAI_TOOL_NORMALIZATION.md, DYNAMIC_TOOLS_GUIDE.md, INTEGRATION.md) and the Go bridge 1.1.0
itself have it. Expected values are the Go bridge's, pinned from side-by-side runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from gabs.config import GabsConfig
from gabs.game_tools import MirroredTool
from gabs.games import GameManager
from gabs.mcp import build_server
from gabs.mcp.tool_names import ToolIndex
from lib_gab import GabpServer

TOKEN = "cd34" * 16


def _tools(*names: str) -> list[MirroredTool]:
    return [MirroredTool.from_descriptor({"name": name}) for name in names]


def test_a_game_tool_named_like_a_core_tool_gets_the_hash_suffix() -> None:
    # Go 1.1.0, game "games" with the tool "tool/names": games_tool_names_e7de8f23 (the core
    # tool keeps its name). Go gives "list" the plain name games_list and so lets the game's
    # tool replace the core tool; gabs suffixes it like any other taken name.
    index = ToolIndex([("games", _tools("tool/names", "list", "scores/get"))])
    exposed = {entry.gabp_name: entry.exposed for entry in index.entries}
    assert exposed == {
        "tool/names": "games_tool_names_e7de8f23",
        "list": "games_list_36c38eec",
        "scores/get": "games_scores_get",
    }
    assert [entry.tool.name for entry in index.find("games_list_36c38eec")] == ["list"]
    assert index.find("games_list") == index.find("games_tool_names") == []


def test_a_name_two_games_share_keeps_its_plain_form_for_one_and_a_suffix_for_the_other() -> None:
    # Go 1.1.0: a_b_c and a_b_c_9eddecd1 (game "a" connected first); the suffix is the SHA-1
    # of "<gameId>/<gabp name>".
    index = ToolIndex([("a_b", _tools("c")), ("a", _tools("b/c"))])
    exposed = sorted((entry.game_id, entry.exposed) for entry in index.entries)
    assert exposed == [("a", "a_b_c"), ("a_b", "a_b_c_9eddecd1")]


def _game() -> GabpServer:
    server = GabpServer(app_name="Factory", app_version="1", agent_id="a", token=TOKEN)

    @server.tool("inv/get", description="Tool inv.get. More words.")
    def inv_get() -> dict[str, bool]:
        return {"ok": True}

    @server.tool("inventory/get", description="Get the inventory.", tags=["read-only"])
    def inventory_get() -> dict[str, bool]:
        return {"ok": True}

    return server


def _entry(game_id: str, target: str) -> dict[str, str]:
    return {"id": game_id, "name": game_id, "launchMode": "SteamAppId", "target": target}


@asynccontextmanager
async def _bridge(tmp_path: Path, **others: str) -> AsyncIterator[Client]:
    game = _game()
    games = {"a": _entry("a", "294100")} | {gid: _entry(gid, t) for gid, t in others.items()}
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    async with game.running() as address, GameManager(config, liveness_interval=60) as manager:
        assert address.port is not None
        await manager.connect("a", port=address.port, token=TOKEN)
        async with Client(build_server(manager)) as client:
            yield client


def _data(result: types.CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def test_a_tool_not_found_lists_candidates_as_the_go_bridge_does(tmp_path: Path) -> None:
    # Go 1.1.0: the candidates are the tools the requested name matches as a games_tool_names
    # query (here a substring, "inv.ge" having a separator), at most ten, each the brief
    # games_tool_names entry (localName, originalName, summary, tags).
    async with _bridge(tmp_path) as client:
        with anyio.fail_after(10):
            anywhere = await client.call_tool("games_call_tool", {"tool": "inv.ge"})
            in_game = await client.call_tool("games_tool_detail", {"tool": "inv", "gameId": "a"})
    assert anywhere.is_error
    assert _data(anywhere)["requested"] == "inv.ge"
    assert _data(anywhere)["availableTotal"] == 2
    assert _data(anywhere)["candidates"] == [
        {
            "name": "a_inv_get",
            "gameId": "a",
            "localName": "inv/get",
            "originalName": "a.inv.get",
            "gabpName": "inv/get",
            "summary": "Tool inv.get.",
        }
    ]
    # "inv", without a separator: a prefix of one of a name's words (inv, inventory)
    assert in_game.is_error
    assert [c["name"] for c in _data(in_game)["candidates"]] == ["a_inv_get", "a_inventory_get"]
    assert _data(in_game)["candidates"][1]["tags"] == ["read-only"]
    assert _data(in_game)["candidates"][1]["summary"] == "Get the inventory."


async def test_the_game_tools_take_a_launch_target_for_the_game_id(tmp_path: Path) -> None:
    # INTEGRATION.md: "You can use either the game ID or the launch target ... in any tool."
    # Go 1.1.0 resolves the gameId of the discovery, call and attention tools so, and answers
    # with the game's id.
    async with _bridge(tmp_path, b="440") as client:
        with anyio.fail_after(10):
            names = await client.call_tool("games_tool_names", {"gameId": "294100"})
            detail = await client.call_tool(
                "games_tool_detail", {"gameId": "294100", "tool": "inv/get"}
            )
            tools = await client.call_tool("games_tools", {"gameId": "294100"})
            called = await client.call_tool(
                "games_call_tool", {"gameId": "294100", "tool": "inv/get"}
            )
            attention = await client.call_tool("games_get_attention", {"gameId": "294100"})
            other = await client.call_tool("games_tool_names", {"gameId": "440"})
    for result in (names, detail, tools, attention):
        assert not result.is_error, result
        assert _data(result)["gameId"] == "a"
    assert [tool["name"] for tool in _data(names)["tools"]] == ["a_inv_get", "a_inventory_get"]
    assert not called.is_error and _data(called) == {"ok": True}
    # the target of a game that is not connected: that game's (empty) list, not game "a"'s
    assert not other.is_error and _data(other)["gameId"] == "b"
    assert _data(other)["tools"] == []


async def test_a_launch_target_two_games_share_names_no_game(tmp_path: Path) -> None:
    # Go 1.1.0: an ambiguous target resolves to no game ("Game '294100' not found").
    async with _bridge(tmp_path, b="294100") as client:
        with anyio.fail_after(10):
            names = await client.call_tool("games_tool_names", {"gameId": "294100"})
    assert names.is_error
    assert _data(names)["code"] == "game_not_found"
