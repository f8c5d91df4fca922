"""The attention feed: lines and operation outcomes, classified, into a real AttentionManager."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from gabp.messages import Attention, parse_payload
from lib_gab.attention import AttentionManager
from lib_gab.operation import Operation, current_operation, use_operation
from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import LogRing, OperationJournal, log_with_operation
from rimbridge_sim.feed import AttentionFeed, FeedStats
from rimbridge_sim.policy import Policy

try:
    import gabp_schemas
except ImportError:  # pragma: no cover - the schema package is optional here
    gabp_schemas = None  # type: ignore[assignment]

INTERVAL = 0.25


class Recorder:
    """Keeps every notification as wire JSON, checked against the frozen contract."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, channel: str, item: Attention) -> None:
        wire = item.to_wire()
        parse_payload(channel, wire, strict=True)
        if gabp_schemas is not None:
            gabp_schemas.validate(
                {
                    "v": "gabp/1",
                    "id": str(uuid.uuid4()),
                    "type": "event",
                    "channel": channel,
                    "seq": 0,
                    "payload": wire,
                }
            )
        self.events.append((channel, wire))

    @property
    def channels(self) -> list[str]:
        return [channel for channel, _ in self.events]


class Sim:
    """A ring, a journal, a manager and a feed sharing one fake clock."""

    def __init__(self, policy: str = "recommended", *, capacity: int = 2000, **feed: Any) -> None:
        self.clock = ManualClock(100.0)
        self.recorder = Recorder()
        self.ring = LogRing(capacity, collapse_window=1.0, clock=self.clock)
        self.journal = OperationJournal(clock=self.clock)
        self.manager = AttentionManager(
            update_interval=INTERVAL, clock=self.clock, listener=self.recorder
        )
        self.feed = AttentionFeed(
            self.manager, Policy.load(policy), self.ring, self.journal, **feed
        )

    def log(self, level: str, message: str, source: str = "world") -> int:
        """Log like the tool layer does; return the line's sequence."""
        entry = log_with_operation(self.ring, self.journal, level, message, source=source)
        return entry.latest_sequence

    def item(self) -> dict[str, Any] | None:
        current = self.manager.current()
        return None if current is None else current.to_wire()

    def settle(self) -> None:
        """Let the trailing update go out, as the server's timer would."""
        self.clock.advance(INTERVAL)
        self.manager.flush_due()


@pytest.fixture
def sim() -> Iterator[Sim]:
    with_feed = Sim()
    yield with_feed
    with_feed.feed.close()


def _call(sim: Sim, call_id: str, method: str) -> Operation:
    sim.journal.start(call_id, method)
    return Operation(call_id, method)


# --- causality -----------------------------------------------------------------------------------


def test_an_error_after_a_successful_call_is_tied_to_that_call(sim: Sim) -> None:
    call = _call(sim, "call-1", "rimworld/set_draft")
    with use_operation(call):
        sim.log("info", "Drafted Tynan", source="tool")
        job = sim.journal.start("job-1", "job/goto", parent_id=current_operation().id)  # type: ignore[union-attr]
        captured = Operation(job.id, job.method)
    sim.journal.complete("call-1", "drafted")
    assert sim.recorder.events == []  # the call itself raised nothing

    sim.clock.advance(2 / 60)  # two ticks later, the job runs under the captured operation
    with use_operation(captured):
        sequence = sim.log("error", "Exception in JobDriver_Goto: NullReferenceException", "job")

    assert sim.recorder.events == [
        (
            "attention/opened",
            {
                "attentionId": sim.recorder.events[0][1]["attentionId"],
                "state": "open",
                "severity": "error",
                "blocking": True,
                "stateInvalidated": False,
                "summary": "error: Exception in JobDriver_Goto: NullReferenceException",
                "causalOperationId": "call-1",
                "causalMethod": "rimworld/set_draft",
                "openedAtSequence": sequence,
                "latestSequence": sequence,
                "diagnosticsCursor": sequence - 1,
                "totalUrgentEntries": 1,
                "sample": [
                    {
                        "level": "error",
                        "message": "Exception in JobDriver_Goto: NullReferenceException",
                        "repeatCount": 1,
                        "latestSequence": sequence,
                    }
                ],
            },
        )
    ]


def test_attention_raised_inside_a_call_is_handed_over_before_the_log_call_returns(
    sim: Sim,
) -> None:
    with use_operation(_call(sim, "call-1", "sim/inject_log")):
        sim.log("error", "injected", source="tool")
        assert sim.recorder.channels == ["attention/opened"]  # before the response could go out
    assert sim.item()["causalOperationId"] == "call-1"  # type: ignore[index]


def test_a_cause_not_in_the_journal_takes_the_method_of_the_running_call(sim: Sim) -> None:
    with use_operation(Operation("call-9", "rimworld/pause_game")):
        sim.log("error", "boom")

    item = sim.item()
    assert item is not None
    assert (item["causalOperationId"], item["causalMethod"]) == ("call-9", "rimworld/pause_game")


def test_a_line_without_an_operation_has_no_cause(sim: Sim) -> None:
    sim.log("error", "boom")

    item = sim.item()
    assert item is not None
    assert "causalOperationId" not in item
    assert "causalMethod" not in item


def test_a_script_step_failure_is_caused_by_the_script_call_and_names_the_step(sim: Sim) -> None:
    _call(sim, "call-1", "rimbridge/run_script")
    sim.journal.start("step-1", "rimworld/pause_game", parent_id="call-1")
    sim.journal.complete("step-1")
    sim.journal.start("step-2", "rimworld/spawn_thing", parent_id="call-1")
    sim.journal.fail("step-2", "KeyError: 'Steel'")

    item = sim.item()
    assert item is not None
    assert {key: item[key] for key in ("severity", "blocking", "summary")} == {
        "severity": "error",
        "blocking": True,
        "summary": "error: rimworld/spawn_thing failed: KeyError: 'Steel'",
    }
    assert (item["causalOperationId"], item["causalMethod"]) == ("call-1", "rimbridge/run_script")


def test_attribution_to_the_own_operation_names_the_step_instead() -> None:
    sim = Sim(attribute_to="operation")
    _call(sim, "call-1", "rimbridge/run_script")
    sim.journal.start("step-2", "rimworld/spawn_thing", parent_id="call-1")
    with use_operation(Operation("step-2", "rimworld/spawn_thing")):
        sim.log("error", "step threw")

    item = sim.item()
    assert item is not None
    assert (item["causalOperationId"], item["causalMethod"]) == ("step-2", "rimworld/spawn_thing")
    with pytest.raises(ValueError, match="attribute_to must be"):
        AttentionFeed(sim.manager, sim.feed.policy, sim.ring, sim.journal, attribute_to="x")  # type: ignore[arg-type]


# --- spam ----------------------------------------------------------------------------------------


def test_five_hundred_identical_lines_make_one_item_with_one_sample_and_few_events(
    sim: Sim,
) -> None:
    with use_operation(_call(sim, "call-1", "sim/inject_log")):
        for _ in range(500):
            sim.log("error", "Map 0 lost its pathing grid")
            sim.clock.advance(0.001)
    sim.settle()

    assert len(sim.ring) == 1  # collapsed in the ring
    entry = sim.ring.query(after_sequence=-1).entries[0]
    assert (entry.repeat_count, entry.latest_sequence) == (500, 500)
    item = sim.item()
    assert item == {
        "attentionId": item["attentionId"] if item else None,
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "error: Map 0 lost its pathing grid (500 entries, 1 distinct)",
        "causalOperationId": "call-1",
        "causalMethod": "sim/inject_log",
        "openedAtSequence": 1,
        "latestSequence": 500,
        "diagnosticsCursor": 499,
        "totalUrgentEntries": 500,
        "sample": [
            {
                "level": "error",
                "message": "Map 0 lost its pathing grid",
                "repeatCount": 500,
                "latestSequence": 500,
            }
        ],
    }
    channels = sim.recorder.channels
    assert channels[0] == "attention/opened"
    assert set(channels[1:]) == {"attention/updated"}
    assert len(channels) <= 0.5 / INTERVAL + 3  # opened, one per interval, the trailing one
    assert sim.recorder.events[-1][1] == item  # the last event matches the item
    assert sim.feed.stats == FeedStats(500, 500, 1, 0)  # 1: the call started


def test_interleaved_spam_beyond_the_ring_keeps_two_samples_and_a_usable_cursor() -> None:
    sim = Sim(capacity=100)
    for index in range(300):
        sim.log("error", "A: reservation conflict" if index % 2 == 0 else "B: null region")
        sim.clock.advance(0.001)
    sim.settle()

    item = sim.item()
    assert item is not None
    assert item["totalUrgentEntries"] == 300
    assert item["sample"] == [
        {
            "level": "error",
            "message": "A: reservation conflict",
            "repeatCount": 150,
            "latestSequence": 299,
        },
        {"level": "error", "message": "B: null region", "repeatCount": 150, "latestSequence": 300},
    ]
    assert (item["openedAtSequence"], item["latestSequence"]) == (1, 300)
    assert sim.ring.stats().evicted == 200

    # the item's cursor still works: it starts at its latest trigger, nothing lost
    page = sim.ring.query(after_sequence=item["diagnosticsCursor"])
    assert ([e.sequence for e in page.entries], page.truncated) == ([300], False)
    # the evidence from where the item opened is gone, and the ring says so
    page = sim.ring.query(after_sequence=item["openedAtSequence"], limit=200)
    assert page.truncated is True
    assert sorted(e.sequence for e in page.entries) == list(range(201, 301))


def test_a_fatal_root_cause_stays_pinned_through_fifty_different_errors(sim: Sim) -> None:
    with use_operation(_call(sim, "call-1", "rimworld/load_game")):
        sim.log("fatal", "Save file corrupt: Colony1.rws", source="world")
    with use_operation(_call(sim, "call-2", "rimworld/list_colonists")):
        for index in range(50):
            sim.log("error", f"Exception in region {index}")
            sim.clock.advance(0.01)
    sim.settle()

    item = sim.item()
    assert item is not None
    assert item["severity"] == "fatal"
    assert item["summary"] == "fatal: Save file corrupt: Colony1.rws (51 entries, 51 distinct)"
    assert item["sample"][0] == {
        "level": "fatal",
        "message": "Save file corrupt: Colony1.rws",
        "repeatCount": 1,
        "latestSequence": 1,
    }
    assert len(item["sample"]) == sim.manager.sample_limit
    assert (item["causalOperationId"], item["causalMethod"]) == ("call-1", "rimworld/load_game")
    assert item["totalUrgentEntries"] == 51


# --- policies ------------------------------------------------------------------------------------


def test_warnings_alone_raise_nothing_under_faithful() -> None:
    sim = Sim("faithful")
    for index in range(5):
        sim.log("warning", f"Food is running low ({index})")

    assert sim.item() is None
    assert sim.recorder.events == []
    assert sim.manager.stats.entries_seen == 0  # ignored lines never reach the manager
    assert sim.feed.stats == FeedStats(5, 0, 0, 0)


def test_warnings_alone_raise_an_advisory_non_blocking_item_under_recommended(sim: Sim) -> None:
    sim.log("warning", "Food is running low")
    sim.log("warning", "Could not find a path to (1, 0, 1)", source="job")  # noise: ignored
    sim.log("warning", "No bed for Tynan")
    sim.settle()

    item = sim.item()
    assert item is not None
    assert {k: item[k] for k in ("severity", "blocking", "stateInvalidated")} == {
        "severity": "warning",
        "blocking": False,
        "stateInvalidated": False,
    }
    assert item["totalUrgentEntries"] == 2


def test_an_operation_failure_opens_a_blocking_item(sim: Sim) -> None:
    _call(sim, "call-1", "rimworld/load_game")
    sim.log("info", "Loading game Colony1", source="load")  # line 1, not attention
    sim.journal.fail("call-1", "FileNotFoundException: Colony1.rws")

    assert sim.recorder.events == [
        (
            "attention/opened",
            {
                "attentionId": sim.recorder.events[0][1]["attentionId"],
                "state": "open",
                "severity": "error",
                "blocking": True,
                "stateInvalidated": False,
                "summary": "error: rimworld/load_game failed: FileNotFoundException: Colony1.rws",
                "causalOperationId": "call-1",
                "causalMethod": "rimworld/load_game",
                "openedAtSequence": 1,
                "latestSequence": 1,
                "diagnosticsCursor": 0,
                "totalUrgentEntries": 1,
                "sample": [
                    {
                        "level": "error",
                        "message": "rimworld/load_game failed: FileNotFoundException: Colony1.rws",
                        "repeatCount": 1,
                        "latestSequence": 1,
                    }
                ],
            },
        )
    ]


def test_a_payload_failure_completes_the_operation_and_raises_nothing(sim: Sim) -> None:
    _call(sim, "call-1", "rimworld/select_pawn")
    sim.journal.complete("call-1", '{"success": false, "message": "no such pawn"}')

    assert sim.item() is None
    assert sim.feed.stats == FeedStats(0, 0, 2, 0)


@pytest.mark.parametrize(
    ("policy", "kind", "blocking", "invalidated", "summary"),
    [
        ("faithful", "cancelled", True, True, "error: x/y cancelled: stop"),
        ("recommended", "cancelled", False, True, "warning: x/y cancelled: stop"),
        ("recommended", "timed_out", True, True, "fatal: x/y timed out: stop"),
    ],
)
def test_cancelled_and_timed_out_operations_follow_the_policy(
    policy: str, kind: str, blocking: bool, invalidated: bool, summary: str
) -> None:
    sim = Sim(policy)
    _call(sim, "call-1", "x/y")
    sim.journal.fail("call-1", "stop", kind=kind)  # type: ignore[arg-type]

    item = sim.item()
    assert item is not None
    assert (item["blocking"], item["stateInvalidated"], item["summary"]) == (
        blocking,
        invalidated,
        summary,
    )


def test_a_finished_load_invalidates_state_without_blocking(sim: Sim) -> None:
    with use_operation(_call(sim, "call-1", "rimworld/load_game")):
        sim.log("info", "Loading game Colony1", source="load")
        sim.log("info", "Game loaded: Colony1", source="load")
        sim.log("info", "Map replaced: Map_1 -> Map_2", source="load")
    sim.settle()

    item = sim.item()
    assert item is not None
    assert {k: item[k] for k in ("severity", "blocking", "stateInvalidated", "summary")} == {
        "severity": "info",
        "blocking": False,
        "stateInvalidated": True,
        "summary": "info: Game loaded: Colony1 (2 entries, 2 distinct)",
    }
    assert item["causalOperationId"] == "call-1"


def test_map_loss_blocks_and_invalidates_state(sim: Sim) -> None:
    sim.log("warning", "Map removed: Map_2 (1 operation relied on it)")

    item = sim.item()
    assert item is not None
    assert (item["blocking"], item["stateInvalidated"]) == (True, True)


def test_a_load_is_not_attention_under_faithful() -> None:
    sim = Sim("faithful")
    sim.log("info", "Game loaded: Colony1", source="load")
    sim.log("warning", "Map removed: Map_2")

    assert sim.item() is None


def test_debug_and_noise_lines_never_reach_the_manager(sim: Sim) -> None:
    sim.log("debug", "Exception-looking debug line")
    sim.log("error", "Texture Things/Foo not found")
    sim.log("info", "[debug] regions rebuilt")

    assert sim.manager.stats.entries_seen == 0


def test_the_policy_can_be_switched_at_run_time(sim: Sim) -> None:
    sim.feed.policy = Policy.load("faithful")
    sim.log("warning", "Food is running low")

    assert sim.item() is None


# --- the cursor ----------------------------------------------------------------------------------


def test_the_diagnostics_cursor_starts_list_logs_exactly_at_the_trigger(sim: Sim) -> None:
    for index in range(5):
        sim.log("info", f"tick {index}")
    trigger = sim.log("error", "Exception in JobDriver_Haul")
    sim.log("info", "after")

    item = sim.item()
    assert item is not None
    page = sim.ring.query(after_sequence=item["diagnosticsCursor"])
    assert [(e.sequence, e.message) for e in page.entries] == [
        (trigger + 1, "after"),
        (trigger, "Exception in JobDriver_Haul"),
    ]


def test_the_cursor_of_a_collapsed_repeat_starts_at_the_entry_holding_it(sim: Sim) -> None:
    sim.log("info", "start")  # 1
    sim.log("error", "boom")  # 2
    last = sim.log("error", "boom")  # 3, collapsed into the entry at 2
    sim.log("info", "after")  # 4

    item = sim.item()
    assert item is not None
    assert item["diagnosticsCursor"] == last - 1
    oldest = sim.ring.query(after_sequence=item["diagnosticsCursor"]).entries[-1]
    assert (oldest.sequence, oldest.latest_sequence, oldest.repeat_count) == (2, 3, 2)


def test_a_trigger_on_the_first_line_has_cursor_zero_and_list_logs_from_it_finds_it(
    sim: Sim,
) -> None:
    sim.log("error", "first line is an error")

    item = sim.item()
    assert item is not None
    assert item["diagnosticsCursor"] == 0
    assert sim.ring.query(after_sequence=0).entries[0].sequence == item["openedAtSequence"] == 1


# --- lifecycle -----------------------------------------------------------------------------------


def test_after_an_ack_further_errors_open_a_new_item(sim: Sim) -> None:
    sim.log("error", "first")
    first = sim.item()
    assert first is not None
    assert sim.manager.ack(first["attentionId"]).acknowledged
    sim.log("error", "second")

    second = sim.item()
    assert second is not None
    assert second["attentionId"] != first["attentionId"]
    assert (second["openedAtSequence"], second["totalUrgentEntries"]) == (2, 1)


def test_a_closed_feed_reports_nothing(sim: Sim) -> None:
    sim.feed.close()
    sim.feed.close()
    sim.log("error", "boom")
    _call(sim, "call-1", "x/y")
    sim.journal.fail("call-1", "boom")

    assert sim.item() is None


def test_the_feed_is_a_context_manager() -> None:
    ring, journal = LogRing(), OperationJournal()
    manager = AttentionManager()
    with AttentionFeed(manager, Policy.load("recommended"), ring, journal) as feed:
        ring.append("error", "inside", source="world")
    ring.append("error", "outside", source="world")

    assert feed.stats == FeedStats(1, 1, 0, 0)
    assert repr(feed) == "<AttentionFeed policy='recommended'>"
