"""The lifecycle tools at their edges: a ``gameId`` with spaces around it, the order in which
``games_start`` checks its arguments, a connect with nothing to attach to, a game whose entry
is removed while it runs, the status after a stop of our own, the status that recovers a stop
attempt whose bridge died, and a game whose transition lock cannot be opened."""

from __future__ import annotations

import json
import os
import signal
import sys
from datetime import UTC, datetime, timedelta

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, next_tools, process_alive, text_of

NOT_FOUND = "Game '{}' not found. Use games_list to see available games."


@pytest.mark.parametrize(
    "tool",
    ["games_show", "games_status", "games_start", "games_stop", "games_kill", "games_connect"],
)
@pytest.mark.parametrize("game_id", [" compat", "compat "])
async def test_a_game_id_with_spaces_around_it_is_not_the_game(
    open_bridge: OpenBridge, config_dir: ConfigDir, tool: str, game_id: str
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            refused = await client.call_tool(tool, {"gameId": game_id})
            status = data(await client.call_tool("games_status", {"gameId": "compat"}))
    assert refused.is_error, text_of(refused)
    assert data(refused)["code"] == "game_not_found"
    assert text_of(refused).splitlines()[0] == NOT_FOUND.format(game_id)
    assert status["status"] == "stopped"  # nothing was started


@pytest.mark.parametrize("timeout", [0, -1, 3601, "0"])
async def test_start_looks_the_game_up_before_it_checks_the_timeout(
    open_bridge: OpenBridge, config_dir: ConfigDir, timeout: object
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            unknown = await client.call_tool("games_start", {"gameId": "nope", "timeout": timeout})
            known = await client.call_tool("games_start", {"gameId": "compat", "timeout": timeout})
    assert unknown.is_error and data(unknown)["code"] == "game_not_found", text_of(unknown)
    assert text_of(unknown).splitlines()[0] == NOT_FOUND.format("nope")
    assert known.is_error and data(known)["code"] == "timeout_out_of_range", text_of(known)
    assert (data(known)["minimum"], data(known)["maximum"]) == (1, 3600)


async def test_a_connect_with_no_claim_suggests_status_then_start(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            refused = await client.call_tool("games_connect", {"gameId": "compat"})
    assert refused.is_error
    assert text_of(refused).startswith(
        "Failed to resolve live GABP endpoint for 'compat': no runtime claim exists for "
        "'compat'; nothing is attachable \u2014 start the game, or check games_status"
    ), text_of(refused)
    assert data(refused)["code"] == "endpoint_unavailable"
    assert data(refused)["causeClass"] == "environment"
    assert next_tools(refused) == ["games_status", "games_start"]
    # the environment class's actions, as every environment-class failure words them
    assert [a["reason"] for a in data(refused)["nextActions"]] == [
        "Check host/store/network state (Steam running, daemon up, network reachable) \u2014 "
        "this is an environment problem, not a launch-settings one.",
        "Retry after the environment recovers.",
    ]


async def test_a_stop_of_our_own_leaves_no_disconnect_in_the_status(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            status = await client.call_tool("games_status", {"gameId": "compat"})
            await start_game(client)
            running = await client.call_tool("games_status", {"gameId": "compat"})
            await client.call_tool("games_stop", {"gameId": "compat"})
    assert text_of(status) == "**compat** (Compat game compat): stopped\n"
    assert "lastDisconnect" not in data(status)
    assert (
        text_of(running) == "**compat** (Compat game compat): running (GABS controls the process)\n"
    )
    assert "lastDisconnect" not in data(running)


async def test_a_running_game_whose_entry_was_removed_is_shown_unconfigured(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    config_dir.game("gone")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client, "gone")
            del config_dir.games["gone"]
            config_dir.write()
            await anyio.sleep(1.5)  # the edit is seen on the next call; let the file settle
            one = await client.call_tool("games_status", {"gameId": "gone"})
            every = data(await client.call_tool("games_status", {}))
            stopped = await client.call_tool("games_stop", {"gameId": "gone"})
    item = data(one)
    assert text_of(one) == "**gone** (unconfigured): running (GABS controls the process)\n"
    assert (item["configured"], item["name"], item["status"]) == (False, "gone", "running")
    assert item["phase"] == "active"
    assert next_tools(one) == ["games_stop", "games_kill"]
    listed = {entry["gameId"]: entry for entry in every["games"]}
    assert (listed["gone"]["configured"], listed["gone"]["name"]) == (False, "gone")
    assert [action["tool"] for action in listed["gone"]["nextActions"]] == [
        "games_stop",
        "games_kill",
    ]
    assert listed["compat"]["configured"] is True
    assert data(stopped)["code"] == "terminated", text_of(stopped)
    assert text_of(stopped).startswith("Game 'gone' (gone) was stopped")


async def test_a_start_takes_its_profile_as_given(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("plain")
    config_dir.game("shaped", defaultProfile="low", profiles={"low": {"args": []}})
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            blank = await client.call_tool("games_start", {"gameId": "plain", "profile": " "})
            padded = await client.call_tool("games_start", {"gameId": "shaped", "profile": " low"})
            status = data(await client.call_tool("games_status", {}))
    assert blank.is_error and data(blank)["code"] == "profiles_not_configured", text_of(blank)
    assert text_of(blank).splitlines()[0].startswith('game "plain" has no profiles configured')
    assert padded.is_error and data(padded)["code"] == "profile_not_found", text_of(padded)
    assert data(padded)["candidates"] == ["low"]
    assert text_of(padded).splitlines()[0] == 'game "shaped" has no profile " low"'
    assert {item["status"] for item in status["games"]} == {"stopped"}  # nothing was started


async def test_a_stop_whose_bridge_died_is_recovered_by_the_next_status(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # A stop attempt whose executor is gone (a crashed bridge or command line) is never an
    # operation in progress: the next status records it as interrupted, clears it and judges
    # the game by its evidence; the next stop is admitted at once.
    config_dir.game("g", args=["-c", "import time; time.sleep(60)"])
    claim_path = config_dir.path / "g" / "runtime.json"
    with anyio.fail_after(90):
        gone = await anyio.run_process([sys.executable, "-c", "print(__import__('os').getpid())"])
        dead_pid = int(gone.stdout)
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            claim = json.loads(claim_path.read_text(encoding="utf-8"))
            begun = datetime.now(UTC).replace(microsecond=0)
            claim["phase"] = "stopping"
            claim["operation"] = {
                "operationId": "0" * 32,
                "action": "stop",
                "executorInstanceId": "a-bridge-that-crashed",
                "executorPid": dead_pid,
                "executorPidStartTime": 1,
                "attemptStartedAt": begun.isoformat().replace("+00:00", "Z"),
                "deadline": (begun + timedelta(seconds=60)).isoformat().replace("+00:00", "Z"),
            }
            replacement = claim_path.with_name("runtime.json.new")
            replacement.write_text(json.dumps(claim), encoding="utf-8")
            os.chmod(replacement, 0o600)
            os.replace(replacement, claim_path)
            status = data(await client.call_tool("games_status", {"gameId": "g"}))
            stopped = await client.call_tool("games_stop", {"gameId": "g"})
    assert (status["status"], status["phase"]) == ("running", "active")
    assert "operation" not in status
    result = status["lastActionResult"]
    assert (result["action"], result["outcome"]) == ("stop", "interrupted")
    assert result["detail"] == (
        f"a stop attempt begun {begun.isoformat().replace('+00:00', 'Z')} was interrupted "
        "(its executor is no longer running)"
    )
    assert data(stopped)["code"] == "terminated", text_of(stopped)


async def test_a_stale_claim_that_cannot_be_cleared_is_unknown_and_blocks_a_start(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # The game is gone but its transition lock cannot be opened (not contention: a directory
    # in its place), so its claim cannot be removed: the status is unknown, with the evidence
    # that found it stopped, and a start is blocked_unknown_state; nothing is launched.
    config_dir.game("g", args=["-c", "import time; time.sleep(60)"])
    lock = config_dir.path / "g" / "transition.lock"
    claim_path = config_dir.path / "g" / "runtime.json"
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            pid = json.loads(claim_path.read_text(encoding="utf-8"))["gamePid"]
            os.kill(pid, signal.SIGKILL)
            while process_alive(pid):  # noqa: ASYNC110 - another process, no event
                await anyio.sleep(0.05)
            lock.unlink()
            lock.mkdir()
            try:
                status = await client.call_tool("games_status", {"gameId": "g"})
                blocked = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
                kept = json.loads(claim_path.read_text(encoding="utf-8"))
            finally:
                lock.rmdir()
            after = data(await client.call_tool("games_status", {"gameId": "g"}))
    assert not status.is_error, text_of(status)
    assert data(status)["status"] == "unknown"
    assert data(status)["evidence"]["verdict"] == "stopped"
    assert blocked.is_error
    assert text_of(blocked).startswith("Failed to start g: ")
    found = data(blocked)
    assert {key: found.get(key) for key in ("code", "gameId", "causeClass")} == {
        "code": "blocked_unknown_state",
        "gameId": "g",
        "causeClass": "state",
    }
    assert found["trackRecord"].startswith("started 1\u00d7")
    assert kept["gamePid"] == pid  # the claim was kept, and no other launch made
    assert after["status"] in ("stale-runtime-cleaned", "stopped")


async def test_a_stop_whose_lock_cannot_be_taken_is_blocked_in_the_launch_s_track_record(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # A lock that cannot be opened (not contention: a directory in its place) is an internal
    # failure of the stop: blocked_unknown_state, attributed to the claim's pinned context.
    config_dir.game("g", args=["-c", "import time; time.sleep(60)"])
    lock = config_dir.path / "g" / "transition.lock"
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            lock.unlink()
            lock.mkdir()
            try:
                blocked = await client.call_tool("games_stop", {"gameId": "g"})
            finally:
                lock.rmdir()
            killed = await client.call_tool("games_kill", {"gameId": "g"})
    found = data(blocked)
    assert blocked.is_error, text_of(blocked)
    assert text_of(blocked).startswith("Failed to stop 'g': ")
    assert {key: found.get(key) for key in ("code", "gameId", "action", "causeClass")} == {
        "code": "blocked_unknown_state",
        "gameId": "g",
        "action": "stop",
        "causeClass": "state",
    }
    assert found["trackRecord"].startswith("started 1\u00d7")
    assert found["nextActions"] == [
        {
            "tool": "games_status",
            "arguments": {"gameId": "g"},
            "reason": "Resolve the runtime state first (already running, in-flight operation, "
            "or unverified termination).",
        }
    ]
    assert data(killed)["code"] == "terminated", text_of(killed)
