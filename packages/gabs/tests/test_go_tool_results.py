"""Results of the core tools where the Go bridge (GABS 1.1.0) fixes the value or the layout:
a lifecycle tool's ``gameId`` taken as a configured game's launch target (one game: that game;
several: ``ambiguous_game_reference``), and the ``games_status`` text lines. The expected
values are the Go bridge's, pinned here (the Go binary is not needed)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier
from gabs.mcp.call_results import call_view
from gabs_test_support import mcp_client as client_for
from gabs_test_support import text
from lib_gab import GabpServer


def entry(game_id: str, target: str) -> dict[str, Any]:
    return {"id": game_id, "name": f"Game {game_id}", "launchMode": "DirectPath", "target": target}


def config(tmp_path: Path, **games: str) -> GabsConfig:
    document = {"version": "1.0", "games": {gid: entry(gid, t) for gid, t in games.items()}}
    return GabsConfig.from_json(document, config_dir=tmp_path)


@pytest.mark.parametrize(
    "tool",
    ["games_show", "games_status", "games_start", "games_stop", "games_kill", "games_connect"],
)
async def test_a_target_shared_by_several_games_is_an_ambiguous_reference(
    tmp_path: Path, tool: str
) -> None:
    gabs_config = config(tmp_path, b="/opt/shared/run", a="/opt/shared/run", c="/opt/c/run")
    async with client_for(gabs_config) as client:
        refused = await client.call_tool(tool, {"gameId": "/opt/shared/run"})
    assert refused.is_error
    data = call_view(refused)
    assert data["code"] == "ambiguous_game_reference"
    assert data["candidates"] == ["a", "b"]
    assert data["causeClass"] == "call"
    assert text(refused).splitlines()[0] == (
        "Game reference '/opt/shared/run' matches multiple configured games (a, b). "
        "Use the exact game ID."
    )


async def test_a_unique_target_names_its_game(tmp_path: Path) -> None:
    async with client_for(config(tmp_path, a="/opt/a/run", c="/opt/c/run")) as client:
        shown = await client.call_tool("games_show", {"gameId": "/opt/c/run"})
        status = await client.call_tool("games_status", {"gameId": "/opt/c/run"})
        stopped = await client.call_tool("games_stop", {"gameId": "/opt/c/run"})
        unknown = await client.call_tool("games_show", {"gameId": "/opt/x/run"})
    assert not shown.is_error and call_view(shown)["game"]["gameId"] == "c"
    assert call_view(status)["gameId"] == "c"
    assert call_view(stopped)["code"] == "not_running" and call_view(stopped)["gameId"] == "c"
    assert text(stopped).splitlines()[0] == (
        "Failed to stop c: game c is not running (no process tracked)"
    )
    assert call_view(unknown)["code"] == "game_not_found"


async def test_games_status_lines_are_laid_out_as_the_go_bridge_does(tmp_path: Path) -> None:
    async with client_for(config(tmp_path, b="/opt/b/run", a="/opt/a/run")) as client:
        summary = await client.call_tool("games_status", {})
        one = await client.call_tool("games_status", {"gameId": "a"})
    assert text(summary) == "Game Status Summary:\n\n• **a**: stopped\n• **b**: stopped\n"
    assert text(one) == "**a** (Game a): stopped\n"


def test_the_last_disconnect_follows_a_blank_line() -> None:
    from gabs.mcp.lifecycle import _status_text

    item = {
        "gameId": "a",
        "name": "Game a",
        "statusDescription": "stopped",
        "lastDisconnect": "Last GABP disconnect at 2026-01-02T03:04:05Z: connection closed",
    }
    assert _status_text(item) == (
        "**a** (Game a): stopped\n\nLast GABP disconnect at 2026-01-02T03:04:05Z: "
        "connection closed\n"
    )
    assert _status_text({**item, "configured": False}, summary=True) == (
        "• **a** (unconfigured): stopped\n"
    )


async def test_a_lost_connection_is_noted_with_the_time_to_the_second(tmp_path: Path) -> None:
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token="t" * 64)
    notifier = ToolListNotifier()
    async with GameManager(
        config(tmp_path, a="/opt/a/run"), on_tools_changed=notifier, liveness_interval=60
    ) as manager:
        async with server.running() as address:
            await manager.connect("a", port=address.port, token="t" * 64)
        note = ""
        with anyio.fail_after(10):
            for _ in range(400):
                note = (await manager.status("a")).get("lastDisconnect", "")
                if note:
                    break
                await anyio.sleep(0.05)
    assert re.fullmatch(r"Last GABP disconnect at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: .+", note)


async def test_the_last_disconnect_is_forgotten_once_the_game_is_back(tmp_path: Path) -> None:
    """A game restarted behind the bridge on the same port and token: the bridge reconnects by
    itself, and the status no longer carries the note of the lost connection (the Go bridge
    drops it when it connects again)."""
    token = "t" * 64
    first = GabpServer(app_name="G", app_version="1", agent_id="g", token=token)
    async with GameManager(
        config(tmp_path, a="/opt/a/run"), on_tools_changed=ToolListNotifier(), liveness_interval=60
    ) as manager:
        async with first.running() as address:
            await manager.connect("a", port=address.port, token=token)
        with anyio.fail_after(10):
            for _ in range(400):
                if (await manager.status("a")).get("lastDisconnect"):
                    break
                await anyio.sleep(0.05)
        again = GabpServer(
            app_name="G", app_version="1", agent_id="g", token=token, port=address.port
        )
        async with again.running():
            with anyio.fail_after(20):
                for _ in range(800):
                    item = await manager.status("a")
                    # the session's count of reconnects follows its state by a moment
                    if item.get("status") == "connected" and item["connection"]["reconnects"]:
                        break
                    await anyio.sleep(0.05)
            item = await manager.status("a")
    assert "lastDisconnect" not in item, item
    assert item["connection"]["reconnects"] == 1
