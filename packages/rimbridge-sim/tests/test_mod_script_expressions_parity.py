"""Expression values as the mod's runner computes them (``CapabilityScriptRunner``): .NET
decimal arithmetic (a remainder has the dividend's sign, 0.1 + 0.2 is 0.3), numeric text as a
number, ``$equals`` by value or as text, and the mod's sentences when operands do not fit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, compile_lua, normalize_definition


async def echo(name: str, arguments: Mapping[str, Any]) -> CallOutcome:
    return CallOutcome(True, "op", "completed", dict(arguments), None)


async def run(definition: dict[str, Any]) -> dict[str, Any]:
    report = await ScriptRunner(echo, include_step_results=True).run(
        normalize_definition(definition)
    )
    return report.to_wire()


async def value_of(expression: Any) -> Any:
    report = await run({"steps": [{"type": "return", "value": expression}]})
    assert report["success"] is True, report["error"]
    return report["result"]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ({"$mod": [-7, 3]}, -1),
        ({"$mod": [7, -3]}, 1),
        ({"$add": [0.1, 0.2]}, 0.3),
        ({"$add": ["2", 3]}, 5),
        ({"$add": [4]}, 4),
        ({"$negate": "2.5"}, -2.5),
        ({"$equals": ["7", 7]}, True),
        ({"$equals": [True, "True"]}, True),
        ({"$equals": [1, True]}, False),
        ({"$greaterThan": ["10", 9]}, True),
    ],
)
async def test_values_are_computed_as_the_mods_runner_computes_them(
    expression: dict[str, Any], expected: Any
) -> None:
    result = await value_of(expression)
    assert (result, type(result)) == (expected, type(expected))


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            {"$greaterThan": ["a", 1]},
            "Logical expression '$greaterThan' requires numeric operands.",
        ),
        ({"$divide": [1, 0]}, "Attempted to divide by zero."),
        ({"$add": [1, "x"]}, "Arithmetic expressions require numeric operands."),
        ({"$add": []}, "Arithmetic expressions require at least one operand."),
        (
            {"$subtract": [1, 2, 3]},
            "Arithmetic expression '$subtract' requires exactly two operands.",
        ),
        ({"$equals": [1]}, "Comparison expressions require an array of exactly two operands."),
        ({"$and": True}, "Logical expressions require an array of operands."),
        ({"$negate": "x"}, "Logical expression '$negate' requires a numeric operand."),
    ],
)
async def test_operands_that_do_not_fit_fail_with_the_mods_sentence(
    expression: dict[str, Any], message: str
) -> None:
    report = await run(
        {"steps": [{"id": "value", "type": "let", "name": "v", "value": expression}]}
    )
    assert (report["error"]["Code"], report["error"]["Message"]) == (
        "script.invalid_expression",
        message,
    )


async def test_a_lua_remainder_of_a_negative_number_keeps_its_sign() -> None:
    report = await run(compile_lua("local r = -7 % 3\nreturn r\n"))
    assert (report["success"], report["result"]) == (True, -1)
