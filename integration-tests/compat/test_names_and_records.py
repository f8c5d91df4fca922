"""Names and track records in the lifecycle results, as the Go bridge shows them: a game
entry without ``name`` is shown with an empty name (no id filled in), and a refused start
reports the track record of the launch context it asked for."""

from __future__ import annotations

import sys

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


async def test_a_game_without_a_name_is_shown_with_an_empty_name(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    del config_dir.game("compat")["name"]
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            listed = await client.call_tool("games_list", {})
            assert [g["name"] for g in data(listed)["games"]] == [""], text_of(listed)
            shown = await client.call_tool("games_show", {"gameId": "compat"})
            assert "  ID: compat ()\n" in text_of(shown), text_of(shown)

            started = await start_game(client)
            assert text_of(started).startswith(
                "Game 'compat' () started successfully and connected via GABP."
            ), text_of(started)
            status = await client.call_tool("games_status", {"gameId": "compat"})
            assert text_of(status).startswith("**compat** (): running"), text_of(status)
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert text_of(stopped).startswith("Game 'compat' () was stopped"), text_of(stopped)


async def test_a_refused_start_reports_the_track_record_of_the_profile_it_asked_for(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game(
        "compat", defaultProfile="fast", profiles={"fast": {"env": {"P": "1"}}, "slow": {}}
    )
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            same = await client.call_tool("games_start", {"gameId": "compat"})
            assert "started 1\u00d7" in data(same)["trackRecord"], data(same)
            other = await client.call_tool("games_start", {"gameId": "compat", "profile": "slow"})
            assert data(other)["code"] == "already_running", text_of(other)
            assert data(other)["activeProfile"] == "fast", data(other)
            # the record of "slow", which never started, not that of the running "fast"
            assert "started" not in data(other)["trackRecord"], data(other)
            await client.call_tool("games_stop", {"gameId": "compat"})
