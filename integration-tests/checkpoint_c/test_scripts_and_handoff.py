"""Checkpoint C, scenario 15 (a script whose second step throws), the Go bridge's
``parameters`` field, and a launch through the real GABS environment handoff."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gabp import RemoteError

POLICIES = ["faithful", "recommended"]
ERROR_INVALIDATES = {"faithful": True, "recommended": False}


@pytest.mark.parametrize("policy", POLICIES)
async def test_15_a_script_whose_second_step_throws_is_the_cause_and_filters_its_logs(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        script = {
            "name": "two-steps-then-pause",
            "steps": [
                {
                    "id": "spawn",
                    "call": "rimworld/spawn_thing",
                    "arguments": {"defName": "Steel", "x": 22, "z": 22},
                },
                {"id": "select", "call": "rimworld/select_pawn", "arguments": {}},
                {"id": "pause", "call": "rimworld/pause_game", "arguments": {}},
            ],
        }
        mark = bridge.recorder.mark()
        script_id, result = await bridge.call(
            "rimbridge/run_script", {"scriptJson": json.dumps(script)}
        )
        # a throwing step is a failed step, not a failed call: the script answers normally
        report = result["script"]
        assert (result["success"], report["halted"], report["executedStepCount"]) == (
            False,
            True,
            2,
        )
        spawned, thrown = report["steps"]
        assert (spawned["success"], spawned["result"]["stackCount"]) == (True, 1)
        child_id = thrown["operationId"]
        assert thrown["success"] is False
        # the mod's halt: the step's index and id; its error is the script's error and message
        assert report["haltReason"] == "Step 2 ('select') failed."
        assert result["error"] == thrown["error"]
        assert result["message"] == thrown["error"]["Message"]
        assert (thrown["error"]["Code"], thrown["error"]["ExceptionType"]) == (
            "invalid_argument",
            "InvalidArgumentError",
        )
        # the step's attention reached the bridge before the script's answer (under
        # `recommended` the sim's exception line opens it and the failed step updates it; under
        # `faithful` only the failed step counts, as in the mod, which writes no such line)
        updated = ["event:attention/updated"] if policy == "recommended" else []
        assert bridge.recorder.timeline(mark) == [
            "event:attention/opened",
            *updated,
            "response:tools/call",
        ]

        # the journal: the failed step is a child operation of the script's call
        _, found = await bridge.call("rimbridge/get_operation", {"operationId": child_id})
        child = found["trackedOperation"]
        assert (child["method"], child["parentId"], child["rootId"], child["Status"]) == (
            "rimworld/select_pawn",
            script_id,
            script_id,
            3,  # Failed
        )
        assert child["Error"]["Message"].startswith(
            "InvalidArgumentError: A player-controlled colonist name or id is required"
        )
        _, found = await bridge.call("rimbridge/get_operation", {"operationId": script_id})
        parent = found["trackedOperation"]
        assert (parent["method"], parent["parentId"], parent["rootId"], parent["Status"]) == (
            "rimbridge/run_script",
            None,
            script_id,
            2,  # Completed
        )
        assert parent["children"] == [spawned["operationId"], child_id]
        _, listed = await bridge.call("rimbridge/list_operations", {"limit": 50})
        failed = [o for o in listed["operations"] if o["Status"] == 3]
        assert [(o["OperationId"], o["parentId"]) for o in failed] == [(child_id, script_id)]

        # attention names the script call, the one the bridge knows (root attribution, the
        # sim's documented choice); the step's own method is in the sample
        item = await bridge.attention()
        assert item is not None
        text = "A player-controlled colonist name or id is required."
        line = item["openedAtSequence"]
        exception_line = {
            "level": "error",
            "message": f"Exception in rimworld/select_pawn: InvalidArgumentError: {text}",
            "repeatCount": 1,
            "latestSequence": line,
        }
        failed_step = {
            "level": "error",
            "message": f"rimworld/select_pawn failed: InvalidArgumentError: {text}",
            "repeatCount": 1,
            "latestSequence": line,
        }
        counted = [exception_line, failed_step] if policy == "recommended" else [failed_step]
        assert item == {
            "attentionId": item["attentionId"],
            "summary": item["summary"],
            "state": "open",
            "severity": "error",
            "blocking": True,
            "stateInvalidated": ERROR_INVALIDATES[policy],
            "causalOperationId": script_id,
            "causalMethod": "rimbridge/run_script",
            "openedAtSequence": line,
            "latestSequence": line,
            "diagnosticsCursor": line - 1,
            "totalUrgentEntries": len(counted),
            "sample": counted,
        }

        # the logs of the whole script, by the root operation: both steps' lines
        _, page = await bridge.call("rimbridge/list_logs", {"rootOperationId": script_id})
        assert [
            (e["OperationId"], e["RootOperationId"], e["Level"], e["Source"], e["Message"])
            for e in page["logs"]
        ] == [
            (
                child_id,
                script_id,
                "error",
                "tool",
                f"Exception in rimworld/select_pawn: InvalidArgumentError: {text}",
            ),
            (spawned["operationId"], script_id, "info", "debug", "Spawned 1 Steel at (22, 22)"),
        ]
        # by the child: only its own line; and the item's cursor starts at it
        _, own = await bridge.call("rimbridge/list_logs", {"operationId": child_id})
        assert [e["Sequence"] for e in own["logs"]] == [line]
        _, from_cursor = await bridge.call(
            "rimbridge/list_logs", {"afterSequence": item["diagnosticsCursor"], "limit": 1}
        )
        assert from_cursor["logs"] == own["logs"]
        # step 3 never ran: the game is still as step 1 left it
        _, info = await bridge.call("rimworld/get_game_info", {})
        assert info["paused"] is True


async def test_tools_call_accepts_parameters_as_the_go_bridge_sends_them(launch: Any) -> None:
    async with launch("recommended") as sim:
        bridge = sim.bridge
        _, speed = await bridge.call(
            "rimworld/set_time_speed", {"speed": "Fast"}, field="parameters"
        )
        assert (speed["success"], speed["timeSpeed"]) == (True, "Fast")
        _, paused = await bridge.call("rimworld/pause_game", {"pause": True}, field="parameters")
        assert paused["paused"] is True
        # the arguments are validated the same way: an unknown argument is refused (-32602)
        with pytest.raises(RemoteError) as refused:
            await bridge.call("rimworld/set_time_speed", {"sped": "Fast"}, field="parameters")
        assert refused.value.code == -32602
        # and the call is an operation like any other: attention names it
        call_id, logged = await bridge.call(
            "sim/inject_log",
            {"level": "error", "message": "Sent as parameters", "count": 2},
            field="parameters",
        )
        assert logged["logged"] == 2
        item = await bridge.attention()
        assert item is not None
        assert (item["causalOperationId"], item["totalUrgentEntries"]) == (call_id, 2)


async def test_the_process_serves_a_bridge_through_the_gabs_environment_handoff(
    launch: Any,
) -> None:
    async with launch(None, gabs_env=True) as sim:
        env = sim.env
        assert set(env) == {"GABP_SERVER_PORT", "GABP_TOKEN", "GABS_GAME_ID"}
        assert re.fullmatch(r"[0-9a-f]{64}", env["GABP_TOKEN"])
        assert sim.port == int(env["GABP_SERVER_PORT"])  # listening where it was told
        assert env["GABP_TOKEN"].encode() not in sim.stderr  # a handed-over token is not printed
        bridge = sim.bridge  # said hello with GABP_TOKEN
        assert bridge.hello["agentId"] == "rimworld"
        assert {"attention/current", "attention/ack"} <= set(
            bridge.hello["capabilities"]["methods"]
        )
        assert {"attention/opened", "attention/updated", "attention/cleared"} <= set(
            bridge.hello["capabilities"]["events"]
        )
        _, status = await bridge.call("rimbridge/get_bridge_status", {}, field="parameters")
        assert (status["agentId"], status["policy"], status["testTools"]) == (
            "rimworld",
            "recommended",
            True,
        )
        call_id, _ = await bridge.call(
            "sim/inject_log", {"level": "error", "message": "Handoff works"}, field="parameters"
        )
        [(channel, opened)] = bridge.recorder.attention_events()
        assert (channel, opened["causalOperationId"]) == ("attention/opened", call_id)
        # any other token is refused by the same process
        with pytest.raises(RemoteError) as refused:
            await sim.connect("intruder", token="0" * 64)
        assert (refused.value.code, refused.value.message) == (-31000, "authentication failed")
