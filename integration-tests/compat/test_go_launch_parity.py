"""A start while this bridge still runs the game it launched but the game's runtime claim was
lost (deleted by hand, or by another tool): the bridge publishes the claim again from what the
running process tells, and refuses the start as ``already_running`` instead of launching a
second copy, whether or not the game's GABP server is connected yet. The stop name it
publishes is the one the launch ran with, not one edited into the config since."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge
from .results import data, process_alive, text_of, wait_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process ids")


@pytest.mark.parametrize("connected", [False, True], ids=["bridge-pending", "connected"])
async def test_a_start_after_a_lost_claim_republishes_it_with_the_launch_s_stop_name(
    open_bridge: OpenBridge, config_dir: ConfigDir, connected: bool
) -> None:
    # Without a GABP server yet (a long load), the start answers before any connection.
    env = {} if connected else {"COMPAT_DELAY": "120"}
    config_dir.game("compat", env=env, stopProcessName="compat-launched")
    claim_file = config_dir.path / "compat" / "runtime.json"
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            arguments = {"gameId": "compat"} if connected else {"gameId": "compat", "timeout": 3}
            first = await client.call_tool("games_start", arguments)
            assert not first.is_error, text_of(first)
            expected = "started_connected" if connected else "started_bridge_pending"
            assert data(first)["code"] == expected, text_of(first)
            pid = json.loads(claim_file.read_text(encoding="utf-8"))["gamePid"]
            report = config_dir.games_dir / "compat.launch.json"
            try:
                assert report.exists()  # each launch writes it as the game starts
                report.unlink()
                claim_file.unlink()
                config_dir.games["compat"]["stopProcessName"] = "compat-edited"
                config_dir.write()  # a hot edit the running game never saw
                await anyio.sleep(1.5)  # the bridge picks the edit up

                second = await client.call_tool("games_start", {"gameId": "compat"})
                assert not second.is_error, text_of(second)
                assert data(second)["code"] == "already_running", text_of(second)
                assert not report.exists()  # no second copy was launched
                claim = json.loads(claim_file.read_text(encoding="utf-8"))
                assert (claim["phase"], claim["source"]) == ("active", "external")
                assert claim["gamePid"] == pid
                assert claim["stopProcessName"] == "compat-launched"
                for absent in ("profile", "historyContextHash", "configRevision", "endpoint"):
                    assert absent not in claim, claim
            finally:
                await client.call_tool("games_kill", {"gameId": "compat"})
            await wait_gone(pid)
    assert not process_alive(pid)


@pytest.mark.beyond_go
async def test_a_start_of_a_game_this_session_attached_to_after_its_claim_was_lost_is_refused(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    # The Go bridge answers endpoint_unavailable (endpoint_cache_in_use: the game still listens
    # on the cached port) and suggests a start with resetEndpoint, a second copy.
    config_dir.game("compat")
    claim_file = config_dir.path / "compat" / "runtime.json"
    report = config_dir.games_dir / "compat.launch.json"
    started = gabs_cli(config_dir, "games", "start", "compat")
    assert started.returncode == 0, started.stderr
    try:
        with anyio.fail_after(90):
            async with open_bridge(config_dir) as client:
                connected = await client.call_tool("games_connect", {"gameId": "compat"})
                while connected.is_error:  # its GABP server may still be coming up
                    await anyio.sleep(0.2)
                    connected = await client.call_tool("games_connect", {"gameId": "compat"})
                report.unlink()
                claim_file.unlink()
                second = await client.call_tool("games_start", {"gameId": "compat"})
                assert not second.is_error, text_of(second)
                assert data(second)["code"] == "already_running", text_of(second)
                assert (data(second)["status"], data(second)["toolCount"]) == ("connected", 7)
                assert not report.exists()  # nothing was launched
                assert not claim_file.exists()  # the game is not this bridge's to publish
    finally:
        gabs_cli(config_dir, "games", "kill", "compat")
