"""The track record's attribution in a start's result, as the Go bridge 1.1.0 renders it
(``design/08-track-record.md``): the candidate-input note of a failure that ran with an input
combination never verified on its context, and the once-per-edit notice after a proven
context was edited following a failure that was not the config's; and the last good context
that ``games doctor --show-last-good`` prints after such an edit."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge
from .results import data, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

#: A game that exits 3 when started with ``--scenario=tutorial`` and else runs (without GABP).
SCENARIO_GAME = (
    "import sys, time\nsys.exit(3) if '--scenario=tutorial' in sys.argv else time.sleep(60)\n"
)
SCENARIO = {"description": "Scenario", "type": "string", "args": ["--scenario=${value}"]}


async def test_a_crash_with_an_unproven_input_combination_names_the_input(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("g", args=["-c", SCENARIO_GAME], launchInputs={"scenario": SCENARIO})
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            arena = {"gameId": "g", "launchInputs": {"scenario": "arena"}, "timeout": 2}
            proven = await client.call_tool("games_start", arena)
            assert data(proven)["code"] == "started_bridge_pending", text_of(proven)
            killed = await client.call_tool("games_kill", {"gameId": "g"})
            assert data(killed)["code"] == "terminated", text_of(killed)
            tutorial = {"gameId": "g", "launchInputs": {"scenario": "tutorial"}, "timeout": 2}
            crashed = await client.call_tool("games_start", tutorial)
    found = data(crashed)
    assert (found["code"], found["causeClass"]) == ("exited_during_start", "game")
    assert found["candidateInputNote"] == (
        "first run with this input combination (scenario); the input is a candidate cause"
    )
    assert found["trackRecord"].startswith("started 1\u00d7")


async def test_an_edit_after_an_environment_failure_is_noticed_once(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    failing_stop = {"stop": {"command": "/bin/sh", "args": ["-c", "exit 1"]}}
    entry = config_dir.game("g", args=["-c", "import time; time.sleep(60)"], lifecycle=failing_stop)
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            failed = await client.call_tool("games_stop", {"gameId": "g"})
            assert (data(failed)["code"], data(failed)["causeClass"]) == (
                "action_failed",
                "environment",
            )
            await client.call_tool("games_kill", {"gameId": "g"})
            entry["args"] = ["-c", "raise SystemExit(3)"]
            config_dir.write()
            first = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
            second = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
    assert data(first)["code"] == data(second)["code"] == "exited_during_start"
    assert data(first)["editNotice"] == (
        "configuration changed after a environment-class failure; the previous context had 1 "
        "successful starts \u2014 verify this edit was intended"
    )
    assert "editNotice" not in data(second)


async def test_the_last_good_context_outlives_an_edit_of_it(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    entry = config_dir.game("g", args=["-c", "import time; time.sleep(60)"])
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            killed = await client.call_tool("games_kill", {"gameId": "g"})
            assert data(killed)["code"] == "terminated", text_of(killed)
            entry["args"] = ["-c", "raise SystemExit(3)"]
            config_dir.write()
            crashed = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
            assert data(crashed)["code"] == "exited_during_start", text_of(crashed)
    doctor = gabs_cli(config_dir, "games", "doctor", "g", "--show-last-good")
    tail = doctor.stdout.split("Last known good:\n", 1)[1].splitlines()
    assert tail[0] == '  profile "" (default) (recorded moments ago):'
    assert tail[1].startswith("      context hash: ")
    assert tail[2:] == [
        f"      target: {sys.executable}  mode: CustomCommand",
        "      args: -c import time; time.sleep(60)",
        "      NOTE: the current context differs from this proven one \u2014 it was edited. "
        "Compare or restore by hand; GABS never restores automatically.",
    ]
