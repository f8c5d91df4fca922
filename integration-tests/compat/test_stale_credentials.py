"""A game that keeps running with an earlier launch's GABP endpoint is refused as
``stale_bridge_credential``, never dialled with either credential (issue 11)."""

from __future__ import annotations

import json
import os
import secrets
import sys

import anyio
import pytest

from .harness import ConfigDir, OpenBridge
from .results import data, next_tools, process_alive, text_of, wait_gone

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process environments in /proc")


async def test_a_game_holding_an_earlier_launchs_endpoint_is_a_stale_bridge_credential(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    claim_file = config_dir.path / "compat" / "runtime.json"
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as first:
            started = await first.call_tool("games_start", {"gameId": "compat"})
            assert data(started)["code"] == "started_connected", text_of(started)
        pid = config_dir.game_pid("compat")
        assert pid is not None and process_alive(pid), "the game ended with its bridge"

        # The claim moves on to a new per-launch credential while the game keeps the one it
        # was started with (what a new launch context does to a game that never restarted).
        claim = json.loads(claim_file.read_text(encoding="utf-8"))
        issued = claim["endpoint"]["token"]
        fresh = secrets.token_hex(max(len(issued) // 2, 16))
        claim["endpoint"]["token"] = fresh
        claim_file.write_text(json.dumps(claim), encoding="utf-8")
        os.chmod(claim_file, 0o600)

        async with open_bridge(config_dir) as second:
            refused = await second.call_tool("games_connect", {"gameId": "compat"})
            assert refused.is_error, text_of(refused)
            assert data(refused)["code"] == "stale_bridge_credential", text_of(refused)
            assert next_tools(refused) == ["games_status", "games_stop"], text_of(refused)
            assert issued not in text_of(refused)
            kept = json.loads(claim_file.read_text(encoding="utf-8"))
            assert kept["endpoint"]["token"] == fresh, "the claim's credential was replaced"
            assert process_alive(pid)
            stopped = await second.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)
