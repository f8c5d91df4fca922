"""Diagnostics: the bridge's status, its capabilities, the operation journal and the log
ring. Tagged for a bridge's allowlist as the mod tags them; apart from
``rimworld/get_game_info`` they never wait for the main loop, so they answer while the game
hangs."""

from __future__ import annotations

import time
from typing import Any, Final

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import NO_GAME_MESSAGE, MainLoopTimeout, call_spec, payload_failure
from rimbridge_sim.clock import iso_utc, whole_ms
from rimbridge_sim.config import APP_VERSION, MOD_VERSION
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.diagnostics import STATUS_NAMES, OperationEvent, OperationRecord
from rimbridge_sim.host import ToolHost
from rimbridge_sim.tools._capabilities import describe_capability, find_capability, matches
from rimbridge_sim.tools._waits import TIMED_OUT, poll_pause, refuse_negative_wait
from rimbridge_sim.world import InvalidArgumentError, UnknownIdError, game_date
from rimbridge_sim.world.errors import argument_exception

__all__ = ["DIAGNOSTICS_PREFIX", "DiagnosticsTools", "is_diagnostics"]

DIAGNOSTICS_PREFIX: Final = "rimbridge.core/diagnostics/"
"""The capability ids of the mod's diagnostics module (``DiagnosticsCapabilityModule``): its
events are left out of ``rimbridge/list_operation_events`` unless asked for, as the mod leaves
them out. The module holds the contract's ``diagnostics`` category and the two waits for the
game it files under ``lifecycle``."""


def is_diagnostics(tool_name: str) -> bool:
    """Whether a tool belongs to the mod's diagnostics module (by its capability id)."""
    return capability_id(tool_name).startswith(DIAGNOSTICS_PREFIX)


def _filter(value: str | None) -> str | None:
    """A filter argument as the mod reads it: blank (spaces only) is no filter, anything else
    is matched exactly, untrimmed."""
    return value if value and value.strip() else None


def _require_operation_id(operation_id: str) -> None:
    # the mod's journal throws ArgumentException on a blank id
    if not operation_id.strip():
        message = argument_exception("An operation id is required.", "operationId")
        raise InvalidArgumentError(message)


_TRACKED = (
    "An operation: the mod's OperationEnvelope (OperationId, CapabilityId, Status: 1 running, "
    "2 completed, 3 failed, 4 timed out, 5 cancelled, Success, StartedAtUtc, CompletedAtUtc, "
    "DurationMs, Result, HasResult: a result is retained, ResultWasTruncated, Warnings, "
    "Error {Code, Message, ExceptionType, Details}, Metadata {requestedId, providerId, "
    "category, arguments, ...}) and the journal's links (method, parentId, rootId, "
    "argumentsSummary, resultSummary, children)."
)


_PATCHES: Final = {
    # the mod's RimBridgePatches.DescribeStatus: the sim patches nothing, so nothing failed
    "applied": True,
    "essentialApplied": True,
    "optionalPatchAttemptCount": 0,
    "optionalPatchSuccessCount": 0,
    "optionalPatchFailureCount": 0,
    "optionalPatchFailures": [],
    "lateInputPatches": {
        "applied": True,
        "attemptCount": 0,
        "successCount": 0,
        "failureCount": 0,
        "failures": [],
    },
}


class DiagnosticsTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimbridge/ping",
        "Check that the bridge answers. It never waits for the game's main loop, so it answers "
        "while the game hangs.",
        title="Ping",
        result_description="{message: 'pong', timestamp (ISO-8601 UTC, e.g. "
        "2026-03-17T12:00:00.123Z), pong, agentId, phase, stalled}; no success field, as in "
        "the mod.",
    )
    async def ping(self) -> dict[str, Any]:
        host = self.host
        return {
            "message": "pong",
            "timestamp": iso_utc(time.time()),
            "pong": True,
            "agentId": host.config.agent_id,
            "phase": host.phase.value,
            "stalled": host.stalled,
        }

    @tool(
        "rimworld/get_game_info",
        "Summarize the current game: whether one is loaded, its tick, map count and selected "
        "colonists, plus the simulation's phase, map, date and speed.",
        title="Get game info",
        result_description="{status: 'game_loaded' | 'no_game', ticksGame, mapCount, "
        "selectedPawns, phase, mapId, mapWidth, mapHeight, date, timeSpeed, paused, "
        "colonistCount, thingCount, seed, longEvent}.",
    )
    @call_spec(world=True, quick=True)
    def get_game_info(self) -> dict[str, Any]:
        # World.get_game_info()'s fields, without building its view first (agents poll this)
        world = self.host.world
        event = world.long_event
        long_event = None if event is None else event.label
        phase = str(world.phase)  # its value (a StrEnum), a fifth of the cost of .value
        game = world.game
        if game is None:
            return {
                "status": "no_game",
                "message": NO_GAME_MESSAGE,
                "phase": phase,
                "mapId": None,
                "mapWidth": None,
                "mapHeight": None,
                "tick": None,
                "date": None,
                "timeSpeed": None,
                "paused": None,
                "colonistCount": 0,
                "thingCount": 0,
                "seed": None,
                "longEvent": long_event,
            }
        tick = game.tick
        speed = game.time_speed
        game_map = game.map
        return {
            "status": "game_loaded",
            "ticksGame": tick,
            "mapCount": 1,
            "selectedPawns": [p.nickname for p in world.selected_pawns()],
            "phase": phase,
            "mapId": game_map.id,
            "mapWidth": game_map.width,
            "mapHeight": game_map.height,
            "tick": tick,
            "date": game_date(tick),
            "timeSpeed": speed.label,
            "paused": world.is_paused(),
            "colonistCount": len(game.pawns),
            "thingCount": len(game.things),
            "seed": game.seed,
            "longEvent": long_event,
        }

    @tool(
        "rimbridge/get_bridge_status",
        "Describe the bridge without changing anything: the game's state and readiness, "
        "versions, journal and log-ring sizes and cursors, the attention policy and item, and "
        "the main loop. The game state is read only if the main loop answers quickly.",
        title="Get bridge status",
        result_description="{success, state (null while the main loop is busy), version, sdk "
        "{sdkAssembly, sdkVersion, sdkInformationalVersion, companionCount, "
        "companionWarningCount, companionErrorCount}, companions, patches "
        "{applied, essentialApplied, optionalPatch...Count, optionalPatchFailures, "
        "lateInputPatches}, recentOperationCount, operationJournalCapacity (1000), "
        "retainedResultCount, retainedResultCapacity, recentEventCount, eventJournalCapacity "
        "(5000), recentLogCount, logJournalCapacity, "
        "latestOperationEventSequence, latestLogSequence, agentId, app, policy, attention, "
        "logs, operations, mainLoop, scenario, testTools, uptimeSeconds}.",
    )
    async def get_bridge_status(self) -> dict[str, Any]:
        host = self.host
        state: Any = None
        state_error = None
        try:
            state = await host.on_main_thread(host.world.state_snapshot, timeout=0.25)
        except MainLoopTimeout as error:
            state_error = str(error)
        journal = host.journal.stats()
        ring = host.ring.stats()
        item = host.attention.current()
        return {
            "success": True,
            "state": state,
            "stateUnavailableReason": state_error,
            # the mod ships its SDK and builds it with the mod's own version
            "version": {
                "bridgeVersion": MOD_VERSION,
                "bridgeAssemblyVersion": host.app_info()["version"],
                "sdkVersion": APP_VERSION,
                "sdkInformationalVersion": MOD_VERSION,
            },
            "sdk": {
                "sdkAssembly": "RimBridgeServer.Sdk",
                "sdkVersion": APP_VERSION,
                "sdkInformationalVersion": MOD_VERSION,
                "companionCount": 0,
                "companionWarningCount": 0,
                "companionErrorCount": 0,
            },
            "companions": {"totalCount": 0, "registeredToolCount": 0, "diagnostics": []},
            "patches": _PATCHES,
            "recentOperationCount": journal.size,
            "trackedOperationCount": journal.size,
            "operationJournalCapacity": journal.capacity,
            "retainedResultCount": journal.retained_results,
            "retainedResultCapacity": journal.result_capacity,
            "recentEventCount": journal.events,
            "eventJournalCapacity": journal.event_capacity,
            "recentLogCount": ring.size,
            "logJournalCapacity": ring.capacity,
            "latestOperationEventSequence": host.journal.latest_event_sequence,
            "latestLogSequence": host.ring.latest_sequence or 0,
            "agentId": host.config.agent_id,
            "app": host.app_info(),
            "phase": host.phase.value,
            "mapId": host.map_id,
            "policy": host.policy_name,
            "attention": None if item is None else item.to_wire(),
            "logs": {**ring.to_wire(), "latestSequence": host.ring.latest_sequence},
            "operations": {
                "capacity": journal.capacity,
                "size": journal.size,
                "running": journal.running,
                "started": journal.started,
                "evicted": journal.evicted,
            },
            "mainLoop": {
                "tickRate": host.config.tick_rate,
                "frames": host.frames,
                "stalled": host.stalled,
            },
            "scenario": host.scenario_name,
            "testTools": host.config.enable_test_tools,
            "uptimeSeconds": round(time.monotonic() - host.started_at, 3),
        }

    @tool(
        "rimbridge/list_capabilities",
        "List the bridge's capabilities (one per registered tool) so an agent discovers the "
        "live surface, filtered by provider, category, source and free text.",
        title="List capabilities",
        result_description="{success, totalCount, returnedCount, truncated, capabilities: "
        "[{id, providerId, category, title, summary, source (Core, Optional, Extension), "
        "executionKind, supportedModes, defaultRequestedMode, emitsEvents, resultType, aliases, "
        "parameters: [{name, parameterType (a .NET type name), description, required, "
        "defaultValue}], tags}]}; limit 0 or less is {success, totalCount: 0, returnedCount: 0, "
        "capabilities: []}.",
    )
    @parameter("limit", "Most capabilities to return (0 or less: none).")
    @parameter("provider_id", "Only this provider (exact).")
    @parameter("category", "Only this category (case ignored), e.g. selection, architect.")
    @parameter("source", "Only this source: core, optional or extension.")
    @parameter("query", "Text to find in ids, aliases, titles, summaries and parameter names.")
    @parameter("include_parameters", "Describe each capability's parameters.")
    async def list_capabilities(
        self,
        limit: int = 200,
        provider_id: str | None = None,
        category: str | None = None,
        source: str | None = None,
        query: str | None = None,
        include_parameters: bool = True,
    ) -> dict[str, Any]:
        if limit <= 0:  # the mod answers at once, without counting
            return {"success": True, "totalCount": 0, "returnedCount": 0, "capabilities": []}
        found = [
            t
            for t in sorted(self.host.tool_list(), key=lambda t: capability_id(t.name))
            if matches(
                describe_capability(self.host, t, True), provider_id, category, source, query
            )
        ]
        returned = [describe_capability(self.host, t, include_parameters) for t in found[:limit]]
        return {
            "success": True,
            "totalCount": len(found),
            "returnedCount": len(returned),
            "truncated": len(returned) < len(found),
            "capabilities": returned,
        }

    @tool(
        "rimbridge/get_capability",
        "Describe one capability, by its id or by a tool name (an alias).",
        title="Get capability",
        result_description="{success, requestedId, capability}; an unknown id is a payload "
        "failure.",
    )
    @parameter(
        "capability_id_or_alias", "A capability id or a tool name such as rimworld/select_pawn."
    )
    async def get_capability(self, capability_id_or_alias: str) -> dict[str, Any]:
        blank = not capability_id_or_alias.strip()
        found = None if blank else find_capability(self.host, capability_id_or_alias)
        if found is None:  # the registry's refusals, answered as the mod answers them
            return {
                "success": False,
                "message": argument_exception("A capability id or alias is required.", "idOrAlias")
                if blank
                else f"Capability '{capability_id_or_alias}' is not registered.",
                "requestedId": capability_id_or_alias,
                "code": InvalidArgumentError.code if blank else UnknownIdError.code,
            }
        return {"success": True, "requestedId": capability_id_or_alias, "capability": found}

    @tool(
        "rimbridge/get_operation",
        "Show one operation of the journal (its status, error, parent, root and children, "
        "events and any retained result). A tools/call's operation id is its GABP request id.",
        title="Get operation",
        result_description="{success, trackedOperation: {OperationId, CapabilityId, Status, "
        "Success, StartedAtUtc, CompletedAtUtc, DurationMs, Result (the retained result), "
        "HasResult, ResultWasTruncated, Warnings, Error, Metadata, method, parentId, rootId, "
        "argumentsSummary, resultSummary, children, eventsDropped, events (its start and "
        "outcome as list_operation_events shows them, and its child_started, progress and log "
        "events)}}; an unknown id is a payload failure, a blank one an invalid_argument error.",
    )
    @parameter("operation_id", "The operation's id.")
    async def get_operation(self, operation_id: str) -> dict[str, Any]:
        _require_operation_id(operation_id)
        record = self.host.journal.get(operation_id)
        if record is None:
            missing = f"Operation '{operation_id}' was not found in the journal."
            return payload_failure(missing, UnknownIdError.code)
        tracked = self.host.journal.envelope(record, include_result=True)
        tracked["events"] = [event.to_wire() for event in record.events]
        return {"success": True, "trackedOperation": tracked}

    @tool(
        "rimbridge/list_operations",
        "List recent operations (tool calls, script steps, loads), the most recently started "
        "or finished first (a script that ended is listed before its steps).",
        title="List operations",
        result_description="{operations: [" + _TRACKED + " Result is null unless includeResults]}.",
    )
    @parameter("limit", "Most operations to return.")
    @parameter("include_results", "Include each operation's retained result (bounded).")
    async def list_operations(
        self, limit: int = 20, include_results: bool = False
    ) -> dict[str, Any]:
        journal = self.host.journal
        records: list[OperationRecord] = journal.list(limit=limit) if limit > 0 else []
        return {
            "operations": [journal.envelope(r, include_result=include_results) for r in records],
        }

    @tool(
        "rimbridge/list_operation_events",
        "List operation lifecycle events across the journal, newest first: after a cursor, "
        "of one type (operation.started, operation.completed, operation.failed, "
        "operation.cancelled, operation.timed_out) or one operation. Events of diagnostics "
        "tools (the waits for the game included) are left out unless asked for.",
        title="List operation events",
        result_description="{events: [{Sequence, EventId, EventType, OperationId, CapabilityId, "
        "Status, Success (false on operation.started), TimestampUtc, ErrorCode, ErrorMessage, "
        "HasResult, ResultWasTruncated, WarningCount, Metadata, index, kind, message}]}; a page "
        "holds limit events while matches remain.",
    )
    @parameter("limit", "Most events to return.")
    @parameter("event_type", "Only this event type, e.g. operation.failed.")
    @parameter("after_sequence", "Only events with a higher sequence.")
    @parameter("operation_id", "Only this operation's events.")
    @parameter(
        "include_diagnostics", "Also list events of diagnostics tools (status, logs, waits)."
    )
    async def list_operation_events(
        self,
        limit: int = 50,
        event_type: str | None = None,
        after_sequence: int = 0,
        operation_id: str | None = None,
        include_diagnostics: bool = False,
    ) -> dict[str, Any]:
        journal = self.host.journal

        def keep(event: OperationEvent) -> bool:
            return not is_diagnostics(event.method)

        events = journal.stream(
            after_sequence=after_sequence,
            limit=limit,
            event_type=_filter(event_type),
            operation_id=_filter(operation_id),
            keep=None if include_diagnostics else keep,
        )
        truncated: dict[str, bool] = {}
        for event in events:
            if event.has_result and event.operation_id not in truncated:
                truncated[event.operation_id] = journal.result_truncated(event.operation_id)
        return {
            "events": [
                event.to_wire(result_truncated=event.has_result and truncated[event.operation_id])
                for event in events
            ],
        }

    @tool(
        "rimbridge/list_logs",
        "Read the game's log ring, newest first, filtered by minimum level, operation, root "
        "operation and capability. With afterSequence > 0 the page holds the oldest matches "
        "after that cursor (hasMore and nextCursor page on); an attention item's "
        "diagnosticsCursor used as afterSequence starts at the line that raised it.",
        title="List logs",
        result_description="{logs: [{Sequence, EntryId, Level, Message, StackTrace, Source, "
        "OperationId, CapabilityId, ParentOperationId, RootOperationId, ScriptStatementId, "
        "ScriptStepId, ScriptCall, FirstSeenAtUtc, TimestampUtc, RepeatCount, firstSequence, "
        "tick}], nextCursor, hasMore, truncated, oldestSequence, latestSequence}.",
    )
    @parameter("limit", "Most entries to return.")
    @parameter(
        "minimum_level",
        "Least severe level: info, warning, error or fatal (debug too); blank for every level.",
    )
    @parameter("after_sequence", "Only entries with a higher sequence (0: the newest).")
    @parameter("operation_id", "Only lines of this operation.")
    @parameter(
        "root_operation_id",
        "Only lines whose root operation is this one (a tools/call "
        "with its script steps and follow-up work).",
    )
    @parameter("capability_id", "Only lines written while this tool ran.")
    async def list_logs(
        self,
        limit: int = 50,
        minimum_level: str = "info",
        after_sequence: int = 0,
        operation_id: str | None = None,
        root_operation_id: str | None = None,
        capability_id: str | None = None,
    ) -> dict[str, Any]:
        page = self.host.ring.query(
            after_sequence=after_sequence,
            minimum_level=minimum_level,
            limit=limit,
            operation_id=_filter(operation_id),
            root_operation_id=_filter(root_operation_id),
            capability_id=_filter(capability_id),
        )
        return page.to_wire()

    @tool(
        "rimbridge/wait_for_operation",
        "Wait until an operation (a load started by rimworld/load_game, a script) ends, up to "
        "a timeout. It reads only the journal, so it answers while the game hangs.",
        title="Wait for operation",
        result_description="{success, satisfied, message, elapsedMs, attempts, "
        "probeFailureCount, lastProbeError, trackedOperation (with its retained result, as "
        "get_operation shows it)}; a blank operationId or a negative timeoutMs or "
        "pollIntervalMs is an invalid_argument error.",
    )
    @parameter("operation_id", "The operation's id.")
    @parameter("timeout_ms", "How long to wait, in milliseconds (0 or more).")
    @parameter("poll_interval_ms", "How often to look, in milliseconds (0 or more).")
    async def wait_for_operation(
        self, operation_id: str, timeout_ms: int = 10000, poll_interval_ms: int = 50
    ) -> dict[str, Any]:
        # the mod's waiter throws on a negative timeout or poll interval, and its first probe
        # on a blank id
        refuse_negative_wait(timeout_ms, poll_interval_ms)
        _require_operation_id(operation_id)
        host = self.host
        started = time.monotonic()
        attempts = 0
        while True:  # the mod's waiter: a last probe after the interval that outlasts the timeout
            attempts += 1
            record = host.journal.get(operation_id)
            if record is not None and not record.running:
                break
            if (time.monotonic() - started) * 1000 >= timeout_ms:
                break
            await poll_pause(host, poll_interval_ms)
        done = False
        if record is not None and not record.running:
            done = True
            # the mod formats the enum, so its member name: Completed, Failed, TimedOut, ...
            message = f"Operation '{operation_id}' reached status {STATUS_NAMES[record.status]}."
        else:  # the mod's text, whether the operation never appeared or is still running
            message = f"Timed out waiting for operation '{operation_id}'."
        return {
            "success": done,
            "satisfied": done,
            "message": message,
            "elapsedMs": whole_ms(time.monotonic() - started),
            "attempts": attempts,
            "probeFailureCount": 0,
            "lastProbeError": None,
            "trackedOperation": (
                None if record is None else host.journal.envelope(record, include_result=True)
            ),
            **({} if done else {"code": TIMED_OUT}),
        }
