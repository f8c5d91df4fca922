"""The machine-readable authoring references ``rimbridge/get_script_reference`` and
``rimbridge/get_lua_reference`` return: the language, its limits and failure codes, and
examples that run against the simulation."""

from __future__ import annotations

from typing import Any, Final

from rimbridge_sim.scripting.expressions import OPERATORS
from rimbridge_sim.scripting.lua_compiler import LOOP_LIMIT

__all__ = ["FAILURE_CODES", "lua_reference", "script_reference"]

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


def _field(name: str, kind: str, required: bool, default: Any, text: str) -> dict[str, Any]:
    return {
        "name": name,
        "type": kind,
        "required": required,
        "defaultValue": default,
        "description": text,
    }


_STATEMENTS: Final = (
    (
        "call",
        "Call a tool (the type when 'call' is given). The step fails only when the call "
        "fails (the tool is unknown, throws or times out, or its arguments are refused); a "
        "tool that answers success: false completes the step, with that answer under result.",
        [
            _field(
                "id", "string", False, None, "Step id; $ref uses it. Repeats report id#2, id#3."
            ),
            _field("call", "string", True, None, "The tool, e.g. rimworld/list_colonists."),
            _field("arguments", "object", False, {}, "The tool's arguments; may hold expressions."),
            _field(
                "continueUntil",
                "object",
                False,
                None,
                "Call again until its condition matches: timeoutMs, pollIntervalMs, "
                "timeoutMessage, condition (on this step's reference root).",
            ),
        ],
    ),
    (
        "let",
        "Declare a variable in the current block.",
        [
            _field("name", "string", True, None, "The variable."),
            _field("value", "expression", False, None, "Its value."),
        ],
    ),
    (
        "set",
        "Assign a declared variable.",
        [
            _field("name", "string", True, None, "The variable."),
            _field("value", "expression", False, None, "Its new value."),
        ],
    ),
    (
        "block",
        "Run statements in a new variable scope.",
        [
            _field("body", "statement[]", False, [], "The statements."),
        ],
    ),
    (
        "if",
        "Branch on a condition over {vars}.",
        [
            _field("condition", "condition", True, None, "The condition."),
            _field("body", "statement[]", False, [], "When it holds."),
            _field("elseBody", "statement[]", False, [], "When it does not."),
        ],
    ),
    (
        "foreach",
        "Run the body once per item of a list (object values for an object).",
        [
            _field("collection", "expression", True, None, "The list."),
            _field("itemName", "string", True, None, "Variable for the item."),
            _field("indexName", "string", False, "", "Variable for the zero-based index."),
            _field("body", "statement[]", False, [], "The statements."),
        ],
    ),
    (
        "while",
        "Repeat while a condition holds, at most maxIterations times.",
        [
            _field("condition", "condition", True, None, "Checked before each iteration."),
            _field("maxIterations", "int", True, 100, "Iteration limit (script.max_iterations)."),
            _field("body", "statement[]", False, [], "The statements."),
        ],
    ),
    (
        "assert",
        "Stop the script unless a condition holds (even with continueOnError).",
        [
            _field("condition", "condition", True, None, "What must hold."),
            _field("message", "string", False, "", "The failure message."),
        ],
    ),
    (
        "fail",
        "Stop the script with a failure.",
        [
            _field("message", "string", False, "", "The failure message."),
            _field("value", "expression", False, None, "Details attached to the error."),
        ],
    ),
    (
        "print",
        "Add a row to the script's output (not a step).",
        [
            _field("message", "string", False, "", "A label."),
            _field("value", "expression", False, None, "A value."),
        ],
    ),
    (
        "return",
        "End the script successfully with a result.",
        [
            _field("value", "expression", False, None, "The result."),
        ],
    ),
)

_CONDITIONS: Final = (
    ("all", "Every child condition holds."),
    ("any", "At least one child condition holds."),
    (
        "path",
        "Select a value from the root (result.colonists[0].name) for the tests below; "
        "alone, the value must be truthy.",
    ),
    ("value", "Select a value by expression instead of path (the Lua front-end uses it)."),
    ("exists", "Whether the selected path exists."),
    ("allItems", "Every item of the selected list matches the child condition."),
    ("anyItem", "Some item of the selected list matches the child condition."),
    ("countEquals", "The selected list or object has this many entries."),
    ("equals", "Equal to the operand."),
    ("notEquals", "Not equal to the operand."),
    ("in", "One of the operand list."),
    ("notIn", "None of the operand list."),
    ("greaterThan", "Greater than the operand."),
    ("greaterThanOrEqual", "At least the operand."),
    ("lessThan", "Less than the operand."),
    ("lessThanOrEqual", "At most the operand."),
)


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
    return {
        "success": True,
        "version": "json-script-v1",
        "summary": "How to write scripts for rimbridge/run_script: ordered tool calls with "
        "variables, branches, bounded loops, assertions and a result.",
        "tool": {
            "name": "rimbridge/run_script",
            "companionTool": "rimbridge/get_script_reference",
            "arguments": [
                _field("scriptJson", "string", True, None, "The script object, as JSON text."),
                _field(
                    "includeStepResults",
                    "bool",
                    False,
                    True,
                    "Keep each successful step's result in the report.",
                ),
            ],
        },
        "definition": {
            "fields": [
                _field("name", "string", False, "", "A name for the report."),
                _field(
                    "continueOnError",
                    "bool",
                    False,
                    False,
                    "Go on after a failed call step (assert and fail still stop).",
                ),
                _field("maxDurationMs", "int", False, 60000, "Wall-clock limit."),
                _field(
                    "maxExecutedStatements",
                    "int",
                    False,
                    1000,
                    "Budget for statements, loop iterations and polling attempts.",
                ),
                _field("maxControlDepth", "int", False, 32, "Nesting limit."),
                _field("steps", "statement[]", True, None, "At least one statement."),
            ],
            "keys": "Keys are matched without regard to case, as the real mod does.",
        },
        "statementTypes": [
            {"type": kind, "description": text, "fields": fields}
            for kind, text, fields in _STATEMENTS
        ],
        "expressionForms": [
            {"name": "literal", "description": "Any JSON value without an operator key."},
            {
                "name": "$ref",
                "description": "An executed call step's reference root: "
                "{$ref, path (default 'result'; '' for the whole root), required}.",
            },
            {"name": "$var", "description": "A variable: {$var, path, required}."},
            *(
                {
                    "name": op,
                    "description": "Operator; operands in a list (one for $not, $negate, $length).",
                }
                for op in OPERATORS
            ),
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
        },
        "conditionModel": {
            "roots": [
                {"context": "continueUntil", "root": "the step's reference root (result.x)"},
                {"context": "if / while / assert", "root": "{vars: the script's variables}"},
            ],
            "operators": [{"name": n, "description": d} for n, d in _CONDITIONS],
        },
        "truthiness": "Only null and false are false; 0 and empty strings are true.",
        "limits": {
            "global": ["maxDurationMs", "maxExecutedStatements", "maxControlDepth"],
            "local": ["while.maxIterations", "continueUntil.timeoutMs"],
        },
        "failureCodes": [{"code": c, "description": d} for c, d in FAILURE_CODES.items()],
        "resultShape": {
            "topLevelFields": [
                "success",
                "message",
                "returned",
                "result",
                "error",
                "output",
                "script",
            ],
            "failedStep": "A failed call step halts the script unless continueOnError, with "
            "haltReason \"Step <index> ('<id>') failed.\". The first failed step's error is "
            "the script's error, and its message the top-level message.",
            "reportFields": [
                "name",
                "continueOnError",
                "success",
                "halted",
                "returned",
                "haltReason",
                "result",
                "error",
                "stepCount",
                "executedStepCount",
                "succeededStepCount",
                "failedStepCount",
                "output",
                "steps",
            ],
        },
        "examples": [
            {"name": "minimal", "script": minimal},
            {"name": "bounded_loop", "script": loop},
        ],
    }


def lua_reference() -> dict[str, Any]:
    starter = (
        'local snapshot = rb.call("rimworld/list_colonists", { currentMapOnly = true })\n'
        "local colonists = snapshot.result.colonists\n"
        'rb.assert(colonists ~= nil, "Expected colonists.")\n'
        "return colonists[1]\n"
    )
    selection = (
        'local snapshot = rb.call("rimworld/list_colonists", {})\n'
        "for i, colonist in ipairs(snapshot.result.colonists) do\n"
        '  rb.call("rimworld/select_pawn", { pawnName = colonist.name, append = i > 1 })\n'
        "end\n"
        "return #snapshot.result.colonists\n"
    )
    return {
        "success": True,
        "version": "lua-script-v1",
        "summary": "A small Lua subset for rimbridge/run_lua, compiled into the JSON script "
        "model of rimbridge/run_script (see rimbridge/get_script_reference) and run by the same "
        "runner. It is not general-purpose Lua.",
        "quickStart": {
            "recommendedWorkflow": [
                "Compile first with rimbridge/compile_lua and read the lowered script.",
                "Keep host calls as whole statements or the whole right-hand side of an "
                "assignment or return.",
            ],
            "starterTemplate": starter,
        },
        "supportedSubset": {
            "statements": [
                "local name = expr",
                "name = expr (declared locals only)",
                "if / elseif / else",
                f"while (at most {LOOP_LIMIT} iterations)",
                "numeric for with a literal step",
                "for i, v in ipairs(list)",
                "do ... end",
                "return",
                "host calls",
            ],
            "expressions": [
                "nil, booleans, numbers, strings ('...', \"...\", [[...]])",
                "locals and params",
                "tables: array or object form",
                "static field access and one-based static indexes",
                "arithmetic + - * / %",
                "comparisons",
                "and / or / not",
                "concatenation ..",
                "length #",
            ],
            "hostFunctions": [
                "rb.call(alias, args?)",
                "rb.poll(alias, args, policy)",
                "rb.print(message?, value?)",
                "rb.assert(condition, message?)",
                "rb.fail(message?, value?)",
                "print(value)",
                "ipairs(list)",
            ],
        },
        "parameterBinding": {
            "name": "params",
            "description": "The call's parameters object, read-only; missing fields are nil.",
        },
        "hostCallResults": "An assigned rb.call or rb.poll is the step's reference root: "
        "read .result, .success, .attempts, .operationId. A tool that answers success: false "
        "does not stop the script: read .result.success.",
        "commonPitfalls": [
            {"pattern": "count = 1", "why": "Globals are refused: write local count = 1."},
            {"pattern": "names[i]", "why": "Dynamic indexes are refused: use ipairs."},
            {"pattern": "rb.call(...).result", "why": "Assign the call to a local first."},
            {"pattern": "x ^ 2", "why": "Exponentiation is not supported."},
        ],
        "compileErrors": {
            "fields": [
                _field("code", "string", True, None, "The failure code (one of failureCodes)."),
                _field("message", "string", True, None, "What is wrong, for a person to read."),
                _field("line", "int", False, None, "The line of the problem, counted from 1."),
                _field("column", "int", False, None, "The column of the problem, counted from 1."),
                _field(
                    "details", "object", False, None, "More about the failure, when there is any."
                ),
            ],
            "failureCodes": [
                _code("lua.invalid_source", "luaSource is empty, or longer than the limit."),
                _code(
                    "lua.invalid_parameters",
                    "parameters cannot be bound as the read-only params table.",
                ),
                _code("lua.compile_error", "Compiling failed for another reason."),
                _code("lua.syntax_error", "The source is not valid Lua."),
                _code(
                    "lua.unsupported_statement",
                    "A statement outside the subset (a global or params assignment, a function).",
                ),
                _code(
                    "lua.unsupported_expression",
                    "An expression outside the subset (an unknown name, a dynamic index, '^').",
                ),
            ],
        },
        "examples": [
            {"name": "starter", "luaSource": starter},
            {"name": "select_all", "luaSource": selection},
        ],
    }


def _code(code: str, description: str) -> dict[str, str]:
    return {"code": code, "description": description}
