"""What a script run reports: the outcome of one capability call, the rows of the report's
``steps`` (a call's, or a statement's that failed), and the report itself in the mod's shape."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rimbridge_sim.clock import iso_utc, whole_ms
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.diagnostics._records import STATUS_CODES, STATUS_NAMES
from rimbridge_sim.scripting.expressions import ScriptError

__all__ = [
    "CallOutcome",
    "ScriptReport",
    "call_row",
    "condition_failure",
    "failed_row",
    "null_row",
]


@dataclass
class CallOutcome:
    """What one capability call did. ``success`` is the operation's outcome, as in the mod: a
    tool that answered (even ``{"success": false}``) completed its operation; only a call that
    threw, timed out or was refused fails. ``status`` is the operation's status name
    (``completed``, ``failed``, ``timed_out``, ...)."""

    success: bool
    operation_id: str | None
    status: str
    result: Any
    error: dict[str, Any] | None
    tool: str | None = None
    """The tool the step's name resolved to (the name may be a capability id, in any case)."""


@dataclass
class ScriptReport:
    name: str
    continue_on_error: bool
    started: float = field(default_factory=time.time)
    halted: bool = False
    returned: bool = False
    halt_reason: str = ""
    result: Any = None
    error: dict[str, Any] | None = None
    step_count: int = 0
    steps: list[dict[str, Any]] = field(default_factory=list)
    output: list[dict[str, Any]] = field(default_factory=list)

    @property
    def success(self) -> bool:
        """As the mod decides it: no failed step and no halt."""
        return not self.halted and all(s["success"] for s in self.steps)

    def record(self, row: dict[str, Any], *, halt: bool = False) -> None:
        """Add a step row; a failed one gives the script its first error and halts it unless
        ``continueOnError`` (``halt`` halts it regardless, as ``assert`` and ``fail`` do)."""
        self.steps.append(row)
        if row["success"]:
            return
        if self.error is None:
            self.error = row["error"]
        if halt or not self.continue_on_error:
            self.halted = True
            self.halt_reason = f"Step {row['index']} ('{row['id']}') failed."

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
            "durationMs": whole_ms(done - self.started),
            "output": list(self.output),
            # the mod projects each step with its OperationStatus, an integer on the wire
            "steps": [{**step, "status": _WIRE_STATUS[step["status"]]} for step in self.steps],
        }


_WIRE_STATUS = {name: STATUS_CODES[status] for status, name in STATUS_NAMES.items()}
"""A step's status name (its reference root) -> the enum's integer (the report's steps)."""


def call_row(
    index: int,
    step_id: str,
    alias: str,
    outcome: CallOutcome,
    attempts: int,
    started: float,
) -> dict[str, Any]:
    """The row of a call step after an attempt (the full result: the report drops it when step
    results are not wanted; references always read it)."""
    done = time.time()
    # the mod's capability id of the alias; empty when no capability answers to it
    unknown = (outcome.error or {}).get("Code") == "capability.not_found"
    return {
        "index": index,
        "id": step_id,
        "call": alias,
        "capabilityId": "" if unknown else capability_id(outcome.tool or alias),
        "operationId": outcome.operation_id,
        # the reference root has the enum's name (the mod's Status.ToString())
        "status": STATUS_NAMES[outcome.status],
        "success": outcome.success,
        "attempts": attempts,
        "startedAtUtc": iso_utc(started),
        "completedAtUtc": iso_utc(done),
        "durationMs": whole_ms(done - started),
        "result": outcome.result,
        "error": outcome.error,
        "warnings": [],
    }


def failed_row(index: int, step_id: str, call: str, error: ScriptError) -> dict[str, Any]:
    """The row the mod records for a statement the runner itself failed (a bad statement, a
    budget spent, an assertion, ``fail``): ``call`` is the alias, or ``script/<type>``."""
    now = iso_utc(time.time())
    return {
        "index": index,
        "id": step_id,
        "call": call,
        "capabilityId": "",
        "operationId": "",
        "status": STATUS_NAMES["failed"],
        "success": False,
        "attempts": 1,
        "startedAtUtc": now,
        "completedAtUtc": now,
        "durationMs": 0,
        "result": None,
        "error": error.to_wire(),
        "warnings": [],
    }


def null_row(executed: int) -> dict[str, Any]:
    """The failed row the mod records for a ``null`` statement: named ``step-<n>`` after the
    number of rows before it, with no call."""
    error = ScriptError("script.invalid_step", "The script contained a null step.")
    return failed_row(executed + 1, f"step-{executed}", "", error)


def condition_failure(row: dict[str, Any], error: ScriptError, started: float) -> dict[str, Any]:
    """A call step that ran but failed on the runner's terms: its last attempt's row (which
    began at ``started``), failed with the runner's error, completed now."""
    done = time.time()
    return {
        **row,
        "status": STATUS_NAMES["failed"],
        "success": False,
        "completedAtUtc": iso_utc(done),
        "durationMs": whole_ms(done - started),
        "error": error.to_wire(),
    }
