"""Conditions as the mod's runner reads them (``CapabilityScriptRunner``'s condition
evaluation, pinned by ``CapabilityScriptRunnerTests``): each test that does not hold gives its
reason, which an ``assert`` adds to its message and a ``continueUntil`` that runs out of time
adds to its own; a path alone asks only that it resolves; ``allItems`` over no items does not
hold; numeric tests read numeric text and simply do not hold on anything else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, normalize_definition
from rimbridge_sim.scripting.expressions import operation_error


class Tools:
    """``test/counter`` counts its calls; ``test/slow`` times out without a message once;
    ``test/echo`` answers its arguments."""

    def __init__(self) -> None:
        self.counter = 0
        self.slow = 0

    async def __call__(self, name: str, arguments: Mapping[str, Any]) -> CallOutcome:
        if name == "test/counter":
            self.counter += 1
            return CallOutcome(True, "op", "completed", {"value": self.counter}, None)
        if name == "test/slow":
            self.slow += 1
            error = operation_error("capability.timed_out", "", exception_type=None)
            return CallOutcome(False, "op", "timed_out", None, error)
        return CallOutcome(True, "op", "completed", dict(arguments), None)


async def run(*steps: dict[str, Any]) -> dict[str, Any]:
    runner = ScriptRunner(Tools(), include_step_results=True)
    report = await runner.run(normalize_definition({"steps": list(steps)}))
    return report.to_wire()


def let(name: str, value: Any) -> dict[str, Any]:
    return {"type": "let", "name": name, "value": value}


def check(condition: dict[str, Any]) -> dict[str, Any]:
    return {"id": "check", "type": "assert", "message": "Check.", "condition": condition}


async def test_a_failed_assert_adds_the_reason_its_condition_gave() -> None:
    report = await run(
        let("count", 3),
        {"id": "assert_count", "type": "assert", "message": "Expected exactly four colonists.",
         "condition": {"path": "vars.count", "equals": 4}},
    )  # fmt: skip
    reason = "Continue condition expected path 'vars.count' to equal the requested value."
    assert report["error"]["Message"] == f"Expected exactly four colonists. {reason}"
    assert report["error"]["Details"] == {
        "condition": {"path": "vars.count", "equals": 4},
        "reason": reason,
    }


async def test_a_continue_until_timeout_adds_the_last_reason() -> None:
    report = await run(
        {"id": "poll", "call": "test/counter",
         "continueUntil": {"timeoutMs": 0, "pollIntervalMs": 0,
                           "condition": {"path": "result.value", "greaterThanOrEqual": 2}}},
    )  # fmt: skip
    assert report["error"]["Code"] == "script.continue_timeout"
    assert report["error"]["Message"] == (
        "Step 'poll' did not satisfy continueUntil within 0 ms. Continue condition expected "
        "path 'result.value' to be greater than or equal to the requested value."
    )


async def test_a_timed_out_attempt_without_a_message_says_it_is_retried() -> None:
    report = await run(
        {"id": "poll", "call": "test/slow",
         "continueUntil": {"timeoutMs": 0, "pollIntervalMs": 0,
                           "condition": {"path": "result.value", "exists": True}}},
    )  # fmt: skip
    assert report["error"]["Message"] == (
        "Step 'poll' did not satisfy continueUntil within 0 ms. The most recent continueUntil "
        "attempt timed out. Retrying until the step-level timeout expires."
    )


async def test_all_items_over_an_empty_list_does_not_hold() -> None:
    report = await run(
        let("pawns", []),
        check({"path": "vars.pawns", "allItems": {"path": "job", "equals": "Wait"}}),
    )
    assert report["error"]["Details"]["reason"] == (
        "Continue condition path 'vars.pawns' resolved to an empty collection for allItems."
    )


async def test_a_path_alone_holds_when_it_resolves_even_to_false() -> None:
    report = await run(let("flag", False), check({"path": "vars.flag"}))
    assert report["success"] is True, report["error"]
    report = await run(let("flag", False), check({"path": "vars.other"}))
    assert report["error"]["Details"]["reason"] == (
        "Continue condition could not resolve path 'vars.other'."
    )


async def test_numeric_tests_read_numeric_text_and_do_not_hold_on_other_values() -> None:
    report = await run(
        let("count", "12"),
        check({"path": "vars.count", "greaterThan": 3, "equals": 12}),
    )
    assert report["success"] is True, report["error"]
    report = await run(let("name", "Blue"), check({"path": "vars.name", "greaterThan": 3}))
    # the condition is well formed; it just does not hold
    assert report["error"]["Code"] == "script.assertion_failed"
    assert report["error"]["Details"]["reason"] == (
        "Continue condition expected path 'vars.name' to be greater than the requested value."
    )


async def test_equals_compares_anything_against_text_as_text() -> None:
    report = await run(let("flag", True), check({"path": "vars.flag", "equals": "True"}))
    assert report["success"] is True, report["error"]


async def test_count_equals_names_the_expected_and_found_counts() -> None:
    report = await run(let("pawns", [1, 2]), check({"path": "vars.pawns", "countEquals": 3}))
    assert report["error"]["Details"]["reason"] == (
        "Continue condition expected count 3 at path 'vars.pawns', but found 2."
    )


async def test_any_item_gives_the_last_items_reason() -> None:
    report = await run(
        let("pawns", [{"job": "Goto"}, {"job": "Flee"}]),
        check({"path": "vars.pawns", "anyItem": {"path": "job", "equals": "Wait"}}),
    )
    assert report["error"]["Details"]["reason"] == (
        "Continue condition expected path 'job' to equal the requested value."
    )


async def test_block_is_not_a_statement_type_of_the_mods_runner() -> None:
    # the mod's runner knows call, let, set, if, foreach, while, assert, fail, print, return
    report = await run({"type": "block", "body": [{"id": "inner", "call": "test/echo"}]})
    assert [s["id"] for s in report["steps"]] == ["statement-1"]
    assert report["error"] == {
        "Code": "script.invalid_step",
        "Message": "The script step 'statement-1' declares unsupported type 'block'.",
        "ExceptionType": "System.InvalidOperationException",
        "Details": None,
    }


async def test_reference_and_variable_failures_name_the_statement_as_the_mod_does() -> None:
    first = {"id": "first", "call": "test/echo", "arguments": {"sum": 5}}

    async def message(*steps: dict[str, Any]) -> str:
        report = await run(*steps)
        text: str = report["error"]["Message"]
        return text

    def echo(value: Any) -> dict[str, Any]:
        return {"id": "second", "call": "test/echo", "arguments": {"left": value}}

    assert await message(first, echo({"$ref": "first", "path": "result.missing"})) == (
        "Step 'second' could not resolve script reference 'first' path 'result.missing'."
    )
    assert await message(echo({"$ref": "later"})) == (
        "Step 'second' cannot reference step 'later' because it has not executed yet."
    )
    assert await message(echo({"$var": "nope"})) == (
        "Step 'second' cannot resolve variable 'nope' because it is not declared in any "
        "active scope."
    )
    assert await message(let("v", {"a": 1}), echo({"$var": "v", "path": "b"})) == (
        "Step 'second' could not resolve variable 'v' path 'b'."
    )
    assert await message({"type": "set", "name": "nope", "value": 1}) == (
        "Step 'set-1' cannot assign variable 'nope' because it is not declared in any active scope."
    )


async def test_a_path_member_matches_ignoring_case_when_none_matches_exactly() -> None:
    report = await run(
        let("v", {"Count": 2, "count": 3, "Name": "Blue"}),
        {"id": "echo", "call": "test/echo", "arguments": {
            "exact": {"$var": "v", "path": "count"},
            "folded": {"$var": "v", "path": "NAME"},
        }},
        check({"path": "vars.v.name", "equals": "Blue"}),
    )  # fmt: skip
    assert report["success"] is True, report["error"]
    assert report["steps"][0]["result"] == {"exact": 3, "folded": "Blue"}


async def test_foreach_over_an_object_iterates_its_entries_as_key_and_value() -> None:
    report = await run(
        let("counts", {"wood": 3, "steel": 5}),
        {"type": "foreach", "itemName": "entry", "collection": {"$var": "counts"},
         "body": [{"id": "each", "call": "test/echo",
                   "arguments": {"name": {"$var": "entry", "path": "Key"},
                                 "count": {"$var": "entry", "path": "Value"}}}]},
    )  # fmt: skip
    assert [s["result"] for s in report["steps"]] == [
        {"name": "wood", "count": 3},
        {"name": "steel", "count": 5},
    ]


async def test_foreach_over_text_is_refused_as_not_enumerable() -> None:
    report = await run(
        {"id": "loop", "type": "foreach", "itemName": "c", "collection": "abc", "body": []}
    )
    assert (report["error"]["Code"], report["error"]["Message"]) == (
        "script.invalid_step",
        "Step 'loop' did not resolve its foreach collection to an enumerable value.",
    )
