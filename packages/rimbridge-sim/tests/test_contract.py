"""The simulation declares every real tool exactly as the mod does, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lib_gab import InvalidArguments
from rimbridge_annotations import parameter, tool
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.contract import (
    differences,
    expected_property,
    load_contract,
    python_name,
    wire_name,
)
from rimbridge_sim.integration import RimBridge

TOKEN = "0" * 64


@pytest.fixture(scope="module")
def bridge() -> Any:
    built = RimBridge(BridgeConfig(token=TOKEN, enable_test_tools=True, tick_rate=0))
    yield built
    built.close()


def test_the_reference_holds_the_123_tools_of_the_mod() -> None:
    contract = load_contract()
    assert len(contract) == 123
    assert sum(1 for t in contract if t.name.startswith("rimbridge/")) == 18
    assert contract["rimworld/pause_game"].param("pause").default is True


def test_the_readmes_examples_of_documented_value_sets_are_not_enforced() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    [row] = [line for line in readme.splitlines() if "`enum_enforced: false`, e.g." in line]
    examples = re.findall(r"`(\w+)` `(\w+)`", row)
    contract = load_contract()
    assert len(examples) == 2
    for tool_name, param_name in examples:
        [found] = [t for t in contract if t.name.endswith("/" + tool_name)]
        param = found.param(param_name)
        assert param.enum is not None and not param.enum_enforced, (tool_name, param_name)


def test_every_real_tool_is_registered_and_identical_to_the_reference(bridge: Any) -> None:
    contract = load_contract()
    registered = {t.name: t for t in bridge.tool_list()}
    assert set(contract.tools) <= set(registered)
    for name, tool_contract in contract.tools.items():
        assert differences(registered[name].descriptor(), tool_contract) == [], name


def test_no_tool_is_invented_outside_the_test_namespace(bridge: Any) -> None:
    contract = load_contract()
    extra = [t for t in bridge.tool_list() if t.name not in contract]
    assert {t.name for t in extra} == {
        "sim/inject_log",
        "sim/schedule_error",
        "sim/stall",
        "sim/drop_connection",
        "sim/unload_map",
    }
    assert all(t.name.startswith("sim/") and "test" in t.tags for t in extra)


def test_object_parameters_are_declared_as_the_objects_the_mod_accepts(bridge: Any) -> None:
    param = load_contract()["rimworld/update_mod_settings"].param("values")
    assert (param.type, param.semantic_type, expected_property(param)) == (
        "array",
        "object",
        {"type": "object"},
    )
    run_lua = bridge.tool("rimbridge/run_lua")
    assert run_lua.input_schema["properties"]["parameters"]["type"] == "object"
    assert run_lua.validate_arguments({"luaSource": "return 1", "parameters": {"a": 1}})[
        "parameters"
    ] == {"a": 1}
    with pytest.raises(InvalidArguments, match=r"\$\.parameters"):
        run_lua.validate_arguments({"luaSource": "return 1", "parameters": ["a"]})


def test_enforced_value_sets_refuse_others_and_documented_ones_accept_them(bridge: Any) -> None:
    speed = bridge.tool("rimworld/set_time_speed")
    assert speed.input_schema["properties"]["speed"]["enum"] == [
        "Paused",
        "Normal",
        "Fast",
        "Superfast",
        "Ultrafast",
    ]
    with pytest.raises(InvalidArguments, match=r"\$\.speed"):
        speed.validate_arguments({"speed": "fast"})
    logs = bridge.tool("rimbridge/list_logs")
    level = logs.input_schema["properties"]["minimumLevel"]
    assert ("enum" in level, level["examples"]) == (False, ["info", "warning", "error", "fatal"])
    assert logs.validate_arguments({"minimumLevel": "debug"})["minimum_level"] == "debug"


def test_optional_parameters_without_a_default_have_none_and_accept_null(bridge: Any) -> None:
    select = bridge.tool("rimworld/select_pawn")
    assert select.input_schema["properties"]["pawnName"] == {
        "description": select.input_schema["properties"]["pawnName"]["description"],
        "title": "pawnName",
        "type": "string",
    }
    assert select.validate_arguments({"pawnName": None})["pawn_name"] is None
    with pytest.raises(InvalidArguments, match="unknown argument"):
        select.validate_arguments({"pawn_name": "Flint"})


def test_python_names_are_the_snake_case_of_the_wire_names() -> None:
    assert [python_name(n) for n in ("pawnName", "fromX", "capabilityIdOrAlias", "x")] == [
        "pawn_name",
        "from_x",
        "capability_id_or_alias",
        "x",
    ]


class _Invented:
    @tool("rimworld/get_pawn", "A tool the mod does not have.")
    def get_pawn(self) -> dict[str, Any]:
        return {}


class _WrongDefault:
    @tool("rimworld/pause_game", "Pause.")
    @parameter("pause", "Pause or not.")
    def pause_game(self, pause: bool = False) -> dict[str, Any]:
        return {}


class _WrongTags:
    @tool("rimworld/get_game_info", "Info.", tags=("game",))
    def get_game_info(self) -> dict[str, Any]:
        return {}


@pytest.mark.parametrize(
    ("namespace", "problem"),
    [
        (_Invented(), "is not a RimBridgeServer tool"),
        (_WrongDefault(), "pause defaults to False, the contract says True"),
        (_WrongTags(), "differ from the contract"),
    ],
)
def test_registration_refuses_invented_tools_and_bodies_that_drift(
    namespace: object, problem: str
) -> None:
    bridge = RimBridge(BridgeConfig(token=TOKEN, tick_rate=0, start_game=False))
    try:
        with pytest.raises(ValueError, match=problem):
            bridge.register(namespace)
    finally:
        bridge.close()


def test_every_real_parameter_name_survives_the_round_trip_through_its_keyword() -> None:
    names = [param.name for tool in load_contract() for param in tool.params]
    assert len(names) > 200
    assert [wire_name(python_name(name)) for name in names] == names
