"""AttentionManager: the one open item, its updates, acks, rate limit, ids and threads."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from gabp.messages import Attention, parse_payload, parse_result
from lib_gab.attention import (
    AckOutcome,
    AttentionManager,
    AttentionStats,
    Classification,
    DefaultAttentionPolicy,
    UrgentEntry,
)

try:
    import gabp_schemas
except ImportError:  # pragma: no cover - the schema package is optional here
    gabp_schemas = None  # type: ignore[assignment]


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Recorder:
    """A listener that keeps every notification and checks it against the wire contract."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Attention]] = []

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
        self.events.append((channel, item))

    @property
    def channels(self) -> list[str]:
        return [channel for channel, _ in self.events]

    def wires(self) -> list[tuple[str, dict[str, Any]]]:
        return [(channel, item.to_wire()) for channel, item in self.events]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def manager(clock: FakeClock, recorder: Recorder) -> AttentionManager:
    return AttentionManager(clock=clock, listener=recorder)


def _open_item(manager: AttentionManager) -> Attention:
    item = manager.current()
    assert item is not None
    return item


# --- opening ---------------------------------------------------------------------------------


def test_the_first_classified_entry_opens_an_item_and_notifies_opened_at_once(
    manager: AttentionManager, recorder: Recorder
) -> None:
    attention_id = manager.report_entry("error", "Map lost after load", sequence=4810)

    assert attention_id is not None
    expected = {
        "attentionId": attention_id,
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "error: Map lost after load",
        "openedAtSequence": 4810,
        "latestSequence": 4810,
        "totalUrgentEntries": 1,
        "sample": [
            {
                "level": "error",
                "message": "Map lost after load",
                "repeatCount": 1,
                "latestSequence": 4810,
            }
        ],
    }
    assert recorder.wires() == [("attention/opened", expected)]
    assert _open_item(manager).to_wire() == expected


def test_report_returns_the_id_of_the_open_item_and_none_for_an_ignored_entry(
    manager: AttentionManager,
) -> None:
    assert manager.report_entry("info", "autosave done") is None
    first = manager.report_entry("warning", "no path to cell")
    second = manager.report(UrgentEntry("error", "job driver threw"))

    assert first is not None
    assert second == first == _open_item(manager).attention_id


def test_an_entry_that_names_its_cause_and_cursor_carries_them_into_the_item(
    manager: AttentionManager,
) -> None:
    manager.report_entry(
        "fatal",
        "Map 0 lost its pathing grid",
        sequence=7,
        state_invalidated=True,
        causal_operation_id="0d38d71b-8ca8-44dc-ab70-1c0021744b1a",
        causal_method="colony/draft_pawn",
        diagnostics_cursor=7,
    )

    wire = _open_item(manager).to_wire()
    assert {key: wire[key] for key in wire if key not in {"attentionId", "sample"}} == {
        "state": "open",
        "severity": "fatal",
        "blocking": True,
        "stateInvalidated": True,
        "summary": "fatal: Map 0 lost its pathing grid",
        "causalOperationId": "0d38d71b-8ca8-44dc-ab70-1c0021744b1a",
        "causalMethod": "colony/draft_pawn",
        "openedAtSequence": 7,
        "latestSequence": 7,
        "diagnosticsCursor": 7,
        "totalUrgentEntries": 1,
    }


def test_nothing_is_open_before_any_entry(manager: AttentionManager) -> None:
    assert manager.current() is None
    assert manager.next_update_due is None
    assert manager.flush_due() is None


# --- updating ----------------------------------------------------------------------------------


def test_updates_take_the_max_severity_the_max_sequence_and_count_every_entry(
    manager: AttentionManager,
) -> None:
    manager.report_entry("warning", "no path", sequence=10)
    manager.report_entry("fatal", "map lost", sequence=30)
    manager.report_entry("error", "job threw", sequence=20)

    item = _open_item(manager)
    assert (item.severity, item.opened_at_sequence, item.latest_sequence) == ("fatal", 10, 30)
    assert item.total_urgent_entries == 3


def test_blocking_and_state_invalidated_are_sticky_within_an_item(
    manager: AttentionManager,
) -> None:
    manager.report_entry("error", "map lost", state_invalidated=True)
    manager.report_entry("warning", "advisory after", blocking=False, state_invalidated=False)

    item = _open_item(manager)
    assert (item.blocking, item.state_invalidated) == (True, True)


def test_a_blocking_entry_turns_an_advisory_item_blocking(manager: AttentionManager) -> None:
    manager.report_entry("warning", "no path")
    assert _open_item(manager).blocking is False

    manager.report_entry("error", "job threw")

    assert _open_item(manager).blocking is True


def test_repeated_signatures_count_repeats_and_track_their_latest_sequence(
    manager: AttentionManager,
) -> None:
    for sequence, message in enumerate(["A", "B", "A", "A", "B", "C"]):
        manager.report_entry("error", f"line {message}", sequence=sequence)

    item = _open_item(manager)
    assert [sample.to_wire() for sample in item.sample or []] == [
        {"level": "error", "message": "line A", "repeatCount": 3, "latestSequence": 3},
        {"level": "error", "message": "line B", "repeatCount": 2, "latestSequence": 4},
        {"level": "error", "message": "line C", "repeatCount": 1, "latestSequence": 5},
    ]
    assert item.summary == "error: line A (6 entries, 3 distinct)"


def test_a_sample_entry_keeps_the_highest_level_its_signature_reached(
    manager: AttentionManager,
) -> None:
    manager.report_entry("error", "root")
    manager.report_entry("warning", "w", signature="sig")
    manager.report_entry("fatal", "f", signature="sig")
    manager.report_entry("warning", "w", signature="sig")

    sample = (_open_item(manager).sample or [])[1]
    assert sample.to_wire() == {
        "level": "fatal",
        "message": "w",
        "repeatCount": 3,
        "latestSequence": 3,
    }


def test_the_sample_is_bounded_pins_the_root_cause_and_evicts_the_least_recently_seen(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(sample_limit=3, clock=clock, listener=recorder)
    for message in ["root", "a", "b", "a", "c", "root", "d"]:
        manager.report_entry("error", message)

    item = _open_item(manager)
    # "b" was the least recently seen when "c" arrived, then "a" when "d" arrived
    assert [(s.message, s.repeat_count) for s in item.sample or []] == [
        ("root", 2),
        ("c", 1),
        ("d", 1),
    ]
    assert item.summary == "error: root (7 entries, 5 distinct)"


def test_an_evicted_signature_that_comes_back_starts_counting_again(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(sample_limit=2, clock=clock, listener=recorder)
    for message in ["root", "a", "b", "a"]:
        manager.report_entry("error", message)

    item = _open_item(manager)
    assert [(s.message, s.repeat_count) for s in item.sample or []] == [
        ("root", 1),
        ("a", 1),
    ]
    assert item.summary == "error: root (4 entries, 3 distinct)"


def test_a_sample_limit_of_one_keeps_only_the_root_cause(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(sample_limit=1, clock=clock, listener=recorder)
    for message in ["root", "a", "b", "root"]:
        manager.report_entry("error", message)

    item = _open_item(manager)
    assert [(s.message, s.repeat_count) for s in item.sample or []] == [("root", 2)]
    assert item.summary == "error: root (4 entries, 3 distinct)"


def test_the_root_cause_stays_pinned_through_a_long_burst_of_distinct_entries(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(sample_limit=5, clock=clock, listener=recorder)
    manager.report_entry("fatal", "the real root cause", sequence=1)
    for sequence in range(2, 2002):
        manager.report_entry("error", f"spam {sequence}", sequence=sequence)

    item = _open_item(manager)
    assert [s.message for s in item.sample or []] == [
        "the real root cause",
        "spam 1998",
        "spam 1999",
        "spam 2000",
        "spam 2001",
    ]
    assert item.summary == "fatal: the real root cause (2001 entries, 2001 distinct)"


def test_the_distinct_count_is_bounded_and_says_so_when_it_saturates(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(clock=clock, listener=recorder)
    for n in range(10_005):
        manager.report_entry("error", f"line {n}")

    assert _open_item(manager).summary == "error: line 0 (10005 entries, 10000+ distinct)"


def test_an_explicit_signature_coalesces_different_messages(manager: AttentionManager) -> None:
    manager.report_entry("error", "NullReferenceException at 0x1", signature="NRE")
    manager.report_entry("error", "NullReferenceException at 0x2", signature="NRE")

    item = _open_item(manager)
    assert [(s.message, s.repeat_count) for s in item.sample or []] == [
        ("NullReferenceException at 0x1", 2)
    ]
    assert item.summary == "error: NullReferenceException at 0x1 (2 entries, 1 distinct)"


def test_the_diagnostics_cursor_is_the_latest_one_given(manager: AttentionManager) -> None:
    manager.report_entry("error", "a", diagnostics_cursor=5)
    manager.report_entry("error", "b", diagnostics_cursor=9)
    manager.report_entry("error", "c")

    assert _open_item(manager).diagnostics_cursor == 9


# --- messages and summaries ------------------------------------------------------------------


def test_long_messages_are_cut_to_the_limit_with_an_ellipsis(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(message_limit=20, clock=clock, listener=recorder)
    manager.report_entry("error", "x" * 19 + "TAIL ONE")
    manager.report_entry("error", "x" * 19 + "TAIL TWO")  # same after the cut: same signature
    manager.report_entry("error", "y" * 20)  # exactly the limit: kept whole

    item = _open_item(manager)
    assert [(s.message, s.repeat_count) for s in item.sample or []] == [
        ("x" * 19 + "…", 2),
        ("y" * 20, 1),
    ]
    assert all(len(s.message) <= 20 for s in item.sample or [])
    assert item.summary == f"error: {'x' * 19}… (3 entries, 2 distinct)"


def test_the_summary_stays_bounded_for_the_longest_messages(recorder: Recorder) -> None:
    manager = AttentionManager(message_limit=500, listener=recorder)
    for n in range(1000):
        manager.report_entry("fatal", f"{n} " + "z" * 2000)

    assert len(_open_item(manager).summary) <= 500 + 80


def test_an_empty_message_still_makes_a_valid_item(manager: AttentionManager) -> None:
    manager.report_entry("error", "")

    item = _open_item(manager)
    assert item.summary == "error: (empty message)"
    assert [s.message for s in item.sample or []] == ["(empty message)"]


def test_the_summary_describes_the_worst_entry_and_how_the_item_began(
    manager: AttentionManager,
) -> None:
    manager.report_entry("warning", "Pawn Tynan has no path")
    assert _open_item(manager).summary == "warning: Pawn Tynan has no path"
    manager.report_entry("fatal", "Map 0 lost")
    manager.report_entry("warning", "Pawn Tynan has no path")

    item = _open_item(manager)
    assert (item.severity, item.summary) == (
        "fatal",
        "fatal: Map 0 lost (opened by warning: Pawn Tynan has no path) (3 entries, 2 distinct)",
    )


# --- causality ---------------------------------------------------------------------------------


def test_the_cause_comes_from_the_operation_provider_at_report_time(
    clock: FakeClock, recorder: Recorder
) -> None:
    running: list[tuple[str, str] | None] = [("op-1", "colony/draft_pawn")]
    manager = AttentionManager(
        clock=clock, listener=recorder, operation_provider=lambda: running[0]
    )

    manager.report_entry("error", "job threw")
    running[0] = ("op-2", "colony/build")
    manager.report_entry("error", "later spam")

    item = _open_item(manager)
    assert (item.causal_operation_id, item.causal_method) == ("op-1", "colony/draft_pawn")


def test_an_item_opened_without_a_cause_adopts_the_first_one_that_arrives(
    clock: FakeClock, recorder: Recorder
) -> None:
    running: list[tuple[str, str] | None] = [None]
    manager = AttentionManager(
        clock=clock, listener=recorder, operation_provider=lambda: running[0]
    )

    manager.report_entry("error", "background error")
    assert _open_item(manager).causal_operation_id is None
    running[0] = ("op-7", "colony/build")
    manager.report_entry("error", "more")
    running[0] = ("op-8", "colony/other")
    manager.report_entry("error", "even more")

    item = _open_item(manager)
    assert (item.causal_operation_id, item.causal_method) == ("op-7", "colony/build")


def test_an_entrys_own_cause_wins_over_the_operation_provider(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(
        clock=clock, listener=recorder, operation_provider=lambda: ("op-1", "tool/a")
    )
    manager.report_entry("error", "job threw", causal_operation_id="op-9", causal_method="job/x")

    item = _open_item(manager)
    assert (item.causal_operation_id, item.causal_method) == ("op-9", "job/x")


def test_a_failing_operation_provider_is_logged_and_the_entry_still_counts(
    clock: FakeClock, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> tuple[str, str] | None:
        raise RuntimeError("no context")

    manager = AttentionManager(clock=clock, listener=recorder, operation_provider=broken)
    with caplog.at_level(logging.ERROR, logger="lib_gab.attention"):
        manager.report_entry("error", "job threw")

    assert _open_item(manager).causal_operation_id is None
    assert [r.name for r in caplog.records] == ["lib_gab.attention"]


# --- acknowledging -----------------------------------------------------------------------------


def test_an_ack_with_the_open_items_id_clears_it_and_notifies_cleared(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.report_entry("error", "map lost", sequence=3, state_invalidated=True)
    manager.report_entry("error", "map lost", sequence=4)
    open_wire = _open_item(manager).to_wire()

    outcome = manager.ack(open_wire["attentionId"])

    assert outcome == AckOutcome(True, open_wire["attentionId"], None)
    assert outcome.to_wire() == {
        "acknowledged": True,
        "attentionId": open_wire["attentionId"],
        "currentAttention": None,
    }
    assert manager.current() is None
    channel, cleared = recorder.events[-1]
    assert channel == "attention/cleared"
    assert cleared.to_wire() == {**open_wire, "state": "cleared", "blocking": False}


def test_an_ack_with_another_id_changes_nothing_and_returns_the_open_item(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.report_entry("error", "map lost")
    item = _open_item(manager)

    outcome = manager.ack("att-not-this-one")

    assert outcome == AckOutcome(False, "att-not-this-one", item)
    assert outcome.to_wire() == {
        "acknowledged": False,
        "attentionId": "att-not-this-one",
        "currentAttention": item.to_wire(),
    }
    assert _open_item(manager) == item
    assert recorder.channels == ["attention/opened"]


def test_an_ack_with_nothing_open_is_not_acknowledged(manager: AttentionManager) -> None:
    outcome = manager.ack("att-anything")

    assert outcome == AckOutcome(False, "att-anything", None)
    assert outcome.to_wire() == {
        "acknowledged": False,
        "attentionId": "att-anything",
        "currentAttention": None,
    }


def test_every_ack_outcome_is_a_valid_attention_ack_result(manager: AttentionManager) -> None:
    outcomes = [manager.ack("att-x")]
    attention_id = manager.report_entry("error", "map lost")
    assert attention_id is not None
    outcomes += [manager.ack("att-x"), manager.ack(attention_id), manager.ack(attention_id)]

    for outcome in outcomes:
        parse_result("attention/ack", outcome.to_wire(), strict=True)
    assert [o.acknowledged for o in outcomes] == [False, False, True, False]


def test_entries_after_a_clear_open_a_new_item_with_a_new_id(
    manager: AttentionManager, recorder: Recorder
) -> None:
    first = manager.report_entry("error", "map lost")
    assert first is not None
    manager.ack(first)

    second = manager.report_entry("warning", "no path")

    assert second is not None and second != first
    item = _open_item(manager)
    assert (item.attention_id, item.total_urgent_entries, item.blocking) == (second, 1, False)
    assert item.opened_at_sequence == 1  # the manager's sequence counter goes on
    assert recorder.channels == ["attention/opened", "attention/cleared", "attention/opened"]


def test_a_retried_ack_with_an_old_id_never_clears_a_newer_item(
    manager: AttentionManager,
) -> None:
    old = manager.report_entry("error", "map lost")
    assert old is not None
    assert manager.ack(old).acknowledged is True
    new = manager.report_entry("error", "map lost again")

    retry = manager.ack(old)

    assert retry.acknowledged is False
    assert retry.current is not None and retry.current.attention_id == new


def test_handed_out_items_are_snapshots_that_later_entries_do_not_change(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.report_entry("error", "map lost")
    snapshot = _open_item(manager)
    before = snapshot.to_wire()

    manager.report_entry("fatal", "worse")

    assert snapshot.to_wire() == before
    assert recorder.events[0][1].to_wire() == before


# --- listener ----------------------------------------------------------------------------------


def test_the_listener_sees_opened_updated_and_cleared_in_order(
    clock: FakeClock, recorder: Recorder
) -> None:
    manager = AttentionManager(clock=clock, listener=recorder, update_interval=0)
    attention_id = manager.report_entry("error", "a")
    manager.report_entry("error", "b")
    assert attention_id is not None
    manager.ack(attention_id)

    assert recorder.channels == ["attention/opened", "attention/updated", "attention/cleared"]
    assert [item.total_urgent_entries for _, item in recorder.events] == [1, 2, 2]
    assert [item.state for _, item in recorder.events] == ["open", "open", "cleared"]


def test_a_failing_listener_is_logged_and_the_manager_keeps_working(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []

    def failing(channel: str, item: Attention) -> None:
        calls.append(channel)
        raise RuntimeError("socket gone")

    manager = AttentionManager(clock=clock, listener=failing, update_interval=0)
    with caplog.at_level(logging.ERROR, logger="lib_gab.attention"):
        attention_id = manager.report_entry("error", "a")
        manager.report_entry("error", "b")
        assert attention_id is not None
        assert manager.ack(attention_id).acknowledged is True

    assert calls == ["attention/opened", "attention/updated", "attention/cleared"]
    assert [(r.name, r.levelname) for r in caplog.records] == [("lib_gab.attention", "ERROR")] * 3
    assert all(r.exc_info is not None for r in caplog.records)


def test_without_a_listener_notifications_are_counted_but_not_sent(clock: FakeClock) -> None:
    manager = AttentionManager(clock=clock)
    attention_id = manager.report_entry("error", "a")
    assert attention_id is not None
    manager.ack(attention_id)

    recorder = Recorder()
    manager.set_listener(recorder)
    manager.report_entry("error", "b")
    manager.set_listener(None)
    manager.report_entry("error", "c", sequence=99)

    assert recorder.channels == ["attention/opened"]
    assert manager.stats.events_emitted == {"opened": 2, "updated": 0, "cleared": 1}


def test_a_listener_may_report_and_ack_from_inside_a_notification(clock: FakeClock) -> None:
    seen: list[tuple[str, int]] = []
    manager = AttentionManager(clock=clock, update_interval=0)

    def reentrant(channel: str, item: Attention) -> None:
        seen.append((channel, item.total_urgent_entries))
        if channel == "attention/opened":
            manager.report_entry("error", "reported from the listener")
        elif channel == "attention/updated":
            manager.ack(item.attention_id)

    manager.set_listener(reentrant)
    manager.report_entry("error", "a")

    assert seen == [("attention/opened", 1), ("attention/updated", 2), ("attention/cleared", 2)]
    assert manager.current() is None


# --- rate limiting -----------------------------------------------------------------------------


def test_an_update_goes_out_at_once_when_the_interval_has_passed(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    manager.report_entry("error", "a")
    clock.advance(0.25)
    manager.report_entry("error", "b")

    assert recorder.channels == ["attention/opened", "attention/updated"]
    assert manager.next_update_due is None


def test_updates_within_the_interval_are_deferred_and_coalesced_into_one(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    manager.report_entry("error", "a")
    for n in range(50):
        clock.advance(0.001)
        manager.report_entry("error", f"spam {n}")

    assert recorder.channels == ["attention/opened"]
    assert manager.next_update_due == pytest.approx(100.25)
    assert manager.flush_due() == pytest.approx(0.2)
    assert recorder.channels == ["attention/opened"]

    clock.advance(0.2)
    assert manager.flush_due() is None

    assert recorder.channels == ["attention/opened", "attention/updated"]
    assert recorder.events[-1][1].total_urgent_entries == 51
    assert manager.next_update_due is None
    assert manager.flush_due() is None
    assert recorder.channels == ["attention/opened", "attention/updated"]


def test_a_due_deferred_update_also_goes_out_with_the_next_entry(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    manager.report_entry("error", "a")
    clock.advance(0.1)
    manager.report_entry("error", "b")
    clock.advance(0.2)
    manager.report_entry("error", "c")

    assert recorder.channels == ["attention/opened", "attention/updated"]
    assert recorder.events[-1][1].total_urgent_entries == 3
    assert manager.next_update_due is None


def test_the_interval_restarts_at_every_notification(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    manager.report_entry("error", "a")  # opened at 100.0
    clock.advance(0.3)
    manager.report_entry("error", "b")  # updated at 100.3
    clock.advance(0.1)
    manager.report_entry("error", "c")  # deferred to 100.55

    assert manager.next_update_due == pytest.approx(100.55)


def test_an_escalation_is_notified_at_once_despite_the_rate_limit(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    manager.report_entry("warning", "low food")  # advisory item
    clock.advance(0.01)
    manager.report_entry("warning", "low food")  # same severity: deferred
    assert recorder.channels == ["attention/opened"]
    manager.report_entry("error", "pawn starving")  # worse and now blocking: at once
    assert recorder.channels == ["attention/opened", "attention/updated"]
    escalated = recorder.events[-1][1]
    assert (escalated.severity, escalated.blocking, escalated.total_urgent_entries) == (
        "error",
        True,
        3,
    )
    manager.report_entry("error", "pawn starving")  # no escalation: deferred again
    assert recorder.channels == ["attention/opened", "attention/updated"]
    manager.report_entry("error", "map lost", state_invalidated=True)  # invalidating: at once
    assert recorder.channels[-1] == "attention/updated"
    assert recorder.events[-1][1].state_invalidated is True
    assert len(recorder.channels) == 3


def test_flush_pending_sends_a_deferred_update_at_once_and_only_once(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    assert manager.flush_pending() is False  # nothing open
    manager.report_entry("error", "a")
    assert manager.flush_pending() is False  # nothing deferred
    clock.advance(0.01)
    manager.report_entry("error", "b")
    manager.report_entry("error", "c")

    assert manager.flush_pending() is True
    assert recorder.channels == ["attention/opened", "attention/updated"]
    assert recorder.events[-1][1].total_urgent_entries == 3
    assert manager.next_update_due is None
    assert manager.flush_pending() is False
    clock.advance(1.0)
    assert manager.flush_due() is None
    assert recorder.channels == ["attention/opened", "attention/updated"]


def test_a_deferred_update_is_dropped_when_the_item_is_cleared_first(
    manager: AttentionManager, clock: FakeClock, recorder: Recorder
) -> None:
    attention_id = manager.report_entry("error", "a")
    manager.report_entry("error", "b")
    assert attention_id is not None
    assert manager.next_update_due is not None

    manager.ack(attention_id)
    clock.advance(1.0)

    assert manager.flush_due() is None
    assert manager.next_update_due is None
    assert recorder.channels == ["attention/opened", "attention/cleared"]


def test_an_interval_of_zero_sends_every_update(clock: FakeClock, recorder: Recorder) -> None:
    manager = AttentionManager(clock=clock, listener=recorder, update_interval=0)
    for n in range(5):
        manager.report_entry("error", f"line {n}")

    assert recorder.channels == ["attention/opened"] + ["attention/updated"] * 4


def test_spam_sends_a_bounded_number_of_updates(clock: FakeClock, recorder: Recorder) -> None:
    manager = AttentionManager(clock=clock, listener=recorder, update_interval=0.25)
    start = clock.now
    for n in range(10_000):
        clock.advance(0.0007)  # 7 seconds of spam at ~1400 lines per second
        manager.report_entry("error", f"line {n % 7}")
        if n % 100 == 0:
            manager.flush_due()
    clock.advance(0.25)
    manager.flush_due()

    updated = recorder.channels.count("attention/updated")
    assert updated <= (clock.now - start) / 0.25 + 2
    assert recorder.events[-1][1].total_urgent_entries == 10_000  # the trailing update


# --- policies ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (UrgentEntry("info", "m"), None),
        (UrgentEntry("warning", "m"), Classification(blocking=False)),
        (UrgentEntry("error", "m"), Classification(blocking=True)),
        (UrgentEntry("fatal", "m"), Classification(blocking=True)),
        (UrgentEntry("error", "m", blocking=False), Classification(blocking=False)),
        (UrgentEntry("warning", "m", blocking=True), Classification(blocking=True)),
        (
            UrgentEntry("fatal", "m", state_invalidated=True),
            Classification(blocking=True, state_invalidated=True),
        ),
        (UrgentEntry("info", "m", blocking=True), Classification(blocking=True)),
        (
            UrgentEntry("info", "m", state_invalidated=True),
            Classification(blocking=False, state_invalidated=True),
        ),
    ],
)
def test_the_default_policy_maps_levels_and_honours_entry_overrides(
    entry: UrgentEntry, expected: Classification | None
) -> None:
    assert DefaultAttentionPolicy().classify(entry) == expected


def test_a_custom_policy_can_ignore_entries_and_they_are_counted_as_ignored(
    clock: FakeClock, recorder: Recorder
) -> None:
    class OnlyMapLoss:
        def classify(self, entry: UrgentEntry) -> Classification | None:
            if "map" in entry.message:
                return Classification(blocking=True, state_invalidated=True)
            return None

    manager = AttentionManager(policy=OnlyMapLoss(), clock=clock, listener=recorder)
    assert manager.report_entry("fatal", "pawn starving") is None
    assert manager.current() is None
    assert manager.report_entry("warning", "map lost") is not None
    assert manager.report_entry("fatal", "still starving") is None  # ignored, item stays

    item = _open_item(manager)
    assert (item.severity, item.blocking, item.state_invalidated) == ("warning", True, True)
    assert item.total_urgent_entries == 1
    assert manager.stats == AttentionStats(
        entries_seen=3,
        entries_ignored=2,
        items_opened=1,
        events_emitted={"opened": 1, "updated": 0, "cleared": 0},
    )


def test_an_entrys_explicit_flags_override_a_custom_policy(
    clock: FakeClock, recorder: Recorder
) -> None:
    class AlwaysBlocking:
        def classify(self, entry: UrgentEntry) -> Classification | None:
            return Classification(blocking=True, state_invalidated=True)

    manager = AttentionManager(policy=AlwaysBlocking(), clock=clock, listener=recorder)
    manager.report_entry("error", "advisory by decree", blocking=False, state_invalidated=False)

    item = _open_item(manager)
    assert (item.blocking, item.state_invalidated) == (False, False)


# --- sequences ---------------------------------------------------------------------------------


def test_entries_without_a_sequence_are_numbered_from_zero_per_manager(
    clock: FakeClock,
) -> None:
    first, second = AttentionManager(clock=clock), AttentionManager(clock=clock)
    for _ in range(3):
        first.report_entry("error", "a")
    second.report_entry("error", "b")

    one, two = first.current(), second.current()
    assert one is not None and two is not None
    assert (one.opened_at_sequence, one.latest_sequence) == (0, 2)
    assert (two.opened_at_sequence, two.latest_sequence) == (0, 0)


@pytest.mark.parametrize("field", ["sequence", "diagnostics_cursor"])
def test_negative_sequences_are_rejected_naming_the_field(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        fields: dict[str, Any] = {field: -1}
        UrgentEntry("error", "m", **fields)


def test_an_unknown_level_is_rejected_naming_the_field() -> None:
    with pytest.raises(ValueError, match="level"):
        UrgentEntry("critical", "m")  # type: ignore[arg-type]


def test_urgent_entries_are_immutable() -> None:
    entry = UrgentEntry("error", "m")
    with pytest.raises(FrozenInstanceError):
        entry.message = "changed"  # type: ignore[misc]


# --- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "parameter"),
    [
        ({"sample_limit": 0}, "sample_limit"),
        ({"sample_limit": 2.5}, "sample_limit"),
        ({"message_limit": 15}, "message_limit"),
        ({"update_interval": -0.1}, "update_interval"),
        ({"update_interval": float("nan")}, "update_interval"),
        ({"update_interval": float("inf")}, "update_interval"),
    ],
)
def test_invalid_parameters_are_rejected_naming_the_parameter(
    options: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(ValueError, match=parameter):
        AttentionManager(**options)


def test_the_smallest_valid_parameters_are_accepted() -> None:
    manager = AttentionManager(sample_limit=1, message_limit=16, update_interval=0)

    assert (manager.sample_limit, manager.message_limit, manager.update_interval) == (1, 16, 0.0)


# --- ids and threads ---------------------------------------------------------------------------


def test_ids_never_collide_across_managers(clock: FakeClock) -> None:
    managers = [AttentionManager(clock=clock) for _ in range(20)]
    ids: list[str] = []
    for _ in range(10):
        for manager in managers:
            attention_id = manager.report_entry("error", "a")
            assert attention_id is not None
            ids.append(attention_id)
            manager.ack(attention_id)

    assert len(set(ids)) == len(ids) == 200
    assert all(attention_id.startswith("att-") for attention_id in ids)


@pytest.fixture
def threads() -> Iterator[list[threading.Thread]]:
    started: list[threading.Thread] = []
    yield started
    for thread in started:
        thread.join(timeout=10)
        assert not thread.is_alive()


def test_concurrent_reports_and_acks_keep_one_item_unique_ids_and_ordered_notifications(
    threads: list[threading.Thread],
) -> None:
    events: list[tuple[str, str, int]] = []
    events_lock = threading.Lock()
    overlaps: list[str] = []

    def make_listener() -> Callable[[str, Attention], None]:
        in_listener = threading.Lock()  # one manager never runs its listener concurrently

        def listener(channel: str, item: Attention) -> None:
            if not in_listener.acquire(blocking=False):
                overlaps.append(channel)
                return
            try:
                parse_payload(channel, item.to_wire(), strict=True)
                with events_lock:
                    events.append((channel, item.attention_id, item.total_urgent_entries))
            finally:
                in_listener.release()

        return listener

    managers = [AttentionManager(update_interval=0, listener=make_listener()) for _ in range(2)]
    acked: list[str] = []
    barrier = threading.Barrier(8)

    finished = {id(manager): threading.Barrier(4) for manager in managers}

    def reporter(manager: AttentionManager, worker: int) -> None:
        barrier.wait()
        for n in range(400):
            manager.report_entry("error", f"worker {worker} line {n % 13}")
        finished[id(manager)].wait()

    def ack_current(manager: AttentionManager) -> None:
        item = manager.current()
        if item is not None and manager.ack(item.attention_id).acknowledged:
            acked.append(item.attention_id)

    def acker(manager: AttentionManager) -> None:
        barrier.wait()
        for _ in range(300):
            ack_current(manager)
        finished[id(manager)].wait()
        ack_current(manager)  # the item the reporters left open

    for index, manager in enumerate(managers):
        for worker in range(3):
            threads.append(threading.Thread(target=reporter, args=(manager, index * 3 + worker)))
        threads.append(threading.Thread(target=acker, args=(manager,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert overlaps == []
    assert len(acked) >= 2  # at least the item each manager had open at the end
    assert all(manager.current() is None for manager in managers)
    assert len(acked) == len(set(acked))
    opened = [attention_id for channel, attention_id, _ in events if channel == "attention/opened"]
    assert len(opened) == len(set(opened))
    assert sorted(acked) == sorted(
        attention_id for channel, attention_id, _ in events if channel == "attention/cleared"
    )
    # per item: opened first, counts never go down, cleared last
    by_item: dict[str, list[tuple[str, int]]] = {}
    for channel, attention_id, total in events:
        by_item.setdefault(attention_id, []).append((channel, total))
    for history in by_item.values():
        assert history[0][0] == "attention/opened"
        assert all(channel != "attention/opened" for channel, _ in history[1:])
        assert all(channel != "attention/cleared" for channel, _ in history[:-1])
        totals = [total for _, total in history]
        assert totals == sorted(totals)
    seen = sum(manager.stats.entries_seen for manager in managers)
    assert seen == 6 * 400


def test_ids_are_unique_when_many_threads_open_items_at_once(
    threads: list[threading.Thread],
) -> None:
    ids: list[str] = []
    ids_lock = threading.Lock()
    barrier = threading.Barrier(8)

    def worker() -> None:
        manager = AttentionManager()
        barrier.wait()
        for _ in range(200):
            attention_id = manager.report_entry("error", "a")
            assert attention_id is not None
            manager.ack(attention_id)
            with ids_lock:
                ids.append(attention_id)

    threads.extend(threading.Thread(target=worker) for _ in range(8))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert len(ids) == len(set(ids)) == 1600


def test_a_report_made_while_another_thread_delivers_is_handed_over_without_waiting(
    threads: list[threading.Thread],
) -> None:
    entered = threading.Event()
    release = threading.Event()
    delivered: list[tuple[str, int, str]] = []

    def slow_listener(channel: str, item: Attention) -> None:
        if not delivered:
            entered.set()
            assert release.wait(timeout=10)
        delivered.append((channel, item.total_urgent_entries, threading.current_thread().name))

    manager = AttentionManager(update_interval=0, listener=slow_listener)

    threads.append(threading.Thread(target=manager.report_entry, args=("error", "a"), name="A"))
    threads[0].start()
    assert entered.wait(timeout=10)  # thread A is inside the listener with "opened"
    threads.append(threading.Thread(target=manager.report_entry, args=("error", "b"), name="B"))
    threads[1].start()
    threads[1].join(timeout=10)
    assert not threads[1].is_alive()  # B returned while A still holds the listener
    assert delivered == []

    release.set()
    threads[0].join(timeout=10)

    assert delivered == [("attention/opened", 1, "A"), ("attention/updated", 2, "A")]
