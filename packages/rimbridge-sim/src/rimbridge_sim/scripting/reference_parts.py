"""The tables of ``rimbridge/get_script_reference``: its statements, condition operators,
expression examples and the fields of a script's answer, each in the mod's shape (its
``CapabilityScriptReferenceBuilder``) and the sim's words."""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "CONDITIONS",
    "EXPRESSION_SHAPES",
    "REFERENCE_NOTES",
    "RESULT_SHAPE",
    "STATEMENTS",
    "field",
]


def field(name: str, kind: str, required: bool, default: Any, text: str) -> dict[str, Any]:
    return {
        "name": name,
        "type": kind,
        "required": required,
        "defaultValue": default,
        "description": text,
    }


_STATEMENT_TABLE: Final = (
    (
        "call",
        "Call a tool (the type when 'call' is given). The step fails only when the call "
        "fails (the tool throws or times out, or its arguments are refused); a tool that "
        "answers success: false completes the step, with that answer under result. A name "
        "that is neither a tool nor a capability id fails the whole script call.",
        [
            field("id", "string", False, None, "Step id; $ref uses it. Repeats report id#2, id#3."),
            field(
                "call",
                "string",
                True,
                None,
                "The tool or its capability id, in any case, e.g. rimworld/list_colonists.",
            ),
            field("arguments", "object", False, {}, "The tool's arguments; may hold expressions."),
            field(
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
            field("name", "string", True, None, "The variable."),
            field("value", "expression", False, None, "Its value."),
        ],
    ),
    (
        "set",
        "Assign a declared variable.",
        [
            field("name", "string", True, None, "The variable."),
            field("value", "expression", False, None, "Its new value."),
        ],
    ),
    (
        "if",
        "Branch on a condition over {vars}.",
        [
            field("condition", "condition", True, None, "The condition."),
            field("body", "statement[]", False, [], "When it holds."),
            field("elseBody", "statement[]", False, [], "When it does not."),
        ],
    ),
    (
        "foreach",
        "Run the body once per item of a list (an object's entries as {Key, Value}).",
        [
            field("itemName", "string", True, None, "Variable for the item."),
            field("indexName", "string", False, "", "Variable for the zero-based index."),
            field("collection", "expression", True, None, "The list."),
            field("body", "statement[]", False, [], "The statements."),
        ],
    ),
    (
        "while",
        "Repeat while a condition holds, at most maxIterations times.",
        [
            field("condition", "condition", True, None, "Checked before each iteration."),
            field("maxIterations", "int", True, 100, "Iteration limit (script.max_iterations)."),
            field("body", "statement[]", False, [], "The statements."),
        ],
    ),
    (
        "assert",
        "Stop the script unless a condition holds (even with continueOnError).",
        [
            field("condition", "condition", True, None, "What must hold."),
            field("message", "string", False, "", "The failure message."),
        ],
    ),
    (
        "fail",
        "Stop the script with a failure.",
        [
            field("message", "string", False, "", "The failure message."),
            field("value", "expression", False, None, "Details attached to the error."),
        ],
    ),
    (
        "print",
        "Add a row to the script's output (not a step).",
        [
            field("message", "string", False, "", "A label."),
            field("value", "expression", False, None, "A value."),
        ],
    ),
    (
        "return",
        "End the script successfully with a result.",
        [
            field("value", "expression", False, None, "The result."),
        ],
    ),
)

_CONDITION_TABLE: Final = (
    ("all", "Every child condition holds."),
    ("any", "At least one child condition holds."),
    (
        "path",
        "Select a value from the root (result.colonists[0].name) for the tests below; "
        "alone, it must resolve.",
    ),
    ("value", "Select a value by expression instead of path."),
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


_OPERAND_TYPES: Final = {
    "all": "condition[]",
    "any": "condition[]",
    "path": "string | expression",
    "value": "expression",
    "exists": "bool | expression",
    "allItems": "condition",
    "anyItem": "condition",
    "countEquals": "int | expression",
    "equals": "expression",
    "notEquals": "expression",
    "in": "collection expression",
    "notIn": "collection expression",
}
CONDITIONS: Final = tuple(
    {
        "name": name,
        "operandType": _OPERAND_TYPES.get(name, "number | expression"),
        "description": text,
    }
    for name, text in _CONDITION_TABLE
)
"""``conditionModel.operators``: name, the operand it takes, what it tests."""

_REPORT_BEHAVIOR: Final = {
    "call": "Adds one row to steps. A call statement that runs again (in a loop) adds id#2, "
    "id#3, and so on.",
    "let": "Adds no row unless it fails, as every statement but call.",
    "set": "Fails when no enclosing scope declares the variable.",
    "if": "The condition reads the {vars} root described under conditionModel.",
    "foreach": "Every item runs in a scope of its own and spends one unit of "
    "maxExecutedStatements.",
    "while": "The condition is read again before every round; maxIterations bounds the loop "
    "besides the script's own limits.",
    "assert": "A failed assert halts the script, continueOnError or not.",
    "fail": "Halts the script at once: a deliberate way out after a check or a probe.",
    "print": "Its row goes to the top-level output, not to steps.",
    "return": "Nothing after it runs.",
}


def _statement(kind: str, text: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    if kind != "call":
        fields = [field("type", f'"{kind}"', True, kind, "Which statement this is."), *fields]
    return {
        "type": kind,
        "description": text,
        "reportBehavior": _REPORT_BEHAVIOR[kind],
        "fields": fields,
    }


STATEMENTS: Final = tuple(_statement(*entry) for entry in _STATEMENT_TABLE)
"""``statementTypes``: type, what it does, what it adds to the report, its fields."""

EXPRESSION_SHAPES: Final[dict[str, Any]] = {
    "$ref": {"$ref": "<step-id>", "path": "result.someField", "required": True},
    "$var": {"$var": "<variable-name>", "path": "nested.path", "required": True},
    "$add": [1, 2, 3],
    "$subtract": [10, 3],
    "$multiply": [2, 4],
    "$divide": [8, 2],
    "$mod": [7, 3],
    "$negate": 5,
    "$not": True,
    "$and": [True, "value"],
    "$or": [False, "fallback"],
    "$equals": [3, 3],
    "$notEquals": [3, 4],
    "$greaterThan": [5, 4],
    "$greaterThanOrEqual": [5, 5],
    "$lessThan": [4, 5],
    "$lessThanOrEqual": [5, 5],
}
"""Each expression form's ``shape``, an example of its use (the literal form has none)."""

REFERENCE_NOTES: Final = (
    "A $ref reads only a call step that has already run.",
    "Without a path, a $ref reads the step's result.",
    "Call step ids are unique: a second call step with the same id fails, as a $ref needs "
    "one target.",
    "A call step that ran more than once (in a loop) is read at its latest run.",
)
"""``references.notes``."""

RESULT_SHAPE: Final = {
    "topLevelFields": [
        field("success", "bool", True, None, "Whether the script succeeded."),
        field("message", "string", True, None, "A summary, or the failure message."),
        field("returned", "bool", True, False, "Whether a return statement ended the script."),
        field("result", "object", False, None, "What return gave."),
        field("error", "object", False, None, "The script's error when it failed."),
        field("output", "output[]", True, [], "The rows print added."),
        field("script", "report", True, None, "The whole report of the run."),
    ],
    "reportFields": [
        field("name", "string", True, "", "The script's name."),
        field("continueOnError", "bool", True, False, "The continueOnError the run used."),
        field("success", "bool", True, None, "Whether the run succeeded."),
        field("halted", "bool", True, False, "Whether the run stopped early."),
        field("returned", "bool", True, False, "Whether a return statement ended the run."),
        field("haltReason", "string", True, "", "Why it stopped, for a reader."),
        field("result", "object", False, None, "What return gave."),
        field("error", "object", False, None, "The first failed step's error."),
        field("stepCount", "int", True, None, "Statements in the script, nested ones counted."),
        field(
            "executedStepCount", "int", True, None, "Rows in steps: calls and failed statements."
        ),
        field("succeededStepCount", "int", True, None, "Rows in steps that succeeded."),
        field("failedStepCount", "int", True, None, "Rows in steps that failed."),
        field("output", "output[]", True, [], "The rows print added."),
        field("steps", "stepReport[]", True, [], "One row per call and per failed statement."),
    ],
    "stepReportFields": [
        field("index", "int", True, None, "The row's number, from 1."),
        field("id", "string", True, None, "The row's id."),
        field("call", "string", True, "", "The tool, or script/<type> for a failed statement."),
        field("success", "bool", True, None, "Whether the step succeeded."),
        field("attempts", "int", True, 1, "Calls made (more than 1 with continueUntil)."),
        field("result", "object", False, None, "The tool's answer, with includeStepResults."),
        field("error", "object", False, None, "The error, when the step failed."),
    ],
    "outputFields": [
        field("index", "int", True, None, "The row's number, from 1."),
        field("statementId", "string", True, "", "The print statement's id."),
        field("level", "string", True, "info", "The row's level."),
        field("message", "string", True, "", "The label."),
        field("value", "object", False, None, "The value printed."),
    ],
}
"""``resultShape``: the fields of run_script's answer, of its report, a step row, an output row."""
