"""``rimbridge/*``: the diagnostics plane and scripts.

These tools read the log ring and the operation journal, which are thread-safe, so they are
async and never wait for the world lock: they answer while the main loop is stalled.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any, Literal

import anyio
from pydantic import Field

from gabp import ProtocolError
from lib_gab import InvalidArguments, ToolError, current_operation
from rimbridge_annotations import parameter, tool
from rimbridge_sim.integration import payload_failure
from rimbridge_sim.tools._wire import ScriptStep, wire
from rimbridge_sim.world import Phase

if TYPE_CHECKING:
    from rimbridge_sim.integration import RimBridge

__all__ = ["DiagnosticsTools"]

_POLL_SECONDS = 0.01
_NOT_IN_SCRIPTS = frozenset({"rimbridge/run_script"})

MinimumLevel = Literal["debug", "info", "warning", "error", "fatal"]
OperationStatusFilter = Literal["running", "completed", "failed", "cancelled", "timed_out"]


class DiagnosticsTools:
    """Logs, operations, waits and scripts."""

    def __init__(self, bridge: RimBridge) -> None:
        self.bridge = bridge

    # -- status ---------------------------------------------------------------------------------

    @tool(
        "rimbridge/ping",
        "Check that the bridge answers. Never touches the game, so it answers while the main "
        "loop is busy or stalled.",
        title="Ping",
        result_description="{success: true, pong: true, agentId, phase, stalled, time} where "
        "phase is the game phase the main loop last saw and time is the server's Unix time.",
        tags=("status",),
    )
    async def ping(self) -> dict[str, Any]:
        bridge = self.bridge
        return {
            "success": True,
            "pong": True,
            "agentId": bridge.config.agent_id,
            "phase": bridge.phase.value,
            "stalled": bridge.stalled,
            "time": time.time(),
        }

    @tool(
        "rimbridge/get_bridge_status",
        "Describe the bridge: game phase and map, the attention policy and the open attention "
        "item, log ring and operation journal statistics, scenario and main-loop state.",
        title="Get bridge status",
        result_description="{success, agentId, app, phase, mapId, policy, attention (the open "
        "item or null), logs {capacity, size, lines, collapsed, evicted, linesByLevel, "
        "latestSequence}, operations {capacity, size, running, started, evicted}, mainLoop "
        "{tickRate, frames, stalled}, scenario, testTools, uptimeSeconds}.",
        tags=("status",),
    )
    async def get_bridge_status(self) -> dict[str, Any]:
        bridge = self.bridge
        item = bridge.attention.current()
        journal = bridge.journal.stats()
        return {
            "success": True,
            "agentId": bridge.config.agent_id,
            "app": {"name": bridge.server.app.name, "version": bridge.server.app.version},
            "phase": bridge.phase.value,
            "mapId": bridge.map_id,
            "policy": bridge.policy.name,
            "attention": item.to_wire() if item is not None else None,
            "logs": {
                **bridge.ring.stats().to_wire(),
                "latestSequence": bridge.ring.latest_sequence,
            },
            "operations": {
                "capacity": journal.capacity,
                "size": journal.size,
                "running": journal.running,
                "started": journal.started,
                "evicted": journal.evicted,
            },
            "mainLoop": {
                "tickRate": bridge.config.tick_rate,
                "frames": bridge.frames,
                "stalled": bridge.stalled,
            },
            "scenario": bridge.scenario.name if bridge.scenario is not None else None,
            "testTools": bridge.config.enable_test_tools,
            "uptimeSeconds": round(time.monotonic() - bridge.started_at, 3),
        }

    # -- logs -----------------------------------------------------------------------------------

    @tool(
        "rimbridge/list_logs",
        "Read the game's log ring: entries after a cursor, filtered by minimum level and by "
        "operation. Identical consecutive lines are collapsed into one entry with a repeat "
        "count. Pass an attention item's diagnosticsCursor as afterSequence to start at the "
        "line that triggered it; pass the returned nextCursor to continue.",
        title="List logs",
        result_description="{success, entries: [{sequence, level, message, source, tick, time, "
        "operationId, rootOperationId, repeatCount, firstSequence, latestSequence, latestTime}], "
        "nextCursor, truncated (lines after the cursor were already evicted), hasMore (limit "
        "cut the page), oldestSequence, latestSequence}.",
        tags=("diagnostic", "read-only"),
    )
    @parameter(
        "after_sequence",
        "Return entries holding lines after this sequence (-1: from the beginning). Omit for "
        "the newest entries.",
    )
    @parameter("minimum_level", "Least severe level to return.")
    @parameter("limit", "Most entries to return.")
    @parameter(
        "operation_id",
        "Only lines of this operation or of operations it started (script steps, loads, jobs).",
    )
    async def list_logs(
        self,
        after_sequence: Annotated[int | None, wire("afterSequence", ge=-1)] = None,
        minimum_level: Annotated[MinimumLevel, wire("minimumLevel")] = "debug",
        limit: Annotated[int, Field(ge=1, le=1000)] = 100,
        operation_id: Annotated[str | None, wire("operationId", min_length=1)] = None,
    ) -> dict[str, Any]:
        page = self.bridge.ring.query(
            after_sequence=after_sequence,
            minimum_level=minimum_level,
            limit=limit,
            operation_id=operation_id,
        )
        return {"success": True, **page.to_wire()}

    # -- operations -----------------------------------------------------------------------------

    @tool(
        "rimbridge/list_operations",
        "List recent operations (each tools/call, script step and load), newest first.",
        title="List operations",
        result_description="{success, operations: [{operationId, method, parentId, rootId, "
        "status, startedAt, finishedAt, argumentsSummary, resultSummary, error, children, "
        "eventsDropped}]} without their events.",
        tags=("diagnostic", "read-only"),
    )
    @parameter("limit", "Most operations to return.")
    @parameter("status", "Only operations in this status.")
    async def list_operations(
        self,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
        status: OperationStatusFilter | None = None,
    ) -> dict[str, Any]:
        records = self.bridge.journal.list(limit=limit, status=status)
        return {
            "success": True,
            "operations": [record.to_wire(include_events=False) for record in records],
        }

    @tool(
        "rimbridge/get_operation",
        "Show one operation: its status, result or error, parent, root and children, and its "
        "recent events. The operation id of a tools/call is its GABP request id.",
        title="Get operation",
        result_description="{success, operation: {operationId, method, parentId, rootId, "
        "status, startedAt, finishedAt, argumentsSummary, resultSummary, error, children, "
        "eventsDropped, events: [{index, kind, time, message}]}}; an unknown id is a payload "
        "failure with code unknown_operation.",
        tags=("diagnostic", "read-only"),
    )
    @parameter("operation_id", "The operation's id.")
    async def get_operation(
        self, operation_id: Annotated[str, wire("operationId", min_length=1)]
    ) -> dict[str, Any]:
        record = self.bridge.journal.get(operation_id)
        if record is None:
            return _unknown_operation(operation_id)
        return {"success": True, "operation": record.to_wire()}

    @tool(
        "rimbridge/list_operation_events",
        "List the events of one operation (started, child_started, progress, log, completed, "
        "failed, ...) after an index.",
        title="List operation events",
        result_description="{success, operationId, status, events: [{index, kind, time, "
        "message}], nextIndex}; an unknown id is a payload failure with code "
        "unknown_operation.",
        tags=("diagnostic", "read-only"),
    )
    @parameter("operation_id", "The operation's id.")
    @parameter("after_index", "Return events with a higher index (0: all).")
    async def list_operation_events(
        self,
        operation_id: Annotated[str, wire("operationId", min_length=1)],
        after_index: Annotated[int, wire("afterIndex", ge=0)] = 0,
    ) -> dict[str, Any]:
        journal = self.bridge.journal
        record = journal.get(operation_id)
        if record is None:
            return _unknown_operation(operation_id)
        events = [event for event in record.events if event.index > after_index]
        return {
            "success": True,
            "operationId": operation_id,
            "status": record.status,
            "events": [event.to_wire() for event in events],
            "nextIndex": events[-1].index if events else after_index,
        }

    @tool(
        "rimbridge/wait_for_operation",
        "Wait until an operation (e.g. a load started by rimworld/load_game) is no longer "
        "running, up to a timeout.",
        title="Wait for operation",
        result_description="{success: true, operation} once it finished (whatever its status); "
        "a payload failure with code timeout (and the still-running operation) when the time "
        "ran out, or unknown_operation.",
        tags=("diagnostic", "read-only"),
    )
    @parameter("operation_id", "The operation's id.")
    @parameter("timeout_ms", "How long to wait, in milliseconds.")
    async def wait_for_operation(
        self,
        operation_id: Annotated[str, wire("operationId", min_length=1)],
        timeout_ms: Annotated[int, wire("timeoutMs", ge=0, le=600_000)] = 10_000,
    ) -> dict[str, Any]:
        journal = self.bridge.journal
        record = journal.get(operation_id)
        with anyio.move_on_after(timeout_ms / 1000):
            while record is not None and record.running:
                await anyio.sleep(_POLL_SECONDS)
                record = journal.get(operation_id)
        if record is None:
            return _unknown_operation(operation_id)
        if record.running:
            return payload_failure(
                f"operation {operation_id} is still running after {timeout_ms} ms",
                "timeout",
                operation=record.to_wire(include_events=False),
            )
        return {"success": True, "operation": record.to_wire(include_events=False)}

    @tool(
        "rimbridge/wait_for_game_loaded",
        "Wait until a game is loaded and no long event (a load) is running, up to a timeout.",
        title="Wait for game loaded",
        result_description="{success: true, phase: 'playing', mapId, waitedMs}; a payload "
        "failure with code timeout and the current phase when the time ran out.",
        tags=("diagnostic", "read-only"),
    )
    @parameter("timeout_ms", "How long to wait, in milliseconds.")
    async def wait_for_game_loaded(
        self, timeout_ms: Annotated[int, wire("timeoutMs", ge=0, le=600_000)] = 10_000
    ) -> dict[str, Any]:
        bridge = self.bridge
        started = time.monotonic()
        with anyio.move_on_after(timeout_ms / 1000):
            # the phase changes on the main loop (another thread at times): poll it
            while bridge.phase is not Phase.PLAYING:  # noqa: ASYNC110
                await anyio.sleep(_POLL_SECONDS)
        waited = round((time.monotonic() - started) * 1000)
        if bridge.phase is not Phase.PLAYING:
            return payload_failure(
                f"no game loaded after {timeout_ms} ms (phase {bridge.phase.value})",
                "timeout",
                phase=bridge.phase.value,
                waitedMs=waited,
            )
        return {
            "success": True,
            "phase": bridge.phase.value,
            "mapId": bridge.map_id,
            "waitedMs": waited,
        }

    # -- scripts --------------------------------------------------------------------------------

    @tool(
        "rimbridge/run_script",
        "Run several tools in order, each step as a child operation of this call. A step that "
        "returns success: false or throws stops the script unless continueOnError is set. A "
        "throwing step fails its child operation and opens attention (caused by this call). "
        "Every step is validated before any runs; run_script cannot nest.",
        title="Run script",
        result_description="{success (every step succeeded), operationId, completedSteps, "
        "steps: [{index, tool, operationId, success, result | error {message, code, data}}]}; "
        "the steps not run are left out.",
        tags=("script",),
    )
    @parameter("steps", "The steps: [{tool, arguments}], at most 100.")
    @parameter("continue_on_error", "Run the remaining steps after a failed one.")
    async def run_script(
        self,
        steps: Annotated[list[ScriptStep], Field(min_length=1, max_length=100)],
        continue_on_error: Annotated[bool, wire("continueOnError")] = False,
    ) -> dict[str, Any]:
        bridge = self.bridge
        operation = current_operation()
        assert operation is not None  # invoke_async runs every tool under an operation
        problems = []
        for index, step in enumerate(steps):
            found = bridge.server.tools.get(step.tool)
            if found is None or step.tool in _NOT_IN_SCRIPTS:
                reason = "cannot run inside a script" if found else "no such tool"
                problems.append(
                    {"path": f"$.steps[{index}].tool", "message": reason, "rule": "tool"}
                )
                continue
            try:
                found.validate_arguments(step.arguments)
            except InvalidArguments as error:
                for problem in error.data["errors"]:
                    problems.append(
                        {**problem, "path": f"$.steps[{index}].arguments" + problem["path"][1:]}
                    )
        if problems:
            raise InvalidArguments("rimbridge/run_script", problems)

        results: list[dict[str, Any]] = []
        for index, step in enumerate(steps):
            entry: dict[str, Any] = {"index": index, "tool": step.tool}
            try:
                child, result = await bridge.run_step(step.tool, step.arguments, operation.id)
            except ToolError as error:
                entry.update(
                    operationId=_operation_of(error),
                    success=False,
                    error={"message": error.message, "code": error.code, "data": error.data},
                )
            except ProtocolError as error:
                entry.update(
                    operationId=None,
                    success=False,
                    error={"message": error.message, "code": error.code, "data": error.data},
                )
            else:
                ok = not (isinstance(result, dict) and result.get("success") is False)
                entry.update(operationId=child, success=ok, result=result)
            results.append(entry)
            if not entry["success"] and not continue_on_error:
                break
        succeeded = all(entry["success"] for entry in results) and len(results) == len(steps)
        outcome: dict[str, Any] = {
            "success": succeeded,
            "operationId": operation.id,
            "completedSteps": len(results),
            "steps": results,
        }
        if not succeeded:
            failed = next(entry for entry in results if not entry["success"])
            outcome["message"] = f"step {failed['index']} ({failed['tool']}) failed"
            outcome["code"] = "step_failed"
        return outcome


def _unknown_operation(operation_id: str) -> dict[str, Any]:
    return payload_failure(
        f"unknown operation {operation_id} (never started or already evicted)",
        "unknown_operation",
    )


def _operation_of(error: ProtocolError) -> str | None:
    data = error.data
    return data.get("operationId") if isinstance(data, dict) else None
