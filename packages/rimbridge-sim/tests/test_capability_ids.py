"""Capability ids: one id per tool, the mod's, used by the registry, the journal, the log ring
and script steps alike."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from gabp import RemoteError
from rimbridge_sim.contract import load_contract
from rimbridge_sim.contract.capabilities import (
    SIM_PROVIDER,
    capability_id,
    capability_of,
    capability_table,
)

FAIL = "0c0ffee0-0000-4000-8000-000000000001"
LOGS = "0c0ffee0-0000-4000-8000-000000000002"

# what the mod's C# source gives: providerId from RimBridgeCapabilities.cs, the kebab-cased
# implementation method from the module that has it
MOD_IDS = {
    "rimworld/select_pawn": ("rimbridge.core/selection/select-pawn", "selection"),
    "rimworld/get_game_info": ("rimbridge.core/diagnostics/get-game-info", "diagnostics"),
    "rimworld/execute_debug_action": (
        "rimbridge.core/debug_actions/execute-debug-action",
        "debug_actions",
    ),
    "rimworld/move_camera": ("rimbridge.core/view/move-camera", "view"),
    "rimworld/get_ui_state": ("rimbridge.core/input/get-ui-state", "input"),
    "rimworld/click_cell": ("rimbridge.optional/context_menu/click-cell", "context_menu"),
    "rimworld/dpa_status": ("rimbridge.optional/dpa/dpa-status", "profiling"),
    "rimbridge/run_lua": ("rimbridge.core/scripting/run-lua", "scripting"),
    "rimworld/execute_gizmo": ("rimbridge.core/inspection/execute-gizmo", "inspection"),
}
MOD_CATEGORIES = {
    "diagnostics",
    "scripting",
    "lifecycle",
    "selection",
    "view",
    "input",
    "inspection",
    "context_menu",
    "architect",
    "notifications",
    "mod_settings",
    "mod_configuration",
    "debug_actions",
    "profiling",
}


def test_every_contract_tool_has_exactly_one_unique_id() -> None:
    data = json.loads(
        resources.files("rimbridge_sim.contract").joinpath("capability-ids.json").read_text()
    )
    assert "C#" in data["about"] or "Source/" in data["about"]
    names = set(load_contract().tools)
    table = capability_table()
    assert set(table) == names and data["tool_count"] == len(names) == 123
    ids = [c.id for c in table.values()]
    assert len(set(ids)) == len(ids)
    for capability in table.values():
        assert capability.id.startswith(capability.provider_id + "/")
        leaf = capability.id.removeprefix(capability.provider_id + "/")
        assert leaf and leaf == leaf.lower() and "/" not in leaf and "_" not in leaf
        assert capability.category in MOD_CATEGORIES
        assert not capability.id.startswith(SIM_PROVIDER)
    assert {c.category for c in table.values()} == MOD_CATEGORIES


@pytest.mark.parametrize(("tool", "expected"), sorted(MOD_IDS.items()))
def test_ids_are_the_mods(tool: str, expected: tuple[str, str]) -> None:
    capability = capability_of(tool)
    assert (capability.id, capability.category) == expected
    assert capability.provider_id == expected[0].rsplit("/", 1)[0]
    assert capability.source == ("optional" if ".optional/" in expected[0] else "core")


def test_sim_only_tools_have_a_sim_only_id() -> None:
    assert capability_id("sim/inject_log") == "rimbridge.sim/test/inject-log"
    sim = capability_of("sim/schedule_error")
    assert (sim.provider_id, sim.category, sim.source) == (SIM_PROVIDER, "test", "extension")
    assert capability_id("custom/do_it") == "rimbridge.sim/test/custom-do-it"


async def test_one_id_names_the_call_in_every_place(open_sim: Any) -> None:
    select = "rimbridge.core/selection/select-pawn"
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        done = await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        assert done["operation"]["CapabilityId"] == select
        operation_id = done["operation"]["OperationId"]
        got = await sim.call("rimbridge/get_operation", operationId=operation_id)
        assert got["trackedOperation"]["CapabilityId"] == select
        listed = await sim.call("rimbridge/list_operations", limit=50)
        assert select in {o["CapabilityId"] for o in listed["operations"]}
        events = await sim.call("rimbridge/list_operation_events", operationId=operation_id)
        assert {e["CapabilityId"] for e in events["events"]} == {select}

        # a failing call writes its exception line under the same id
        with pytest.raises(RemoteError):
            await sim.call("rimworld/select_pawn", request_id=FAIL)
        logs = await sim.call("rimbridge/list_logs", operationId=FAIL, minimumLevel="error")
        assert logs["logs"] and {e["CapabilityId"] for e in logs["logs"]} == {select}

        script = {"steps": [{"id": "pick", "call": "rimworld/select_pawn", "arguments": {}}]}
        ran = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        assert ran["script"]["steps"][0]["capabilityId"] == select


async def test_an_id_from_get_capability_finds_the_calls_log_lines(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        with pytest.raises(RemoteError):
            await sim.call("rimworld/select_pawn", request_id=LOGS)
        found = await sim.call(
            "rimbridge/get_capability", capabilityIdOrAlias="rimworld/select_pawn"
        )
        capability = found["capability"]
        assert (capability["id"], capability["providerId"], capability["category"]) == (
            "rimbridge.core/selection/select-pawn",
            "rimbridge.core/selection",
            "selection",
        )
        assert capability["aliases"] == ["rimworld/select_pawn"]
        logs = await sim.call("rimbridge/list_logs", capabilityId=capability["id"])
        assert LOGS in {e["OperationId"] for e in logs["logs"]}
        # the mod resolves an id as well as an alias, ignoring case
        by_id = await sim.call(
            "rimbridge/get_capability", capabilityIdOrAlias=capability["id"].upper()
        )
        assert by_id["capability"]["id"] == capability["id"]
        views = await sim.call("rimbridge/list_capabilities", category="view", limit=200)
        assert "rimbridge.core/view/move-camera" in {c["id"] for c in views["capabilities"]}
        dpa = await sim.call("rimbridge/get_capability", capabilityIdOrAlias="rimworld/dpa_status")
        assert dpa["capability"]["source"] == "Optional"  # the enum name, as the mod writes it
        test = await sim.call("rimbridge/get_capability", capabilityIdOrAlias="sim/inject_log")
        assert test["capability"]["id"] == "rimbridge.sim/test/inject-log"
        injected = await sim.call("sim/inject_log", level="warning", message="marker")
        assert injected["operation"]["CapabilityId"] == "rimbridge.sim/test/inject-log"
        lines = await sim.call("rimbridge/list_logs", capabilityId="rimbridge.sim/test/inject-log")
        assert [e["Message"] for e in lines["logs"]] == ["marker"]
