"""The mod's docs/architecture.md, docs/rimworld-mod-debugging-stack.md and AGENTS.md read
as a specification, with the mod's source deciding where a page describes a plan rather than
the code: the capability registry for the ids it gives the operations it starts, the mod's
About.xml for the version its mod entry reports."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rimbridge_sim.diagnostics import new_operation_id

_MOD_OPERATION_ID = re.compile(r"op_[0-9a-f]{32}")
"""``"op_" + Guid.NewGuid().ToString("N")``, as ``CapabilityRegistry.StartInvocation`` names
an operation."""


def test_an_operation_id_the_bridge_makes_itself_has_the_registry_s_shape() -> None:
    first, second = new_operation_id(), new_operation_id()

    assert _MOD_OPERATION_ID.fullmatch(first), first
    assert _MOD_OPERATION_ID.fullmatch(second), second
    assert first != second


@pytest.mark.anyio
async def test_a_script_step_runs_as_an_operation_named_as_the_mod_names_it(
    open_sim: Any,
) -> None:
    # architecture.md: "Even immediate operations should have an operationId so logs, events,
    # and reports can correlate"; the step's id is the registry's, and the journal finds it
    async with open_sim(tick_rate=0) as sim:
        script = {"name": "ids", "steps": [{"id": "one", "call": "rimbridge/ping"}]}
        answer = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))

        step = answer["script"]["steps"][0]
        assert _MOD_OPERATION_ID.fullmatch(step["operationId"]), step["operationId"]
        assert step["result"]["operation"]["OperationId"] == step["operationId"]
        found = await sim.call("rimbridge/get_operation", operationId=step["operationId"])
        tracked = found["trackedOperation"]
        assert (tracked["OperationId"], tracked["CapabilityId"]) == (
            step["operationId"],
            "rimbridge.core/diagnostics/ping",
        )
        assert tracked["Metadata"]["parentOperationId"] == answer["operation"]["OperationId"]


@pytest.mark.anyio
async def test_the_bridge_s_own_mod_entry_reports_the_mod_s_version(open_sim: Any) -> None:
    # AGENTS.md: an agent checks the active RimBridgeServer with get_mod_configuration_status;
    # its entry's version is ModMetaData.ModVersion, About.xml's modVersion 2.0.0
    async with open_sim(tick_rate=0) as sim:
        status = await sim.call("rimworld/get_mod_configuration_status")
        bridge = await sim.call("rimbridge/get_bridge_status")

        entry = status["currentActiveMod"]
        assert (entry["packageId"], entry["version"]) == ("brrainz.rimbridgeserver", "2.0.0")
        assert entry["version"] == bridge["version"]["bridgeVersion"]


@pytest.mark.anyio
async def test_the_architecture_page_s_sample_script_runs_as_the_mod_reads_it(
    open_sim: Any,
) -> None:
    # the page's "suggested first shape" has `args`, `defaults` and a `wait` statement; the
    # mod's definition has none of them: its JSON reader drops the unknown keys, so the call
    # runs with its defaults and the `wait` statement has no type and halts the script
    async with open_sim(tick_rate=0) as sim:
        script = {
            "name": "load-fixture-and-run-debug-action",
            "defaults": {"mode": "wait", "timeoutMs": 10000},
            "steps": [
                {"call": "rimworld/pause_game", "args": {"pause": False}},
                {"wait": {"condition": "game.idle", "timeoutMs": 60000}},
                {"call": "rimworld/take_screenshot", "args": {"fileName": "after_action"}},
            ],
        }
        answer = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))

        report = answer["script"]
        message = "The script step 'statement-2' declares unsupported type ''."
        assert (answer["success"], answer["message"]) == (False, message)
        assert (report["stepCount"], report["executedStepCount"], report["haltReason"]) == (
            3,
            2,
            "Step 2 ('statement-2') failed.",
        )
        paused, waited = report["steps"]
        assert (paused["id"], paused["success"], paused["result"]["paused"]) == (
            "step-1",
            True,
            True,
        )
        assert (waited["call"], waited["error"]["Code"]) == ("script/", "script.invalid_step")


@pytest.mark.anyio
async def test_the_bridge_status_names_the_sdk_the_mod_ships_with_its_own_version(
    open_sim: Any,
) -> None:
    # architecture.md: "RimBridgeServer.Sdk always resolves to the assembly shipped by
    # RimBridgeServer"; its project takes ModVersion for every version it has
    async with open_sim(tick_rate=0) as sim:
        status = await sim.call("rimbridge/get_bridge_status")

        assert status["version"] == {
            "bridgeVersion": "2.0.0",
            "bridgeAssemblyVersion": "2.0.0.0",
            "sdkVersion": "2.0.0.0",
            "sdkInformationalVersion": "2.0.0",
        }
        assert status["sdk"] == {
            "sdkAssembly": "RimBridgeServer.Sdk",
            "sdkVersion": "2.0.0.0",
            "sdkInformationalVersion": "2.0.0",
            "companionCount": 0,
            "companionWarningCount": 0,
            "companionErrorCount": 0,
        }


@pytest.mark.anyio
async def test_a_script_step_s_operation_records_the_name_as_the_script_spells_it(
    open_sim: Any,
) -> None:
    # the mod's runner hands the step's `call` to the registry unchanged, and the registry
    # records what it was asked for as requestedId (the capability id stays the resolved one)
    async with open_sim(tick_rate=0) as sim:
        script = {
            "name": "names",
            "steps": [
                {"id": "by-id", "call": "rimbridge.core/diagnostics/ping"},
                {"id": "upper", "call": "RIMWORLD/Pause_Game", "arguments": {"pause": True}},
            ],
        }
        answer = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))

        seen = []
        for step in answer["script"]["steps"]:
            found = await sim.call("rimbridge/get_operation", operationId=step["operationId"])
            tracked = found["trackedOperation"]
            metadata = tracked["Metadata"]
            seen.append((metadata["requestedId"], metadata["scriptCall"], tracked["CapabilityId"]))
        assert seen == [
            (
                "rimbridge.core/diagnostics/ping",
                "rimbridge.core/diagnostics/ping",
                "rimbridge.core/diagnostics/ping",
            ),
            ("RIMWORLD/Pause_Game", "RIMWORLD/Pause_Game", "rimbridge.core/lifecycle/pause-game"),
        ]
        direct = await sim.call("rimworld/pause_game", pause=False)
        found = await sim.call(
            "rimbridge/get_operation", operationId=direct["operation"]["OperationId"]
        )
        assert found["trackedOperation"]["Metadata"]["requestedId"] == "rimworld/pause_game"
