"""The Lua front-end against the behaviour the mod's own tests pin (``LuaScriptCompilerTests``,
``CapabilityLuaReferenceBuilderTests``) and against the mod's runner where those tests leave a
question open: nested Lua tools inside a script, and whole quotients."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, lua_reference, normalize_definition
from rimbridge_sim.scripting.lua_compiler import LuaCompileError, compile_lua
from rimbridge_sim.tools.scripting import NESTING_LIMIT


async def echo(name: str, arguments: Mapping[str, Any]) -> CallOutcome:
    """Every tool answers with its arguments (the mod's ``test/echo``)."""
    return CallOutcome(True, f"op-{name}", "completed", dict(arguments), None)


async def run_lua(source: str, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    runner = ScriptRunner(echo, include_step_results=True)
    report = await runner.run(normalize_definition(compile_lua(source, parameters)))
    return report.to_wire()


async def test_print_with_a_label_and_a_value_is_one_row_with_that_message_and_value() -> None:
    report = await run_lua(
        "local count = 0\n"
        "while count < 2 do\n"
        "  if count == 0 then\n"
        '    print("count", count)\n'
        "  end\n"
        "  count = count + 1\n"
        "end\n"
        'rb.assert(count == 2, "Expected count to reach two.")\n'
        "return count\n"
    )
    assert report["success"] is True
    assert report["result"] == 2
    assert [(row["message"], row["value"]) for row in report["output"]] == [("count", 0)]
    assert report["steps"] == []


async def test_a_division_that_comes_out_even_is_a_whole_number_and_others_keep_the_fraction() -> (
    None
):
    report = await run_lua(
        "local even = 6 / 3\nlocal half = 7 / 2\nreturn { even = even, half = half }"
    )
    assert report["result"] == {"even": 2, "half": 3.5}
    assert type(report["result"]["even"]) is int


async def test_a_script_step_may_run_lua_and_its_answer_is_the_step_result(open_sim: Any) -> None:
    inner = 'local pong = rb.call("rimbridge/ping", {})\nreturn pong.result.message'
    script = {
        "steps": [
            {"id": "nested", "call": "rimbridge/run_lua", "arguments": {"luaSource": inner}},
            {"type": "return", "value": {"$ref": "nested", "path": "result"}},
        ]
    }
    async with open_sim(tick_rate=0) as sim:
        answer = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        assert answer["success"] is True, answer
        step = answer["script"]["steps"][0]
        assert (step["call"], step["success"], step["status"]) == ("rimbridge/run_lua", True, 2)
        assert answer["result"]["success"] is True
        assert answer["result"]["result"] == "pong"


async def test_a_lua_file_that_runs_itself_stops_at_the_nesting_limit(
    open_sim: Any, tmp_path: Path
) -> None:
    path = tmp_path / "again.lua"
    path.write_text(
        f'local again = rb.call("rimbridge/run_lua_file", {{ scriptPath = "{path}" }})\n'
        "return again.result\n"
    )
    async with open_sim(tick_rate=0) as sim:
        answer = await sim.call("rimbridge/run_lua_file", scriptPath=str(path))
        depth = 1
        while answer["success"]:
            answer = answer["result"]
            depth += 1
        assert depth == NESTING_LIMIT
        assert answer["error"]["Code"] == "script.nesting_limit"


def test_the_lua_quick_start_has_a_summary_and_first_rules_as_the_mod() -> None:
    quick_start = lua_reference()["quickStart"]
    assert "not as full Lua" in quick_start["summary"]
    assert any("rimbridge/compile_lua" in step for step in quick_start["recommendedWorkflow"])
    assert any("Dynamic indexing" in rule for rule in quick_start["firstRules"])
    assert "rb.call" in quick_start["starterTemplate"]


def test_the_lua_polling_guidance_prefers_polling_a_read_only_tool_and_names_three_patterns() -> (
    None
):
    guidance = lua_reference()["pollingGuidance"]
    assert any(
        "Prefer rb.poll against a read-only capability" in text
        for text in guidance["bestPractices"]
    )
    assert [p["name"] for p in guidance["patterns"]] == [
        "wait_for_entry_scene",
        "wait_for_colonists_in_area",
        "bounded_search_and_validate",
    ]


def test_the_lua_pitfalls_include_an_alias_held_in_a_variable() -> None:
    patterns = [p["pattern"] for p in lua_reference()["commonPitfalls"]]
    assert {"count = 1", "names[i]", "rb.call(aliasVar, args)"} <= set(patterns)
    assert "rb.assert(condition, messageVar)" in patterns


async def test_the_lua_examples_have_the_mods_names_and_run_in_the_simulation(
    open_sim: Any,
) -> None:
    examples = {e["name"]: e["luaSource"] for e in lua_reference()["examples"]}
    assert list(examples) == [
        "minimal",
        "poll_and_assert",
        "wait_for_entry_scene",
        "bounded_search_and_validate",
        "foreach_selection",
        "params_binding",
    ]
    parameters = {"params_binding": {"screenshotFileName": "capture_001"}}
    async with open_sim(tick_rate=0) as sim:
        for name, source in examples.items():
            compiled = await sim.call("rimbridge/compile_lua", luaSource=source)
            assert compiled["success"] is True, (name, compiled["message"])
            if name == "wait_for_entry_scene":
                continue  # it waits for the main menu
            ran = await sim.call(
                "rimbridge/run_lua", luaSource=source, parameters=parameters.get(name)
            )
            assert ran["success"] is True, (name, ran["message"])
        assert ran["result"] == {"screenshotFileName": "capture_001", "retryLimit": 6}


@pytest.mark.parametrize(
    "source",
    ['print("a", 1, 2)', 'rb.print("a", 1, 2)', "local label = 1\nrb.print(label, 2)"],
)
def test_print_refuses_a_third_argument_or_a_label_that_is_not_a_literal_string(
    source: str,
) -> None:
    with pytest.raises(LuaCompileError) as caught:
        compile_lua(source)
    assert caught.value.code == "lua.unsupported_expression"
