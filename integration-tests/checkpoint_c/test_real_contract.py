"""The running ``rimbridge-sim`` process speaks the real RimBridgeServer tool contract.

The reference (``rimbridge_sim/contract/rimbridge-tools.json``, the facts of the mod's 123
tools) is read here as plain JSON, and every tool the process lists over GABP is compared
with it field by field, independently of the package's own comparison code.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

REFERENCE = json.loads(
    resources.files("rimbridge_sim.contract")
    .joinpath("rimbridge-tools.json")
    .read_text(encoding="utf-8")
)


def expected_schema_of(param: dict[str, Any]) -> dict[str, Any]:
    """What the simulation must advertise for one reference parameter (the rule the sim's
    README documents): the accepted JSON type, the mod's default, and the value set as
    ``enum`` when the mod refuses other values, else as ``examples``."""
    expected: dict[str, Any] = {"type": param.get("semantic_type") or param["type"]}
    if param.get("default") is not None:
        expected["default"] = param["default"]
    if "enum" in param:
        expected["enum" if param["enum_enforced"] else "examples"] = param["enum"]
    return expected


async def test_every_listed_tool_matches_the_reference_and_none_is_invented(launch: Any) -> None:
    async with launch("recommended") as sim:
        listed = (await sim.bridge.request("tools/list", {}))["tools"]
    by_name = {tool["name"]: tool for tool in listed}
    reference = {tool["name"]: tool for tool in REFERENCE["tools"]}
    assert REFERENCE["tool_count"] == len(reference) == 123
    assert set(reference) <= set(by_name), sorted(set(reference) - set(by_name))
    invented = {name: tool for name, tool in by_name.items() if name not in reference}
    assert all(n.startswith("sim/") and "test" in t["tags"] for n, t in invented.items())

    for name, wanted in reference.items():
        tool = by_name[name]
        schema = tool["inputSchema"]
        assert tool.get("tags", []) == wanted["tags"], name
        assert (schema["type"], schema["additionalProperties"]) == ("object", False), name
        params = {p["name"]: p for p in wanted["params"]}
        assert set(schema.get("properties", {})) == set(params), name
        required = sorted(p["name"] for p in wanted["params"] if p["required"])
        assert sorted(schema.get("required", [])) == required, name
        for param_name, param in params.items():
            actual = schema["properties"][param_name]
            expected = expected_schema_of(param)
            checked = {k: actual[k] for k in ("type", "default", "enum", "examples") if k in actual}
            assert checked == expected, f"{name}.{param_name}"
            assert actual.get("description"), f"{name}.{param_name} has no description"
        assert tool["description"], name


async def test_the_five_tools_the_mod_does_not_have_are_gone(launch: Any) -> None:
    async with launch("recommended") as sim:
        listed = {t["name"] for t in (await sim.bridge.request("tools/list", {}))["tools"]}
    gone = {
        "rimworld/get_pawn",
        "rimworld/order_move",
        "rimworld/list_things",
        "rimworld/list_designations",
        "rimworld/cancel_designation",
    }
    assert not gone & listed
