"""Attention from the simulated RimBridge: payload failure vs exception, cursors, scripts,
follow-up errors, loads, stalls, dropped connections and scenarios, over real loopback TCP."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import anyio
import pytest

from gabp import ConnectionClosed, RemoteError
from lib_gab.testing import bridge_session
from rimbridge_sim.calls import call_spec
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.integration import RimBridge

TOKEN = "7c1e" * 16
SCRIPT_ID = "5d7e3b9a-1c2f-4e8a-9b6d-0f1e2d3c4b5a"
SCHEDULE_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


async def test_a_payload_failure_completes_its_operation_and_opens_no_attention(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "11111111-2222-4333-8444-555555555555"
        result = await sim.call(
            "rimworld/select_pawn", request_id=request_id, pawnId="Thing_Nobody"
        )
        envelope = result.pop("operation")
        assert result == {
            "success": False,
            "message": "Could not find player-controlled colonist id 'Thing_Nobody'.",
            "code": "unknown_id",
        }
        assert (envelope["OperationId"], envelope["Status"], envelope["Success"]) == (
            request_id,
            2,  # OperationStatus.Completed
            True,
        )
        assert envelope["HasResult"] is True  # the mod's envelope of a call that returned one
        assert envelope["Result"] is None  # WithoutResult()
        operation = sim.bridge.journal.get(request_id)
        assert operation is not None and operation.status == "completed"
        assert (
            operation.result_summary
            == "payload failure: Could not find player-controlled colonist id 'Thing_Nobody'."
        )
        # the arguments as the caller sent them: wire names, defaults filled in
        assert json.loads(operation.arguments_summary) == {
            "append": False,
            "pawnId": "Thing_Nobody",
            "pawnName": None,
        }
        assert await sim.attention() is None
        assert sim.attention_events() == []


async def test_summaries_are_compact_json_with_sorted_keys_non_ascii_kept_and_cut_at_200(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "21111111-2222-4333-8444-555555555555"
        await sim.call("rimworld/select_pawn", request_id=request_id, pawnId="Thing_Čapek")
        operation = sim.bridge.journal.get(request_id)
        assert operation is not None
        assert operation.arguments_summary == (
            '{"append":false,"pawnId":"Thing_Čapek","pawnName":null}'
        )

        request_id = "31111111-2222-4333-8444-555555555555"
        result = await sim.call("rimworld/get_game_info", request_id=request_id)
        del result["operation"]
        whole = json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert len(whole) > 200
        found = await sim.call("rimbridge/get_operation", operationId=request_id)
        assert found["trackedOperation"]["resultSummary"] == whole[:199] + "…"


async def test_a_calls_answer_carries_the_mods_envelope_and_the_journal_the_rest(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "51111111-2222-4333-8444-555555555555"
        answered = await sim.call("rimworld/get_game_info", request_id=request_id)
        envelope = answered.pop("operation")
        # the mod's OperationEnvelope as Newtonsoft writes it: declaration order, PascalCase,
        # the enum as an integer, nulls included; WithoutResult(), with the handler's Metadata
        assert list(envelope) == [
            "OperationId",
            "CapabilityId",
            "Status",
            "Success",
            "StartedAtUtc",
            "CompletedAtUtc",
            "DurationMs",
            "Result",
            "HasResult",
            "ResultWasTruncated",
            "Warnings",
            "Error",
            "Metadata",
        ]
        assert (envelope["OperationId"], envelope["Status"], envelope["Success"]) == (
            request_id,
            2,
            True,
        )
        assert (envelope["Result"], envelope["HasResult"], envelope["Error"]) == (None, True, None)
        assert (envelope["Warnings"], envelope["Metadata"]) == ([], {})
        found = await sim.call("rimbridge/get_operation", operationId=request_id)
        tracked = found["trackedOperation"]
        # the journal's copy: the same envelope with its retained result and the metadata the
        # registry recorded when it started the call
        same = ("Result", "Metadata")
        assert {k: tracked[k] for k in envelope if k not in same} == {
            k: v for k, v in envelope.items() if k not in same
        }
        assert tracked["Metadata"] == {
            "requestedId": "rimworld/get_game_info",
            "providerId": "rimbridge.core/diagnostics",
            "category": "diagnostics",
            "arguments": {},
        }
        # the journal's links, and the result as the tool returned it (as the mod retains it)
        assert (tracked["method"], tracked["parentId"], tracked["rootId"]) == (
            "rimworld/get_game_info",
            None,
            request_id,
        )
        assert tracked["Result"] == answered


async def test_an_exception_fails_the_call_in_band_and_opens_blocking_attention_first(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "22222222-3333-4444-8555-666666666666"
        with pytest.raises(RemoteError) as caught:
            await sim.call("rimworld/select_pawn", request_id=request_id)
        error = caught.value
        assert error.code == -32000
        assert error.message == (
            "rimworld/select_pawn failed: A player-controlled colonist name or id is required."
        )
        assert error.data == {
            "code": "invalid_argument",
            "exception": "InvalidArgumentError",
            "operationId": request_id,
            "tool": "rimworld/select_pawn",
        }
        # the exception line and the failed operation: opened, then updated, then the response
        assert sim.timeline == [
            "event:attention/opened",
            "event:attention/updated",
            "response:rimworld/select_pawn",
        ]
        item = await sim.attention()
        assert (item["blocking"], item["severity"], item["stateInvalidated"]) == (
            True,
            "error",
            False,
        )
        assert (item["causalOperationId"], item["causalMethod"]) == (
            request_id,
            "rimworld/select_pawn",
        )
        operation = sim.bridge.journal.get(request_id)
        assert operation is not None and operation.status == "failed"

        page = await sim.call("rimbridge/list_logs", afterSequence=item["diagnosticsCursor"])
        first = page["logs"][-1]
        assert (first["Level"], first["Source"], first["OperationId"]) == (
            "error",
            "tool",
            request_id,
        )
        assert first["Message"].startswith(
            "Exception in rimworld/select_pawn: InvalidArgumentError: A player-controlled colonist "
            "name or id"
        )
        assert first["CapabilityId"] == "rimbridge.core/selection/select-pawn"


async def test_list_logs_from_the_diagnostics_cursor_starts_at_the_trigger_line(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="info", message="routine", count=5)
        injected = await sim.call("sim/inject_log", level="error", message="Boom in tick")
        item = await sim.attention()
        page = await sim.call("rimbridge/list_logs", afterSequence=item["diagnosticsCursor"])
        assert page["logs"][-1]["Message"] == "Boom in tick"
        assert page["logs"][-1]["Sequence"] == injected["firstSequence"]


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
        # line 1 is the startup line (GABP server running standalone on port N)
        assert item["sample"] == [
            {"level": "error", "message": "Oops", "repeatCount": 3, "latestSequence": 5}
        ]


async def test_a_script_whose_second_step_throws_fails_that_child_and_stops(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        script = {
            "name": "throwing",
            "steps": [
                {"id": "speed", "call": "rimworld/set_time_speed", "arguments": {"speed": "Fast"}},
                {"id": "nobody", "call": "rimworld/select_pawn", "arguments": {}},
                {"id": "pause", "call": "rimworld/pause_game", "arguments": {}},
            ],
        }
        result = await sim.call(
            "rimbridge/run_script", request_id=SCRIPT_ID, scriptJson=json.dumps(script)
        )
        report = result["script"]
        assert (result["success"], report["halted"], report["executedStepCount"]) == (
            False,
            True,
            2,
        )
        first, second = report["steps"]
        assert (first["success"], first["result"]["timeSpeed"]) == (True, "Fast")
        assert (second["success"], second["error"]["Code"]) == (False, "invalid_argument")
        # the mod's halt: the step's index and id, and its error as the script's error
        assert report["haltReason"] == "Step 2 ('nobody') failed."
        assert result["error"] == report["error"] == second["error"]
        assert result["message"] == second["error"]["Message"]
        child = second["operationId"]

        journal = sim.bridge.journal
        parent = journal.get(SCRIPT_ID)
        failed = journal.get(child)
        assert parent is not None and failed is not None
        assert parent.status == "completed"
        assert (failed.status, failed.parent_id, failed.root_id, failed.method) == (
            "failed",
            SCRIPT_ID,
            SCRIPT_ID,
            "rimworld/select_pawn",
        )
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == "Fast"  # no step 3

        item = await sim.attention()
        assert (item["blocking"], item["causalOperationId"], item["causalMethod"]) == (
            True,
            SCRIPT_ID,
            "rimbridge/run_script",
        )
        assert "rimworld/select_pawn failed" in " ".join(s["message"] for s in item["sample"])

        logs = await sim.call("rimbridge/list_logs", rootOperationId=SCRIPT_ID)
        assert [(e["OperationId"], e["RootOperationId"], e["Source"]) for e in logs["logs"]] == [
            (child, SCRIPT_ID, "tool")
        ]


async def test_a_script_with_continue_on_error_runs_every_step(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        script = {
            "continueOnError": True,
            "steps": [
                # a payload failure (unknown_id) completes its step
                {"call": "rimworld/select_pawn", "arguments": {"pawnId": "Thing_Nobody"}},
                # arguments the schema refuses fail the step; the script goes on
                {"call": "rimworld/set_time_speed", "arguments": {"speed": 9}},
                {"call": "rimbridge/ping"},
            ],
        }
        result = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        report = result["script"]
        steps = report["steps"]
        assert [s["success"] for s in steps] == [True, False, True]
        assert (steps[0]["result"]["success"], steps[0]["result"]["code"]) == (False, "unknown_id")
        assert steps[1]["error"]["Code"] == "tool.invalid_arguments"
        assert (result["success"], report["halted"], report["haltReason"]) == (False, False, "")
        assert (report["succeededStepCount"], report["failedStepCount"]) == (2, 1)
        assert result["error"] == steps[1]["error"]
        assert result["message"] == steps[1]["error"]["Message"]
        assert await sim.attention() is None


async def test_a_script_step_with_bad_arguments_fails_when_reached_and_opens_nothing(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        script = {
            "steps": [
                {"call": "rimworld/set_time_speed", "arguments": {"speed": "Fast"}},
                {"call": "rimworld/set_time_speed", "arguments": {"speed": 9}},
                {"call": "rimworld/pause_game"},
            ]
        }
        result = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        steps = result["script"]["steps"]
        assert [s["success"] for s in steps] == [True, False]
        assert steps[1]["error"]["Code"] == "tool.invalid_arguments"
        assert "$.speed" in steps[1]["error"]["Message"]
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == "Fast"
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
        assert (page["logs"][-1]["Message"], page["logs"][-1]["tick"]) == ("Late failure", 2)


@pytest.mark.parametrize("policy", ["recommended", "faithful"])
async def test_a_load_then_a_stale_pawn_id(open_sim: Any, policy: str) -> None:
    async with open_sim(policy=policy) as sim:
        old = (await sim.call("rimworld/list_colonists"))["colonists"][0]["pawnId"]
        await sim.call("rimworld/save_game", saveName="base")
        loading = await sim.call("rimworld/load_game", saveName="base")
        await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=5000)
        stale = await sim.call("rimworld/select_pawn", pawnId=old)
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
        root = sim.bridge.journal.root_of(loading["loadOperationId"])
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
        listed = await sim.call("rimworld/list_colonists")  # the mod answers in the payload
        assert (listed["success"], listed["code"]) == (False, "no_game")
        with pytest.raises(RemoteError) as caught:  # its colonist lookups throw
            await sim.call("rimworld/select_pawn", pawnName="Hex")
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


async def test_a_quick_read_waits_for_a_stalled_world_without_holding_up_the_connection(
    open_sim: Any,
) -> None:
    async with open_sim(enable_test_tools=True) as sim:
        await sim.call("sim/stall", ms=500)
        started = time.monotonic()
        answered: dict[str, float] = {}

        async def read() -> None:
            await sim.call("rimworld/get_game_info")
            answered["info"] = time.monotonic() - started

        async with anyio.create_task_group() as tg:
            tg.start_soon(read)
            await anyio.sleep(0.05)  # the read is waiting for the world by now
            ping = await sim.call("rimbridge/ping")
            answered["ping"] = time.monotonic() - started
        assert ping["stalled"] is True
        assert answered["ping"] < 0.4 <= answered["info"]


async def test_a_quick_read_runs_on_the_event_loop_when_the_world_is_free_else_in_a_thread(
    tmp_path: Any,
) -> None:
    bridge = RimBridge(
        BridgeConfig(token=TOKEN, tick_rate=0, data_dir=str(tmp_path), start_game=True)
    )
    ran_in: list[int] = []

    @call_spec(world=True, quick=True)
    def body() -> dict[str, Any]:
        ran_in.append(threading.get_ident())
        return {"success": True}

    here = threading.get_ident()
    lock = bridge.loop.lock
    with anyio.fail_after(10):
        await bridge.runner.invoke_quick("sim/body", body, {})
        assert lock.acquire(timeout=5)  # the world is busy: the read waits in a worker thread
        held = True
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(bridge.runner.invoke_quick, "sim/body", body, {})
                await anyio.sleep(0.05)
                assert len(ran_in) == 1
                lock.release()
                held = False
        finally:
            if held:
                lock.release()
    assert ran_in[0] == here and len(ran_in) == 2 and ran_in[1] != here


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
        dropped = await sim.call("sim/drop_connection")
        assert (dropped["success"], dropped["dropping"]) == (True, True)
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
            "tools/call", {"name": "rimworld/set_time_speed", "parameters": {"speed": "Ultrafast"}}
        )
        assert result["timeSpeed"] == "Ultrafast"
