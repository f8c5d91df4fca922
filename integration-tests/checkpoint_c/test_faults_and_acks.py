"""Checkpoint C, scenarios 11-14: a stalled main loop, a dropped connection, and ack flows."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from gabp import ConnectionClosed, RequestTimeout, new_id

POLICIES = ["faithful", "recommended"]
ERROR_INVALIDATES = {"faithful": True, "recommended": False}
#: Urgent entries of a tool that throws: its failed operation, and under `recommended` also the
#: sim's `Exception in <tool>` line (the mod writes none; `faithful` ignores it).
ENTRIES_PER_THROW = {"faithful": 1, "recommended": 2}
STALL_MS = 2500  # long enough for the checks made during the stall on a loaded machine


async def test_11_a_stalled_main_loop_times_game_calls_out_at_the_caller_not_diagnostics(
    launch: Any,
) -> None:
    async with launch("recommended") as sim:
        bridge = sim.bridge
        other = await sim.connect("other")
        # the stall begins on one connection and the call returns as soon as it has begun
        _, stalled = await bridge.call("sim/stall", {"ms": STALL_MS})
        assert (stalled["success"], stalled["stalledMs"]) == (True, STALL_MS)

        # a game call from another bridge connection waits for the main loop; the caller's
        # short timeout gives up first (the server keeps the call: the outcome is unknown)
        waiting_id = new_id()
        with pytest.raises(RequestTimeout):
            await other.call("rimworld/get_game_info", {}, timeout=0.3, request_id=waiting_id)

        # diagnostics do not need the main loop: they answer at once, on both connections
        with anyio.fail_after(1.5):
            _, ping = await other.call("rimbridge/ping", {})
            _, status = await bridge.call("rimbridge/get_bridge_status", {})
            _, logs = await other.call("rimbridge/list_logs", {})
            _, running = await bridge.call("rimbridge/get_operation", {"operationId": waiting_id})
        assert (ping["pong"], ping["stalled"]) == (True, True)
        assert status["mainLoop"]["stalled"] is True
        assert isinstance(logs["logs"], list)  # the mod's list_logs has no success field
        assert running["trackedOperation"]["Status"] == 1  # Running: waiting for the main loop

        # the stall ends; the abandoned call then runs and completes (no attention: the
        # main loop answered within its own 30 s limit)
        _, waited = await bridge.call(
            "rimbridge/wait_for_operation", {"operationId": waiting_id, "timeoutMs": 10_000}
        )
        assert (waited["success"], waited["trackedOperation"]["Status"]) == (True, 2)
        late = await other.recorder.wait_for(lambda r: r.kind == "response" and r.id == waiting_id)
        assert late.message["result"]["phase"] == "playing"  # answered after the caller left
        _, info = await other.call("rimworld/get_game_info", {}, timeout=5)
        assert info["phase"] == "playing"
        _, ping = await bridge.call("rimbridge/ping", {})
        assert ping["stalled"] is False
        assert await bridge.attention() is None
        assert bridge.recorder.attention_events() == other.recorder.attention_events() == []


@pytest.mark.parametrize("policy", POLICIES)
async def test_12_an_open_item_survives_a_dropped_connection_and_is_there_on_reconnect(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        cause_id, _ = await bridge.call(
            "sim/inject_log", {"level": "error", "message": "Reservation table corrupted"}
        )
        opened = await bridge.attention()
        assert opened is not None
        assert (opened["causalOperationId"], opened["stateInvalidated"]) == (
            cause_id,
            ERROR_INVALIDATES[policy],
        )

        _, dropped = await bridge.call("sim/drop_connection", {})
        assert (dropped["success"], dropped["dropping"]) == (True, True)  # the answer came first
        assert await bridge.conn.wait_closed(timeout=5)
        with pytest.raises(ConnectionClosed):
            await bridge.call("rimbridge/ping", {})

        # a new connection and hello, as a bridge reconnecting after a drop
        again = await sim.connect("reconnected")
        assert {"attention/current", "attention/ack"} <= set(again.hello["capabilities"]["methods"])
        assert await again.attention() == opened  # the same item, unchanged
        # and it is still the one to acknowledge, from the new connection
        acked = await again.ack(opened["attentionId"])
        assert acked == {
            "acknowledged": True,
            "attentionId": opened["attentionId"],
            "currentAttention": None,
        }
        [(channel, cleared)] = again.recorder.attention_events()
        assert channel == "attention/cleared"
        assert cleared == {**opened, "state": "cleared", "blocking": False}


@pytest.mark.parametrize("policy", POLICIES)
async def test_13_acks_clear_only_the_open_id_and_a_retried_call_is_no_ack(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        # nothing open: refused, with null
        assert await bridge.ack("att-000000-1") == {
            "acknowledged": False,
            "attentionId": "att-000000-1",
            "currentAttention": None,
        }

        no_pawn: dict[str, Any] = {}  # select_pawn without a name or id throws
        first_id, _ = await bridge.call_error("rimworld/select_pawn", no_pawn)
        item = await bridge.attention()
        assert item is not None
        assert (item["blocking"], item["stateInvalidated"], item["totalUrgentEntries"]) == (
            True,
            ERROR_INVALIDATES[policy],
            ENTRIES_PER_THROW[policy],
        )

        # a retry of the same call is not an ack: it fails again and the item stays open,
        # same id, same cause, with the new entries counted
        retry_id, retried = await bridge.call_error("rimworld/select_pawn", no_pawn)
        assert retried.data["operationId"] == retry_id != first_id
        still = await bridge.attention()
        assert still is not None
        assert (still["attentionId"], still["state"], still["causalOperationId"]) == (
            item["attentionId"],
            "open",
            first_id,
        )
        assert still["totalUrgentEntries"] == 2 * ENTRIES_PER_THROW[policy]
        assert bridge.recorder.events("attention/cleared") == []

        # a stale (wrong) id: refused, and the answer carries the item still open
        assert await bridge.ack(item["attentionId"] + "0") == {
            "acknowledged": False,
            "attentionId": item["attentionId"] + "0",
            "currentAttention": still,
        }
        assert await bridge.attention() == still

        # the right id: the cleared event, then the answer; then nothing is open
        mark = bridge.recorder.mark()
        assert await bridge.ack(item["attentionId"]) == {
            "acknowledged": True,
            "attentionId": item["attentionId"],
            "currentAttention": None,
        }
        assert bridge.recorder.timeline(mark) == [
            "event:attention/cleared",
            "response:attention/ack",
        ]
        cleared = bridge.recorder.events("attention/cleared")[0].payload
        assert cleared == {**still, "state": "cleared", "blocking": False}
        assert await bridge.attention() is None
        # acking it again: nothing is open any more
        assert await bridge.ack(item["attentionId"]) == {
            "acknowledged": False,
            "attentionId": item["attentionId"],
            "currentAttention": None,
        }


@pytest.mark.parametrize("policy", POLICIES)
async def test_14_errors_after_an_ack_open_a_new_item_with_a_new_id(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        await bridge.call(
            "sim/inject_log", {"level": "error", "message": "Pathfinder grid out of sync"}
        )
        first = await bridge.attention()
        assert first is not None
        assert (await bridge.ack(first["attentionId"]))["acknowledged"] is True

        mark = bridge.recorder.mark()
        again_id, result = await bridge.call(
            "sim/inject_log", {"level": "error", "message": "Pathfinder grid out of sync"}
        )
        assert bridge.recorder.timeline(mark) == ["event:attention/opened", "response:tools/call"]
        second = await bridge.attention()
        assert second is not None
        assert second["attentionId"] != first["attentionId"]
        line = result["latestSequence"]
        assert second == {
            "attentionId": second["attentionId"],
            "summary": second["summary"],
            "state": "open",
            "severity": "error",
            "blocking": True,
            "stateInvalidated": ERROR_INVALIDATES[policy],
            "causalOperationId": again_id,
            "causalMethod": "sim/inject_log",
            "openedAtSequence": line,
            "latestSequence": line,
            "diagnosticsCursor": line - 1,
            "totalUrgentEntries": 1,
            "sample": [
                {
                    "level": "error",
                    "message": "Pathfinder grid out of sync",
                    "repeatCount": 1,
                    "latestSequence": line,
                }
            ],
        }
        assert bridge.recorder.events("attention/opened")[-1].payload == second
        # the old id is now stale: refused with the new item
        assert await bridge.ack(first["attentionId"]) == {
            "acknowledged": False,
            "attentionId": first["attentionId"],
            "currentAttention": second,
        }
