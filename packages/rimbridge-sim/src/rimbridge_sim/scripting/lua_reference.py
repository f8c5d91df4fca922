"""The machine-readable authoring reference ``rimbridge/get_lua_reference`` returns: the Lua
subset ``rimbridge/run_lua`` accepts, the Lua tools, the host functions, compile errors, the
runtime result and how to poll, with examples that run against the simulation. Its top-level
keys are the mod's."""

from __future__ import annotations

from typing import Any, Final

from rimbridge_sim.scripting.lua_compiler import LOOP_LIMIT, WHILE_LIMIT
from rimbridge_sim.scripting.lua_examples import EXAMPLES, STARTER, polling_patterns
from rimbridge_sim.scripting.references import field

__all__ = ["lua_reference"]

_PARAMETERS: Final = field(
    "parameters",
    "object",
    False,
    None,
    "Object-style parameters, the script's read-only params table.",
)
_INCLUDE: Final = field(
    "includeStepResults", "bool", False, True, "Keep each successful call step's result."
)
_SOURCE: Final = field("luaSource", "string", True, None, "Lua source in the supported subset.")
_PATH: Final = field(
    "scriptPath", "string", True, None, "An absolute or working-directory-relative .lua path."
)
_COMPILE_RETURNS: Final = (
    field("success", "bool", True, None, "Whether compiling succeeded."),
    field("message", "string", True, None, "What was compiled, or why not."),
    field("script", "object", False, None, "The lowered script definition."),
    field("scriptJson", "string", False, None, "The lowered script as indented JSON."),
    field("error", "compileError", False, None, "The compile error, when it failed."),
)
_FILE_FIELDS: Final = (
    field("scriptPath", "string", True, None, "The path asked for."),
    field("resolvedScriptPath", "string", True, None, "The file that was read."),
)


def _host(name: str, description: str, signature: str, *parameters: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "signature": signature,
        "parameters": list(parameters),
    }


def _tools() -> dict[str, Any]:
    return {
        "tool": {
            "name": "rimbridge/run_lua",
            "companionTool": "rimbridge/get_lua_reference",
            "compileTool": "rimbridge/compile_lua",
            "description": "Compile the Lua subset into a JSON script and run it with the "
            "script runner; each rb.call is a child operation.",
            "arguments": [_SOURCE, _PARAMETERS, _INCLUDE],
        },
        "fileTool": {
            "name": "rimbridge/run_lua_file",
            "companionTool": "rimbridge/get_lua_reference",
            "compileTool": "rimbridge/compile_lua_file",
            "description": "Read a .lua file and run it as rimbridge/run_lua does.",
            "arguments": [_PATH, _PARAMETERS, _INCLUDE],
        },
        "compileTool": {
            "name": "rimbridge/compile_lua",
            "description": "Compile the Lua subset into the JSON script model without calling "
            "any tool; use it first for a new script shape.",
            "arguments": [_SOURCE, _PARAMETERS],
            "returns": list(_COMPILE_RETURNS),
        },
        "compileFileTool": {
            "name": "rimbridge/compile_lua_file",
            "description": "Read a .lua file and compile it as rimbridge/compile_lua does.",
            "arguments": [_PATH, _PARAMETERS],
            "returns": [*_COMPILE_RETURNS[:2], *_FILE_FIELDS, *_COMPILE_RETURNS[2:]],
        },
        "runtimeModel": {
            "description": "Lua is a front-end of the JSON script runner, not a second runtime.",
            "loweringTargetTool": "rimbridge/run_script",
            "runtimeReferenceTool": "rimbridge/get_script_reference",
            "notes": [
                "The source is compiled first; the lowered script then runs through the same "
                "tool registry as rimbridge/run_script.",
                "After compiling, the result shape and runtime failure codes are the script "
                "runner's (rimbridge/get_script_reference).",
                "rimbridge/compile_lua and rimbridge/compile_lua_file show the lowered script.",
            ],
        },
    }


def _runtime() -> dict[str, Any]:
    message = field("message", "string literal", False, None, "A label.")
    value = field("value", "expression", False, None, "A value.")
    alias = field("alias", "string literal", True, None, "A tool, e.g. rimworld/list_colonists.")
    args = field("argsTable", "table | nil", False, None, "The tool's arguments, object form.")
    return {
        "hostApi": [
            _host("rb.call", "Call a tool once.", "rb.call(alias, argsTable?)", alias, args),
            _host(
                "rb.poll",
                "Call a tool until the condition matches or the time runs out.",
                "rb.poll(alias, argsTable?, policyTable)",
                alias,
                args,
                field(
                    "policyTable",
                    "table",
                    True,
                    None,
                    "timeoutMs, pollIntervalMs, timeoutMessage and a condition object.",
                ),
            ),
            _host("rb.print", "Add an output row.", "rb.print(message?, value?)", message, value),
            _host("print", "Same as rb.print.", "print(message?, value?)", message, value),
            _host(
                "rb.assert",
                "Stop the script when the condition is false or nil.",
                "rb.assert(conditionExpression, message?)",
                field("conditionExpression", "expression", True, None, "The condition."),
                field("message", "string literal", False, "", "The failure message."),
            ),
            _host(
                "rb.fail",
                "Stop the script with a failure.",
                "rb.fail(message, value?)",
                field("message", "string literal", True, None, "The failure message."),
                field("value", "expression", False, None, "Details attached to the error."),
            ),
            _host(
                "ipairs",
                "Only in 'for i, v in ipairs(list) do'.",
                "ipairs(collection)",
                field("collection", "expression", True, None, "A list."),
            ),
        ],
        "accessRules": [
            "Static field access only: snapshot.result.count.",
            "Static one-based indexes only: names[1]; names[i] is refused.",
            "A host call stands alone, or is the whole right-hand side of an assignment or return.",
            "No multiple assignment and no assignment to table fields.",
        ],
        "unsupported": [
            "functions",
            "break",
            "require and module loading",
            "metatables",
            "coroutines",
            "arbitrary global assignment",
            "dynamic indexing",
            "dynamic table keys",
            "mixed array/object table constructors",
            "multiple assignment",
            "exponentiation (^)",
        ],
        "runtimeResultShape": {
            "notes": [
                "run_lua answers as run_script does: success, message, returned, result, "
                "error, output and script.",
                "run_lua_file adds scriptPath and resolvedScriptPath.",
                "The script report is the runner's (rimbridge/get_script_reference).",
            ],
            "topLevelFields": [
                field("success", "bool", True, None, "Whether the script succeeded."),
                field("message", "string", True, None, "A summary, or the failure message."),
                field("returned", "bool", True, False, "Whether the script ended with return."),
                field("result", "object", False, None, "What the script returned."),
                field("error", "object", False, None, "The compile or runtime error."),
                *(
                    {**f, "required": False, "description": f["description"] + " (file tools)"}
                    for f in _FILE_FIELDS
                ),
                field("output", "output[]", True, [], "The rows print and rb.print added."),
                field("script", "report", False, None, "The runner's report, once compiled."),
            ],
        },
        "pollingGuidance": {
            "summary": "Change the game once, then poll a read-only tool or use a wait tool "
            "until a bounded condition on its state matches.",
            "bestPractices": [
                "Prefer rb.poll against a read-only capability that shows exactly the state "
                "you wait for: rimbridge/get_bridge_status, rimworld/list_colonists or "
                "rimworld/get_designator_state.",
                "Where the bridge has a bounded wait for a lifecycle step, use it: "
                "rimbridge/wait_for_game_loaded, rimbridge/wait_for_long_event_idle.",
                "Change the game once, then poll; call a tool that changes the game in a loop "
                "only when retrying is the point.",
                "rb.print the derived values and poll attempt counts that will explain a failure.",
                "Keep conditions narrow and on structured state (position, drafted, "
                "selectedDesignatorId, inEntryScene), not on how long the UI takes.",
            ],
            "patterns": polling_patterns(),
        },
        "authoringTips": [
            "Read rimbridge/get_script_reference for the condition model and the result shape.",
            "Compile a new script with rimbridge/compile_lua and read the lowered script.",
            "A script used more than once can live in a .lua file, run with "
            "rimbridge/run_lua_file and checked with rimbridge/compile_lua_file.",
            "Use rb.print and rb.assert for trace output and a clean failure.",
            "Assign rb.poll(...) to a local to read both the result and attempts.",
            "If a script is refused, cut it back to the quick-start example and add one "
            "construct at a time: the subset is small, and full Lua habits are what it "
            "refuses most.",
            "Wait by polling state rather than reacting to events, unless a wait tool for "
            "that lifecycle step exists.",
        ],
    }


def lua_reference() -> dict[str, Any]:
    return {
        "success": True,
        "version": "lua-script-v1",
        "summary": "A small Lua subset for rimbridge/run_lua, compiled into the JSON script "
        "model of rimbridge/run_script (see rimbridge/get_script_reference) and run by the same "
        "runner. It is not general-purpose Lua.",
        "quickStart": {
            "summary": "Read rimbridge/run_lua as a small language with Lua syntax that is "
            "lowered to a JSON script, not as full Lua.",
            "recommendedWorkflow": [
                "Read rimbridge/get_lua_reference before writing a script of a new shape.",
                "Compile a new inline script with rimbridge/compile_lua first and read the "
                "lowered JSON before running anything that changes the game.",
                "Begin with locals and rb.call, rb.poll, rb.print and rb.assert; add control "
                "flow once that small shape compiles.",
            ],
            "firstRules": [
                "Declare a variable with local before assigning to it; a plain assignment only "
                "updates a binding that is already declared.",
                "The only host helpers are rb.call, rb.poll, rb.print, rb.assert, rb.fail, "
                "print and ipairs.",
                "Read fields statically (snapshot.result.count) and index with one-based "
                "literals (names[1]). Dynamic indexing such as names[i] is refused.",
                "A host call stands alone as a statement, or is the whole right-hand side of "
                "an assignment or return.",
            ],
            "starterTemplate": STARTER,
        },
        **_tools(),
        "supportedSubset": {
            "statements": [
                "local name = expr",
                "name = expr (declared locals only)",
                "if / elseif / else",
                f"while (at most {WHILE_LIMIT} iterations)",
                f"numeric for with any step (at most {LOOP_LIMIT} iterations)",
                "for i, v in ipairs(list) and for i in ipairs(list)",
                "return, of one value or several (a list)",
                "host calls",
            ],
            "expressions": [
                "nil, booleans, numbers, strings ('...', \"...\", [[...]])",
                "locals and params",
                "tables: array or object form",
                "static field access and one-based static indexes",
                "arithmetic + - * / % and unary minus",
                "comparisons",
                "and / or / not",
            ],
            "hostFunctions": [
                "rb.call(alias, args?)",
                "rb.poll(alias, args, policy)",
                "rb.print(message?, value?)",
                "rb.assert(condition, message?)",
                "rb.fail(message, value?)",
                "print(message?, value?)",
                "ipairs(list)",
            ],
        },
        "parameterBinding": {
            "name": "params",
            "type": "read-only object",
            "availableInTools": [
                "rimbridge/run_lua",
                "rimbridge/compile_lua",
                "rimbridge/run_lua_file",
                "rimbridge/compile_lua_file",
            ],
            "description": "The call's parameters object, read-only; missing fields are nil.",
        },
        "hostCallResults": "An assigned rb.call or rb.poll is the step's reference root: "
        "read .result, .success, .attempts, .operationId. A tool that answers success: false "
        "does not stop the script: read .result.success.",
        "commonPitfalls": [
            {
                "pattern": "count = 1",
                "whyItFails": "Global assignment is refused: a new binding must be declared "
                "with local.",
                "preferredForm": "local count = 1",
            },
            {
                "pattern": "names[i]",
                "whyItFails": "Only static one-based indexes such as names[1] are supported; "
                "a dynamic index is refused.",
                "preferredForm": "for i, name in ipairs(names) do ... end, or a fixed index "
                "such as names[1].",
            },
            {
                "pattern": "rb.call(aliasVar, args)",
                "whyItFails": "The compiler lowers a tool alias only when it is a literal "
                "string; an alias held in a variable is refused.",
                "preferredForm": 'rb.call("rimworld/list_colonists", args)',
            },
            {
                "pattern": 'local count = rb.call("rimworld/list_colonists", {}).result.count',
                "whyItFails": "A host call cannot be part of a larger expression: it stands "
                "alone or is the whole right-hand side of an assignment or return.",
                "preferredForm": 'local snapshot = rb.call("rimworld/list_colonists", {})\n'
                "local count = snapshot.result.count",
            },
            {
                "pattern": "rb.assert(condition, messageVar)",
                "whyItFails": "The messages of rb.assert and rb.fail must be literal strings.",
                "preferredForm": 'rb.assert(condition, "Expected the condition to hold.")',
            },
            {
                "pattern": "x ^ 2",
                "whyItFails": "Exponentiation is not part of the subset.",
                "preferredForm": "x * x",
            },
        ],
        "compileErrors": {
            "fields": [
                field("code", "string", True, None, "The failure code (one of failureCodes)."),
                field("message", "string", True, None, "What is wrong, for a person to read."),
                field("line", "int", False, None, "The line of the problem, counted from 1."),
                field("column", "int", False, None, "The column of the problem, counted from 1."),
                field(
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
                    "A statement outside the subset (a global, params, field or multiple "
                    "assignment, a function, a loop other than while, numeric for or ipairs).",
                ),
                _code(
                    "lua.unsupported_expression",
                    "An expression outside the subset (an unknown name, a call of anything but "
                    "rb.*, print or ipairs, a dynamic index, '^').",
                ),
            ],
        },
        **_runtime(),
        "examples": [dict(example) for example in EXAMPLES],
    }


def _code(code: str, description: str) -> dict[str, str]:
    return {"code": code, "description": description}
