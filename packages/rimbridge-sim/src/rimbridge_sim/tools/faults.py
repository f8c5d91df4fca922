"""``sim/*``: fault injection for tests and demos (only with ``--enable-test-tools``).

They make the game misbehave the way real mods and real games do: log lines during a call,
errors some ticks after a call returned (still caused by it), a hung main loop, a connection
that drops, a map that goes away. None carries an allowlist tag.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from lib_gab import current_operation
from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import call_spec, close_connection_after_response, payload_failure
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import MAX_STEP_TICKS

__all__ = ["FaultTools"]

Level = Literal["debug", "info", "warning", "error", "fatal"]


class FaultTools:
    """Test tools; registered only when the bridge is built with ``enable_test_tools``."""

    def __init__(self, bridge: ToolHost) -> None:
        self.bridge = bridge

    @tool(
        "sim/inject_log",
        "Log count identical lines now, during this call and attributed to it (so attention "
        "they open is tied to this call and sent before its response).",
        title="Inject log lines",
        result_description="{success, logged, firstSequence, latestSequence}.",
        tags=("test",),
    )
    @parameter("level", "debug, info, warning, error or fatal.")
    @parameter("message", "The line's text (policies match on it).")
    @parameter("count", "How many lines, 1 to 100000.")
    @parameter("source", "The line's source, e.g. sim, load, ui (policies may match on it).")
    @call_spec(world=False)
    def inject_log(
        self,
        level: Level,
        message: Annotated[str, Field(min_length=1, max_length=4000)],
        count: Annotated[int, Field(ge=1, le=100_000)] = 1,
        source: Annotated[str, Field(min_length=1, max_length=64)] = "sim",
    ) -> dict[str, Any]:
        bridge = self.bridge
        operation = current_operation()
        operation_id = operation.id if operation is not None else None
        first = None
        for _ in range(count):
            bridge.log(level, message, source, operation_id)
            if first is None:
                first = bridge.ring.latest_sequence
        return {
            "success": True,
            "logged": count,
            "firstSequence": first,
            "latestSequence": bridge.ring.latest_sequence,
        }

    @tool(
        "sim/schedule_error",
        "Schedule an error line that the game logs once afterTicks game ticks have passed, "
        "caused by this call: the attention it opens names this call as its cause even though "
        "the call returned long before. The line is dropped if the game is unloaded first.",
        title="Schedule error",
        result_description="{success, dueTick (the game tick the error is logged at), "
        "operationId (this call)}.",
        tags=("test",),
    )
    @parameter("message", "The error's text.")
    @parameter("after_ticks", f"Game ticks from now, 1 to {MAX_STEP_TICKS}.")
    @call_spec(world=True)
    def schedule_error(
        self,
        message: Annotated[str, Field(min_length=1, max_length=4000)],
        after_ticks: Annotated[
            int, Field(alias="afterTicks", title="afterTicks", ge=1, le=MAX_STEP_TICKS)
        ] = 2,
    ) -> dict[str, Any]:
        operation = current_operation()
        due = self.bridge.world.schedule_log(after_ticks, "error", message, "sim")
        return {
            "success": True,
            "dueTick": due,
            "operationId": operation.id if operation is not None else None,
        }

    @tool(
        "sim/stall",
        "Hang the game's main loop for ms milliseconds, starting now: game time stops and "
        "every game tool waits (and fails with timed_out past the bridge's main-loop timeout). "
        "Diagnostics tools keep answering. Returns as soon as the stall has begun.",
        title="Stall the main loop",
        result_description="{success, stalledMs}.",
        tags=("test",),
    )
    @parameter("ms", "How long, 1 to 120000 milliseconds.")
    @call_spec(world=False)
    def stall(self, ms: Annotated[int, Field(ge=1, le=120_000)]) -> dict[str, Any]:
        self.bridge.stall(ms)
        return {"success": True, "stalledMs": ms}

    @tool(
        "sim/drop_connection",
        "Close the calling bridge connection right after this call is answered (the bridge "
        "sees the answer, then the connection goes away). Other connections are untouched.",
        title="Drop the connection",
        result_description="{success, dropping: true}; a payload failure when the call did "
        "not come over a connection.",
        tags=("test",),
    )
    async def drop_connection(self) -> dict[str, Any]:
        if not close_connection_after_response("dropped by sim/drop_connection"):
            return payload_failure("this call did not come over a connection", "no_connection")
        return {"success": True, "dropping": True}

    @tool(
        "sim/unload_map",
        "Remove the current map under the mod's feet, as the game does when a map goes away: "
        "logs 'Map removed: <map>' (a warning) and drops it, leaving the main menu. Its ids go "
        "stale. No map is a payload failure (code no_game).",
        title="Unload the map",
        result_description="{success, removedMap, phase}.",
        tags=("test",),
    )
    @call_spec(world=True)
    def unload_map(self) -> dict[str, Any]:
        operation = current_operation()
        removed = self.bridge.remove_map(operation.id if operation is not None else None)
        if removed is None:
            return payload_failure("no map is loaded", "no_game")
        return {
            "success": True,
            "removedMap": removed,
            "phase": self.bridge.world.phase.value,
        }
