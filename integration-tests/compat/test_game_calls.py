"""Game calls as any GABS bridge answers them: the game's own result passes through, whole, under
every name a game tool is known by (also a result whose ``code`` is one of the bridge's own), and
a game that cannot take overlapping requests survives concurrent calls.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client

from .harness import (
    HANDSHAKE_GAME,
    INTERLEAVING_GAME,
    ConfigDir,
    OpenBridge,
    process_alive,
    structured,
    text_of,
    wait_gone,
)

GAME_TIMEOUT = 120


async def start(client: Client, game_id: str) -> None:
    started = await client.call_tool("games_start", {"gameId": game_id})
    assert not started.is_error, text_of(started)


def big_text(size: int) -> str:
    return ("0123456789abcdef" * (size // 16 + 1))[:size]


async def test_a_result_with_text_passes_through_as_text_and_structured_content(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "compat")
            echoed = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/echo", "arguments": {"text": "Grüße 🎮"}},
            )
            described = await client.call_tool(
                "games_call_tool", {"gameId": "compat", "tool": "compat/describe"}
            )
            listed = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/numbers", "arguments": {"count": 3}},
            )
            await client.call_tool("games_stop", {"gameId": "compat"})
    assert not echoed.is_error, text_of(echoed)
    assert echoed.content[0].text == "Grüße 🎮"  # type: ignore[union-attr]
    assert structured(echoed) == {"text": "Grüße 🎮"}
    # Without a text field, the text is the whole result as JSON.
    assert structured(described) == {"game": "compat", "items": [1, 2, 3]}
    assert json.loads(described.content[0].text) == {"game": "compat", "items": [1, 2, 3]}  # type: ignore[union-attr]
    # A result that is not an object is wrapped as {value}.
    assert structured(listed) == {"value": [1, 2, 3]}


async def test_a_result_over_8_kb_arrives_whole(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    size = 8246
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "compat")
            result = await client.call_tool(
                "games_call_tool",
                {"gameId": "compat", "tool": "compat/big", "arguments": {"size": size}},
            )
            await client.call_tool("games_stop", {"gameId": "compat"})
    assert not result.is_error, text_of(result)[:200]
    assert result.content[0].text == big_text(size)  # type: ignore[union-attr]
    assert structured(result) == {"text": big_text(size), "size": size}


async def tool_names(client: Client, **arguments: Any) -> list[dict[str, Any]]:
    listed = await client.call_tool("games_tool_names", arguments)
    assert not listed.is_error, text_of(listed)
    tools: list[dict[str, Any]] = structured(listed)["tools"]
    return tools


async def test_a_game_tool_is_called_by_every_name_it_is_known_by(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "compat")
            names = {
                entry["gabpName"]: entry for entry in await tool_names(client, gameId="compat")
            }
            echo = names["compat/echo"]
            assert echo["name"] == "compat_compat_echo"
            long_name = names[
                "compat/a_tool_with_a_name_long_enough_to_pass_the_limit_of_sixty_four"
            ]["name"]
            assert len(long_name) <= 64
            results = {}
            # games_call_tool, with and without gameId, by each name
            for index, name in enumerate(
                [
                    "compat_compat_echo",
                    "compat.compat.echo",
                    "compat/compat/echo",
                    "compat/echo",
                    "compat.echo",
                ]
            ):
                for with_game in (True, False):
                    arguments: dict[str, Any] = {
                        "tool": name,
                        "arguments": {"text": f"{index}-{with_game}"},
                    }
                    if with_game:
                        arguments["gameId"] = "compat"
                    results[(name, with_game)] = await client.call_tool(
                        "games_call_tool", arguments
                    )
            # straight tools/call by the exposed name and the qualified aliases
            for name in ("compat_compat_echo", "compat.compat.echo", "compat/compat/echo"):
                results[(name, "direct")] = await client.call_tool(name, {"text": name})
            # the bare GABP name, with one game connected
            results[("compat/echo", "direct")] = await client.call_tool(
                "compat/echo", {"text": "bare"}
            )
            results[("long", "direct")] = await client.call_tool(long_name, {})
            # the dotted core names
            listed = await client.call_tool("games.list", {})
            names_page = await client.call_tool("games.tool_names", {"gameId": "compat"})
            await client.call_tool("games_stop", {"gameId": "compat"})
    for key, result in results.items():
        assert not result.is_error, (key, text_of(result))
    assert structured(results[("compat.echo", False)]) == {"text": "4-False"}
    assert structured(results[("compat/compat/echo", "direct")]) == {"text": "compat/compat/echo"}
    assert structured(results[("compat/echo", "direct")]) == {"text": "bare"}
    assert structured(results[("long", "direct")]) == {"long": True}
    assert not listed.is_error and not names_page.is_error


async def test_concurrent_calls_to_a_game_that_interleaves_overlapping_replies_all_succeed(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("interleave", script=INTERLEAVING_GAME)
    size = 300_000
    results: dict[int, Any] = {}
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "interleave")
            pid = config_dir.game_pid("interleave")
            assert pid is not None

            async def one(index: int) -> None:
                if index % 2:
                    tool, arguments = "interleave/big", {"size": size}
                else:
                    tool, arguments = "interleave/echo", {"text": f"call {index}"}
                results[index] = await client.call_tool(
                    "games_call_tool",
                    {"gameId": "interleave", "tool": tool, "arguments": arguments},
                )

            async with anyio.create_task_group() as tg:
                for index in range(8):
                    tg.start_soon(one, index)
            stats = await client.call_tool(
                "games_call_tool", {"gameId": "interleave", "tool": "interleave/stats"}
            )
            assert process_alive(pid)
            await client.call_tool("games_stop", {"gameId": "interleave"})
            await wait_gone(pid)
    for index, result in results.items():
        assert not result.is_error, (index, text_of(result)[:300])
        if index % 2:
            assert result.content[0].text == big_text(size)
        else:
            assert structured(result) == {"text": f"call {index}"}
    seen = structured(stats)
    assert seen["maxInFlight"] == 1 and seen["overlaps"] == 0, seen


# The Go bridge frees a call's turn when the call times out, while the game still runs it; the
# next call then overlaps it (the test game sees maxInFlight 2).
@pytest.mark.beyond_go
async def test_a_call_that_timed_out_keeps_its_turn_until_the_game_answers_it(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("interleave", script=INTERLEAVING_GAME)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "interleave")
            late = await client.call_tool(
                "games_call_tool",
                {
                    "gameId": "interleave",
                    "tool": "interleave/wait",
                    "arguments": {"ms": 2500},
                    "timeout": 1,
                },
            )
            # sent at once, but the game gets it only after it answered the call before
            echo = await client.call_tool(
                "games_call_tool",
                {"gameId": "interleave", "tool": "interleave/echo", "arguments": {"text": "next"}},
            )
            stats = await client.call_tool(
                "games_call_tool", {"gameId": "interleave", "tool": "interleave/stats"}
            )
            await client.call_tool("games_stop", {"gameId": "interleave"})
    assert late.is_error, text_of(late)
    assert structured(echo) == {"text": "next"}, text_of(echo)
    seen = structured(stats)
    assert seen["maxInFlight"] == 1 and seen["overlaps"] == 0, seen


@pytest.mark.beyond_go
async def test_a_game_that_declares_concurrency_gets_overlapping_calls(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("parallel", script=INTERLEAVING_GAME, env={"INTERLEAVE_DECLARE": "8"})
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "parallel")
            async with anyio.create_task_group() as tg:
                for _ in range(6):
                    tg.start_soon(
                        client.call_tool,
                        "games_call_tool",
                        {"gameId": "parallel", "tool": "interleave/wait", "arguments": {"ms": 400}},
                    )
            stats = await client.call_tool(
                "games_call_tool", {"gameId": "parallel", "tool": "interleave/stats"}
            )
            await client.call_tool("games_stop", {"gameId": "parallel"})
    seen = structured(stats)
    assert seen["declared"] == 8 and seen["maxInFlight"] > 1, seen


async def test_a_game_result_that_looks_like_a_lifecycle_failure_passes_unchanged(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # The game's payload is the game's (BridgePassthrough): a `code` in it that is one of the
    # bridge's own gets no causeClass, trackRecord or nextActions.
    config_dir.game("hs", script=HANDSHAKE_GAME)
    payloads = [
        {"code": "spawn_failed", "gameId": "hs"},
        {"code": "action_failed", "isError": True},
    ]
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start(client, "hs")
            results = [
                await client.call_tool(
                    "games_call_tool",
                    {"gameId": "hs", "tool": "hs/echo", "arguments": {"result": payload}},
                )
                for payload in payloads
            ]
            await client.call_tool("games_kill", {"gameId": "hs"})
    for payload, result in zip(payloads, results, strict=True):
        assert not result.is_error, text_of(result)
        assert structured(result) == payload
