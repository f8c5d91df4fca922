"""Scripts: JSON scripts (``rimbridge/run_script``) and the Lua subset compiled into them,
each call of a script a child operation of the script's own call (a throwing step fails its
child operation and opens attention caused by the script's call)."""

from __future__ import annotations

import json
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Final

from gabp import ProtocolError
from lib_gab import ToolError, current_operation
from rimbridge_annotations import parameter, tool
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.host import ToolHost
from rimbridge_sim.scripting.expressions import ScriptError, operation_error
from rimbridge_sim.scripting.lua_compiler import LuaCompileError, compile_lua
from rimbridge_sim.scripting.lua_reference import lua_reference
from rimbridge_sim.scripting.references import script_reference
from rimbridge_sim.scripting.runner import (
    NO_STEPS,
    CallOutcome,
    ScriptRunner,
    normalize_definition,
)
from rimbridge_sim.scripting.script_json import read_script_json
from rimbridge_sim.scripting.values import nests_deeper
from rimbridge_sim.scripting.wire import definition_wire
from rimbridge_sim.world.errors import InvalidArgumentError, RefusedError

__all__ = ["ScriptingTools"]

_LUA_TOOLS: Final = frozenset({"rimbridge/run_lua", "rimbridge/run_lua_file"})
NESTING_LIMIT: Final = 8
"""How deep scripts may nest (a Lua tool as a script's step); the mod sets no bound."""
ANSWER_DEPTH: Final = 128
"""How deep a script's answer may nest; the mod writes any depth until its stack overflows."""
_DEPTH: ContextVar[int] = ContextVar("script_depth", default=0)
_RUN = (
    "{success, message, returned, result, error, output: [{index, statementId, level, message, "
    "value}], script: {name, success, halted, haltReason, stepCount, executedStepCount, "
    "succeededStepCount, failedStepCount, steps: [{index, id, call, operationId, status, "
    "success, attempts, result, error}]}}"
)
_PARAMETERS = "An object exposed to the script as the read-only table params."
_SOURCE = "Lua source in the supported subset (see rimbridge/get_lua_reference)."
_PATH = "Path of a .lua file (absolute, or relative to the current directory)."


def _script_code(error: dict[str, Any] | None, steps: list[dict[str, Any]]) -> str:
    """A failed script's ``code``: its error's, else the first failed step's, else
    ``refused``."""
    errors = [error] + [step.get("error") for step in steps if not step["success"]]
    return next((e["Code"] for e in errors if e and e.get("Code")), RefusedError.code)


def _refusal(error: ScriptError) -> dict[str, Any]:
    """A definition the mod refuses before running: a script without steps is its bare
    message, as the mod answers it."""
    if error.message == NO_STEPS:
        return {"success": False, "message": NO_STEPS, "code": "invalid_argument"}
    return {
        "success": False,
        "message": error.message,
        "error": error.to_wire(),
        "code": error.code,
    }


_BYTE_ORDER_MARKS: Final = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _decode(data: bytes) -> str:
    """A file's text as .NET's ``File.ReadAllText`` reads it: the encoding a byte order mark
    names (the mark dropped), else UTF-8; a byte that does not decode becomes U+FFFD."""
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            return data[len(mark) :].decode(encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


def _code_last(answer: dict[str, Any]) -> dict[str, Any]:
    """A payload failure's ``code`` moved after the mod's keys (a Lua tool adds its own keys
    after the runner's answer, and a file tool the paths after those)."""
    if "code" in answer:
        answer["code"] = answer.pop("code")
    return answer


class ScriptingTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _resolve(self, wanted: str) -> str:
        """The tool a step names, as the mod's registry resolves it: a tool name (its alias)
        or a capability id, ignoring case. A name nothing answers to throws, as the registry
        does, out of the whole script call."""
        if self.host.find_tool(wanted) is not None:
            return wanted
        key = wanted.lower()
        for candidate in self.host.tool_list():
            if key in (candidate.name.lower(), capability_id(candidate.name).lower()):
                return candidate.name
        raise InvalidArgumentError(f"Capability '{wanted}' is not registered.")

    async def _call(self, alias: str, arguments: Any) -> CallOutcome:
        operation = current_operation()
        assert operation is not None  # tools always run under an operation
        name = self._resolve(alias)
        if name in _LUA_TOOLS and _DEPTH.get() >= NESTING_LIMIT:
            message = f"Scripts nest at most {NESTING_LIMIT} deep."
            error = operation_error("script.nesting_limit", message)
            return CallOutcome(False, None, "failed", None, error, name)
        if not isinstance(arguments, dict):
            error = operation_error("tool.invalid_arguments", "arguments must be an object")
            return CallOutcome(False, None, "failed", None, error, name)
        try:
            child, result = await self.host.run_step(name, arguments, operation.id)
        except ToolError as error:
            data = error.data if isinstance(error.data, dict) else {}
            # a step the main loop did not answer timed out (continueUntil tries it again)
            timed_out = data.get("code") == "main_loop_timeout"
            return CallOutcome(
                False,
                data.get("operationId"),
                "timed_out" if timed_out else "failed",
                None,
                operation_error(
                    data.get("code", "tool.failed"),
                    error.message,
                    exception_type=data.get("exception"),
                ),
                name,
            )
        except ProtocolError as error:
            return CallOutcome(
                False,
                None,
                "failed",
                None,
                operation_error("tool.invalid_arguments", error.message),
                name,
            )
        # the tool answered, so its operation completed: the step succeeds whatever the
        # payload says (a {success: false} answer is the step's result, as in the mod)
        return CallOutcome(True, child, "completed", result, None, name)

    async def _execute(
        self, definition: dict[str, Any], include: bool, noun: str
    ) -> dict[str, Any]:
        runner = ScriptRunner(self._call, include_step_results=include)
        depth = _DEPTH.set(_DEPTH.get() + 1)
        try:
            report = await runner.run(definition)
        finally:
            _DEPTH.reset(depth)
        wire = report.to_wire()
        steps = noun.replace("Script", "script")  # "script steps", "Lua script steps"
        if report.success:
            message = (
                f"{noun} returned successfully."
                if report.returned
                else (f"Executed {len(report.steps)} {steps} steps successfully.")
            )
        elif report.error is not None:
            message = report.error["Message"]
        elif report.halted:
            message = report.halt_reason
        else:
            failed = sum(1 for s in report.steps if not s["success"])
            message = f"Executed {len(report.steps)} {steps} steps with {failed} failure(s)."
        answer = {
            "success": report.success,
            "message": message,
            "returned": report.returned,
            "result": report.result,
            "error": report.error,
            "output": wire["output"],
            "script": wire,
            **({} if report.success else {"code": _script_code(report.error, report.steps)}),
        }
        if nests_deeper(answer, ANSWER_DEPTH):
            message = (
                f"The {noun.lower()}'s answer nests more than {ANSWER_DEPTH} levels deep (a "
                "value it returned, printed or kept from a call): it cannot be written."
            )
            return {"success": False, "message": message, "code": "script.value_too_deep"}
        return answer

    @tool(
        "rimbridge/get_script_reference",
        "Get the authoring reference of the JSON script language rimbridge/run_script runs.",
        title="Get script reference",
        result_description="{success, version, summary, tool, definition, statementTypes, "
        "expressionForms, references, continueUntil, conditionModel, resultShape, truthiness, "
        "limits, failureCodes, authoringTips, examples}.",
    )
    async def get_script_reference(self) -> dict[str, Any]:
        return script_reference()

    @tool(
        "rimbridge/run_script",
        "Run a JSON script: tool calls in order with variables, if, foreach, bounded while, "
        "assert, fail, print and return; each call is a child operation of this one. See "
        "rimbridge/get_script_reference.",
        title="Run script",
        result_description=_RUN + "; JSON that does not parse is {success: false, message, "
        "exception}.",
    )
    @parameter(
        "script_json",
        'The script object as JSON text, e.g. {"steps": [{"id": '
        '"pause", "call": "rimworld/pause_game", "arguments": {"pause": true}}]}.',
    )
    @parameter("include_step_results", "Keep each successful step's result in the report.")
    async def run_script(
        self, script_json: str, include_step_results: bool = True
    ) -> dict[str, Any]:
        if not script_json.strip():
            return {
                "success": False,
                "message": "A non-empty scriptJson payload is required.",
                "code": "invalid_argument",
            }
        try:
            raw = read_script_json(script_json)
        except ValueError as error:  # JSONDecodeError included
            return {
                "success": False,
                "message": "The scriptJson payload could not be parsed.",
                "exception": str(error),
                "code": "invalid_argument",
            }
        if raw is None:  # the JSON text null
            return {
                "success": False,
                "message": "The scriptJson payload did not produce a script definition.",
                "code": "invalid_argument",
            }
        try:
            definition = normalize_definition(raw)
        except ScriptError as error:
            return _refusal(error)
        return await self._execute(definition, include_step_results, "Script")

    @tool(
        "rimbridge/get_lua_reference",
        "Get the authoring reference of the Lua subset rimbridge/run_lua accepts.",
        title="Get Lua reference",
        result_description="{success, version, summary, quickStart, tool, fileTool, "
        "compileTool, compileFileTool, runtimeModel, supportedSubset, parameterBinding, "
        "hostCallResults, commonPitfalls, compileErrors, hostApi, accessRules, unsupported, "
        "runtimeResultShape, pollingGuidance, authoringTips, examples}.",
    )
    async def get_lua_reference(self) -> dict[str, Any]:
        return lua_reference()

    def _compile(
        self, source: str, parameters: dict[str, Any] | None
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The lowered definition as the compiler writes it (before the runner's defaults),
        checked by the runner's reader; or the refusal."""
        if not source.strip():  # the tool's own check, before the compiler: no error object
            message = "A non-empty luaSource payload is required."
            return None, {"success": False, "message": message, "code": "invalid_argument"}
        try:
            definition = compile_lua(source, parameters)
            normalize_definition(definition)
        except LuaCompileError as error:
            failure = {"success": False, "message": error.message, "error": error.to_wire()}
            return None, {**failure, "code": error.code}
        except ScriptError as error:
            return None, _refusal(error)
        return definition, None

    @tool(
        "rimbridge/compile_lua",
        "Compile Lua in the supported subset into the JSON script model without running it.",
        title="Compile Lua",
        result_description="{success, message, parameterCount, script (the lowered "
        "definition as the mod writes it: {Name, ContinueOnError, MaxDurationMs, "
        "MaxExecutedStatements, MaxControlDepth, Steps: [{Type, Id, Message, Call, Arguments, "
        "ContinueUntil, Name, Value, Condition, Body, ElseBody, Collection, ItemName, IndexName, "
        "MaxIterations}]}), scriptJson (the same, as indented JSON that rimbridge/run_script "
        "accepts)}; a compile error is {success: false, message, error {code, message, line, "
        "column, details}}.",
    )
    @parameter("lua_source", _SOURCE)
    @parameter("parameters", _PARAMETERS)
    async def compile_lua(
        self, lua_source: str, parameters: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        definition, failure = self._compile(lua_source, parameters)
        if definition is None:
            assert failure is not None
            return failure
        script = definition_wire(definition)
        return {
            "success": True,
            "message": f"Compiled Lua into {len(script['Steps'])} top-level script statement(s).",
            "parameterCount": len(parameters or {}),
            "script": script,
            "scriptJson": json.dumps(script, indent=2),
        }

    @tool(
        "rimbridge/run_lua",
        "Compile Lua in the supported subset and run it through the script runner (each "
        "rb.call a child operation). Start with rimbridge/get_lua_reference and "
        "rimbridge/compile_lua.",
        title="Run Lua",
        result_description=_RUN + " plus parameterCount; a compile error is {success: false, "
        "message, error}.",
    )
    @parameter("lua_source", _SOURCE)
    @parameter("parameters", _PARAMETERS)
    @parameter("include_step_results", "Keep each successful call's result in the report.")
    async def run_lua(
        self,
        lua_source: str,
        parameters: dict[str, Any] | None = None,
        include_step_results: bool = True,
    ) -> dict[str, Any]:
        definition, failure = self._compile(lua_source, parameters)
        if definition is None:
            assert failure is not None
            return failure
        normalized = normalize_definition(definition)
        result = await self._execute(normalized, include_step_results, "Lua script")
        if "script" not in result:  # an answer too deep to write: the bare refusal
            return result
        output, script = result.pop("output"), result.pop("script")
        count = len(parameters or {})
        return _code_last({**result, "parameterCount": count, "output": output, "script": script})

    def _read(self, script_path: str) -> tuple[str | None, str | None, dict[str, Any] | None]:
        trimmed = script_path.strip()
        if not trimmed:
            return (
                None,
                None,
                {
                    "success": False,
                    "message": "A non-empty scriptPath payload is required.",
                    "code": "invalid_argument",
                },
            )
        path = Path(trimmed)
        if not trimmed.lower().endswith(".lua"):
            return (
                None,
                None,
                {
                    "success": False,
                    "message": "Lua script files must use the .lua extension.",
                    "code": "invalid_argument",
                },
            )
        # .NET's Path.GetFullPath: absolute and normalized, symbolic links left as written
        resolved = Path(os.path.abspath(path if path.is_absolute() else Path.cwd() / path))
        if not resolved.is_file():
            return (
                None,
                None,
                {
                    "success": False,
                    "message": f"The Lua script file '{trimmed}' could not be found.",
                    "code": "unknown_id",
                },
            )
        try:
            return str(resolved), _decode(resolved.read_bytes()), None
        except OSError as error:
            return (
                None,
                None,
                {
                    "success": False,
                    "scriptPath": script_path,
                    "resolvedScriptPath": str(resolved),
                    "message": f"The Lua script file could not be read. {error}",
                    "code": "refused",
                },
            )

    @tool(
        "rimbridge/compile_lua_file",
        "Read a .lua file and compile it like rimbridge/compile_lua.",
        title="Compile Lua file",
        result_description="The rimbridge/compile_lua result plus scriptPath and "
        "resolvedScriptPath.",
    )
    @parameter("script_path", _PATH)
    @parameter("parameters", _PARAMETERS)
    async def compile_lua_file(
        self, script_path: str, parameters: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        resolved, source, failure = self._read(script_path)
        if source is None:
            assert failure is not None
            return failure
        result = await self.compile_lua(source, parameters)
        return _code_last({**result, "scriptPath": script_path, "resolvedScriptPath": resolved})

    @tool(
        "rimbridge/run_lua_file",
        "Read a .lua file and run it like rimbridge/run_lua.",
        title="Run Lua file",
        result_description="The rimbridge/run_lua result plus scriptPath and resolvedScriptPath.",
    )
    @parameter("script_path", _PATH)
    @parameter("parameters", _PARAMETERS)
    @parameter("include_step_results", "Keep each successful call's result in the report.")
    async def run_lua_file(
        self,
        script_path: str,
        parameters: dict[str, Any] | None = None,
        include_step_results: bool = True,
    ) -> dict[str, Any]:
        resolved, source, failure = self._read(script_path)
        if source is None:
            assert failure is not None
            return failure
        result = await self.run_lua(source, parameters, include_step_results)
        return _code_last({**result, "scriptPath": script_path, "resolvedScriptPath": resolved})
