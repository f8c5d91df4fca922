"""A config file edited while a server runs (the Go bridge's
``TestCLICrossSessionConnectAndHotReload``): a game the command line started is attached to by
a running server; after its profile is renamed on disk, the same server starts the renamed
profile without a restart."""

from __future__ import annotations

import json
from typing import Any

import anyio

from .harness import ConfigDir, OpenBridge, text_of
from .results import data, wait_gone


def _profiled(config_dir: ConfigDir, profile: str) -> None:
    config_dir.game("compat", defaultProfile=profile, profiles={profile: {}})
    config_dir.write()


async def test_a_renamed_profile_starts_through_the_running_server(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    _profiled(config_dir, "p1")
    with anyio.fail_after(150):
        started = await anyio.to_thread.run_sync(
            lambda: gabs_cli(config_dir, "games", "start", "compat", "--profile", "p1")
        )
        assert started.returncode == 0, started.stderr
        assert started.stdout.startswith("started_attachment_deferred: 'compat'")
        async with open_bridge(config_dir) as client:
            connected = await client.call_tool("games_connect", {"gameId": "compat"})
            assert not connected.is_error, text_of(connected)
            first_pid = data(connected).get("pid") or config_dir.game_pid("compat")
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert not stopped.is_error, text_of(stopped)
            if first_pid:
                await wait_gone(int(first_pid))
            _profiled(config_dir, "p2")
            again = await client.call_tool("games_start", {"gameId": "compat", "profile": "p2"})
            assert not again.is_error, text_of(again)
            assert data(again)["code"].startswith("started_"), text_of(again)
            claim = json.loads(
                (config_dir.path / "compat" / "runtime.json").read_text(encoding="utf-8")
            )
            assert claim["profile"] == "p2"
            gone = await client.call_tool("games_start", {"gameId": "compat", "profile": "p1"})
            assert gone.is_error and data(gone)["code"] == "profile_not_found", text_of(gone)
            await client.call_tool("games_kill", {"gameId": "compat"})
