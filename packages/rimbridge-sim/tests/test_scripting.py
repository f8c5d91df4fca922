"""The JSON script runner and the Lua subset compiled into it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rimbridge_sim.scripting import (
    CallOutcome,
    LuaCompileError,
    ScriptError,
    ScriptRunner,
    compile_lua,
    lua_reference,
    normalize_definition,
    operation_error,
    script_reference,
)


class FakeTools:
    """A caller that records calls and answers from a table: a payload completes the call's
    operation (whatever its ``success`` says), an exception fails it."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.answers = answers or {}

    async def __call__(self, name: str, arguments: Mapping[str, Any]) -> CallOutcome:
        self.calls.append((name, dict(arguments)))
        answer = self.answers.get(name, {"success": True})
        if callable(answer):
            answer = answer(len(self.calls))
        operation = f"op-{len(self.calls)}"
        if isinstance(answer, Exception):
            error = operation_error("x", str(answer), exception_type=type(answer).__name__)
            return CallOutcome(False, operation, "failed", None, error)
        return CallOutcome(True, operation, "completed", answer, None)


async def run(definition: Any, tools: FakeTools, include: bool = True) -> dict[str, Any]:
    report = await ScriptRunner(tools, include_step_results=include).run(
        normalize_definition(definition)
    )
    return report.to_wire()


async def test_calls_run_in_order_and_refs_pass_values_between_them() -> None:
    tools = FakeTools({"a/list": {"success": True, "items": [{"id": "first"}]}})
    report = await run(
        {
            "Steps": [  # keys are matched without regard to case
                {"id": "list", "call": "a/list"},
                {
                    "CALL": "a/use",
                    "arguments": {"pick": {"$ref": "list", "path": "result.items[0].id"}},
                },
                {"type": "return", "value": {"$add": [1, 2]}},
            ]
        },
        tools,
    )
    assert tools.calls == [("a/list", {}), ("a/use", {"pick": "first"})]
    assert (report["success"], report["returned"], report["result"]) == (True, True, 3)
    # an unnamed statement is numbered among the unnamed ones, as the mod numbers it
    assert [s["id"] for s in report["steps"]] == ["list", "step-1"]


async def test_a_failed_call_halts_unless_continue_on_error() -> None:
    tools = FakeTools({"a/bad": RuntimeError("nope")})
    halted = await run({"steps": [{"call": "a/good"}, {"call": "a/bad"}, {"call": "a/x"}]}, tools)
    assert (halted["success"], halted["halted"], len(tools.calls)) == (False, True, 2)
    # the mod's report: the step's index and id, and the failed step's error as the script's
    assert halted["haltReason"] == "Step 2 ('step-2') failed."
    assert halted["error"] == halted["steps"][1]["error"]
    assert halted["error"] == {
        "Code": "x",
        "Message": "nope",
        "ExceptionType": "RuntimeError",
        "Details": None,
    }
    assert (halted["succeededStepCount"], halted["failedStepCount"]) == (1, 1)
    tools = FakeTools({"a/bad": RuntimeError("first"), "a/worse": RuntimeError("second")})
    goes_on = await run(
        {
            "continueOnError": True,
            "steps": [{"call": "a/bad"}, {"call": "a/good"}, {"call": "a/worse"}],
        },
        tools,
    )
    assert (goes_on["success"], goes_on["halted"], goes_on["haltReason"]) == (False, False, "")
    assert (goes_on["executedStepCount"], goes_on["failedStepCount"]) == (3, 2)
    assert goes_on["error"]["Message"] == "first"  # the first failure, as the mod keeps it


async def test_a_payload_that_says_success_false_is_a_succeeded_step() -> None:
    refused = {"success": False, "message": "ticks must be greater than 0."}
    tools = FakeTools({"a/refuse": refused})
    report = await run(
        {
            "steps": [
                {"id": "try", "call": "a/refuse"},
                {"call": "a/next"},
                {"type": "return", "value": {"$ref": "try", "path": "result.success"}},
            ]
        },
        tools,
    )
    assert (report["success"], report["halted"], report["result"]) == (True, False, False)
    # the report's steps carry the mod's OperationStatus as an integer (2: Completed)
    assert [(s["status"], s["success"], s["error"]) for s in report["steps"]] == [
        (2, True, None),
        (2, True, None),
    ]
    assert report["steps"][0]["result"] == refused
    described = script_reference()["statementTypes"][0]["description"]
    assert "success: false completes the step" in described


async def test_a_steps_reference_root_names_its_status_and_the_report_numbers_it() -> None:
    tools = FakeTools({"a/bad": RuntimeError("boom")})
    report = await run(
        {
            "continueOnError": True,
            "steps": [
                {"id": "ok", "call": "a/good"},
                {"id": "bad", "call": "a/bad"},
                {
                    "type": "return",
                    "value": [
                        {"$ref": "ok", "path": "status"},
                        {"$ref": "bad", "path": "status"},
                    ],
                },
            ],
        },
        tools,
    )
    # the mod builds the reference root with Status.ToString(), and projects the report's
    # steps with the enum itself
    assert report["result"] == ["Completed", "Failed"]
    assert [s["status"] for s in report["steps"]] == [2, 3]


async def test_loops_are_bounded_and_budgets_are_enforced() -> None:
    tools = FakeTools()
    looping = {
        "steps": [
            {"type": "let", "name": "n", "value": 0},
            {
                "type": "while",
                "maxIterations": 3,
                "condition": {"path": "vars.n", "lessThan": 10},
                "body": [{"type": "set", "name": "n", "value": {"$add": [{"$var": "n"}, 1]}}],
            },
        ]
    }
    report = await run(looping, tools)
    assert report["error"]["Code"] == "script.max_iterations"
    budget = {"maxExecutedStatements": 5, "steps": [{"call": "a/x"} for _ in range(10)]}
    report = await run(budget, tools)
    assert report["error"]["Code"] == "script.statement_limit_exceeded"


async def test_assert_fail_print_foreach_and_continue_until() -> None:
    answers = {"a/poll": lambda n: {"success": True, "ready": n >= 3}}
    tools = FakeTools(answers)
    report = await run(
        {
            "steps": [
                {
                    "id": "p",
                    "call": "a/poll",
                    "continueUntil": {
                        "pollIntervalMs": 0,
                        "condition": {"path": "result.ready", "equals": True},
                    },
                },
                {
                    "type": "foreach",
                    "collection": ["x", "y"],
                    "itemName": "item",
                    "indexName": "i",
                    "body": [{"type": "print", "message": "seen", "value": {"$var": "item"}}],
                },
                {
                    "type": "assert",
                    "condition": {"path": "vars.missing", "exists": True},
                    "message": "no such variable",
                },
            ]
        },
        tools,
    )
    assert report["steps"][0]["attempts"] == 3
    assert [o["value"] for o in report["output"]] == ["x", "y"]
    # the mod's OperationError, as its script runner makes it: the reason its condition gave
    # follows the message and is the details' reason
    reason = (
        "Continue condition expected path 'vars.missing' existence to be True, but it was False."
    )
    assert report["error"] == {
        "Code": "script.assertion_failed",
        "Message": f"no such variable {reason}",
        "ExceptionType": "System.InvalidOperationException",
        "Details": {"condition": {"path": "vars.missing", "exists": True}, "reason": reason},
    }


def test_bad_definitions_are_refused_with_a_code() -> None:
    with pytest.raises(ScriptError) as caught:
        normalize_definition({"steps": []})
    assert caught.value.code == "script.invalid_definition"


def test_lua_lowers_locals_calls_loops_and_params_into_the_script_model() -> None:
    script = compile_lua(
        'local snap = rb.call("rimworld/list_colonists", { currentMapOnly = true })\n'
        "for i, c in ipairs(snap.result.colonists) do\n"
        '  rb.call("rimworld/select_pawn", { pawnName = c.name, append = i > 1 })\n'
        "end\n"
        "return params.limit or snap.result.count\n",
        {"limit": 2},
    )
    steps = script["steps"]
    assert steps[0] == {"type": "let", "name": "params", "value": {"limit": 2}}
    assert steps[1] == {
        "id": "snap_1",
        "call": "rimworld/list_colonists",
        "arguments": {"currentMapOnly": True},
    }
    assert steps[2] == {"type": "let", "name": "snap", "value": {"$ref": "snap_1", "path": ""}}
    assert steps[3]["type"] == "foreach"
    assert steps[4]["value"] == {
        "$or": [
            {"$var": "params", "path": "limit", "required": False},
            {"$var": "snap", "path": "result.count"},
        ]
    }


@pytest.mark.parametrize(
    ("source", "code", "line"),
    [
        # the mod's codes: statements and expressions outside the subset apart
        ("count = 1", "lua.unsupported_statement", 1),
        ("local names = {}\nlocal x = names[i]", "lua.unsupported_expression", 2),
        ("local names = {}\nlocal i = 1\nlocal x = names[i]", "lua.unsupported_expression", 3),
        ('local n = rb.call("a/b", {}).result', "lua.syntax_error", 1),
        ("params = 3", "lua.unsupported_statement", 1),
        ("local function f() end", "lua.unsupported_statement", 1),
        ("local f = function() end", "lua.unsupported_expression", 1),
        ('local s = "open', "lua.syntax_error", 1),
        ("while true do\nend\nlocal y = 2 ^ 2", "lua.unsupported_expression", 3),
    ],
)
def test_lua_outside_the_subset_is_refused_with_a_position(
    source: str, code: str, line: int
) -> None:
    with pytest.raises(LuaCompileError) as caught:
        compile_lua(source)
    assert (caught.value.code, caught.value.line) == (code, line)


def _lua_example(name: str) -> str:
    examples = {e["name"]: e["luaSource"] for e in lua_reference()["examples"]}
    return str(examples[name])


async def test_run_lua_selects_every_colonist_through_child_operations(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        source = _lua_example("foreach_selection")
        result = await sim.call("rimbridge/run_lua", luaSource=source)
        assert (result["success"], result["returned"], result["result"]) == (True, True, 3)
        steps = result["script"]["steps"]
        assert [s["call"] for s in steps] == ["rimworld/list_colonists"] + [
            "rimworld/select_pawn"
        ] * 3
        parent = sim.bridge.journal.get(steps[1]["operationId"])
        assert parent is not None and parent.method == "rimworld/select_pawn"
        semantics = await sim.call("rimworld/get_selection_semantics")
        assert semantics["selectedCount"] == 3


async def test_quick_world_reads_run_as_script_and_lua_steps(open_sim: Any) -> None:
    """Tools that answer on the event loop when the world is free (``CallSpec.quick``) are
    steps like any other: a script and a Lua chunk call them as child operations."""
    async with open_sim(tick_rate=0) as sim:
        script = {
            "steps": [
                {"id": "info", "call": "rimworld/get_game_info"},
                {"id": "camera", "call": "rimworld/get_camera_state"},
            ]
        }
        ran = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        assert ran["success"] is True, ran
        steps = ran["script"]["steps"]
        assert [step["call"] for step in steps] == [
            "rimworld/get_game_info",
            "rimworld/get_camera_state",
        ]
        assert all(step["success"] for step in steps), steps
        lua = 'local info = rb.call("rimworld/get_game_info")\nreturn info.result.mapCount'
        result = await sim.call("rimbridge/run_lua", luaSource=lua)
        assert (result["success"], result["result"]) == (True, 1), result


async def test_a_tool_that_answers_success_false_does_not_stop_a_script(open_sim: Any) -> None:
    """As in the mod, a step's success is its operation's: step_game_ticks {ticks: 0} answers
    {success: false} and completes, so the script runs on; the answer is the step's result."""
    async with open_sim(tick_rate=0) as sim:
        script = {
            "steps": [
                {"id": "a", "call": "rimworld/step_game_ticks", "arguments": {"ticks": 0}},
                {"id": "b", "call": "rimworld/list_colonists"},
            ]
        }
        ran = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        assert (ran["success"], ran["message"], ran["error"]) == (
            True,
            "Executed 2 script steps successfully.",
            None,
        )
        report = ran["script"]
        assert (report["halted"], report["haltReason"]) == (False, "")
        assert (report["succeededStepCount"], report["failedStepCount"]) == (2, 0)
        first, second = report["steps"]
        assert (first["status"], first["success"], first["error"]) == (2, True, None)
        assert (first["result"]["success"], first["result"]["message"]) == (
            False,
            "ticks must be greater than 0.",
        )
        assert (second["success"], second["result"]["count"]) == (True, 3)

        lua = (
            'local t = rb.call("rimworld/step_game_ticks", { ticks = 0 })\n'
            "if t.success and not t.result.success then return t.result.message end\n"
            'return "unexpected"\n'
        )
        result = await sim.call("rimbridge/run_lua", luaSource=lua)
        assert (result["success"], result["result"]) == (True, "ticks must be greater than 0.")


async def test_run_lua_reads_params_and_reports_compile_errors(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.call(
            "rimbridge/run_lua",
            luaSource='rb.print("limit", params.retry or 6)\nreturn params.name',
            parameters={"name": "Kolonie"},
        )
        assert (result["result"], result["output"][0]["value"], result["parameterCount"]) == (
            "Kolonie",
            6,
            1,
        )
        broken = await sim.call("rimbridge/compile_lua", luaSource="x = 1")
        assert broken["error"]["code"] == "lua.unsupported_statement"
        empty = await sim.call("rimbridge/compile_lua", luaSource="  ")
        assert {k: v for k, v in empty.items() if k != "operation"} == {
            "success": False,
            "message": "A non-empty luaSource payload is required.",
            "code": "invalid_argument",
        }
        codes = {item["code"] for item in lua_reference()["compileErrors"]["failureCodes"]}
        assert codes == {
            "lua.invalid_source",
            "lua.invalid_parameters",
            "lua.compile_error",
            "lua.syntax_error",
            "lua.unsupported_statement",
            "lua.unsupported_expression",
        }
        compiled = await sim.call("rimbridge/compile_lua", luaSource="return 1 + 2")
        assert json.loads(compiled["scriptJson"]) == compiled["script"]


async def test_lua_files_are_read_compiled_and_run(open_sim: Any, tmp_path: Path) -> None:
    script = tmp_path / "pause.lua"
    script.write_text(
        'local p = rb.call("rimworld/pause_game", { pause = true })\nreturn p.result.paused\n',
        encoding="utf-8",
    )
    async with open_sim(tick_rate=0) as sim:
        ran = await sim.call("rimbridge/run_lua_file", scriptPath=str(script))
        assert (ran["result"], ran["resolvedScriptPath"]) == (True, str(script))
        compiled = await sim.call("rimbridge/compile_lua_file", scriptPath=str(script))
        assert compiled["success"] is True
        wrong = await sim.call("rimbridge/run_lua_file", scriptPath=str(tmp_path / "x.txt"))
        assert wrong["message"] == "Lua script files must use the .lua extension."


async def test_the_script_references_examples_run_against_the_simulation(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        reference = await sim.call("rimbridge/get_script_reference")
        assert reference["version"] == "json-script-v1"
        results = [
            await sim.call("rimbridge/run_script", scriptJson=json.dumps(example["script"]))
            for example in script_reference()["examples"]
        ]
        assert [(r["success"], r["result"]) for r in results] == [(True, 3)] * 4
        starter = lua_reference()["quickStart"]["starterTemplate"]
        first = await sim.call("rimbridge/run_lua", luaSource=starter)
        assert first["result"]["pawnId"].startswith("Thing_Human")
        unparsable = await sim.call("rimbridge/run_script", scriptJson="{nope")
        assert unparsable["message"] == "The scriptJson payload could not be parsed."
