"""The track record's attribution in a start's result, as the Go bridge 1.1.0 renders it
(``design/08-track-record.md``): the candidate-input note of a failure that ran with an input
combination never verified on its context, and the once-per-edit notice after a proven
context was edited following a failure that was not the config's; the last good context
that ``games doctor --show-last-good`` prints after such an edit; the verified deliveries the
one-line track record names; and the inputs a failure ran with, also a late exit's."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from .harness import HANDSHAKE_GAME, ConfigDir, OpenBridge
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


async def test_a_verified_delivery_is_counted_in_the_track_record_line(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # TrackRecordLine: ", delivery verified N" (times) after the bridge connections.
    config_dir.game("hs", script=HANDSHAKE_GAME, env={"HANDSHAKE_MODE": "observed"})
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "hs"})
            assert data(started)["code"] == "started_connected", text_of(started)
            assert data(started)["contextDelivery"]["overall"] == "verified", text_of(started)
            shown = await client.call_tool("games_show", {"gameId": "hs"})
            await client.call_tool("games_kill", {"gameId": "hs"})
    (row,) = data(shown)["trackRecord"]
    assert (row["deliveriesVerified"], row["trackRecord"]) == (
        1,
        "started 1\u00d7, last moments ago; bridge connected 1\u00d7, delivery verified 1\u00d7",
    )


async def test_an_exit_while_connecting_records_the_inputs_it_ran_with(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    # RecordTerminalStartFailure: lastFailure.inputNames, also for a workload that started
    # (counted) and ended while the bridge waited for its GABP server.
    late_exit = "import sys, time; time.sleep(3); sys.exit(3)"
    config_dir.game("g", args=["-c", late_exit], launchInputs={"scenario": SCENARIO})
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            arena = {"gameId": "g", "launchInputs": {"scenario": "arena"}, "timeout": 10}
            crashed = await client.call_tool("games_start", arena)
    assert data(crashed)["code"] == "exited_during_start", text_of(crashed)
    doctor = gabs_cli(config_dir, "games", "doctor", "g")
    record = doctor.stdout.split("Track record:\n", 1)[1].splitlines()
    assert (
        record[1]
        == "      last failure: exited_during_start / game, moments ago [inputs: scenario]"
    )


async def test_an_unobserved_start_whose_claim_went_meanwhile_records_nothing(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any
) -> None:
    # keepClaimUnobserved: the outcome is kept, and the failure recorded, in one transition
    # fenced to the launch; when the claim is gone by then, the start is superseded. The
    # game marks that it ran; the status hook, asked whether it runs, removes the claim.
    mark = config_dir.games_dir / "ran"
    claim = config_dir.path / "g" / "runtime.json"
    hook = f'if [ -f "{mark}" ]; then rm -f "{mark}" "{claim}"; fi; exit 7'
    config_dir.game(
        "g",
        launchMode="DirectPath",
        target="/bin/sh",
        args=["-c", f'touch "{mark}"'],
        lifecycle={"status": {"command": "/bin/sh", "args": ["-c", hook]}},
    )
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
    found = data(started)
    assert (found["code"], found["causeClass"]) == ("operation_in_progress", "state"), found
    assert text_of(started).startswith("the launch of 'g' was superseded during startup")
    assert not claim.exists()
    doctor = gabs_cli(config_dir, "games", "doctor", "g")
    assert "last failure" not in doctor.stdout, doctor.stdout
