"""The core of the GABS contract, as any GABS bridge must keep it: the 13 core tools, the
configured games, and a game started, called and stopped through them.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import anyio

from .harness import (
    ConfigDir,
    OpenBridge,
    process_alive,
    start_game,
    structured,
    text_of,
    wait_gone,
)

CORE_TOOLS = {
    "games_list",
    "games_show",
    "games_start",
    "games_stop",
    "games_kill",
    "games_status",
    "games_connect",
    "games_tool_names",
    "games_tool_detail",
    "games_tools",
    "games_call_tool",
    "games_get_attention",
    "games_ack_attention",
}


async def test_tools_list_shows_the_13_core_tools(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} == CORE_TOOLS
    for tool in tools:
        assert tool.input_schema.get("type") == "object", tool.name
        assert tool.description, tool.name


async def test_games_list_lists_the_configured_games(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat", name="Compat game")
    config_dir.game("second", name="Second compat game")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_list", {})
    assert not result.is_error, text_of(result)
    games = structured(result)["games"]
    listed = {game.get("gameId", game.get("id")) for game in games}
    assert listed == {"compat", "second"}
    text = text_of(result)
    assert "compat" in text and "second" in text


async def test_games_list_is_the_short_list(open_bridge: OpenBridge, config_dir: ConfigDir) -> None:
    """Launch details are games_show's and the status games_status's (Go's own tests pin it)."""
    config_dir.game("compat", name="Compat game")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            result = await client.call_tool("games_list", {})
    assert structured(result)["games"] == [
        {
            "gameId": "compat",
            "name": "Compat game",
            "description": "A small GABP game of the compatibility suite.",
        }
    ]
    assert text_of(result).strip() == "compat"


async def test_a_game_is_started_called_and_stopped(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            started = await start_game(client)
            pid = config_dir.game_pid("compat")
            assert pid is not None and process_alive(pid), text_of(started)

            marker = "compat-echo-7f3a"
            called = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/echo", "arguments": {"text": marker}},
            )
            assert not called.is_error, text_of(called)
            assert marker in text_of(called)

            added = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/add", "arguments": {"a": 2, "b": 40}},
            )
            assert not added.is_error, text_of(added)
            assert "42" in text_of(added)

            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert not stopped.is_error, text_of(stopped)
            await wait_gone(pid)
