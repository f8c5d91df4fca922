"""The script runner: executes a JSON script (``rimbridge/run_script``, and the Lua front-end
lowered into the same model) through the bridge's tools, one child operation per call.

Statements: ``call`` (the default when ``call`` is given), ``let``, ``set``, ``block``,
``if``, ``foreach``, ``while``, ``assert``, ``fail``, ``print``, ``return``. Every statement,
loop iteration and polling attempt spends one unit of ``maxExecutedStatements``; the script
also stops at ``maxDurationMs`` and ``maxControlDepth``.

A call step fails when its operation fails (the tool threw, timed out or was refused), as in
the mod; a tool that answers ``{"success": false}`` completes its step. A failed step halts the
script (``haltReason`` ``Step <index> ('<id>') failed.``) unless ``continueOnError``; the first
failed step's error is the script's ``error`` either way.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import anyio

from rimbridge_sim.clock import iso_utc
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.diagnostics._records import STATUS_CODES, STATUS_NAMES
from rimbridge_sim.diagnostics.script_context import in_script_step
from rimbridge_sim.scripting.expressions import (
    Scope,
    ScriptError,
    evaluate,
    matches,
    operation_error,
)

__all__ = ["NO_STEPS", "CallOutcome", "ScriptReport", "ScriptRunner", "normalize_definition"]

_DEFINITION_KEYS = (
    "name",
    "continueOnError",
    "maxDurationMs",
    "maxExecutedStatements",
    "maxControlDepth",
    "steps",
)
_STEP_KEYS = (
    "type",
    "id",
    "message",
    "call",
    "arguments",
    "continueUntil",
    "name",
    "value",
    "condition",
    "body",
    "elseBody",
    "collection",
    "itemName",
    "indexName",
    "maxIterations",
)
_POLICY_KEYS = ("timeoutMs", "pollIntervalMs", "timeoutMessage", "condition")
_TYPES = {
    "call",
    "let",
    "set",
    "block",
    "if",
    "foreach",
    "while",
    "assert",
    "fail",
    "print",
    "return",
}


def _keyed(raw: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """Match keys case-insensitively to their canonical spelling (as the mod's JSON reader
    does); unknown keys are kept as they are."""
    canonical = {k.lower(): k for k in keys}
    return {canonical.get(str(k).lower(), str(k)): v for k, v in raw.items()}


def _step(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ScriptError("script.invalid_step", f"a statement is an object, got {raw!r}")
    step = _keyed(raw, _STEP_KEYS)
    for key in ("body", "elseBody"):
        if key in step:
            if not isinstance(step[key], list):
                raise ScriptError("script.invalid_step", f"{key} must be a list of statements")
            step[key] = [_step(s) for s in step[key]]
    if isinstance(step.get("continueUntil"), Mapping):
        step["continueUntil"] = _keyed(step["continueUntil"], _POLICY_KEYS)
    kind = str(step.get("type") or ("call" if step.get("call") else "")).lower()
    if kind not in _TYPES:
        raise ScriptError("script.invalid_step", f"unsupported statement type {step.get('type')!r}")
    step["type"] = kind
    return step


NO_STEPS: Final = "The script must contain at least one step."
_LIMITS: Final = ("maxDurationMs", "maxExecutedStatements", "maxControlDepth")


def limit_error(definition: Mapping[str, Any]) -> ScriptError | None:
    """The mod's check of a definition's budgets before it runs: the first one that is not
    positive halts the script before any step."""
    for key in _LIMITS:
        if definition[key] <= 0:
            return ScriptError(
                "script.invalid_definition",
                f"The script must declare a positive {key} value.",
                {key: definition[key]},
            )
    return None


def normalize_definition(raw: Any) -> dict[str, Any]:
    """A script definition with canonical keys and defaults (``script.invalid_*`` errors)."""
    if not isinstance(raw, Mapping):
        raise ScriptError("script.invalid_definition", "the script must be a JSON object")
    definition = _keyed(raw, _DEFINITION_KEYS)
    definition.setdefault("name", "")
    definition.setdefault("continueOnError", False)
    for key, default in (
        ("maxDurationMs", 60000),
        ("maxExecutedStatements", 1000),
        ("maxControlDepth", 32),
    ):
        value = definition.setdefault(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScriptError("script.invalid_definition", f"{key} must be an integer")
    steps = definition.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ScriptError("script.invalid_definition", NO_STEPS)
    definition["steps"] = [_step(s) for s in steps]
    return definition


@dataclass
class CallOutcome:
    """What one capability call did. ``success`` is the operation's outcome, as in the mod: a
    tool that answered (even ``{"success": false}``) completed its operation; only a call that
    threw, timed out or was refused fails."""

    success: bool
    operation_id: str | None
    status: str
    result: Any
    error: dict[str, Any] | None


Caller = Callable[[str, Mapping[str, Any]], Awaitable[CallOutcome]]


@dataclass
class ScriptReport:
    name: str
    continue_on_error: bool
    started: float = field(default_factory=time.time)
    success: bool = True
    halted: bool = False
    returned: bool = False
    halt_reason: str = ""
    result: Any = None
    error: dict[str, Any] | None = None
    step_count: int = 0
    steps: list[dict[str, Any]] = field(default_factory=list)
    output: list[dict[str, Any]] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        done = time.time()
        return {
            "name": self.name,
            "continueOnError": self.continue_on_error,
            "success": self.success,
            "halted": self.halted,
            "returned": self.returned,
            "haltReason": self.halt_reason,
            "result": self.result,
            "error": self.error,
            "stepCount": self.step_count,
            "executedStepCount": len(self.steps),
            "succeededStepCount": sum(1 for s in self.steps if s["success"]),
            "failedStepCount": sum(1 for s in self.steps if not s["success"]),
            "startedAtUtc": iso_utc(self.started),
            "completedAtUtc": iso_utc(done),
            "durationMs": round((done - self.started) * 1000),
            "output": list(self.output),
            # the mod projects each step with its OperationStatus, an integer on the wire
            "steps": [{**step, "status": _WIRE_STATUS[step["status"]]} for step in self.steps],
        }


_WIRE_STATUS = {name: STATUS_CODES[status] for status, name in STATUS_NAMES.items()}
"""A step's status name (its reference root) -> the enum's integer (the report's steps)."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Halt(Exception):
    """A failed call step stopped the script (the report already says why)."""


def _count(steps: list[dict[str, Any]]) -> int:
    return sum(1 + _count(s.get("body", [])) + _count(s.get("elseBody", [])) for s in steps)


class ScriptRunner:
    """Runs one normalized definition through ``call``."""

    def __init__(self, call: Caller, *, include_step_results: bool) -> None:
        self._call = call
        self._include = include_step_results
        self._references: dict[str, dict[str, Any]] = {}
        self._runs: dict[str, int] = {}
        self._budget = 0
        self._deadline = 0.0

    async def run(self, definition: dict[str, Any]) -> ScriptReport:
        report = ScriptReport(definition["name"], bool(definition["continueOnError"]))
        report.step_count = _count(definition["steps"])
        invalid = limit_error(definition)
        if invalid is not None:
            report.success = False
            report.halted = True
            report.halt_reason = invalid.message
            report.error = invalid.to_wire()
            return report
        self._budget = definition["maxExecutedStatements"]
        self._deadline = time.monotonic() + definition["maxDurationMs"] / 1000
        self._max_depth = definition["maxControlDepth"]
        try:
            await self._block(definition["steps"], Scope(), report, 0)
        except _Return as done:
            report.returned = True
            report.result = done.value
        except _Halt:
            pass
        except ScriptError as error:
            report.success = False
            report.halted = True
            report.halt_reason = error.message
            if report.error is None:  # a call step that failed before keeps its error
                report.error = error.to_wire()
        if any(not s["success"] for s in report.steps):
            report.success = False
        return report

    def _refs(self, step_id: str) -> Any:
        found = self._references.get(step_id)
        if found is None:
            raise ScriptError(
                "script.invalid_reference", f"$ref '{step_id}' names no executed call step"
            )
        return found

    def _spend(self) -> None:
        self._budget -= 1
        if self._budget < 0:
            raise ScriptError(
                "script.statement_limit_exceeded", "the script exceeded maxExecutedStatements"
            )
        if time.monotonic() > self._deadline:
            raise ScriptError("script.timeout", "the script exceeded maxDurationMs")

    async def _block(
        self, steps: list[dict[str, Any]], scope: Scope, report: ScriptReport, depth: int
    ) -> None:
        if depth > self._max_depth:
            raise ScriptError("script.max_depth_exceeded", "the script exceeded maxControlDepth")
        for step in steps:
            self._spend()
            await self._statement(step, scope, report, depth)

    def _value(self, step: dict[str, Any], scope: Scope) -> Any:
        return evaluate(step.get("value"), scope, self._refs)

    async def _statement(
        self, step: dict[str, Any], scope: Scope, report: ScriptReport, depth: int
    ) -> None:
        kind = step["type"]
        if kind == "call":
            await self._call_step(step, scope, report)
        elif kind == "let":
            scope.values[self._name(step)] = self._value(step, scope)
        elif kind == "set":
            name = self._name(step)
            owner = scope.find(name)
            if owner is None:
                raise ScriptError("script.invalid_variable", f"set of undeclared variable '{name}'")
            owner.values[name] = self._value(step, scope)
        elif kind == "block":
            await self._block(step.get("body", []), scope.child(), report, depth + 1)
        elif kind == "if":
            root = {"vars": scope.flatten()}
            branch = (
                "body" if matches(step.get("condition"), root, scope, self._refs) else ("elseBody")
            )
            await self._block(step.get(branch, []), scope.child(), report, depth + 1)
        elif kind == "foreach":
            await self._foreach(step, scope, report, depth)
        elif kind == "while":
            await self._while(step, scope, report, depth)
        elif kind == "assert":
            if not matches(step.get("condition"), {"vars": scope.flatten()}, scope, self._refs):
                message = step.get("message") or "Assertion failed."
                raise ScriptError("script.assertion_failed", message)
        elif kind == "fail":
            message = step.get("message") or "The script failed."
            raise ScriptError("script.failed", message, self._value(step, scope))
        elif kind == "print":
            report.output.append(
                {
                    "index": len(report.output) + 1,
                    "statementId": step.get("id") or "",
                    "level": "info",
                    "message": step.get("message") or "",
                    "value": self._value(step, scope),
                    "timestampUtc": iso_utc(time.time()),
                }
            )
        else:
            raise _Return(self._value(step, scope))

    @staticmethod
    def _name(step: dict[str, Any]) -> str:
        name = step.get("name")
        if not isinstance(name, str) or not name:
            raise ScriptError("script.invalid_step", f"{step['type']} needs a variable name")
        return name

    async def _foreach(
        self, step: dict[str, Any], scope: Scope, report: ScriptReport, depth: int
    ) -> None:
        items = evaluate(step.get("collection"), scope, self._refs)
        if isinstance(items, Mapping):
            items = list(items.values())
        if not isinstance(items, list):
            raise ScriptError("script.invalid_expression", "foreach needs a list to iterate")
        item_name = step.get("itemName")
        if not item_name:
            raise ScriptError("script.invalid_step", "foreach needs itemName")
        for index, item in enumerate(items):
            self._spend()
            inner = scope.child()
            inner.values[item_name] = item
            if step.get("indexName"):
                inner.values[step["indexName"]] = index
            await self._block(step.get("body", []), inner, report, depth + 1)

    async def _while(
        self, step: dict[str, Any], scope: Scope, report: ScriptReport, depth: int
    ) -> None:
        limit = step.get("maxIterations", 100)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise ScriptError("script.invalid_step", "while needs a positive maxIterations")
        iterations = 0
        while matches(step.get("condition"), {"vars": scope.flatten()}, scope, self._refs):
            if iterations >= limit:
                raise ScriptError(
                    "script.max_iterations", f"a while loop exceeded maxIterations ({limit})"
                )
            iterations += 1
            self._spend()
            await self._block(step.get("body", []), scope.child(), report, depth + 1)

    async def _call_step(self, step: dict[str, Any], scope: Scope, report: ScriptReport) -> None:
        alias = step.get("call")
        if not isinstance(alias, str) or not alias:
            raise ScriptError("script.invalid_step", "a call statement needs 'call'")
        base = step.get("id") or f"step-{len(report.steps) + 1}"
        runs = self._runs.get(base, 0) + 1
        self._runs[base] = runs
        step_id = base if runs == 1 else f"{base}#{runs}"
        arguments = evaluate(step.get("arguments") or {}, scope, self._refs)
        policy = step.get("continueUntil")
        started = time.time()
        attempts = 0
        while True:
            attempts += 1
            # lines logged during the call carry the step, as the mod's operation context does
            with in_script_step(base, step_id, alias):
                outcome = await self._call(alias, arguments)
            row = self._row(report, step_id, alias, outcome, attempts, started)
            if policy is None or not outcome.success:
                break
            if matches(policy.get("condition"), row, scope, self._refs):
                break
            timeout_ms = policy.get("timeoutMs", 10000)
            if time.time() - started >= timeout_ms / 1000:
                message = policy.get("timeoutMessage") or (
                    f"continueUntil of '{base}' did not match within {timeout_ms} ms"
                )
                row.update(
                    success=False,
                    status=STATUS_NAMES["failed"],
                    error=operation_error("script.continue_timeout", message),
                )
                break
            self._spend()
            await anyio.sleep(max(0, policy.get("pollIntervalMs", 100)) / 1000)
        self._references[base] = row
        report.steps.append(row if self._include or not row["success"] else {**row, "result": None})
        if not row["success"]:
            # as the mod records a failed step: the first failure is the script's error, and
            # the script halts on it unless continueOnError
            if report.error is None:
                report.error = row["error"] or operation_error("tool.failed", "failed")
            if not report.continue_on_error:
                report.halted = True
                report.halt_reason = f"Step {row['index']} ('{step_id}') failed."
                raise _Halt

    @staticmethod
    def _row(
        report: ScriptReport,
        step_id: str,
        alias: str,
        outcome: CallOutcome,
        attempts: int,
        started: float,
    ) -> dict[str, Any]:
        done = time.time()
        # the mod's capability id of the alias; empty when no capability answers to it
        unknown = (outcome.error or {}).get("Code") == "capability.not_found"
        return {
            "index": len(report.steps) + 1,
            "id": step_id,
            "call": alias,
            "capabilityId": "" if unknown else capability_id(alias),
            "operationId": outcome.operation_id,
            # the reference root has the enum's name (the mod's Status.ToString())
            "status": STATUS_NAMES[outcome.status],
            "success": outcome.success,
            "attempts": attempts,
            "startedAtUtc": iso_utc(started),
            "completedAtUtc": iso_utc(done),
            "durationMs": round((done - started) * 1000),
            "result": outcome.result,
            "error": outcome.error,
            "warnings": [],
        }
