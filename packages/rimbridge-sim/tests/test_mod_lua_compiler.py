"""The Lua front-end against the behaviour the mod's own tests pin (``LuaScriptCompilerTests``,
``CapabilityLuaReferenceBuilderTests``) and against the mod's runner where those tests leave a
question open: nested Lua tools inside a script, and whole quotients."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, normalize_definition
from rimbridge_sim.scripting.lua_compiler import compile_lua
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
    report = await run_lua("local even = 6 / 3\nlocal half = 7 / 2\nreturn { even = even, half = half }")
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
