"""A game that goes away and comes back behind a connected bridge, and a game whose
``tools/list`` fails (``handshake_game.py``).

Checked side by side with the Go bridge (GABS 1.1.0): a game that hangs up (``hs/close``) or
stops listening and listens again on the same port and token (``hs/restart``) is reached again
after ``games_connect``; a game that answers ``tools/list`` with an error is connected all the
same: discovery with ``gameId`` answers the sync error, ``games_connect`` says it is connected
but the sync failed, and calls still reach the game.
"""

from __future__ import annotations

import socket

import anyio
import pytest

from .harness import HANDSHAKE_GAME, ConfigDir, OpenBridge, start_game
from .results import data, text_of

GAME_TIMEOUT = 120


def echo(text: str, tool: str = "hs/echo") -> dict[str, object]:
    return {"gameId": "hs", "tool": tool, "arguments": {"text": text}}


@pytest.mark.parametrize(("tool", "arguments"), [("hs/close", {}), ("hs/restart", {"seconds": 1})])
async def test_a_game_that_hung_up_is_reached_again_after_games_connect(
    open_bridge: OpenBridge, config_dir: ConfigDir, tool: str, arguments: dict[str, object]
) -> None:
    config_dir.game("hs", script=HANDSHAKE_GAME)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            bye = await client.call_tool(
                "games_call_tool",
                {"gameId": "hs", "tool": tool, "arguments": {"text": "bye", **arguments}},
            )
            assert not bye.is_error, text_of(bye)
            assert text_of(bye) == "bye"
            await anyio.sleep(2.0)  # gone, and (hs/restart) listening again
            connected = await client.call_tool("games_connect", {"gameId": "hs"})
            assert not connected.is_error, text_of(connected)
            called = await client.call_tool("games_call_tool", echo("again"))
            assert not called.is_error, text_of(called)
            assert text_of(called) == "again"
            status = await client.call_tool("games_status", {"gameId": "hs"})
            assert data(status)["status"] == "running", text_of(status)
            assert "Last GABP disconnect" not in text_of(status)
            await client.call_tool("games_stop", {"gameId": "hs"})


@pytest.mark.beyond_go
async def test_a_game_that_hung_up_is_reconnected_without_games_connect(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("hs", script=HANDSHAKE_GAME)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            await client.call_tool("games_call_tool", echo("bye", "hs/close"))
            for _ in range(100):
                called = await client.call_tool("games_call_tool", echo("again"))
                if not called.is_error:
                    break
                await anyio.sleep(0.1)
            assert not called.is_error, text_of(called)
            assert text_of(called) == "again"
            await client.call_tool("games_stop", {"gameId": "hs"})


async def test_a_game_whose_tool_list_fails_is_connected_and_called(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("hs", script=HANDSHAKE_GAME, env={"HANDSHAKE_MODE": "tools-error"})
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            started = await start_game(client, "hs")
            assert data(started)["gabpConnected"] is True

            for tool in ("games_tool_names", "games_tools"):
                listed = await client.call_tool(tool, {"gameId": "hs"})
                assert listed.is_error, text_of(listed)
                assert text_of(listed).startswith(
                    "Game 'hs' is connected, but syncing GABP tools failed: "
                ), text_of(listed)
                assert "tools exploded" in text_of(listed)
                assert "tools exploded" in data(listed)["error"]

            called = await client.call_tool("games_call_tool", echo("through"))
            assert not called.is_error, text_of(called)
            assert text_of(called) == "through"

            connected = await client.call_tool("games_connect", {"gameId": "hs"})
            assert connected.is_error, text_of(connected)
            assert text_of(connected).startswith(
                "Already connected to 'hs' but failed to sync tools: "
            ), text_of(connected)

            status = await client.call_tool("games_status", {"gameId": "hs"})
            assert data(status)["status"] == "running", text_of(status)
            assert [a["tool"] for a in data(status)["nextActions"]] == ["games_connect"]
            await client.call_tool("games_stop", {"gameId": "hs"})


async def test_a_game_back_on_another_port_is_not_found_by_games_connect(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """The bridge knows the endpoint it handed the game; a game that comes back elsewhere is
    not looked for there: the connect fails with Go's closing sentence for a running game."""
    config_dir.game("hs", script=HANDSHAKE_GAME)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            moved = {"seconds": 0.5, "port": port, "token": "n" * 64, "text": "bye"}
            await client.call_tool(
                "games_call_tool", echo("bye", "hs/restart") | {"arguments": moved}
            )
            await anyio.sleep(1.5)
            refused = await client.call_tool("games_connect", {"gameId": "hs", "timeout": 2})
            assert refused.is_error, text_of(refused)
            assert data(refused)["code"] == "blocked_unknown_state"
            said = text_of(refused)
            assert said.startswith("Failed to connect to GABP server for 'hs' on port "), said
            assert f"on port {port} " not in said
            assert said.split("\n")[0].endswith("Make sure the GABP bridge is loaded."), said
            await client.call_tool("games_stop", {"gameId": "hs"})


async def test_of_two_tools_with_one_name_the_last_is_kept(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("hs", script=HANDSHAKE_GAME, env={"HANDSHAKE_MODE": "tools-dup"})
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            detail = await client.call_tool(
                "games_tool_detail", {"gameId": "hs", "tool": "hs/echo"}
            )
            assert not detail.is_error, text_of(detail)
            assert data(detail)["description"].startswith("A second echo."), text_of(detail)
            await client.call_tool("games_stop", {"gameId": "hs"})
