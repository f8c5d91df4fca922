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
