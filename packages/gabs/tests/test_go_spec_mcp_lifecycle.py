"""Behaviours the Go bridge's own MCP lifecycle tests pin (GABS 1.1.0,
``internal/mcp/inprocess_already_active_test.go``, ``game_commands_test.go``,
``game_stop_fix_test.go``), checked against ``gabs``. The expected values are the Go bridge's,
observed side by side and pinned here (the Go binary is not needed).

* A start of a game this bridge runs and is connected to, after its ``runtime.json`` was lost:
  ``already_running`` (informational, with ``causeClass``), and the claim is published again as
  an unattributed ``external`` snapshot of the running process, so a later kill reaches it.
  When that claim cannot be written, the start is ``blocked_unknown_state``, never an
  unqualified ``already_running`` (``TestInProcessRepublishFailureBlocks``).
* A game that exits while the bridge waits for its GABP server (``TestGameStopFix``, a
  ``sleep 5`` game): ``exited_during_start`` names the config revision it ran with and counts
  as a failure in the track record (``...; 1 consecutive failures``), as an exit seen earlier.
* A store launch with nothing observable in its budget (``unobserved``,
  ``TestGameStopFix/SteamGameStopShowsProperWarning``): the configuration class's next action
  (``games_show``) and the entry's ``validationWarnings`` (missing ``stopProcessName``), as in
  Go's other start results.
* ``public_surface_genericity_test.go``: what a client reads about the bridge (the
  ``initialize`` instructions, the tool descriptions and schemas) names no particular game.
* ``games_list`` is the short list (``TestCurrentGameCommandBehavior``,
  ``TestGameStopFix/GamesListIsSimplified``): no launch mode, target or status in it; those
  are ``games_show``'s and ``games_status``'s.
* A store URL launch with ``args`` warns that the args are not passed, naming
  ``-savedatafolder`` (``TestGameValidationWarningsForLauncherArgs``); a direct launch does not.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.lifecycle import Lifecycle
from gabs.mcp.envelope import core_result
from gabs.runtime.procs import process_start_time
from gabs_test_support import data, mcp_client

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def client_for(tmp_path: Path, games: dict[str, dict[str, Any]]) -> AsyncIterator[Client]:
    entries = {gid: {"id": gid, "name": gid.title(), **entry} for gid, entry in games.items()}
    config = GabsConfig.from_json({"version": "1.0", "games": entries}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


EXAMPLE_GAME: dict[str, Any] = {
    "launchMode": "CustomCommand",
    "target": sys.executable,
    "args": ["-m", "lib_gab.example"],
    "defaultProfile": "a",
    "profiles": {"a": {}, "b": {}},
    "timeouts": {"startSeconds": 30},
}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process fingerprints")
async def test_a_start_after_the_claim_was_lost_publishes_it_again(tmp_path: Path) -> None:
    game = EXAMPLE_GAME
    claim_file = tmp_path / "g" / "runtime.json"
    async with client_for(tmp_path, {"g": game}) as client:
        with anyio.fail_after(60):
            first = await client.call_tool("games_start", {"gameId": "g"})
            assert data(first)["code"] == "started_connected", first
            pid = json.loads(claim_file.read_text())["gamePid"]
            claim_file.unlink()

            second = await client.call_tool("games_start", {"gameId": "g", "profile": "b"})
            assert not second.is_error
            assert data(second)["code"] == "already_running"
            assert data(second)["causeClass"] == "state"
            claim = json.loads(claim_file.read_text())
            # Go's PublishTrackedControllerSnapshot: only what the running process tells.
            assert claim["phase"] == "active" and claim["status"] == "running"
            assert claim["source"] == "external"
            assert claim["gamePid"] == pid
            assert claim["pidStartTime"] == process_start_time(pid)
            assert claim["observedProfile"] == "unknown"
            assert claim["appliedLaunchInputsState"] == "unavailable"
            assert claim["contextDelivery"] == {
                "overall": "unknown",
                "reasons": {
                    "overall": "in-process controller with a lost claim: the original launch "
                    "context is unattributable"
                },
            }
            for absent in ("profile", "historyContextHash", "configRevision", "lifecycle"):
                assert absent not in claim

            killed = await client.call_tool("games_kill", {"gameId": "g"})
            assert data(killed)["code"] == "terminated"
            assert data(killed)["claimRemoved"] is True
            assert not alive(pid)


STEAM = {"launchMode": "SteamAppId", "target": "123456"}


async def test_games_list_has_no_launch_details_or_status(tmp_path: Path) -> None:
    games = {
        "adventure": {**STEAM, "description": "An adventure."},
        "direct": {"launchMode": "DirectPath", "target": "/opt/factory/start.sh"},
    }
    async with client_for(tmp_path, games) as client:
        listed = await client.call_tool("games_list", {})
    assert not listed.is_error
    assert data(listed)["games"] == [
        {"gameId": "adventure", "name": "Adventure", "description": "An adventure."},
        {"gameId": "direct", "name": "Direct"},
    ]
    everything = json.dumps(data(listed)) + "".join(getattr(c, "text", "") for c in listed.content)
    for detail in ("123456", "SteamAppId", "DirectPath", "start.sh"):
        assert detail not in everything


@pytest.mark.parametrize(
    ("mode", "hint"),
    [("SteamAppId", "gabs games repair adventure"), ("EpicAppId", "DirectPath")],
)
async def test_launcher_args_are_warned_about_with_the_example_argument(
    tmp_path: Path, mode: str, hint: str
) -> None:
    args = ["-savedatafolder=/tmp/adventure-test"]
    games = {
        "adventure": {
            "launchMode": mode,
            "target": "123456",
            "args": args,
            "stopProcessName": "GameName.exe",
        },
        "direct": {
            "launchMode": "DirectPath",
            "target": "/games/GameName.exe",
            "args": args,
            "stopProcessName": "GameName.exe",
        },
    }
    async with client_for(tmp_path, games) as client:
        shown = await client.call_tool("games_show", {"gameId": "adventure"})
        direct = await client.call_tool("games_show", {"gameId": "direct"})
    warnings = data(shown)["validationWarnings"]
    assert len(warnings) == 1
    assert "does not pass configured args" in warnings[0]
    assert "-savedatafolder" in warnings[0] and hint in warnings[0]
    assert data(direct)["validationWarnings"] == []


async def test_an_exit_while_connecting_counts_as_a_failed_start(tmp_path: Path) -> None:
    game = {
        "launchMode": "DirectPath",
        "target": sys.executable,
        "args": ["-c", "import time; time.sleep(1.5)"],
    }
    async with client_for(tmp_path, {"g": game}) as client:
        with anyio.fail_after(60):
            for starts in (1, 2):
                result = await client.call_tool("games_start", {"gameId": "g"})
                assert result.is_error
                found = data(result)
                assert found["code"] == "exited_during_start"
                assert found["configRevision"].startswith("sha256:")
                assert found["trackRecord"] == (
                    f"started {starts}\u00d7, last moments ago; bridge connected 0\u00d7 \u2014 "
                    "the workload starts but the bridge has never connected (points game-side, "
                    "not at launch config); 1 consecutive failures"
                )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-open opens the URL")
async def test_an_unobserved_store_launch_points_at_the_config_and_its_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    opener = fake / "xdg-open"
    opener.write_text("#!/bin/sh\nexit 0\n")
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ.get('PATH', '')}")
    async with client_for(tmp_path / "cfg", {"steam-game": STEAM}) as client:
        with anyio.fail_after(60):
            result = await client.call_tool("games_start", {"gameId": "steam-game", "timeout": 1})
    assert not result.is_error
    found = data(result)
    assert found["code"] == "unobserved" and found["causeClass"] == "config"
    assert found["nextActions"] == [
        {
            "tool": "games_show",
            "arguments": {"gameId": "steam-game"},
            "reason": "Review and correct the launch configuration; the result names the "
            "offending field.",
        }
    ]
    assert found["validationWarnings"] == [
        "SteamAppId games need stopProcessName \u2014 or a game-level status hook plus a stop "
        "or kill hook \u2014 for reliable games_stop and games_kill."
    ]


#: Go's list (``TestPublicSurfacesStayGeneric``), spelled out.
SETUP_SPECIFIC = re.compile(
    r"(?i)\bmods?\b|\bmodifications?\b|rimworld|rimbridge|294100|ludeon|minecraft"
)


async def test_the_public_surface_names_no_particular_game(tmp_path: Path) -> None:
    async with client_for(tmp_path, {}) as client:
        listed = await client.list_tools()
        instructions = client.instructions or ""
    assert instructions
    surface = [instructions] + [
        json.dumps(tool.model_dump(mode="json", by_alias=True)) for tool in listed.tools
    ]
    for text in surface:
        assert SETUP_SPECIFIC.search(text) is None, SETUP_SPECIFIC.search(text)


async def test_a_lost_claim_that_cannot_be_written_again_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def outage(self: Lifecycle, game_id: str, state: Any) -> bool:
        raise OSError("simulated republish outage")

    claim_file = tmp_path / "g" / "runtime.json"
    async with client_for(tmp_path, {"g": EXAMPLE_GAME}) as client:
        with anyio.fail_after(60):
            first = await client.call_tool("games_start", {"gameId": "g"})
            assert data(first)["code"] == "started_connected", first
            claim_file.unlink()
            with monkeypatch.context() as patch:
                patch.setattr(Lifecycle, "publish_absent", outage)
                second = await client.call_tool("games_start", {"gameId": "g"})
            assert second.is_error
            assert data(second)["code"] == "blocked_unknown_state"
            await client.call_tool("games_start", {"gameId": "g"})  # written again now
            killed = await client.call_tool("games_kill", {"gameId": "g"})
            assert data(killed)["code"] == "terminated"


def test_a_result_with_nothing_to_do_next_has_no_next_actions_key() -> None:
    # Go 1.1.0's games_stop of a game it stopped: {action, claimRemoved, code: terminated,
    # evidence, gameId, trackRecord}; no nextActions key
    result = core_result("Stopped.", code="terminated", game_id="g", next_actions=[])
    assert result.structured_content is not None
    assert "nextActions" not in result.structured_content
    refused = core_result("No.", code="game_not_found", game_id=None)
    assert refused.structured_content is not None
    assert refused.structured_content["nextActions"]  # a failure still says what to do next
