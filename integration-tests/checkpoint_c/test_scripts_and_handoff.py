"""Checkpoint C, scenario 15 (a script whose second step throws), the Go bridge's
``parameters`` field, and a launch through the real GABS environment handoff."""

from __future__ import annotations

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
        steps = [
            {"tool": "rimworld/spawn_thing", "arguments": {"defName": "Steel", "x": 10, "z": 10}},
            {
                "tool": "rimworld/spawn_thing",
                "arguments": {"defName": "Unobtainium", "x": 1, "z": 1},
            },
            {"tool": "rimworld/pause_game", "arguments": {}},
        ]
        mark = bridge.recorder.mark()
        script_id, result = await bridge.call("rimbridge/run_script", {"steps": steps})
        # a throwing step is a failed step, not a failed script: the script answers normally
        assert (result["success"], result["code"], result["completedSteps"]) == (
            False,
            "step_failed",
            2,
        )
        assert result["message"] == "step 1 (rimworld/spawn_thing) failed"
        spawned, thrown = result["steps"]
        assert (spawned["success"], spawned["result"]["stacks"][0]["stackCount"]) == (True, 1)
        child_id = thrown["operationId"]
        assert thrown["success"] is False
        assert thrown["error"]["code"] == -32000
        assert thrown["error"]["data"] == {
            "code": "invalid_argument",
            "exception": "InvalidArgumentError",
            "operationId": child_id,
            "tool": "rimworld/spawn_thing",
        }
        # the step's attention reached the bridge before the script's answer
        assert bridge.recorder.timeline(mark) == [
            "event:attention/opened",
            "event:attention/updated",
            "response:tools/call",
        ]

        # the journal: the failed step is a child operation of the script's call
        _, found = await bridge.call("rimbridge/get_operation", {"operationId": child_id})
        child = found["operation"]
        assert (child["method"], child["parentId"], child["rootId"], child["status"]) == (
            "rimworld/spawn_thing",
            script_id,
            script_id,
            "failed",
        )
        assert child["error"].startswith("InvalidArgumentError: unknown thing def 'Unobtainium'")
        _, found = await bridge.call("rimbridge/get_operation", {"operationId": script_id})
        script = found["operation"]
        assert (script["method"], script["parentId"], script["rootId"], script["status"]) == (
            "rimbridge/run_script",
            None,
            script_id,
            "completed",
        )
        assert script["children"] == [spawned["operationId"], child_id]
        _, failed = await bridge.call("rimbridge/list_operations", {"status": "failed"})
        assert [(o["operationId"], o["parentId"]) for o in failed["operations"]] == [
            (child_id, script_id)
        ]

        # attention names the script call, the one the bridge knows (root attribution, the
        # sim's documented choice); the step's own method is in the sample
        item = await bridge.attention()
        assert item is not None
        text = thrown["error"]["message"].removeprefix("rimworld/spawn_thing failed: ")
        line = item["openedAtSequence"]
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
            "totalUrgentEntries": 2,
            "sample": [
                {
                    "level": "error",
                    "message": f"Exception in rimworld/spawn_thing: InvalidArgumentError: {text}",
                    "repeatCount": 1,
                    "latestSequence": line,
                },
                {
                    "level": "error",
                    "message": f"rimworld/spawn_thing failed: InvalidArgumentError: {text}",
                    "repeatCount": 1,
                    "latestSequence": line,
                },
            ],
        }

        # the logs of the whole script, by the root operation: both steps' lines
        _, page = await bridge.call(
            "rimbridge/list_logs", {"afterSequence": -1, "operationId": script_id}
        )
        assert [
            (e["operationId"], e["rootOperationId"], e["level"], e["source"], e["message"])
            for e in page["entries"]
        ] == [
            (spawned["operationId"], script_id, "info", "debug", "Spawned 1 Steel at (10, 10)"),
            (
                child_id,
                script_id,
                "error",
                "tool",
                f"Exception in rimworld/spawn_thing: InvalidArgumentError: {text}",
            ),
        ]
        # by the child: only its own line; and the item's cursor starts at it
        _, own = await bridge.call(
            "rimbridge/list_logs", {"afterSequence": -1, "operationId": child_id}
        )
        assert [e["sequence"] for e in own["entries"]] == [line]
        _, from_cursor = await bridge.call(
            "rimbridge/list_logs", {"afterSequence": item["diagnosticsCursor"], "limit": 1}
        )
        assert from_cursor["entries"] == own["entries"]
        # step 3 never ran: the game is still as step 1 left it
        _, info = await bridge.call("rimworld/get_game_info", {})
        assert info["paused"] is True


async def test_tools_call_accepts_parameters_as_the_go_bridge_sends_them(launch: Any) -> None:
    async with launch("recommended") as sim:
        bridge = sim.bridge
        _, speed = await bridge.call("rimworld/set_time_speed", {"speed": 2}, field="parameters")
        assert (speed["success"], speed["timeSpeed"]) == (True, 2)
        _, paused = await bridge.call("rimworld/pause_game", {"paused": True}, field="parameters")
        assert paused["paused"] is True
        # the arguments are validated the same way: an unknown argument is refused (-32602)
        with pytest.raises(RemoteError) as refused:
            await bridge.call("rimworld/set_time_speed", {"sped": 2}, field="parameters")
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
