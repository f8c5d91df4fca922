"""Attention from the simulated RimBridge: payload failure vs exception, cursors, scripts,
follow-up errors, loads, stalls, dropped connections and scenarios, over real loopback TCP."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from gabp import ConnectionClosed, RemoteError
from lib_gab.testing import bridge_session

TOKEN = "7c1e" * 16
SCRIPT_ID = "5d7e3b9a-1c2f-4e8a-9b6d-0f1e2d3c4b5a"
SCHEDULE_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


async def test_a_payload_failure_completes_its_operation_and_opens_no_attention(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "11111111-2222-4333-8444-555555555555"
        result = await sim.call("rimworld/get_pawn", request_id=request_id, pawnId="Thing_Nobody")
        assert result == {
            "success": False,
            "message": "unknown pawn id Thing_Nobody",
            "code": "unknown_id",
        }
        operation = sim.bridge.journal.get(request_id)
        assert operation is not None and operation.status == "completed"
        assert operation.result_summary == "payload failure: unknown pawn id Thing_Nobody"
        assert await sim.attention() is None
        assert sim.attention_events() == []


async def test_an_exception_fails_the_call_in_band_and_opens_blocking_attention_first(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "22222222-3333-4444-8555-666666666666"
        with pytest.raises(RemoteError) as caught:
            await sim.call(
                "rimworld/spawn_thing", request_id=request_id, defName="Unobtainium", x=1, z=1
            )
        error = caught.value
        assert error.code == -32000
        assert error.message.startswith("rimworld/spawn_thing failed: unknown thing def")
        assert error.data == {
            "code": "invalid_argument",
            "exception": "InvalidArgumentError",
            "operationId": request_id,
            "tool": "rimworld/spawn_thing",
        }
        # the exception line and the failed operation: opened, then updated, then the response
        assert sim.timeline == [
            "event:attention/opened",
            "event:attention/updated",
            "response:rimworld/spawn_thing",
        ]
        item = await sim.attention()
        assert (item["blocking"], item["severity"], item["stateInvalidated"]) == (
            True,
            "error",
            False,
        )
        assert (item["causalOperationId"], item["causalMethod"]) == (
            request_id,
            "rimworld/spawn_thing",
        )
        operation = sim.bridge.journal.get(request_id)
        assert operation is not None and operation.status == "failed"

        page = await sim.call("rimbridge/list_logs", afterSequence=item["diagnosticsCursor"])
        first = page["entries"][0]
        assert (first["level"], first["source"], first["operationId"]) == (
            "error",
            "tool",
            request_id,
        )
        assert first["message"].startswith(
            "Exception in rimworld/spawn_thing: InvalidArgumentError: unknown thing def"
        )


async def test_list_logs_from_the_diagnostics_cursor_starts_at_the_trigger_line(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="info", message="routine", count=5)
        injected = await sim.call("sim/inject_log", level="error", message="Boom in tick")
        item = await sim.attention()
        page = await sim.call("rimbridge/list_logs", afterSequence=item["diagnosticsCursor"])
        assert page["entries"][0]["message"] == "Boom in tick"
        assert page["entries"][0]["sequence"] == injected["firstSequence"]


async def test_an_error_logged_inside_a_successful_call_is_tied_to_it_and_sent_first(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        request_id = "33333333-4444-4555-8666-777777777777"
        result = await sim.call(
            "sim/inject_log", request_id=request_id, level="error", message="Oops", count=3
        )
        assert result["success"] is True
        assert sim.timeline[0] == "event:attention/opened"
        assert sim.timeline[-1] == "response:sim/inject_log"
        item = await sim.attention()
        assert (item["causalOperationId"], item["totalUrgentEntries"]) == (request_id, 3)
        assert item["sample"] == [
            {"level": "error", "message": "Oops", "repeatCount": 3, "latestSequence": 3}
        ]


async def test_a_script_whose_second_step_throws_fails_that_child_and_stops(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.call(
            "rimbridge/run_script",
            request_id=SCRIPT_ID,
            steps=[
                {"tool": "rimworld/set_time_speed", "arguments": {"speed": 2}},
                {
                    "tool": "rimworld/spawn_thing",
                    "arguments": {"defName": "Unobtainium", "x": 1, "z": 1},
                },
                {"tool": "rimworld/pause_game", "arguments": {}},
            ],
        )
        assert (result["success"], result["completedSteps"], result["code"]) == (
            False,
            2,
            "step_failed",
        )
        first, second = result["steps"]
        assert (first["success"], first["result"]["timeSpeed"]) == (True, 2)
        assert second["success"] is False
        assert second["error"]["data"]["code"] == "invalid_argument"
        child = second["operationId"]
        assert child == second["error"]["data"]["operationId"]

        journal = sim.bridge.journal
        script = journal.get(SCRIPT_ID)
        failed = journal.get(child)
        assert script is not None and failed is not None
        assert script.status == "completed"
        assert (failed.status, failed.parent_id, failed.root_id, failed.method) == (
            "failed",
            SCRIPT_ID,
            SCRIPT_ID,
            "rimworld/spawn_thing",
        )
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == 2  # step 3 never ran

        item = await sim.attention()
        assert (item["blocking"], item["causalOperationId"], item["causalMethod"]) == (
            True,
            SCRIPT_ID,
            "rimbridge/run_script",
        )
        assert "rimworld/spawn_thing failed" in " ".join(s["message"] for s in item["sample"])

        logs = await sim.call("rimbridge/list_logs", afterSequence=-1, operationId=SCRIPT_ID)
        assert [(e["operationId"], e["rootOperationId"], e["source"]) for e in logs["entries"]] == [
            (child, SCRIPT_ID, "tool")
        ]


async def test_a_script_with_continue_on_error_runs_every_step(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.call(
            "rimbridge/run_script",
            steps=[
                {"tool": "rimworld/get_pawn", "arguments": {"pawnId": "Thing_Nobody"}},
                {"tool": "rimbridge/ping"},
            ],
            continueOnError=True,
        )
        assert [s["success"] for s in result["steps"]] == [False, True]
        assert result["steps"][0]["result"]["code"] == "unknown_id"
        assert await sim.attention() is None


async def test_a_script_with_an_invalid_step_is_refused_before_any_step_runs(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        with pytest.raises(RemoteError) as caught:
            await sim.call(
                "rimbridge/run_script",
                steps=[
                    {"tool": "rimworld/set_time_speed", "arguments": {"speed": 2}},
                    {"tool": "rimworld/set_time_speed", "arguments": {"speed": 9}},
                    {"tool": "rimworld/no_such_tool"},
                ],
            )
        assert caught.value.code == -32602
        paths = [e["path"] for e in caught.value.data["errors"]]
        assert paths == ["$.steps[1].arguments.speed", "$.steps[2].tool"]
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == 0
        assert await sim.attention() is None


async def test_a_scheduled_error_after_the_call_returned_names_that_call_as_its_cause(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        scheduled = await sim.call(
            "sim/schedule_error", request_id=SCHEDULE_ID, message="Late failure", afterTicks=2
        )
        assert (scheduled["dueTick"], scheduled["operationId"]) == (2, SCHEDULE_ID)
        assert await sim.attention() is None
        await sim.call("rimworld/step_game_ticks", ticks=5)
        item = await sim.attention()
        assert (item["causalOperationId"], item["causalMethod"], item["blocking"]) == (
            SCHEDULE_ID,
            "sim/schedule_error",
            True,
        )
        page = await sim.call("rimbridge/list_logs", afterSequence=item["diagnosticsCursor"])
        assert (page["entries"][0]["message"], page["entries"][0]["tick"]) == ("Late failure", 2)


@pytest.mark.parametrize("policy", ["recommended", "faithful"])
async def test_a_load_then_a_stale_pawn_id(open_sim: Any, policy: str) -> None:
    async with open_sim(policy=policy) as sim:
        old = (await sim.call("rimworld/list_colonists"))["colonists"][0]["id"]
        await sim.call("rimworld/save_game", name="base")
        loading = await sim.call("rimworld/load_game", name="base")
        await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=5000)
        stale = await sim.call("rimworld/get_pawn", pawnId=old)
        assert (stale["success"], stale["code"]) == (False, "stale_id")
        item = await sim.attention()
        if policy == "faithful":
            assert (
                item is None
            )  # the real mod: loads are not attention, lookups fail in the payload
            return
        assert (item["stateInvalidated"], item["blocking"], item["severity"]) == (
            True,
            False,
            "info",
        )
        root = sim.bridge.journal.root_of(loading["operationId"])
        assert item["causalOperationId"] == root
        assert [s["message"] for s in item["sample"]][:2] == [
            f"Map replaced: Map_1 -> {(await sim.call('rimworld/get_game_info'))['mapId']}",
            "Game loaded: base",
        ]


@pytest.mark.parametrize("policy", ["recommended", "faithful"])
async def test_unloading_the_map_invalidates_state(open_sim: Any, policy: str) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True, policy=policy) as sim:
        removed = await sim.call("sim/unload_map")
        assert (removed["removedMap"], removed["phase"]) == ("Map_1", "main_menu")
        item = await sim.attention()
        if policy == "faithful":
            assert item is None
        else:
            assert (item["blocking"], item["stateInvalidated"]) == (True, True)
            assert item["sample"][0]["message"] == "Map removed: Map_1"
        with pytest.raises(RemoteError) as caught:
            await sim.call("rimworld/list_colonists")
        assert caught.value.data["code"] == "no_game"
        item = await sim.attention()  # faithful: every failed operation invalidates state
        assert (item["blocking"], item["stateInvalidated"]) == (True, True)


async def test_going_to_the_main_menu_is_advisory_and_state_invalidating(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/go_to_main_menu")
        item = await sim.attention()
        assert (item["blocking"], item["stateInvalidated"]) == (False, True)
        assert item["sample"][0]["message"] == "Returned to main menu"


async def test_a_stalled_main_loop_delays_game_calls_but_not_diagnostics(open_sim: Any) -> None:
    async with open_sim(enable_test_tools=True) as sim:
        await sim.call("sim/stall", ms=400)
        started = time.monotonic()
        ping = await sim.call("rimbridge/ping")
        assert ping["stalled"] is True
        assert time.monotonic() - started < 0.3
        await sim.call("rimworld/get_game_info")
        assert time.monotonic() - started >= 0.3


async def test_a_game_call_that_waits_too_long_for_the_main_loop_times_out(
    open_sim: Any,
) -> None:
    async with open_sim(enable_test_tools=True, main_loop_timeout=0.1) as sim:
        await sim.call("sim/stall", ms=1000)
        request_id = "44444444-5555-4666-8777-888888888888"
        with pytest.raises(RemoteError) as caught:
            await sim.call("rimworld/get_game_info", request_id=request_id)
        assert caught.value.data["code"] == "main_loop_timeout"
        operation = sim.bridge.journal.get(request_id)
        assert operation is not None and operation.status == "timed_out"
        item = await sim.attention()
        assert (item["blocking"], item["stateInvalidated"]) == (True, True)


async def test_drop_connection_answers_then_closes_and_attention_survives(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="error", message="Still broken")
        opened = await sim.attention()
        assert await sim.call("sim/drop_connection") == {"success": True, "dropping": True}
        assert await sim.conn.wait_closed(timeout=5)
        with pytest.raises(ConnectionClosed):
            await sim.conn.request("tools/call", {"name": "rimbridge/ping"}, timeout=5)
        address = sim.bridge.server.address
        async with bridge_session(address, TOKEN) as again:
            current = await again.request("attention/current", {}, timeout=5)
            assert current["attention"]["attentionId"] == opened["attentionId"]
            assert (await again.request("tools/call", {"name": "rimbridge/ping"}))["pong"]


async def test_the_startup_error_scenario_has_attention_open_before_any_call(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, scenario="startup-error") as sim:
        item = await sim.attention()
        assert item["blocking"] is True
        assert "causalOperationId" not in item
        assert item["sample"][0]["message"].startswith("Exception while loading mod settings")


async def test_the_spam_scenario_coalesces_into_one_item(open_sim: Any) -> None:
    async with open_sim(scenario="spam", tick_rate=600.0) as sim:
        with anyio.fail_after(5):
            while sim.bridge.ring.stats().lines_by_level["error"] < 20:  # noqa: ASYNC110
                await anyio.sleep(0.01)
        item = await sim.attention()
        assert item["totalUrgentEntries"] >= 20
        assert len(item["sample"]) == 1
        assert (
            item["sample"][0]["message"] == "NullReferenceException in ColonistBar.ColonistBarOnGUI"
        )


async def test_calls_accept_parameters_as_well_as_arguments(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.conn.request(
            "tools/call", {"name": "rimworld/set_time_speed", "parameters": {"speed": 4}}
        )
        assert result["timeSpeed"] == 4
