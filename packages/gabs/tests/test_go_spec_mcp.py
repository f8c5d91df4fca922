"""Behaviours the Go bridge's own MCP tests pin (GABS 1.1.0, ``internal/mcp/*_test.go``),
checked against ``gabs``. The expected values are the Go bridge's, observed side by side and
pinned here (the Go binary is not needed).

* ``integer_boundary_test.go``, ``integer_args_test.go``: an integer beyond the signed 64-bit
  range is refused as "must be an integer" (``gabs``: ``invalid_arguments``, rule ``type``, as
  for every wrong type), while ``9223372036854775807`` itself is an integer (in
  ``games_start``: ``timeout_out_of_range``). Go parses the number's text, so it refuses a
  whole float (``10.0``) too; ``gabs`` reads it as the integer JSON Schema says it is (kept).
* ``multi_game_mirroring_test.go``: an empty page names the filter that matched nothing, and
  its structured content is Go's (no ``query``, ``prefix`` or ``brief`` echo).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from gabs import games_status
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.mcp.call_results import call_view
from gabs_test_support import mcp_client, text
from lib_gab import GabpServer

TOKEN = "t" * 64
INT64_MAX = 9223372036854775807


def config(tmp_path: Path, *ids: str) -> GabsConfig:
    games = {
        gid: {"id": gid, "name": f"Game {gid}", "launchMode": "DirectPath", "target": "/x/run"}
        for gid in ids
    }
    return GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)


@asynccontextmanager
async def client_for(tmp_path: Path, *ids: str) -> AsyncIterator[Client]:
    async with mcp_client(config(tmp_path, *ids)) as client:
        yield client


@asynccontextmanager
async def connected(tmp_path: Path) -> AsyncIterator[Client]:
    """A session with game ``adventure`` connected, which has two tools (as Go's test game)."""
    server = GabpServer(app_name="Adventure", app_version="1", agent_id="adventure", token=TOKEN)

    @server.tool("crafting/build", description="Build an item.")
    def build(item: str) -> dict[str, str]:
        return {"item": item}

    @server.tool("inventory/get", description="Read the inventory.")
    def inventory() -> dict[str, int]:
        return {"items": 0}

    notifier = ToolListNotifier()
    manager = GameManager(
        config(tmp_path, "adventure"), on_tools_changed=notifier, liveness_interval=60
    )
    async with manager, server.running() as address:
        await manager.connect("adventure", port=address.port, token=TOKEN)
        async with Client(build_server(manager, notifier=notifier)) as client:
            yield client


def type_problem(result: types.CallToolResult, field: str) -> dict[str, Any]:
    assert result.is_error, text(result)
    data = call_view(result)
    assert data["code"] == "invalid_arguments", data
    (problem,) = [p for p in data["errors"] if p["field"] == field]
    assert problem["rule"] == "type", problem
    return problem


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("games_start", {"gameId": "adventure", "timeout": 20.0}, "$.timeout"),
        ("games_connect", {"gameId": "adventure", "timeout": 2.0}, "$.timeout"),
        ("games_get_attention", {"gameId": "adventure", "timeout": 2.0}, "$.timeout"),
        ("games_call_tool", {"tool": "x", "timeout": 5.0}, "$.timeout"),
        ("games_tool_names", {"limit": 2.0}, "$.limit"),
        ("games_tools", {"limit": 1e3}, "$.limit"),
    ],
)
async def test_a_whole_float_is_read_as_its_integer_and_a_fraction_is_refused(
    tmp_path: Path, tool: str, arguments: dict[str, Any], field: str
) -> None:
    # Go 1.1.0 refuses even the whole float ("Argument 'timeout' must be an integer"); JSON
    # Schema counts 20.0 an integer, so gabs takes it (a kept difference).
    fraction = {**arguments, field[2:]: arguments[field[2:]] + 0.5}
    async with client_for(tmp_path, "adventure") as client:
        taken = await client.call_tool(tool, arguments)
        refused = await client.call_tool(tool, fraction)
    if taken.is_error:
        assert call_view(taken)["code"] != "invalid_arguments", text(taken)
    assert "is not of type 'integer'" in type_problem(refused, field)["message"]


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("games_start", {"gameId": "adventure", "timeout": INT64_MAX + 1}, "$.timeout"),
        ("games_start", {"gameId": "adventure", "timeout": 10**23}, "$.timeout"),
        ("games_start", {"gameId": "adventure", "timeout": str(10**23)}, "$.timeout"),
        ("games_call_tool", {"tool": "x", "timeout": 10**23}, "$.timeout"),
        ("games_get_attention", {"timeout": -(10**23)}, "$.timeout"),
        ("games_tool_names", {"limit": 10**23}, "$.limit"),
        ("games_tools", {"limit": str(INT64_MAX + 1)}, "$.limit"),
    ],
)
async def test_an_integer_beyond_64_bits_is_refused_not_clamped(
    tmp_path: Path, tool: str, arguments: dict[str, Any], field: str
) -> None:
    # Go 1.1.0 (TestIntegerArgOverflowRejectedStdio): "... must be an integer".
    async with client_for(tmp_path, "adventure") as client:
        refused = await client.call_tool(tool, arguments)
    assert "does not fit a 64-bit integer" in type_problem(refused, field)["message"]


async def test_the_largest_64_bit_integer_is_an_integer(tmp_path: Path) -> None:
    async with client_for(tmp_path, "adventure") as client:
        start = await client.call_tool("games_start", {"gameId": "adventure", "timeout": INT64_MAX})
        names = await client.call_tool("games_tool_names", {"limit": INT64_MAX, "cursor": "0"})
    assert start.is_error and call_view(start)["code"] == "timeout_out_of_range"
    assert not names.is_error, text(names)


@pytest.mark.parametrize(
    ("tool", "arguments", "noun", "filters"),
    [
        (
            "games_tool_names",
            {"query": "teleport", "brief": True},
            "tool names",
            'query "teleport"',
        ),
        ("games_tools", {"prefix": "adventure.core"}, "tools", 'prefix "adventure.core"'),
        (
            "games_tool_names",
            {"query": "zz", "prefix": "adventure"},
            "tool names",
            'query "zz" and prefix "adventure"',
        ),
    ],
)
async def test_an_empty_filtered_page_names_its_filters_and_has_gos_keys(
    tmp_path: Path, tool: str, arguments: dict[str, Any], noun: str, filters: str
) -> None:
    # Go 1.1.0 (FilteredToolNamesWithNoMatchesExplainsWhy): the text names what matched
    # nothing; the structured content is availableTotal, gameId, total, returned, nextCursor,
    # tools, without the filters or brief.
    async with connected(tmp_path) as client:
        result = await client.call_tool(tool, {"gameId": "adventure", **arguments})
    assert not result.is_error
    first, hint = text(result).splitlines()
    assert first == f"No matching game-specific {noun} for 'adventure'."
    assert hint.startswith(f"2 are connected, none matched {filters}.")
    data = dict(result.structured_content or {})
    data.pop("nextActions", None)
    assert data == {
        "availableTotal": 2,
        "gameId": "adventure",
        "total": 0,
        "returned": 0,
        "nextCursor": "",
        "tools": [],
    }


async def test_a_page_with_tools_still_echoes_its_filters(tmp_path: Path) -> None:
    async with connected(tmp_path) as client:
        result = await client.call_tool(
            "games_tool_names", {"gameId": "adventure", "query": "craft", "brief": True}
        )
    data = result.structured_content or {}
    assert (data["query"], data["brief"], data["returned"]) == ("craft", True, 1)


NOTICE = "\n\n⚠️ The configuration file on disk is INVALID (revision sha256:"


async def test_list_and_status_texts_carry_the_invalid_file_notice(tmp_path: Path) -> None:
    # Go 1.1.0 (TestRuntimeOnlyStatusSurfacesConfigError): games_list and games_status, as
    # games_show, end their text with the notice while the last-good values are served.
    game = {"id": "a", "name": "A", "launchMode": "DirectPath", "target": "/x/a"}
    (tmp_path / "config.json").write_text(json.dumps({"version": "1.0", "games": {"a": game}}))
    notifier = ToolListNotifier()
    manager = GameManager(
        GabsConfig.load(tmp_path), on_tools_changed=notifier, liveness_interval=60
    )
    async with manager, Client(build_server(manager, notifier=notifier)) as client:
        (tmp_path / "config.json").write_text('{"version":"1.0","games":{')
        results = {
            "list": await client.call_tool("games_list", {}),
            "status": await client.call_tool("games_status", {"gameId": "a"}),
            "all": await client.call_tool("games_status", {}),
            "show": await client.call_tool("games_show", {"gameId": "a"}),
        }
    for name, result in results.items():
        data = result.structured_content or {}
        assert isinstance(data.get("configError"), str), name
        _, notice, tail = text(result).partition(NOTICE)
        assert notice, (name, text(result))
        assert tail.endswith(f"Error: {data['configError']}"), (name, tail)
        assert data["invalidRevision"].startswith("sha256:" + tail[:12]), name
    assert text(results["list"]).startswith("a" + NOTICE)
    assert text(results["status"]).startswith("**a** (A): stopped\n" + NOTICE)
    assert text(results["all"]).startswith("Game Status Summary:\n\n• **a**: stopped\n" + NOTICE)


async def test_valid_files_add_no_notice(tmp_path: Path) -> None:
    async with client_for(tmp_path, "a") as client:
        listed = await client.call_tool("games_list", {})
        status = await client.call_tool("games_status", {})
    assert text(listed) == "a"
    assert "INVALID" not in text(status)


async def test_an_incomplete_claim_scan_is_noted_in_the_status_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Go 1.1.0: the all-games status adds "\n⚠ runtime claim scan incomplete: <error>
    # (runtime-only claims may be omitted)\n" to its text, not only runtimeClaimScanError.
    def unreadable(config_dir: Path) -> list[str]:
        raise PermissionError("open games: permission denied")

    monkeypatch.setattr(games_status, "list_claims", unreadable)
    async with client_for(tmp_path, "a") as client:
        status = await client.call_tool("games_status", {})
    assert text(status) == (
        "Game Status Summary:\n\n• **a**: stopped\n\n⚠ runtime claim scan incomplete: open "
        "games: permission denied (runtime-only claims may be omitted)\n"
    )
    assert (status.structured_content or {})["runtimeClaimScanError"] == (
        "open games: permission denied"
    )


async def test_a_tool_of_several_games_without_game_id_names_them_and_what_to_do(
    tmp_path: Path,
) -> None:
    # Go 1.1.0 (ToolDetailRejectsAmbiguousLocalNameWithoutGameId): "Tool 'inventory/get'
    # matched multiple games (alpha, beta). ..."; ours also offers the tool in each game.
    servers = {
        gid: GabpServer(app_name=gid, app_version="1", agent_id=gid, token=TOKEN)
        for gid in ("alpha", "beta")
    }
    for server in servers.values():

        @server.tool("inventory/get", description="Read the inventory.")
        def inventory() -> dict[str, int]:
            return {"items": 0}

    notifier = ToolListNotifier()
    manager = GameManager(
        config(tmp_path, "alpha", "beta"), on_tools_changed=notifier, liveness_interval=60
    )
    async with manager, servers["alpha"].running() as a, servers["beta"].running() as b:
        await manager.connect("alpha", port=a.port, token=TOKEN)
        await manager.connect("beta", port=b.port, token=TOKEN)
        async with Client(build_server(manager, notifier=notifier)) as client:
            detail = await client.call_tool("games_tool_detail", {"tool": "inventory/get"})
            call = await client.call_tool("games_call_tool", {"tool": "inventory.get"})
    for result, requested in ((detail, "inventory/get"), (call, "inventory.get")):
        assert result.is_error
        assert f"tool '{requested}' matched multiple games (alpha, beta)" in text(result)
        data = call_view(result)
        assert (data["code"], data["candidates"]) == ("ambiguous_game_reference", ["alpha", "beta"])
        assert [(a["tool"], a["arguments"]) for a in data["nextActions"]] == [
            ("games_tool_detail", {"gameId": "alpha", "tool": requested}),
            ("games_tool_detail", {"gameId": "beta", "tool": requested}),
        ]


@pytest.mark.parametrize("tool", ["games_kill", "games_stop", "games_status"])
async def test_a_removed_game_without_a_claim_is_not_found(tmp_path: Path, tool: str) -> None:
    # Go 1.1.0: once a game's entry is gone from the config and nothing claims it (it was
    # stopped), its id is game_not_found, also in the session that knew it.
    games = {
        gid: {"id": gid, "name": gid.upper(), "launchMode": "DirectPath", "target": f"/x/{gid}"}
        for gid in ("a", "b")
    }
    (tmp_path / "config.json").write_text(json.dumps({"version": "1.0", "games": games}))
    notifier = ToolListNotifier()
    manager = GameManager(
        GabsConfig.load(tmp_path), on_tools_changed=notifier, liveness_interval=60
    )
    async with manager, Client(build_server(manager, notifier=notifier)) as client:
        known = await client.call_tool("games_status", {"gameId": "a"})
        del games["a"]
        (tmp_path / "config.json").write_text(json.dumps({"version": "1.0", "games": games}))
        gone = await client.call_tool(tool, {"gameId": "a"})
    assert not known.is_error
    assert gone.is_error, text(gone)
    assert call_view(gone)["code"] == "game_not_found"
    assert text(gone).startswith("Game 'a' not found. Use games_list to see available games.")
