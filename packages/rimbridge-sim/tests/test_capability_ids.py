"""Capability ids: one id per tool, the mod's, used by the registry, the journal, the log ring
and script steps alike."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from rimbridge_sim.contract import load_contract
from rimbridge_sim.contract.capabilities import (
    SIM_PROVIDER,
    capability_id,
    capability_of,
    capability_table,
)

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
