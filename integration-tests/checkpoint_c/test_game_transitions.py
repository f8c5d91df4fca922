"""Checkpoint C, scenarios 9 and 10: a load that replaces the map, and the main menu.

Ids from a replaced map answer ``stale_id`` (a payload failure: no attention by itself). What
makes the agent re-read the world is the load itself, and the two policies disagree there:
``recommended`` opens advisory, state-invalidating attention for ``Map replaced`` / ``Game
loaded`` / ``Returned to main menu``; ``faithful`` (the real mod) only counts error lines and
failed operations, so a load passes silently and only the map tools that then throw open
(blocking, state-invalidating) attention.
"""

from __future__ import annotations

from typing import Any

import pytest

POLICIES = ["faithful", "recommended"]


def _only_first_line(item: dict[str, Any]) -> dict[str, Any]:
    """How ``item`` (two lines) looked when its first line opened it."""
    first = item["sample"][0]
    return {
        "latestSequence": first["latestSequence"],
        "diagnosticsCursor": first["latestSequence"] - 1,
        "totalUrgentEntries": 1,
        "sample": [first],
    }


@pytest.mark.parametrize("policy", POLICIES)
async def test_9_a_load_replaces_the_map_and_old_pawn_ids_go_stale(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        _, colonists = await bridge.call("rimworld/list_colonists", {})
        old_pawn = colonists["colonists"][0]["pawnId"]
        _, saved = await bridge.call("rimworld/save_game", {"saveName": "base"})
        assert saved["saveName"] == "base"
        load_id, loading = await bridge.call("rimworld/load_game", {"saveName": "base"})
        assert (loading["success"], loading["status"], loading["state"]["longEventPending"]) == (
            True,
            "queued",
            True,
        )
        _, loaded = await bridge.call(
            "rimbridge/wait_for_game_loaded", {"timeoutMs": 5000, "readiness": "playable"}
        )
        assert (loaded["success"], loaded["state"]["programState"]) == (True, "Playing")
        new_map = loaded["state"]["currentMapId"]
        assert new_map != "Map_1"

        # the load is follow-up work: a child operation of the load_game call
        _, found = await bridge.call(
            "rimbridge/get_operation", {"operationId": loading["loadOperationId"]}
        )
        load_op = found["trackedOperation"]
        assert (load_op["method"], load_op["parentId"], load_op["rootId"], load_op["Status"]) == (
            "long_event/load",
            load_id,
            load_id,
            2,  # Completed
        )
        assert load_op["resultSummary"] == f"loaded base on {new_map}"

        # an id from the replaced map: a payload failure, whatever the policy
        _, stale = await bridge.call("rimworld/select_pawn", {"pawnId": old_pawn})
        assert (stale["success"], stale["code"]) == (False, "stale_id")
        assert f"the current map is {new_map}" in stale["message"]

        item = await bridge.attention()
        if policy == "faithful":
            # the real mod: a load is not attention and a stale lookup fails in the payload;
            # nothing tells the agent its ids are stale except that failure
            assert item is None
            assert bridge.recorder.attention_events() == []
            return

        # the load's lines came from the main loop (the long event ended between calls) and
        # are caused by the load_game call through its child operation
        assert item is not None
        opened_at = item["openedAtSequence"]
        assert item == {
            "attentionId": item["attentionId"],
            "summary": item["summary"],
            "state": "open",
            "severity": "info",
            "blocking": False,
            "stateInvalidated": True,
            "causalOperationId": load_id,
            "causalMethod": "rimworld/load_game",
            "openedAtSequence": opened_at,
            "latestSequence": opened_at + 1,
            "diagnosticsCursor": opened_at,
            "totalUrgentEntries": 2,
            "sample": [
                {
                    "level": "info",
                    "message": f"Map replaced: Map_1 -> {new_map}",
                    "repeatCount": 1,
                    "latestSequence": opened_at,
                },
                {
                    "level": "info",
                    "message": "Game loaded: base",
                    "repeatCount": 1,
                    "latestSequence": opened_at + 1,
                },
            ],
        }
        # "Map replaced" opened it, "Game loaded" updated it (sent by the server's pump or
        # at the end of the next call, whichever came first)
        await bridge.recorder.wait_for(lambda r: r.channel == "attention/updated")
        [(opening, opened), (updating, updated)] = bridge.recorder.attention_events()
        assert (opening, updating) == ("attention/opened", "attention/updated")
        assert opened == {**item, **_only_first_line(item), "summary": opened["summary"]}
        assert updated == item
        # the lines sit under the load's child operation and are found by the call's id
        _, page = await bridge.call(
            "rimbridge/list_logs", {"afterSequence": opened_at - 1, "rootOperationId": load_id}
        )
        child = loading["loadOperationId"]
        assert [
            (e["Message"], e["Source"], e["OperationId"], e["RootOperationId"])
            for e in page["logs"]
        ] == [
            ("Game loaded: base", "load", child, load_id),
            (f"Map replaced: Map_1 -> {new_map}", "load", child, load_id),
        ]
        # advisory: the agent may go on, re-reading the world with the new ids
        _, again = await bridge.call("rimworld/list_colonists", {})
        assert len(again["colonists"]) == len(colonists["colonists"])
        assert old_pawn not in {c["pawnId"] for c in again["colonists"]}
        assert await bridge.attention() == item


@pytest.mark.parametrize("policy", POLICIES)
async def test_10_map_tools_at_the_main_menu_fail_in_band_and_open_blocking_attention(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        mark = bridge.recorder.mark()
        menu_id, menu = await bridge.call("rimworld/go_to_main_menu", {})
        assert (menu["success"], menu["status"], menu["state"]["inEntryScene"]) == (
            True,
            "queued",
            True,
        )
        if policy == "faithful":
            assert bridge.recorder.timeline(mark) == ["response:tools/call"]
            advisory = await bridge.attention()
            assert advisory is None
        else:
            assert bridge.recorder.timeline(mark) == [
                "event:attention/opened",
                "response:tools/call",
            ]
            advisory = await bridge.attention()
            assert advisory is not None
            line = advisory["openedAtSequence"]
            assert advisory == {
                "attentionId": advisory["attentionId"],
                "summary": advisory["summary"],
                "state": "open",
                "severity": "info",
                "blocking": False,
                "stateInvalidated": True,
                "causalOperationId": menu_id,
                "causalMethod": "rimworld/go_to_main_menu",
                "openedAtSequence": line,
                "latestSequence": line,
                "diagnosticsCursor": line - 1,
                "totalUrgentEntries": 1,
                "sample": [
                    {
                        "level": "info",
                        "message": "Returned to main menu",
                        "repeatCount": 1,
                        "latestSequence": line,
                    }
                ],
            }

        # listing answers in the payload at the main menu, as in the mod
        _, listed = await bridge.call("rimworld/list_colonists", {})
        assert (listed["success"], listed["code"]) == (False, "no_game")
        # colonist lookups throw (no colonists to find): -32000, code no_game, blocking attention
        mark = bridge.recorder.mark()
        colonists_id, error = await bridge.call_error("rimworld/select_pawn", {"pawnName": "x"})
        assert (error.code, error.message) == (
            -32000,
            "rimworld/select_pawn failed: Could not find player-controlled colonist 'x'.",
        )
        assert error.data == {
            "code": "no_game",
            "exception": "NoGameError",
            "operationId": colonists_id,
            "tool": "rimworld/select_pawn",
        }
        # faithful opens the item here with the failed operation (the mod writes no exception
        # line, and faithful ignores the sim's); recommended escalates the advisory one at once
        # on the exception line (an escalation is never held back), then the failed operation
        # follows
        if policy == "faithful":
            expected = ["event:attention/opened", "response:tools/call"]
        else:
            expected = ["event:attention/updated", "event:attention/updated", "response:tools/call"]
        assert bridge.recorder.timeline(mark) == expected
        _, draft_error = await bridge.call_error(
            "rimworld/set_draft", {"pawnName": "x", "drafted": True}
        )
        assert (draft_error.code, draft_error.data["code"]) == (-32000, "no_game")

        item = await bridge.attention()
        assert item is not None
        missing = "NoGameError: Could not find player-controlled colonist 'x'."
        exceptions = [
            f"Exception in {tool}: {missing}"
            for tool in ("rimworld/select_pawn", "rimworld/set_draft")
        ]
        failures = [
            f"{tool} failed: {missing}" for tool in ("rimworld/select_pawn", "rimworld/set_draft")
        ]
        assert (item["severity"], item["blocking"], item["stateInvalidated"]) == (
            "error",
            True,
            True,
        )
        messages = [s["message"] for s in item["sample"]]
        if policy == "faithful":
            assert (item["causalOperationId"], item["causalMethod"]) == (
                colonists_id,
                "rimworld/select_pawn",
            )
            assert item["totalUrgentEntries"] == 2
            assert messages == failures
        else:
            assert advisory is not None
            # the same item, escalated: id, root cause and cause stay
            assert item["attentionId"] == advisory["attentionId"]
            assert (item["causalOperationId"], item["causalMethod"]) == (
                menu_id,
                "rimworld/go_to_main_menu",
            )
            assert item["totalUrgentEntries"] == 5
            assert messages == [
                "Returned to main menu",
                exceptions[0],
                failures[0],
                exceptions[1],
                failures[1],
            ]

        # what does still answer at the main menu: the game's own state, payload refusals,
        # diagnostics
        _, info = await bridge.call("rimworld/get_game_info", {})
        assert (info["phase"], info["mapId"], info["colonistCount"]) == ("main_menu", None, 0)
        _, unload = await bridge.call("sim/unload_map", {})
        assert {k: unload[k] for k in ("success", "message", "code")} == {
            "success": False,
            "message": "no map is loaded",
            "code": "no_game",
        }
        _, ping = await bridge.call("rimbridge/ping", {})
        assert (ping["pong"], ping["phase"]) == (True, "main_menu")
        assert (await bridge.attention()) == item  # none of those changed the item
