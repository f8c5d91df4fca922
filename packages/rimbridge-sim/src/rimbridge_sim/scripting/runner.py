"""The script runner: executes a JSON script (``rimbridge/run_script``, and the Lua front-end
lowered into the same model) through the bridge's tools, one child operation per call.

Statements: ``call`` (the default when ``call`` is given), ``let``, ``set``, ``if``,
``foreach``, ``while``, ``assert``, ``fail``, ``print``, ``return``. Every statement,
loop iteration and polling attempt spends one unit of ``maxExecutedStatements``; the script
also stops at ``maxDurationMs`` and ``maxControlDepth``.

As in the mod, whatever fails becomes a failed row of the report's ``steps``: a call whose
operation failed (the tool threw, timed out or was refused; a tool that answers
``{"success": false}`` completes its step), and a statement the runner fails itself (a bad
statement or expression, a spent budget, ``assert``, ``fail``), named by the statement's id and
``script/<type>``. A failed row halts the script (``haltReason`` ``Step <index> ('<id>')
failed.``) unless ``continueOnError``; ``assert`` and ``fail`` halt it regardless. The first
failed row's error is the script's ``error``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

import anyio

from rimbridge_sim.clock import iso_utc, whole_ms
from rimbridge_sim.diagnostics._records import STATUS_NAMES
from rimbridge_sim.diagnostics.script_context import in_script_step
from rimbridge_sim.scripting.conditions import check
from rimbridge_sim.scripting.definition import (
    NO_STEPS,
    count_statements,
    limit_error,
    normalize_definition,
)
from rimbridge_sim.scripting.expressions import Scope, ScriptError, evaluate
from rimbridge_sim.scripting.report import (
    CallOutcome,
    ScriptReport,
    call_row,
    condition_failure,
    failed_row,
    null_row,
)
from rimbridge_sim.scripting.values import items as collection_items

__all__ = ["NO_STEPS", "CallOutcome", "ScriptReport", "ScriptRunner", "normalize_definition"]

Caller = Callable[[str, Mapping[str, Any]], Awaitable[CallOutcome]]

_NESTED: Final = "rimbridge/run_script"


class _Failed(Exception):
    """A statement failed; the runner records it as a failed step row."""

    def __init__(self, error: ScriptError, *, halt: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.halt = halt


def _failure(code: str, message: str, details: Any = None, *, halt: bool = False) -> _Failed:
    return _Failed(ScriptError(code, message, details), halt=halt)


class ScriptRunner:
    """Runs one normalized definition through ``call``."""

    def __init__(self, call: Caller, *, include_step_results: bool) -> None:
        self._call = call
        self._include = include_step_results
        self._references: dict[str, dict[str, Any]] = {}
        self._runs: dict[str, int] = {}
        self._call_statements: dict[str, int] = {}
        self._implicit_ids: dict[int, str] = {}
        self._next_implicit = 1
        self._executed = self._depth = 0
        self._scope = Scope()
        self._report = ScriptReport("", False)
        self._started = time.monotonic()
        self._max_duration_ms = self._max_statements = self._max_depth = 0

    async def run(self, definition: dict[str, Any]) -> ScriptReport:
        report = ScriptReport(definition["name"], bool(definition["continueOnError"]))
        report.step_count = count_statements(definition["steps"])
        self._report = report
        invalid = limit_error(definition)
        if invalid is not None:
            report.halted = True
            report.halt_reason = invalid.message
            report.error = invalid.to_wire()
            return report
        self._max_duration_ms = definition["maxDurationMs"]
        self._max_statements = definition["maxExecutedStatements"]
        self._max_depth = definition["maxControlDepth"]
        self._started = time.monotonic()
        await self._statements(definition["steps"])
        return report

    @property
    def _stopped(self) -> bool:
        return self._report.halted or self._report.returned

    async def _statements(self, steps: Sequence[dict[str, Any] | None]) -> None:
        for step in steps:
            if self._stopped:
                return
            if step is None:  # the mod records a null statement as a failed step
                self._report.record(null_row(len(self._report.steps)))
                continue
            await self._statement(step)

    def _id(self, step: dict[str, Any], prefix: str) -> str:
        """The statement's id, or the one the mod makes up for it (``<prefix><n>``, numbered
        across all statements in the order they first run, the same on every run of it)."""
        explicit = step.get("id")
        if isinstance(explicit, str) and explicit.strip():
            return explicit.strip()
        made = self._implicit_ids.get(id(step))
        if made is None:
            made = f"{prefix}{self._next_implicit}"
            self._next_implicit += 1
            self._implicit_ids[id(step)] = made
        return made

    # budgets ---------------------------------------------------------------------------------

    def _elapsed_ms(self) -> int:
        return whole_ms(time.monotonic() - self._started)

    def _limit(self, code: str, key: str, what: str, statement_id: str, **extra: Any) -> _Failed:
        details = {
            "statementId": statement_id,
            "description": what,
            "elapsedMs": self._elapsed_ms(),
            "executedStatements": self._executed,
            "currentControlDepth": self._depth,
            **extra,
        }
        limit = extra[key]
        return _failure(code, f"Script exceeded {key}={limit} while executing {what}.", details)

    def _check_duration(self, statement_id: str, what: str) -> None:
        if self._elapsed_ms() > self._max_duration_ms:
            raise self._limit(
                "script.timeout", "maxDurationMs", what, statement_id,
                maxDurationMs=self._max_duration_ms,
            )  # fmt: skip

    def _reserve(self, statement_id: str, what: str) -> None:
        self._check_duration(statement_id, what)
        self._executed += 1
        if self._executed > self._max_statements:
            raise self._limit(
                "script.statement_limit_exceeded", "maxExecutedStatements", what, statement_id,
                maxExecutedStatements=self._max_statements,
            )  # fmt: skip

    def _deeper(self, statement_id: str, what: str) -> None:
        """Enter a body one control level deeper, or fail the statement past the limits (the
        caller leaves the level again)."""
        self._check_duration(statement_id, what)
        if self._depth + 1 > self._max_depth:
            raise self._limit(
                "script.max_depth_exceeded", "maxControlDepth", what, statement_id,
                maxControlDepth=self._max_depth, attemptedControlDepth=self._depth + 1,
            )  # fmt: skip
        self._depth += 1

    async def _control(self, statement_id: str, what: str, steps: list[dict[str, Any]]) -> None:
        """Run a body one control level deeper, in a scope of its own."""
        self._deeper(statement_id, what)
        try:
            await self._scoped(steps)
        finally:
            self._depth -= 1

    async def _scoped(self, steps: list[dict[str, Any]], **declare: Any) -> None:
        outer = self._scope
        self._scope = outer.child()
        self._scope.values.update(declare)
        try:
            await self._statements(steps)
        finally:
            self._scope = outer

    # values ----------------------------------------------------------------------------------

    def _refs(self, step_id: str) -> Any:
        found = self._references.get(step_id)
        if found is None:
            message = f"cannot reference step '{step_id}' because it has not executed yet."
            raise ScriptError("script.invalid_reference", message, scoped=True)
        return found

    def _eval(self, expression: Any, code: str, statement_id: str) -> Any:
        """An expression's value; a failure is the statement's, under the code the mod gives
        failures at that place."""
        try:
            return evaluate(expression, self._scope, self._refs)
        except ScriptError as error:
            raise _failure(code, error.message_at(statement_id)) from error

    def _holds(self, condition: Any, root: Any, statement_id: str) -> tuple[bool, str]:
        """Whether a condition holds, and why (the mod's sentence)."""
        try:
            return check(condition, root, self._scope, self._refs)
        except ScriptError as error:
            raise _failure("script.invalid_condition", error.message_at(statement_id)) from error

    def _vars_check(self, condition: Any, statement_id: str) -> tuple[bool, str]:
        return self._holds(condition, {"vars": self._scope.flatten()}, statement_id)

    # statements ------------------------------------------------------------------------------

    async def _statement(self, step: dict[str, Any]) -> None:
        kind = step["type"]
        if kind == "call":
            await self._call_step(step)
            return
        handler = _HANDLERS.get(kind)
        statement_id = self._id(step, f"{kind}-" if handler else "statement-")
        try:
            if handler is None:
                message = f"The script step '{statement_id}' declares unsupported type '{kind}'."
                raise _failure("script.invalid_step", message)
            self._reserve(statement_id, f"{kind} step '{statement_id}'")
            await handler(self, step, statement_id)
        except _Failed as failed:
            row = failed_row(
                len(self._report.steps) + 1, statement_id, f"script/{kind}", failed.error
            )
            self._report.record(row, halt=failed.halt)

    @staticmethod
    def _name(step: dict[str, Any], statement_id: str) -> str:
        name = step.get("name")
        if not isinstance(name, str) or not name.strip():
            message = f"Step '{statement_id}' declares '{step['type']}' without a variable name."
            raise _failure("script.invalid_step", message)
        return name

    @staticmethod
    def _condition(step: dict[str, Any], statement_id: str) -> Any:
        condition = step.get("condition")
        if not condition:
            message = f"Step '{statement_id}' declares '{step['type']}' without a condition."
            raise _failure("script.invalid_step", message)
        return condition

    async def _let(self, step: dict[str, Any], statement_id: str) -> None:
        name = self._name(step, statement_id)
        self._scope.values[name] = self._eval(
            step.get("value"), "script.invalid_expression", statement_id
        )

    async def _set(self, step: dict[str, Any], statement_id: str) -> None:
        name = self._name(step, statement_id)
        value = self._eval(step.get("value"), "script.invalid_expression", statement_id)
        owner = self._scope.find(name)
        if owner is None:
            raise _failure(
                "script.invalid_variable",
                f"Step '{statement_id}' cannot assign variable '{name}' because it is not declared "
                "in any active scope.",
            )
        owner.values[name] = value

    async def _if(self, step: dict[str, Any], statement_id: str) -> None:
        matched = self._vars_check(self._condition(step, statement_id), statement_id)[0]
        branch = step.get("body" if matched else "elseBody", [])
        await self._control(statement_id, f"if body '{statement_id}'", branch)

    async def _foreach(self, step: dict[str, Any], statement_id: str) -> None:
        item_name = step.get("itemName")
        if not isinstance(item_name, str) or not item_name.strip():
            message = f"Step '{statement_id}' declares 'foreach' without an itemName."
            raise _failure("script.invalid_step", message)
        collection = self._eval(step.get("collection"), "script.invalid_expression", statement_id)
        items = collection_items(collection)  # an object's entries are {Key, Value}, as in .NET
        if items is None:
            enumerable = "its foreach collection to an enumerable value"
            raise _failure(
                "script.invalid_step", f"Step '{statement_id}' did not resolve {enumerable}."
            )
        what = f"foreach body '{statement_id}'"
        self._deeper(statement_id, what)
        try:
            for index, item in enumerate(list(items)):
                if self._stopped:
                    return
                self._reserve(statement_id, f"foreach iteration {index + 1} of '{statement_id}'")
                declare = {item_name: item}
                if step.get("indexName"):
                    declare[step["indexName"]] = index
                await self._scoped(step.get("body", []), **declare)
        finally:
            self._depth -= 1

    async def _while(self, step: dict[str, Any], statement_id: str) -> None:
        condition = self._condition(step, statement_id)
        limit = step.get("maxIterations", 100)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            message = f"Step '{statement_id}' must declare a positive maxIterations for 'while'."
            raise _failure("script.invalid_step", message)
        what = f"while body '{statement_id}'"
        self._deeper(statement_id, what)
        try:
            iteration = 0
            while self._vars_check(condition, statement_id)[0]:
                iteration += 1
                self._reserve(statement_id, f"while iteration {iteration} of '{statement_id}'")
                if iteration > limit:
                    message = f"Step '{statement_id}' exceeded maxIterations={limit}."
                    raise _failure("script.max_iterations", message)
                await self._scoped(step.get("body", []))
                if self._stopped:
                    return
        finally:
            self._depth -= 1

    async def _assert(self, step: dict[str, Any], statement_id: str) -> None:
        condition = self._condition(step, statement_id)
        held, reason = self._vars_check(condition, statement_id)
        if not held:
            message = (step.get("message") or "").strip() or f"Assertion '{statement_id}' failed."
            # the mod adds the reason the condition gave to the message, and to the details
            message = f"{message} {reason}" if reason else message
            details = {"condition": condition, "reason": reason}
            raise _failure("script.assertion_failed", message, details, halt=True)

    def _value(self, step: dict[str, Any], statement_id: str) -> Any:
        value = step.get("value")
        if value is not None:
            value = self._eval(value, "script.invalid_expression", statement_id)
        return value

    async def _fail(self, step: dict[str, Any], statement_id: str) -> None:
        details = self._value(step, statement_id)
        message = (step.get("message") or "").strip()
        message = message or f"Script requested failure at '{statement_id}'."
        raise _failure("script.failed", message, details, halt=True)

    async def _print(self, step: dict[str, Any], statement_id: str) -> None:
        value = self._value(step, statement_id)
        self._report.output.append(
            {
                "index": len(self._report.output) + 1,
                "statementId": statement_id,
                "level": "info",
                "message": (step.get("message") or "").strip(),
                "value": value,
                "timestampUtc": iso_utc(time.time()),
            }
        )

    async def _return(self, step: dict[str, Any], statement_id: str) -> None:
        self._report.result = self._value(step, statement_id)
        self._report.returned = True

    # calls -----------------------------------------------------------------------------------

    async def _call_step(self, step: dict[str, Any]) -> None:
        base = self._id(step, "step-")
        alias = str(step.get("call") or "").strip()
        runs = self._runs.get(base, 0) + 1
        self._runs[base] = runs
        step_id = base if runs == 1 else f"{base}#{runs}"
        index = len(self._report.steps) + 1
        referenceable = True
        try:
            self._reserve(base, f"call step '{base}'")
            if self._call_statements.setdefault(base, id(step)) != id(step):
                referenceable = False
                message = f"The script step id '{base}' is duplicated."
                raise _failure("script.invalid_step", message)
            if not alias:
                message = "Each script call step must declare a capability call."
                raise _failure("script.invalid_step", message)
            if alias.lower() == _NESTED:
                message = "Nested rimbridge/run_script calls are not supported in this version."
                raise _failure("script.invalid_step", message)
            arguments = self._eval(step.get("arguments") or {}, "script.invalid_reference", base)
            policy = step.get("continueUntil")
            if policy is None:
                started = time.time()
                row = await self._attempt(base, step_id, index, alias, arguments, 1, started)
                row = self._after_call(base, row, started)
            else:
                row = await self._poll(base, step_id, index, alias, arguments, policy)
        except _Failed as failed:
            row = failed_row(index, step_id, alias, failed.error)
        if referenceable:
            self._references[base] = row  # references read the full result
        self._report.record(row if self._include else {**row, "result": None})

    async def _attempt(
        self,
        base: str,
        step_id: str,
        index: int,
        alias: str,
        arguments: Any,
        attempts: int,
        started: float,
    ) -> dict[str, Any]:
        # lines logged during the call carry the step, as the mod's operation context does
        with in_script_step(base, step_id, alias):
            outcome = await self._call(alias, arguments)
        return call_row(index, step_id, alias, outcome, attempts, started)

    def _after_call(self, base: str, row: dict[str, Any], started: float) -> dict[str, Any]:
        """The row as it stands once the call returned: failed if the script ran out of time
        during it (it keeps the call's result and ids)."""
        try:
            self._check_duration(base, f"call step '{base}'")
        except _Failed as failed:
            return condition_failure(row, failed.error, started)
        return row

    async def _poll(
        self,
        base: str,
        step_id: str,
        index: int,
        alias: str,
        arguments: Any,
        policy: Mapping[str, Any],
    ) -> dict[str, Any]:
        """``continueUntil``: call again until the condition holds on the attempt's reference
        root, or the policy's time is up. An attempt whose operation timed out is tried again;
        any other failed attempt ends the step."""
        condition = policy.get("condition")
        if not condition:
            message = f"Step '{base}' declares continueUntil without a condition."
            raise _failure("script.invalid_step", message)
        timeout_ms = max(0, policy.get("timeoutMs", 10000))
        interval_ms = max(0, policy.get("pollIntervalMs", 100))
        # the step reports its last attempt's start, as the mod's takes the last envelope's
        started, clock = time.time(), time.monotonic()
        attempts, unsatisfied = 0, ""
        row: dict[str, Any] = {}
        while True:
            attempts += 1
            if attempts > 1:
                what = f"continueUntil attempt {attempts} for call step '{base}'"
                try:
                    self._reserve(base, what)
                except _Failed as failed:
                    return condition_failure(row, failed.error, started)
            started = time.time()
            row = await self._attempt(base, step_id, index, alias, arguments, attempts, started)
            checked = self._after_call(base, row, started)
            if checked is not row:
                return checked
            if row["success"]:
                try:
                    satisfied, unsatisfied = check(condition, row, self._scope, self._refs)
                    if satisfied:
                        return row
                except ScriptError as error:
                    failure = ScriptError("script.invalid_condition", error.message_at(base))
                    return condition_failure(row, failure, started)
            elif row["status"] == STATUS_NAMES["timed_out"]:
                reason = ((row["error"] or {}).get("Message") or "").strip()
                unsatisfied = (
                    f"The most recent continueUntil attempt timed out: {reason}"
                    if reason
                    else "The most recent continueUntil attempt timed out. "
                    "Retrying until the step-level timeout expires."
                )
            else:
                return row
            elapsed_ms = (time.monotonic() - clock) * 1000
            if elapsed_ms >= timeout_ms:
                message = policy.get("timeoutMessage") or (
                    f"Step '{base}' did not satisfy continueUntil within {timeout_ms} ms."
                )
                if unsatisfied:
                    message += " " + unsatisfied
                return condition_failure(
                    row, ScriptError("script.continue_timeout", message), started
                )
            if interval_ms > 0:
                await anyio.sleep(min(interval_ms, timeout_ms - elapsed_ms) / 1000)


_Handler = Callable[[ScriptRunner, dict[str, Any], str], Awaitable[None]]
_HANDLERS: Final[dict[str, _Handler]] = {
    "let": ScriptRunner._let,
    "set": ScriptRunner._set,
    "if": ScriptRunner._if,
    "foreach": ScriptRunner._foreach,
    "while": ScriptRunner._while,
    "assert": ScriptRunner._assert,
    "fail": ScriptRunner._fail,
    "print": ScriptRunner._print,
    "return": ScriptRunner._return,
}
