"""The machine-readable authoring references ``rimbridge/get_script_reference`` and
``rimbridge/get_lua_reference`` return: the language, its limits and failure codes, and
examples that run against the simulation."""

from __future__ import annotations

from typing import Any, Final

from rimbridge_sim.scripting.expressions import OPERATORS
from rimbridge_sim.scripting.reference_parts import (
    CONDITIONS,
    EXPRESSION_SHAPES,
    REFERENCE_NOTES,
    RESULT_SHAPE,
    STATEMENTS,
    field,
)

__all__ = ["FAILURE_CODES", "field", "script_reference"]

FAILURE_CODES: Final = {
    "script.invalid_definition": "The script object or one of its global limits is invalid.",
    "script.invalid_step": "A statement is malformed or of an unknown type.",
    "script.invalid_reference": "A $ref names no executed call step, or nothing at its path.",
    "script.invalid_variable": "A $var or set names a variable that does not exist.",
    "script.invalid_expression": "An operator got operands it cannot use.",
    "script.invalid_condition": "A condition object is malformed.",
    "script.continue_timeout": "A continueUntil condition did not match in time.",
    "script.max_iterations": "A while loop ran more than its maxIterations.",
    "script.statement_limit_exceeded": "The script spent its maxExecutedStatements budget.",
    "script.max_depth_exceeded": "Control statements were nested deeper than maxControlDepth.",
    "script.timeout": "The script ran longer than maxDurationMs.",
    "script.assertion_failed": "An assert statement did not hold.",
    "script.failed": "A fail statement stopped the script.",
}


_OPERATOR_DEFAULT: Final = "Operator; operands in a list (one for $not, $negate)."
_OPERATOR_TEXT: Final = {
    "$and": "Operands in a list, read in order: the value is the first falsey operand, or the "
    "last one when all are truthy; the operands after a falsey one are not evaluated.",
    "$or": "Operands in a list, read in order: the value is the first truthy operand, or the "
    "last one when none is; the operands after a truthy one are not evaluated.",
}


_FAILED_STEP: Final = (
    "Whatever fails is a failed row of steps: a call whose operation failed, or a statement "
    "the runner failed (named by its id and script/<type>). It halts the script unless "
    'continueOnError (assert and fail halt it always), with haltReason "Step <index> '
    "('<id>') failed.\". The first failed step's error is the script's error, and its "
    "message the top-level message."
)


def _limit(name: str, default: int, code: str) -> dict[str, Any]:
    return {"name": name, "defaultValue": default, "failureCode": code}


def _expression_forms() -> list[dict[str, Any]]:
    return [
        {"name": "literal", "description": "Any JSON value without an operator key."},
        {
            "name": "$ref",
            "description": "An executed call step's reference root: "
            "{$ref, path (default 'result'; '' for the whole root), required}.",
        },
        {"name": "$var", "description": "A variable: {$var, path, required}."},
        *(
            {"name": op, "description": _OPERATOR_TEXT.get(op, _OPERATOR_DEFAULT)}
            for op in OPERATORS
        ),
    ]


def script_reference() -> dict[str, Any]:
    minimal = {
        "name": "minimal",
        "steps": [
            {"id": "pause", "call": "rimworld/pause_game", "arguments": {"pause": True}},
            {"id": "colonists", "call": "rimworld/list_colonists"},
            {"type": "return", "value": {"$ref": "colonists", "path": "result.count"}},
        ],
    }
    loop = {
        "name": "bounded-loop",
        "steps": [
            {"type": "let", "name": "n", "value": 0},
            {
                "type": "while",
                "maxIterations": 5,
                "condition": {"path": "vars.n", "lessThan": 3},
                "body": [
                    {"type": "set", "name": "n", "value": {"$add": [{"$var": "n"}, 1]}},
                    {"call": "rimbridge/ping"},
                ],
            },
            {"type": "return", "value": {"$var": "n"}},
        ],
    }
    value_passing = {
        "name": "value-passing",
        "steps": [
            {"id": "colonists", "call": "rimworld/list_colonists"},
            {
                "id": "select",
                "call": "rimworld/select_pawn",
                "arguments": {
                    "pawnId": {"$ref": "colonists", "path": "result.colonists[0].pawnId"}
                },
            },
            {"type": "return", "value": {"$ref": "colonists", "path": "result.count"}},
        ],
    }
    test_style = {
        "name": "test-style",
        "steps": [
            {"id": "colonists", "call": "rimworld/list_colonists"},
            {
                "type": "let",
                "name": "count",
                "value": {"$ref": "colonists", "path": "result.count"},
            },
            {"type": "print", "message": "colonists", "value": {"$var": "count"}},
            {
                "type": "assert",
                "message": "The colony has no colonist.",
                "condition": {"path": "vars.count", "greaterThan": 0},
            },
            {"type": "return", "value": {"$var": "count"}},
        ],
    }
    return {
        "success": True,
        "version": "json-script-v1",
        "summary": "How to write scripts for rimbridge/run_script: ordered tool calls with "
        "variables, branches, bounded loops, assertions and a result.",
        "tool": {
            "name": "rimbridge/run_script",
            "companionTool": "rimbridge/get_script_reference",
            "description": "Run a JSON script of tool calls through the bridge's tools.",
            "arguments": [
                field("scriptJson", "string", True, None, "The script object, as JSON text."),
                field(
                    "includeStepResults",
                    "bool",
                    False,
                    True,
                    "Keep each successful step's result in the report.",
                ),
            ],
        },
        "definition": {
            "description": "The JSON object scriptJson holds.",
            "fields": [
                field("name", "string", False, "", "A name for the report."),
                field(
                    "continueOnError",
                    "bool",
                    False,
                    False,
                    "Go on after a failed step (assert and fail still stop).",
                ),
                field("maxDurationMs", "int", False, 60000, "Wall-clock limit."),
                field(
                    "maxExecutedStatements",
                    "int",
                    False,
                    1000,
                    "Budget for statements, loop iterations and polling attempts.",
                ),
                field("maxControlDepth", "int", False, 32, "Nesting limit."),
                field("steps", "statement[]", True, None, "At least one statement."),
            ],
            "keys": "Keys are matched without regard to case, as the real mod does.",
        },
        "statementTypes": list(STATEMENTS),
        "expressionForms": [
            {**form, "shape": EXPRESSION_SHAPES.get(form["name"])} for form in _expression_forms()
        ],
        "references": {
            "stepReferenceRootFields": [
                "index",
                "id",
                "call",
                "capabilityId",
                "operationId",
                "status",
                "success",
                "attempts",
                "startedAtUtc",
                "completedAtUtc",
                "durationMs",
                "result",
                "error",
                "warnings",
            ],
            "notes": list(REFERENCE_NOTES),
        },
        "continueUntil": {
            "description": "On a call step, optional: repeat the call until the condition "
            "holds for the latest attempt's reference root, within timeoutMs.",
            "fields": [
                field("timeoutMs", "int", False, 10000, "Most polling time, in milliseconds."),
                field("pollIntervalMs", "int", False, 100, "Delay between attempts, in ms."),
                field("timeoutMessage", "string", False, None, "A message of your own on timeout."),
                field(
                    "condition",
                    "condition",
                    True,
                    None,
                    "Checked against the latest attempt (result.<field>).",
                ),
            ],
        },
        "conditionModel": {
            "description": "continueUntil, if, while and assert take a condition.",
            "roots": [
                {
                    "context": "continueUntil",
                    "rootDescription": "The latest attempt's reference root: paths usually "
                    "begin with result.<field>.",
                    "examplePath": "result.colonists",
                },
                {
                    "context": "if / while / assert",
                    "rootDescription": "Only the script's variables, under vars.",
                    "examplePath": "vars.count",
                },
            ],
            "operators": list(CONDITIONS),
        },
        "resultShape": {**RESULT_SHAPE, "failedStep": _FAILED_STEP},
        "truthiness": "Only null and false are false; 0 and empty strings are true.",
        "limits": {
            "global": [
                _limit("maxDurationMs", 60000, "script.timeout"),
                _limit("maxExecutedStatements", 1000, "script.statement_limit_exceeded"),
                _limit("maxControlDepth", 32, "script.max_depth_exceeded"),
            ],
            "local": [
                _limit("while.maxIterations", 100, "script.max_iterations"),
                _limit("continueUntil.timeoutMs", 10000, "script.continue_timeout"),
            ],
        },
        "failureCodes": [{"code": c, "description": d} for c, d in FAILURE_CODES.items()],
        "authoringTips": [
            "Name every call step whose answer a later step reads ($ref needs the id).",
            "Poll with continueUntil or a wait tool; a script has no sleep statement.",
            "End with return (a value) or fail (a reason), and check midway with assert: the "
            "caller then reads one answer instead of a step list.",
            "rimworld/right_click_cell does what a right click does (a drafted pawn walks "
            "there); to list the choices first, open the menu with rimworld/open_context_menu "
            "and pick with rimworld/execute_context_menu_option.",
            "Some mods act differently on a long press: holdDurationMs on "
            "rimworld/right_click_cell and rimworld/open_context_menu keeps the button down "
            "that long.",
        ],
        "examples": [
            {
                "name": "minimal",
                "description": "Two calls in order, then a result.",
                "script": minimal,
            },
            {
                "name": "value_passing",
                "description": "One call's answer as the next call's argument ($ref).",
                "script": value_passing,
            },
            {
                "name": "bounded_loop",
                "description": "let, while, set, arithmetic and return together.",
                "script": loop,
            },
            {
                "name": "test_style",
                "description": "A script that reads as a test: print, assert, return.",
                "script": test_style,
            },
        ],
    }
