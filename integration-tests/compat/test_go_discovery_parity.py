"""When a bridge asks a connected game for its tools again (``handshake_game.py``,
``tools-late``: every ``tools/list`` after the first also lists ``hs/late``).

Checked side by side with the Go bridge (GABS 1.1.0, ``games_connect`` in ``stdio_server.go``
and ``ensureGameToolsMirrored``, pinned by ``TestGamesToolNamesForcesInitialMirrorSync``):
``games_connect`` to a game this bridge is already connected to lists the game's tools again
(``Already connected to '<id>'. Re-synced N tools.``), so a tool the game registered after the
connection can be found and called; and the discovery tools ask a connected game that has no
tools yet for its list again before answering. Also the wait for a game call: the tool's own
``timeoutMs`` and ``timeout`` arguments raise the call's ``timeout`` (``interleaving_game.py``).
"""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from .harness import HANDSHAKE_GAME, INTERLEAVING_GAME, ConfigDir, OpenBridge, start_game
from .results import data, text_of

GAME_TIMEOUT = 120


def late_game(config_dir: ConfigDir, mode: str) -> None:
    config_dir.game("hs", script=HANDSHAKE_GAME, env={"HANDSHAKE_MODE": mode})


async def names(client: Client, game_id: str = "hs") -> list[str]:
    result = await client.call_tool("games_tool_names", {"gameId": game_id})
    assert not result.is_error, text_of(result)
    return [tool["name"] for tool in data(result)["tools"]]


async def test_connect_to_a_connected_game_lists_its_tools_again(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    late_game(config_dir, "tools-late")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            before = await names(client)
            resynced = await client.call_tool("games_connect", {"gameId": "hs"})
            after = await names(client)
            called = await client.call_tool(
                "games_call_tool", {"gameId": "hs", "tool": "hs/late", "arguments": {"text": "x"}}
            )
            await client.call_tool("games_stop", {"gameId": "hs"})
    assert before == ["hs_hs_close", "hs_hs_echo", "hs_hs_restart"]
    assert not resynced.is_error, text_of(resynced)
    assert text_of(resynced).splitlines()[0] == "Already connected to 'hs'. Re-synced 4 tools."
    assert data(resynced)["toolCount"] == 4
    assert after == ["hs_hs_close", "hs_hs_echo", "hs_hs_late", "hs_hs_restart"]
    assert not called.is_error, text_of(called)
    assert data(called) == {"text": "x"}


async def test_discovery_asks_a_game_without_tools_for_its_list_again(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    late_game(config_dir, "tools-empty,tools-late")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            found = await names(client)
            again = await names(client)
            await client.call_tool("games_stop", {"gameId": "hs"})
    assert found == ["hs_hs_late"]
    assert again == ["hs_hs_late"]


@pytest.mark.parametrize(
    ("tool", "direct"),
    [("hs_hs_late", False), ("hs/late", False), ("hs.hs.late", False), ("hs_hs_late", True)],
)
async def test_a_tool_the_game_added_since_the_connection_can_be_called_at_once(
    open_bridge: OpenBridge, config_dir: ConfigDir, tool: str, direct: bool
) -> None:
    # Go: a name no mirrored tool has is looked up in a fresh tools/list (a strict-safe name)
    # or sent to the game as it is (a dotted or slashed one): either way the new tool runs
    late_game(config_dir, "tools-late")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            if direct:
                called = await client.call_tool(tool, {"text": "x"})
            else:
                called = await client.call_tool(
                    "games_call_tool", {"tool": tool, "arguments": {"text": "x"}}
                )
            await client.call_tool("games_stop", {"gameId": "hs"})
    assert not called.is_error, text_of(called)
    assert data(called) == {"text": "x"}


async def test_a_tools_own_timeout_arguments_raise_the_wait_for_its_answer(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # Go (TestGamesCallToolUsesToolTimeoutHintsFromArguments): the call's `timeout` is raised
    # to the tool's own `timeoutMs` + 5 s and to its own `timeout` (seconds)
    config_dir.game("interleave", script=INTERLEAVING_GAME)
    waits = [{"ms": 1500, "timeoutMs": 1500}, {"ms": 1500, "timeout": 3}, {"ms": 1500}]
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "interleave")
            results = [
                await client.call_tool(
                    "games_call_tool",
                    {
                        "gameId": "interleave",
                        "tool": "interleave/wait",
                        "arguments": arguments,
                        "timeout": 1,
                    },
                )
                for arguments in waits
            ]
            await client.call_tool("games_stop", {"gameId": "interleave"})
    hinted, own, plain = results
    assert data(hinted) == {"waited": 1500}, text_of(hinted)
    assert data(own) == {"waited": 1500}, text_of(own)
    assert plain.is_error, text_of(plain)


async def test_a_list_that_fails_again_keeps_the_tools_listed_before(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    late_game(config_dir, "tools-error-late")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            refused = await client.call_tool("games_connect", {"gameId": "hs"})
            kept = await names(client)
            called = await client.call_tool(
                "games_call_tool", {"gameId": "hs", "tool": "hs/echo", "arguments": {"text": "x"}}
            )
            await client.call_tool("games_stop", {"gameId": "hs"})
    assert refused.is_error
    assert text_of(refused).startswith("Already connected to 'hs' but failed to sync tools: ")
    assert kept == ["hs_hs_close", "hs_hs_echo", "hs_hs_restart"]
    assert data(called) == {"text": "x"}, text_of(called)


@pytest.mark.beyond_go
async def test_a_connect_whose_re_list_finds_the_game_gone_judges_the_claim(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # The game dies under the re-list of a connect (``tools-exit-late``). The Go bridge answers
    # `Already connected to 'hs' but failed to sync tools: ...`, although nothing is connected
    # any more; `gabs` goes on as a connect to a game that is not connected: the claim's
    # process is gone, so the claim is dropped and nothing is attachable.
    late_game(config_dir, "tools-exit-late")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            refused = await client.call_tool("games_connect", {"gameId": "hs"})
            seen = await client.call_tool("games_status", {"gameId": "hs"})
    assert refused.is_error, text_of(refused)
    assert data(refused)["code"] == "endpoint_unavailable", text_of(refused)
    assert "failed to sync tools" not in text_of(refused)
    assert data(seen)["status"] == "stopped", text_of(seen)
