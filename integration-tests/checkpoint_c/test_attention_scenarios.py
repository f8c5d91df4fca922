"""Checkpoint C, scenarios 1-8: how calls, log lines and exceptions open and coalesce attention.

Every test runs the real ``rimbridge-sim`` process (see ``conftest.py``) and talks to it over
loopback TCP as a bridge does. Where the two shipped policies differ, the test runs under both
and asserts each one's exact outcome: ``faithful`` (the real mod: every error line and every
failed operation is blocking and state-invalidating, nothing else counts) and ``recommended``
(the default: warnings advisory, errors blocking, only loads and map loss invalidate state).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

POLICIES = ["faithful", "recommended"]
ERROR_INVALIDATES = {"faithful": True, "recommended": False}
"""stateInvalidated of an item opened by an error line or a failed tool: the real mod takes
every error as state-invalidating; the recommended policy keeps that for loads and map loss."""


def plain(result: dict[str, Any]) -> dict[str, Any]:
    """A tool result without the call's own operation envelope (every result carries one)."""
    return {key: value for key, value in result.items() if key != "operation"}


def expected_item(item: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """``fields`` plus the two members a test cannot know in advance (id and summary)."""
    return {
        "attentionId": item["attentionId"],
        "summary": item["summary"],
        "state": "open",
        **fields,
    }


@pytest.mark.parametrize("policy", POLICIES)
async def test_1_a_clean_run_of_game_calls_opens_no_attention(launch: Any, policy: str) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        _, colonists = await bridge.call("rimworld/list_colonists", {})
        pawn = colonists["colonists"][0]["pawnId"]
        results = [
            (await bridge.call(tool, arguments))[1]
            for tool, arguments in [
                ("rimworld/get_game_info", {}),
                ("rimworld/select_pawn", {"pawnId": pawn}),
                ("rimworld/set_draft", {"pawnId": pawn, "drafted": True}),
                ("rimworld/get_cell_info", {"x": 3, "z": 3}),
                ("rimworld/pause_game", {"pause": True}),
                ("rimworld/take_screenshot", {"fileName": "clean-run"}),
            ]
        ]
        # get_game_info answers without a success field, as the mod's does
        assert [r.get("success", True) for r in results] == [True] * 6
        assert results[0]["status"] == "game_loaded"
        assert results[2]["drafted"] is True
        assert all(r["operation"]["Status"] == 2 for r in results)  # Completed
        png = await anyio.Path(results[5]["path"]).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")

        assert await bridge.attention() is None
        assert bridge.recorder.attention_events() == []
        status = (await bridge.call("rimbridge/get_bridge_status", {}))[1]
        assert (status["policy"], status["attention"], status["phase"]) == (
            policy,
            None,
            "playing",
        )


@pytest.mark.parametrize("policy", POLICIES)
async def test_2_an_error_two_ticks_after_a_successful_call_names_that_call(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        scheduled_id, scheduled = await bridge.call(
            "sim/schedule_error", {"message": "Late failure in JobDriver_Haul", "afterTicks": 2}
        )
        assert plain(scheduled) == {"success": True, "dueTick": 2, "operationId": scheduled_id}
        assert bridge.recorder.attention_events() == []  # the call itself was clean
        assert await bridge.attention() is None

        mark = bridge.recorder.mark()
        step_id, stepped = await bridge.call("rimworld/step_game_ticks", {"ticks": 2})
        assert stepped["success"] is True
        # the error is logged while the ticks run: its event precedes that call's response
        assert bridge.recorder.timeline(mark) == ["event:attention/opened", "response:tools/call"]
        item = await bridge.attention()
        assert item is not None
        [(_, opened)] = bridge.recorder.attention_events()
        assert opened == item
        line = item["latestSequence"]
        assert item == expected_item(
            item,
            severity="error",
            blocking=True,
            stateInvalidated=ERROR_INVALIDATES[policy],
            causalOperationId=scheduled_id,
            causalMethod="sim/schedule_error",
            openedAtSequence=line,
            latestSequence=line,
            diagnosticsCursor=line - 1,
            totalUrgentEntries=1,
            sample=[
                {
                    "level": "error",
                    "message": "Late failure in JobDriver_Haul",
                    "repeatCount": 1,
                    "latestSequence": line,
                }
            ],
        )
        assert item["causalOperationId"] != step_id

        page = (await bridge.call("rimbridge/list_logs", {"afterSequence": line - 1}))[1]
        first = page["logs"][-1]
        assert (first["Message"], first["tick"], first["OperationId"]) == (
            "Late failure in JobDriver_Haul",
            2,
            scheduled_id,
        )


@pytest.mark.parametrize("policy", POLICIES)
async def test_3_an_error_logged_inside_a_successful_call_is_sent_before_its_response(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        mark = bridge.recorder.mark()
        call_id, result = await bridge.call(
            "sim/inject_log", {"level": "error", "message": "Pawn Lucky lost its path grid"}
        )
        assert plain(result) == {
            "success": True,
            "logged": 1,
            "firstSequence": result["latestSequence"],
            "latestSequence": result["latestSequence"],
        }
        assert bridge.recorder.timeline(mark) == ["event:attention/opened", "response:tools/call"]
        opened = bridge.recorder.events("attention/opened")[0]
        assert opened.index < bridge.recorder.response_to(call_id).index
        line = result["latestSequence"]
        assert opened.payload == expected_item(
            opened.payload,
            severity="error",
            blocking=True,
            stateInvalidated=ERROR_INVALIDATES[policy],
            causalOperationId=call_id,
            causalMethod="sim/inject_log",
            openedAtSequence=line,
            latestSequence=line,
            diagnosticsCursor=line - 1,
            totalUrgentEntries=1,
            sample=[
                {
                    "level": "error",
                    "message": "Pawn Lucky lost its path grid",
                    "repeatCount": 1,
                    "latestSequence": line,
                }
            ],
        )
        assert await bridge.attention() == opened.payload


@pytest.mark.parametrize("policy", POLICIES)
async def test_4_an_exception_is_an_in_band_error_with_blocking_attention_a_payload_failure_none(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        # payload failure: the tool ran and refused; its operation completed; no attention
        lookup_id, lookup = await bridge.call("rimworld/select_pawn", {"pawnId": "Thing_Nobody"})
        assert plain(lookup) == {
            "success": False,
            "message": "Could not find player-controlled colonist id 'Thing_Nobody'.",
            "code": "unknown_id",
        }
        operation = (await bridge.call("rimbridge/get_operation", {"operationId": lookup_id}))[1]
        assert operation["trackedOperation"]["Status"] == 2  # Completed
        assert await bridge.attention() is None
        assert bridge.recorder.attention_events() == []

        # exception: the operation failed, the caller gets -32000 with data, attention opens
        mark = bridge.recorder.mark()
        spawn_id, error = await bridge.call_error("rimworld/select_pawn", {})
        assert error.code == -32000
        assert error.message == (
            "rimworld/select_pawn failed: A player-controlled colonist name or id is required."
        )
        assert error.data == {
            "code": "invalid_argument",
            "exception": "InvalidArgumentError",
            "operationId": spawn_id,
            "tool": "rimworld/select_pawn",
        }
        # under `recommended` the sim's exception line opens the item and the failed operation
        # updates it; under `faithful` only the failed operation counts, as in the mod, which
        # writes no such line. Either way the events come before the answer.
        opened = ["event:attention/opened"]
        updated = ["event:attention/updated"] if policy == "recommended" else []
        assert bridge.recorder.timeline(mark) == [*opened, *updated, "response:tools/call"]
        item = await bridge.attention()
        assert item is not None
        last_event = "attention/updated" if policy == "recommended" else "attention/opened"
        assert bridge.recorder.attention_events()[-1] == (last_event, item)
        text = error.message.removeprefix("rimworld/select_pawn failed: ")
        line = item["openedAtSequence"]
        exception_line = {
            "level": "error",
            "message": f"Exception in rimworld/select_pawn: InvalidArgumentError: {text}",
            "repeatCount": 1,
            "latestSequence": line,
        }
        failed_operation = {
            "level": "error",
            "message": f"rimworld/select_pawn failed: InvalidArgumentError: {text}",
            "repeatCount": 1,
            "latestSequence": line,
        }
        counted = [exception_line] if policy == "recommended" else []
        counted.append(failed_operation)
        assert item == expected_item(
            item,
            severity="error",
            blocking=True,
            stateInvalidated=ERROR_INVALIDATES[policy],
            causalOperationId=spawn_id,
            causalMethod="rimworld/select_pawn",
            openedAtSequence=line,
            latestSequence=line,
            diagnosticsCursor=line - 1,
            totalUrgentEntries=len(counted),
            sample=counted,
        )
        operation = (await bridge.call("rimbridge/get_operation", {"operationId": spawn_id}))[1]
        assert operation["trackedOperation"]["Status"] == 3  # Failed


@pytest.mark.parametrize("policy", POLICIES)
async def test_5_five_hundred_identical_errors_in_one_call_are_one_item_and_few_events(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        message = "NullReferenceException in ColonistBar.ColonistBarOnGUI"
        mark = bridge.recorder.mark()
        call_id, result = await bridge.call(
            "sim/inject_log", {"level": "error", "message": message, "count": 500}
        )
        first, last = result["firstSequence"], result["latestSequence"]
        assert (result["logged"], last - first) == (500, 499)

        # One opened event for the first line; the other 499 only update the item, and the
        # manager notifies an update at most once per update interval (0.25 s) plus one
        # trailing update when the call ends. 500 lines take a few milliseconds, so a bridge
        # sees opened + one updated; one more update is allowed for a very slow machine
        # (the call spanning one interval): at most 3 events, against 500 from a mod that
        # notifies every line.
        events = bridge.recorder.attention_events()
        channels = [channel for channel, _ in events]
        assert channels[0] == "attention/opened"
        assert set(channels[1:]) <= {"attention/updated"}
        assert 2 <= len(events) <= 3
        timeline = bridge.recorder.timeline(mark)
        assert timeline[-1] == "response:tools/call"
        assert len(timeline) == len(events) + 1  # every event came before the response

        item = await bridge.attention()
        assert events[-1][1] == item  # the bridge's cache was current when the response came
        assert item == expected_item(
            item,
            severity="error",
            blocking=True,
            stateInvalidated=ERROR_INVALIDATES[policy],
            causalOperationId=call_id,
            causalMethod="sim/inject_log",
            openedAtSequence=first,
            latestSequence=last,
            diagnosticsCursor=last - 1,
            totalUrgentEntries=500,
            sample=[
                {"level": "error", "message": message, "repeatCount": 500, "latestSequence": last}
            ],
        )
        # the ring collapsed the run into one entry, found from the item's cursor
        page = (
            await bridge.call("rimbridge/list_logs", {"afterSequence": item["diagnosticsCursor"]})
        )[1]
        [entry] = page["logs"]
        assert (entry["Message"], entry["RepeatCount"], entry["firstSequence"]) == (
            message,
            500,
            first,
        )
        assert (entry["Sequence"], page["truncated"]) == (last, False)


def _ab_script(lines: int, offset: int) -> str:
    steps = [
        {
            "call": "sim/inject_log",
            "arguments": {"level": "error", "message": "AB"[(offset + i) % 2] + " failed"},
        }
        for i in range(lines)
    ]
    return json.dumps({"steps": steps}, separators=(",", ":"))


@pytest.mark.parametrize("policy", POLICIES)
async def test_6_interleaved_spam_beyond_the_ring_keeps_two_samples_and_a_usable_cursor(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        status = (await bridge.call("rimbridge/get_bridge_status", {}))[1]
        capacity = status["logs"]["capacity"]
        assert capacity == 2000  # there is no flag for a smaller ring: exceed the default
        # A, B, A, B, ...: no two consecutive lines are identical, so nothing collapses and
        # every line takes a ring entry. Scripts of 100 steps keep it to a few calls.
        scripts, per_script = 22, 100
        first_id = None
        for number in range(scripts):
            call_id, result = await bridge.call(
                "rimbridge/run_script",
                {
                    "scriptJson": _ab_script(per_script, number * per_script),
                    "includeStepResults": False,
                },
            )
            assert (result["success"], result["script"]["executedStepCount"]) == (
                True,
                per_script,
            )
            first_id = first_id or call_id
        lines = scripts * per_script
        assert lines > capacity

        item = await bridge.attention()
        assert item is not None
        last = item["latestSequence"]
        assert item == expected_item(
            item,
            severity="error",
            blocking=True,
            stateInvalidated=ERROR_INVALIDATES[policy],
            causalOperationId=first_id,  # the first script: the root of the first line
            causalMethod="rimbridge/run_script",
            openedAtSequence=item["openedAtSequence"],
            latestSequence=last,
            diagnosticsCursor=last - 1,
            totalUrgentEntries=lines,
            sample=[
                {
                    "level": "error",
                    "message": "A failed",
                    "repeatCount": lines // 2,
                    "latestSequence": last - 1,
                },
                {
                    "level": "error",
                    "message": "B failed",
                    "repeatCount": lines // 2,
                    "latestSequence": last,
                },
            ],
        )
        assert last - item["openedAtSequence"] == lines - 1
        assert len(bridge.recorder.events("attention/opened")) == 1

        # the cursor still works: the page starts at the latest trigger and is not truncated
        page = (
            await bridge.call("rimbridge/list_logs", {"afterSequence": item["diagnosticsCursor"]})
        )[1]
        assert [(e["Sequence"], e["Message"]) for e in page["logs"]] == [(last, "B failed")]
        assert (page["truncated"], page["hasMore"]) == (False, False)
        # the line that opened the item was evicted: a page from there says so
        evicted = (
            await bridge.call(
                "rimbridge/list_logs",
                {"afterSequence": item["openedAtSequence"] - 1, "limit": 10},
            )
        )[1]
        assert evicted["truncated"] is True
        assert evicted["oldestSequence"] > item["openedAtSequence"]
        assert evicted["logs"][-1]["Sequence"] == evicted["oldestSequence"]
        assert evicted["hasMore"] is True
        # and paging on from the oldest retained line is clean again
        onward = (
            await bridge.call(
                "rimbridge/list_logs",
                {"afterSequence": evicted["oldestSequence"] - 1, "limit": 10},
            )
        )[1]
        assert onward["truncated"] is False
        assert onward["logs"] == evicted["logs"]


@pytest.mark.parametrize("policy", POLICIES)
async def test_7_a_fatal_root_cause_stays_pinned_through_fifty_other_errors(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        root_message = "Save file corrupted: world.xml truncated at byte 4096"
        root_id, root = await bridge.call(
            "sim/inject_log", {"level": "fatal", "message": root_message}
        )
        for number in range(50):
            await bridge.call(
                "sim/inject_log", {"level": "error", "message": f"Follow-up error #{number}"}
            )
        item = await bridge.attention()
        assert item is not None
        root_sample = {
            "level": "fatal",
            "message": root_message,
            "repeatCount": 1,
            "latestSequence": root["latestSequence"],
        }
        last = item["latestSequence"]
        assert item == expected_item(
            item,
            severity="fatal",
            blocking=True,
            stateInvalidated=ERROR_INVALIDATES[policy],
            causalOperationId=root_id,
            causalMethod="sim/inject_log",
            openedAtSequence=root["latestSequence"],
            latestSequence=last,
            diagnosticsCursor=last - 1,
            totalUrgentEntries=51,
            sample=[
                root_sample,
                *(
                    {
                        "level": "error",
                        "message": f"Follow-up error #{number}",
                        "repeatCount": 1,
                        "latestSequence": last - (49 - number),
                    }
                    for number in range(46, 50)
                ),
            ],
        )
        # every event on the way said the same: fatal, root first, same cause, same id
        events = bridge.recorder.attention_events()
        channels = [channel for channel, _ in events]
        assert channels[0] == "attention/opened"
        assert set(channels[1:]) == {"attention/updated"}
        assert len(events) <= 51  # at most one notification per call (each ends with a flush)
        for _, payload in events:
            assert (payload["attentionId"], payload["severity"]) == (item["attentionId"], "fatal")
            assert payload["sample"][0] == root_sample
            assert payload["causalOperationId"] == root_id


@pytest.mark.parametrize("policy", POLICIES)
async def test_8_warnings_alone_are_advisory_under_recommended_and_nothing_under_faithful(
    launch: Any, policy: str
) -> None:
    async with launch(policy) as sim:
        bridge = sim.bridge
        message = "Colonist Lucky has no bed assigned"
        mark = bridge.recorder.mark()
        call_id, result = await bridge.call(
            "sim/inject_log", {"level": "warning", "message": message, "count": 3}
        )
        if policy == "faithful":
            assert bridge.recorder.timeline(mark) == ["response:tools/call"]
            assert await bridge.attention() is None
            return
        assert bridge.recorder.timeline(mark) == [
            "event:attention/opened",
            "event:attention/updated",
            "response:tools/call",
        ]
        item = await bridge.attention()
        last = result["latestSequence"]
        assert item == expected_item(
            item,
            severity="warning",
            blocking=False,
            stateInvalidated=False,
            causalOperationId=call_id,
            causalMethod="sim/inject_log",
            openedAtSequence=result["firstSequence"],
            latestSequence=last,
            diagnosticsCursor=last - 1,
            totalUrgentEntries=3,
            sample=[
                {"level": "warning", "message": message, "repeatCount": 3, "latestSequence": last}
            ],
        )
        # advisory: the next game call runs normally and the item stays as it was
        _, info = await bridge.call("rimworld/get_game_info", {})
        assert info["phase"] == "playing"
        assert await bridge.attention() == item
