"""The mod's core unit tests (``Tests/RimBridgeServer.Core.Tests``: the log journal, the
operation journal, the capability registry, readiness) read one by one against what a tool
caller sees; this file holds the cases where the simulation did not yet answer as the mod."""

from __future__ import annotations

from typing import Any

import pytest

from lib_gab.attention import AttentionManager
from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import LogRing, OperationJournal, log_with_operation
from rimbridge_sim.feed import AttentionFeed
from rimbridge_sim.policy import Policy


async def _levels(sim: Any, **arguments: Any) -> list[str]:
    page = await sim.call("rimbridge/list_logs", limit=500, **arguments)
    return [entry["Level"] for entry in page["logs"]]


@pytest.mark.parametrize("blank", ["", "   "])
async def test_a_blank_minimum_level_lists_every_level_debug_included(
    open_sim: Any, blank: str
) -> None:
    # the mod's LogJournal.GetEntries filters by level only when minimumLevel is not blank
    async with open_sim(enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="debug", message="pathing grid rebuilt")

        assert "debug" in await _levels(sim, minimumLevel=blank)
        assert "debug" not in await _levels(sim)  # the default is still info
        assert "debug" not in await _levels(sim, minimumLevel="verbose")  # unknown: info


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": True}
    for _ in range(levels):
        value = {"inner": value}
    return value


def test_a_retained_result_is_cut_to_the_mods_bounds_and_keeps_its_shape() -> None:
    # OperationJournal.SnapshotValue: six levels, 64 entries, 1024 characters, cut parts marked
    journal = OperationJournal()
    result = {
        "text": "y" * 1500,
        "items": list(range(100)),
        "deep": _nested(8),
        "fields": {f"k{index:03}": index for index in range(70)},
    }
    journal.start("op-big", "rimworld/list_colonists")
    journal.complete("op-big", result=result)

    retained, copy, truncated = journal.result_of("op-big")

    assert (retained, truncated) == (True, True)
    assert copy["text"] == "y" * 1024 + "..."
    assert copy["items"] == [*range(64), {"reason": "item_limit", "type": "array"}]
    assert copy["deep"]["inner"]["inner"]["inner"]["inner"]["inner"] == {
        "reason": "max_depth",
        "type": "object",
    }
    assert len(copy["fields"]) == 65
    assert copy["fields"]["$truncated"] == {"reason": "item_limit", "type": "object"}


def test_a_result_within_the_bounds_is_kept_whole() -> None:
    journal = OperationJournal()
    result = {"text": "y" * 1024, "items": list(range(64)), "deep": _nested(4)}
    journal.start("op-small", "rimworld/list_colonists")
    journal.complete("op-small", result=result)

    assert journal.result_of("op-small") == (True, result, False)


async def test_get_operation_shows_a_long_list_cut_at_64_entries_and_flagged(
    open_sim: Any,
) -> None:
    async with open_sim() as sim:
        answer = await sim.call("rimbridge/list_capabilities")
        assert len(answer["capabilities"]) > 64  # the call itself answers in full
        operation_id = answer["operation"]["OperationId"]

        tracked = (await sim.call("rimbridge/get_operation", operationId=operation_id))[
            "trackedOperation"
        ]
        assert (tracked["HasResult"], tracked["ResultWasTruncated"]) == (True, True)
        kept = tracked["Result"]["capabilities"]
        assert kept[:64] == answer["capabilities"][:64]
        assert kept[64:] == [{"reason": "item_limit", "type": "array"}]
        listed = await sim.call("rimbridge/list_operations", limit=5, includeResults=True)
        same = [o for o in listed["operations"] if o["OperationId"] == operation_id]
        assert same[0]["ResultWasTruncated"] is True


def test_after_an_ack_a_line_folding_into_an_earlier_entry_counts_once() -> None:
    # the mod's aggregator forgets the repeat counts it saw on reset and adds the entry's whole
    # RepeatCount (here 6) to the new item; the sim counts the one new line
    clock = ManualClock(100.0)
    ring = LogRing(2000, collapse_window=2.0, clock=clock)
    journal = OperationJournal(clock=clock)
    manager = AttentionManager(update_interval=0.0, clock=clock)
    with AttentionFeed(manager, Policy.load("faithful"), ring, journal):
        for _ in range(5):
            log_with_operation(ring, journal, "error", "Repeated failure", source="world")
        first = manager.current()
        assert first is not None
        assert manager.ack(first.to_wire()["attentionId"]).acknowledged

        log_with_operation(ring, journal, "error", "Repeated failure", source="world")

        current = manager.current()
        assert current is not None
        item = current.to_wire()
        assert item["attentionId"] != first.to_wire()["attentionId"]
        assert item["totalUrgentEntries"] == 1
        assert ring.query(minimum_level="error").entries[0].repeat_count == 6
