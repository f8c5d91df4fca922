"""The journal's tools as the mod answers them: list_operations' order, the journal-wide event
stream of list_operation_events (types, records, default filter), wait_for_operation and the
journal's capacities in get_bridge_status."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gabp import RemoteError
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.contract import load_contract
from rimbridge_sim.tools.diagnostics import is_diagnostics
from rimbridge_sim.world.errors import argument_out_of_range

MOD_EVENT_TYPES = {
    "operation.started",
    "operation.completed",
    "operation.failed",
    "operation.cancelled",
    "operation.timed_out",
    "operation.updated",
}
ONE_STEP = json.dumps({"name": "n", "steps": [{"id": "a", "call": "rimworld/list_colonists"}]})


async def _run_one_step_script(sim: Any) -> tuple[str, str]:
    """A script with one step: (the script's operation id, the step's)."""
    script_id = "aaaaaaaa-1111-4222-8333-444444444444"
    await sim.call("rimbridge/run_script", request_id=script_id, scriptJson=ONE_STEP)
    (step_id,) = sim.bridge.journal.get(script_id).children
    return script_id, step_id


async def test_list_operations_puts_a_script_that_finished_before_its_steps(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        script_id, step_id = await _run_one_step_script(sim)
        listed = await sim.call("rimbridge/list_operations", limit=3)
        assert [(o["OperationId"], o["Status"]) for o in listed["operations"]] == [
            (listed["operation"]["OperationId"], 1),  # this call, started last: Running
            (script_id, 2),  # finished after its step: Completed
            (step_id, 2),
        ]


async def test_the_event_stream_holds_only_starts_and_outcomes_and_a_start_is_no_success(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        script_id, step_id = await _run_one_step_script(sim)
        page = await sim.call("rimbridge/list_operation_events", limit=50)
        events = [
            (e["Sequence"], e["EventType"], e["OperationId"], e["Success"]) for e in page["events"]
        ]
        assert events == [
            (4, "operation.completed", script_id, True),
            (3, "operation.completed", step_id, True),
            (2, "operation.started", step_id, False),
            (1, "operation.started", script_id, False),
        ]
        # the script's own event list still shows its step starting (get_operation, and the
        # context gabs assembles from it, read that list)
        found = await sim.call("rimbridge/get_operation", operationId=script_id)
        kinds = [(e["kind"], e["Sequence"]) for e in found["trackedOperation"]["events"]]
        assert kinds == [("started", 1), ("child_started", None), ("completed", 4)]
        status = await sim.call("rimbridge/get_bridge_status")
        assert status["latestOperationEventSequence"] >= 4


async def test_every_event_carries_the_mods_record_fields(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        failing = "bbbbbbbb-1111-4222-8333-444444444444"
        with pytest.raises(RemoteError):
            await sim.call("rimworld/select_pawn", request_id=failing)
        fine = "cccccccc-1111-4222-8333-444444444444"
        await sim.call("rimworld/list_colonists", request_id=fine)
        page = await sim.call("rimbridge/list_operation_events", limit=10)
        events = {(e["OperationId"], e["EventType"]): e for e in page["events"]}
        failed = events[(failing, "operation.failed")]
        # the mod's OperationEventRecord (declaration order, Status 3: Failed), then the sim's
        assert list(failed) == [
            "Sequence",
            "EventId",
            "EventType",
            "OperationId",
            "CapabilityId",
            "Status",
            "Success",
            "TimestampUtc",
            "ErrorCode",
            "ErrorMessage",
            "HasResult",
            "ResultWasTruncated",
            "WarningCount",
            "Metadata",
            "index",
            "kind",
            "message",
        ]
        assert (failed["Status"], failed["Success"]) == (3, False)
        assert failed["Metadata"] == {
            "requestedId": "rimworld/select_pawn",
            "providerId": "rimbridge.core/selection",
            "category": "selection",
            # as the mod's tool method passes them: every parameter, defaults included
            "arguments": {"pawnName": None, "pawnId": None, "append": False},
        }
        assert (failed["ErrorCode"], failed["ErrorMessage"], failed["HasResult"]) == (
            "invalid_argument",
            "InvalidArgumentError: A player-controlled colonist name or id is required.",
            False,
        )
        started = events[(fine, "operation.started")]
        completed = events[(fine, "operation.completed")]
        assert (started["ErrorCode"], started["ErrorMessage"], started["HasResult"]) == (
            "",
            "",
            False,
        )
        assert (completed["HasResult"], completed["ResultWasTruncated"]) == (True, False)
        assert completed["WarningCount"] == 0
        assert (started["Status"], completed["Status"]) == (1, 2)
        ids = [e["EventId"] for e in page["events"]]
        assert all(re.fullmatch(r"evt_[0-9a-f]{32}", i) for i in ids)
        assert len(set(ids)) == len(ids)


async def test_a_cut_result_shows_on_its_completion_event(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        big = "dddddddd-1111-4222-8333-444444444444"
        await sim.call("rimbridge/list_capabilities", request_id=big)  # > 16,000 characters
        page = await sim.call(
            "rimbridge/list_operation_events", operationId=big, includeDiagnostics=True
        )
        assert [
            (e["EventType"], e["HasResult"], e["ResultWasTruncated"]) for e in page["events"]
        ] == [
            ("operation.completed", True, True),
            ("operation.started", False, False),
        ]


async def test_the_default_filter_hides_the_mods_diagnostics_module_waits_included(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/list_colonists")
        await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=1000)
        await sim.call("rimbridge/wait_for_long_event_idle", timeoutMs=1000)
        await sim.call("rimbridge/ping")
        await sim.call("rimbridge/get_bridge_status")
        shown = await sim.call("rimbridge/list_operation_events")
        colonists = "rimbridge.core/selection/list-colonists"
        assert [e["CapabilityId"] for e in shown["events"]] == [colonists] * 2
        everything = await sim.call("rimbridge/list_operation_events", includeDiagnostics=True)
        methods = {e["CapabilityId"] for e in everything["events"]}
        waits = {"wait-for-game-loaded", "wait-for-long-event-idle"}
        assert {f"rimbridge.core/diagnostics/{wait}" for wait in waits} <= methods


def test_the_diagnostics_module_is_the_contracts_diagnostics_category_and_the_two_waits() -> None:
    diagnostics = {t.name for t in load_contract() if t.category == "diagnostics"}
    waits = {"rimbridge/wait_for_game_loaded", "rimbridge/wait_for_long_event_idle"}
    assert {t.name for t in load_contract() if is_diagnostics(t.name)} == diagnostics | waits


async def test_a_page_of_events_is_full_however_many_diagnostics_events_lie_between(
    open_sim: Any,
) -> None:
    # the mod filters after taking limit*4 events, so its page can come back short; the sim
    # keeps filling the page (a documented difference)
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/list_colonists")
        for _ in range(6):
            await sim.call("rimbridge/ping")
        page = await sim.call(
            "rimbridge/list_operation_events", limit=1, eventType="operation.started"
        )
        colonists = "rimbridge.core/selection/list-colonists"
        assert [e["CapabilityId"] for e in page["events"]] == [colonists]


async def test_wait_for_operation_tracks_the_operation_with_its_retained_result(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "eeeeeeee-1111-4222-8333-444444444444"
        answered = await sim.call("rimworld/list_colonists", request_id=request_id)
        del answered["operation"]
        waited = await sim.call("rimbridge/wait_for_operation", operationId=request_id)
        tracked = waited["trackedOperation"]
        assert (waited["satisfied"], tracked["HasResult"], tracked["Result"]) == (
            True,
            True,
            answered,
        )
        assert tracked["ResultWasTruncated"] is False
        assert (tracked["Status"], tracked["Success"]) == (2, True)
        assert tracked["Metadata"]["requestedId"] == "rimworld/list_colonists"
        # the mod formats OperationStatus into the message: its member name
        assert waited["message"] == f"Operation '{request_id}' reached status Completed."


@pytest.mark.parametrize(
    ("argument", "text"),
    [
        # ConditionWaiter's ArgumentOutOfRangeException(nameof(options.TimeoutMs)), as Mono
        # shows it: the timeout is checked first
        ({"timeoutMs": -1, "pollIntervalMs": -5}, argument_out_of_range("TimeoutMs")),
        ({"pollIntervalMs": -5}, argument_out_of_range("PollIntervalMs")),
    ],
)
async def test_wait_for_operation_refuses_a_negative_timeout_or_poll_interval(
    open_sim: Any, argument: dict[str, int], text: str
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "ffffffff-1111-4222-8333-444444444444"
        with pytest.raises(RemoteError) as caught:
            await sim.call(
                "rimbridge/wait_for_operation", request_id=request_id, operationId="x", **argument
            )
        error = caught.value
        assert (error.code, error.message) == (
            -32000,
            f"rimbridge/wait_for_operation failed: {text}",
        )
        assert error.data == {
            "code": "invalid_argument",
            "exception": "InvalidArgumentError",
            "operationId": request_id,
            "tool": "rimbridge/wait_for_operation",
        }


async def test_wait_for_operation_times_out_on_an_unknown_id_with_the_mods_message(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        waited = await sim.call("rimbridge/wait_for_operation", operationId="nope", timeoutMs=0)
        assert (waited["satisfied"], waited["message"], waited["trackedOperation"]) == (
            False,
            "Timed out waiting for operation 'nope'.",
            None,
        )


async def test_the_bridge_status_reports_the_mods_journal_capacities(open_sim: Any) -> None:
    assert BridgeConfig(token="t").journal_capacity == 1000
    async with open_sim(tick_rate=0) as sim:
        await _run_one_step_script(sim)
        status = await sim.call("rimbridge/get_bridge_status")
        assert (
            status["operationJournalCapacity"],
            status["eventJournalCapacity"],
            status["retainedResultCapacity"],
        ) == (1000, 5000, 50)
        # the stream so far: this call's start and the script's two starts and outcomes
        assert status["recentEventCount"] == status["latestOperationEventSequence"] == 5
        assert status["retainedResultCount"] == 2
