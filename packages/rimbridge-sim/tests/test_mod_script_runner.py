"""The script runner against the behaviour the mod's own runner tests pin
(``CapabilityScriptRunnerTests``): what fails becomes a failed row of ``steps`` under the
statement's id, budgets fail the statement that spent them, and polling retries timed-out
attempts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from rimbridge_sim.scripting import (
    CallOutcome,
    ScriptRunner,
    lua_reference,
    normalize_definition,
    operation_error,
    script_reference,
)


class ModTools:
    """The test tools of the mod's runner tests: ``test/add``, ``test/fail``, ``test/counter``,
    ``test/flaky_counter`` (its first call times out), ``test/echo``, ``test/sleep``."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.counter = 0
        self.flaky = 0

    async def __call__(self, name: str, arguments: Mapping[str, Any]) -> CallOutcome:
        self.calls.append(name)
        op = f"op-{len(self.calls)}"
        if name == "test/fail":
            return CallOutcome(False, op, "failed", None, operation_error("test.failed", "boom"))
        if name == "test/add":
            return CallOutcome(
                True, op, "completed", {"sum": arguments["left"] + arguments["right"]}, None
            )
        if name == "test/counter":
            self.counter += 1
            return CallOutcome(True, op, "completed", {"value": self.counter}, None)
        if name == "test/flaky_counter":
            if self.calls.count(name) == 1:
                error = operation_error("capability.timed_out", "main thread busy")
                return CallOutcome(False, op, "timed_out", None, error)
            self.flaky += 1
            return CallOutcome(True, op, "completed", {"value": self.flaky}, None)
        if name == "test/sleep":
            await anyio.sleep(arguments["durationMs"] / 1000)
            return CallOutcome(True, op, "completed", dict(arguments), None)
        return CallOutcome(True, op, "completed", dict(arguments), None)


async def run(definition: dict[str, Any], include: bool = True) -> tuple[dict[str, Any], ModTools]:
    tools = ModTools()
    runner = ScriptRunner(tools, include_step_results=include)
    report = await runner.run(normalize_definition(definition))
    return report.to_wire(), tools


def ids(report: dict[str, Any]) -> list[str]:
    return [step["id"] for step in report["steps"]]


async def test_a_failed_assert_is_the_one_failed_step_and_printed_output_is_kept() -> None:
    report, tools = await run(
        {
            "steps": [
                {"type": "let", "name": "count", "value": 3},
                {"id": "trace_count", "type": "print", "message": "Observed colonist count",
                 "value": {"$var": "count"}},
                {"id": "assert_count", "type": "assert",
                 "message": "Expected exactly four colonists.",
                 "condition": {"path": "vars.count", "equals": 4}},
                {"id": "later", "call": "rimbridge/ping"},
            ]
        }
    )  # fmt: skip
    assert (report["success"], report["halted"], tools.calls) == (False, True, [])
    assert report["error"]["Code"] == "script.assertion_failed"
    assert "Expected exactly four colonists." in report["error"]["Message"]
    assert [(o["statementId"], o["message"], o["value"]) for o in report["output"]] == [
        ("trace_count", "Observed colonist count", 3)
    ]
    assert ids(report) == ["assert_count"]
    step = report["steps"][0]
    assert (step["call"], step["status"], step["error"]["Code"]) == (
        "script/assert",
        3,
        "script.assertion_failed",
    )
    assert report["haltReason"] == "Step 1 ('assert_count') failed."


async def test_fail_halts_even_with_continue_on_error_and_its_value_is_the_details() -> None:
    report, tools = await run(
        {
            "continueOnError": True,
            "steps": [
                {"id": "bail_out", "type": "fail", "message": "Could not find a safe rally cell.",
                 "value": {"reason": "dry-run rejected perimeter"}},
                {"id": "later", "call": "rimbridge/ping"},
            ],
        }
    )  # fmt: skip
    assert (report["success"], report["halted"], tools.calls) == (False, True, [])
    assert report["error"]["Code"] == "script.failed"
    assert report["error"]["Message"] == "Could not find a safe rally cell."
    assert report["error"]["Details"] == {"reason": "dry-run rejected perimeter"}
    assert ids(report) == ["bail_out"]


async def test_a_spent_statement_budget_fails_the_statement_that_spent_it() -> None:
    report, _ = await run(
        {
            "maxExecutedStatements": 2,
            "steps": [
                {"type": "let", "name": "keepGoing", "value": True},
                {"id": "guard", "type": "while", "maxIterations": 100,
                 "condition": {"path": "vars.keepGoing", "equals": True}},
            ],
        }
    )  # fmt: skip
    assert (report["success"], report["halted"]) == (False, True)
    assert report["error"]["Code"] == "script.statement_limit_exceeded"
    assert ids(report) == ["guard"]
    assert report["steps"][0]["error"]["Code"] == "script.statement_limit_exceeded"


async def test_running_out_of_time_during_a_call_fails_that_call_step() -> None:
    report, _ = await run(
        {
            "maxDurationMs": 5,
            "steps": [{"id": "sleep", "call": "test/sleep", "arguments": {"durationMs": 20}}],
        }
    )
    assert (report["success"], report["halted"]) == (False, True)
    assert report["error"]["Code"] == "script.timeout"
    assert ids(report) == ["sleep"]
    assert report["steps"][0]["error"]["Code"] == "script.timeout"


async def test_nesting_past_max_control_depth_fails_the_statement_that_goes_deeper() -> None:
    report, tools = await run(
        {
            "maxControlDepth": 1,
            "steps": [
                {"type": "let", "name": "enter", "value": True},
                {"id": "outer", "type": "if", "condition": {"path": "vars.enter", "equals": True},
                 "body": [
                     {"id": "inner", "type": "if",
                      "condition": {"path": "vars.enter", "equals": True},
                      "body": [{"id": "later", "call": "rimbridge/ping"}]},
                 ]},
            ],
        }
    )  # fmt: skip
    assert (report["success"], report["halted"], tools.calls) == (False, True, [])
    assert report["error"]["Code"] == "script.max_depth_exceeded"
    assert ids(report) == ["inner"]


async def test_a_while_loop_past_max_iterations_adds_its_own_failed_step() -> None:
    report, _ = await run(
        {
            "steps": [
                {"type": "let", "name": "keepGoing", "value": True},
                {"id": "guard", "type": "while", "maxIterations": 2,
                 "condition": {"path": "vars.keepGoing", "equals": True},
                 "body": [{"id": "tick", "call": "rimbridge/ping"}]},
            ]
        }
    )  # fmt: skip
    assert (report["success"], report["halted"]) == (False, True)
    assert ids(report) == ["tick", "tick#2", "guard"]
    assert report["steps"][2]["error"]["Code"] == "script.max_iterations"


async def test_a_reference_that_does_not_resolve_fails_its_call_step() -> None:
    report, tools = await run(
        {
            "steps": [
                {"id": "first", "call": "test/add", "arguments": {"left": 2, "right": 3}},
                {"id": "second", "call": "test/add",
                 "arguments": {"left": {"$ref": "first", "path": "result.missing"}, "right": 4}},
            ]
        }
    )  # fmt: skip
    assert (report["success"], report["halted"], tools.calls) == (False, True, ["test/add"])
    assert ids(report) == ["first", "second"]
    assert report["steps"][1]["error"]["Code"] == "script.invalid_reference"


async def test_a_nested_run_script_call_is_an_invalid_step_and_is_not_called() -> None:
    report, tools = await run({"steps": [{"call": "rimbridge/run_script"}]})
    assert (report["success"], report["halted"], tools.calls) == (False, True, [])
    assert report["steps"][0]["error"]["Code"] == "script.invalid_step"


async def test_continue_until_tries_again_after_an_attempt_that_timed_out() -> None:
    report, _ = await run(
        {
            "steps": [
                {"id": "poll", "call": "test/flaky_counter",
                 "continueUntil": {"timeoutMs": 1000, "pollIntervalMs": 0,
                                   "condition": {"path": "result.value", "greaterThanOrEqual": 2}}},
            ]
        }
    )  # fmt: skip
    assert report["success"] is True
    assert report["steps"][0]["attempts"] == 3
    assert report["steps"][0]["result"] == {"value": 2}


async def test_an_unnamed_statement_keeps_one_id_and_counts_among_all_unnamed_ones() -> None:
    report, _ = await run(
        {
            "steps": [
                {"type": "let", "name": "values", "value": [1, 2]},
                {"type": "foreach", "itemName": "item", "collection": {"$var": "values"},
                 "body": [{"call": "test/echo", "arguments": {"value": {"$var": "item"}}}]},
            ]
        }
    )  # fmt: skip
    # let-1 and foreach-2 take the first numbers; the call is step-3 on every iteration
    assert ids(report) == ["step-3", "step-3#2"]


async def test_an_unsupported_statement_type_fails_when_it_is_reached() -> None:
    report, tools = await run({"steps": [{"call": "rimbridge/ping"}, {"type": "goto"}]})
    assert tools.calls == ["rimbridge/ping"]
    assert ids(report) == ["step-1", "statement-2"]
    failed = report["steps"][1]
    assert (failed["call"], failed["error"]["Code"]) == ("script/goto", "script.invalid_step")


async def test_with_continue_on_error_a_failed_statement_does_not_halt_the_script() -> None:
    report, tools = await run(
        {
            "continueOnError": True,
            "steps": [
                {"id": "assign", "type": "set", "name": "undeclared", "value": 1},
                {"id": "ping", "call": "rimbridge/ping"},
            ],
        }
    )
    assert (report["success"], report["halted"], tools.calls) == (False, False, ["rimbridge/ping"])
    assert [(s["id"], s["success"]) for s in report["steps"]] == [("assign", False), ("ping", True)]
    assert report["error"]["Code"] == "script.invalid_variable"


async def test_a_report_without_step_results_leaves_them_out_of_failed_steps_too() -> None:
    report, _ = await run(
        {
            "steps": [
                {"id": "poll", "call": "test/counter",
                 "continueUntil": {"timeoutMs": 0, "pollIntervalMs": 0,
                                   "condition": {"path": "result.value", "greaterThanOrEqual": 2}}},
            ]
        },
        include=False,
    )  # fmt: skip
    step = report["steps"][0]
    assert (step["error"]["Code"], step["attempts"], step["result"]) == (
        "script.continue_timeout",
        1,
        None,
    )


def test_the_script_reference_names_each_limits_default_and_failure_code() -> None:
    document = script_reference()
    assert [
        (g["name"], g["defaultValue"], g["failureCode"]) for g in document["limits"]["global"]
    ] == [
        ("maxDurationMs", 60000, "script.timeout"),
        ("maxExecutedStatements", 1000, "script.statement_limit_exceeded"),
        ("maxControlDepth", 32, "script.max_depth_exceeded"),
    ]
    forms = {form["name"]: form["description"] for form in document["expressionForms"]}
    assert "first falsey operand" in forms["$and"]
    assert "first truthy operand" in forms["$or"]
    examples = {example["name"]: example["script"] for example in document["examples"]}
    assert {"value_passing", "test_style"} <= set(examples)
    assert examples["test_style"]["name"] == "test-style"


def test_the_script_reference_names_its_tool_statements_operators_and_attempts() -> None:
    document = script_reference()
    tool = document["tool"]
    assert (tool["name"], tool["companionTool"]) == (
        "rimbridge/run_script",
        "rimbridge/get_script_reference",
    )
    assert [argument["name"] for argument in tool["arguments"]][:1] == ["scriptJson"]
    assert len(tool["arguments"]) == 2
    assert {"call", "while", "assert"} <= {s["type"] for s in document["statementTypes"]}
    operators = {o["name"] for o in document["conditionModel"]["operators"]}
    assert {"allItems", "greaterThanOrEqual"} <= operators
    forms = {form["name"] for form in document["expressionForms"]}
    assert {"$var", "$and", "$greaterThanOrEqual", "$not"} <= forms
    assert "attempts" in document["references"]["stepReferenceRootFields"]


def test_the_lua_reference_lists_the_mods_unsupported_names_and_params_binding() -> None:
    document = lua_reference()
    assert {"break", "dynamic indexing", "arbitrary global assignment"} <= set(
        document["unsupported"]
    )
    binding = document["parameterBinding"]
    assert (binding["name"], binding["type"]) == ("params", "read-only object")
    assert set(binding["availableInTools"]) == {
        "rimbridge/run_lua",
        "rimbridge/run_lua_file",
        "rimbridge/compile_lua",
        "rimbridge/compile_lua_file",
    }


async def test_two_call_statements_with_the_same_id_make_the_second_an_invalid_step() -> None:
    report, tools = await run(
        {"steps": [{"id": "same", "call": "rimbridge/ping"}, {"id": "same", "call": "test/echo"}]}
    )
    assert tools.calls == ["rimbridge/ping"]
    assert ids(report) == ["same", "same#2"]
    assert report["steps"][1]["error"]["Code"] == "script.invalid_step"


async def test_an_object_is_an_operator_only_with_that_one_key_and_unknown_names_are_values() -> (
    None
):
    # the mod's runner evaluates {"$add": [...]} alone; with another key, or under a name it
    # does not know ("$concat", "$length"), the object is a value whose members are resolved
    report, tools = await run(
        {
            "steps": [
                {"type": "let", "name": "n", "value": 2},
                {"id": "echo", "call": "test/echo", "arguments": {
                    "sum": {"$add": [{"$var": "n"}, 1]},
                    "mixed": {"$add": [1, 1], "note": "kept"},
                    "concat": {"$concat": ["a", {"$var": "n"}]},
                    "length": {"$length": [1, 2]},
                }},
            ]
        }
    )  # fmt: skip
    assert report["success"] is True, report
    (step,) = [s for s in report["steps"] if s["id"] == "echo"]
    assert step["result"] == {
        "sum": 3,
        "mixed": {"$add": [1, 1], "note": "kept"},
        "concat": {"$concat": ["a", 2]},
        "length": {"$length": [1, 2]},
    }
    assert tools.calls == ["test/echo"]
