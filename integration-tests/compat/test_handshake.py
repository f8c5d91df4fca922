"""The GABP session setup with games that vary or misbehave (``handshake_game.py``).

Checked side by side with the Go bridge (GABS 1.1.0): a game that took the connection and then
failed the hello (refused it, closed the connection) gave its answer, and both bridges report
it at once instead of retrying the same port and token for the whole connect window; a welcome
without ``agentId``, ``app`` or ``capabilities`` is a game both bridges talk to.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from .harness import HANDSHAKE_GAME, ConfigDir, OpenBridge, start_game
from .results import data, next_tools, text_of

GAME_TIMEOUT = 120
#: Far below the connect window (``gabpConnectSeconds`` 30, a start's first wait 20 s, a
#: connect's 15 s): the bridge did not retry.
PROMPT = 10.0


def handshake_game(config_dir: ConfigDir, mode: str, **env: str) -> None:
    config_dir.game("hs", script=HANDSHAKE_GAME, env={"HANDSHAKE_MODE": mode, **env})


@pytest.mark.parametrize(
    ("mode", "said"),
    [("hello-error", "Invalid authentication token"), ("hello-close", "")],
)
async def test_a_failed_hello_is_reported_at_once_by_start_and_connect(
    open_bridge: OpenBridge, config_dir: ConfigDir, mode: str, said: str
) -> None:
    handshake_game(config_dir, mode)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            began = time.monotonic()
            started = await client.call_tool("games_start", {"gameId": "hs"})
            assert time.monotonic() - began < PROMPT, text_of(started)
            assert not started.is_error, text_of(started)
            result = data(started)
            assert result["code"] == "started_bridge_pending", text_of(started)
            assert result["gabpConnected"] is False
            assert result["gabpWaitMs"] < PROMPT * 1000
            assert said in result["gabpError"]
            assert next_tools(started) == ["games_status", "games_connect"]

            began = time.monotonic()
            refused = await client.call_tool("games_connect", {"gameId": "hs"})
            assert time.monotonic() - began < PROMPT, text_of(refused)
            assert refused.is_error
            assert text_of(refused).startswith("Failed to connect to GABP server for 'hs' on port")
            assert said in text_of(refused)
            assert data(refused)["code"] == "blocked_unknown_state"

            status = await client.call_tool("games_status", {"gameId": "hs"})
            assert data(status)["status"] == "running", text_of(status)
            await client.call_tool("games_stop", {"gameId": "hs"})


@pytest.mark.parametrize(
    "mode", ["drop-agentId,drop-app,drop-capabilities,drop-schemaVersion", "extra,schema-1.1"]
)
async def test_a_welcome_with_members_missing_or_extra_connects(
    open_bridge: OpenBridge, config_dir: ConfigDir, mode: str
) -> None:
    handshake_game(config_dir, mode)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client, "hs")
            called = await client.call_tool(
                "games_call_tool", {"gameId": "hs", "tool": "hs/echo", "arguments": {"text": "hi"}}
            )
            assert not called.is_error, text_of(called)
            assert text_of(called) == "hi"
            await client.call_tool("games_stop", {"gameId": "hs"})


async def test_a_failed_connect_to_a_game_another_process_started_names_its_status(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    # Started by the command line: this session sees it running, held by no one here
    # (``shared-running``), and a connect that fails names that status, as both bridges do.
    handshake_game(config_dir, "hello-error")
    started = gabs_cli(config_dir, "games", "start", "hs")
    assert started.returncode == 0, started.stderr
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            try:
                refused = await client.call_tool("games_connect", {"gameId": "hs", "timeout": 2})
                assert refused.is_error and data(refused)["code"] == "blocked_unknown_state"
                text = text_of(refused)
                assert text.startswith("Failed to connect to GABP server for 'hs' on port"), text
                assert (
                    "Invalid authentication token. GABS currently sees status 'shared-running'. "
                    "Make sure the game is still running and the GABP bridge is fully loaded."
                ) in text.replace(" (-31000)", ""), text
            finally:
                await client.call_tool("games_stop", {"gameId": "hs"})
