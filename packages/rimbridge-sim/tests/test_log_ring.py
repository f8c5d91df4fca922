"""The log ring: sequences from 1, collapsing, the list_logs query semantics, filters."""

from __future__ import annotations

import re
import threading

import pytest

from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import LogRing, RingStats, level_rank, query_rank


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ring(clock: ManualClock) -> LogRing:
    return LogRing(capacity=10, collapse_window=1.0, clock=clock)


def messages(page_entries: tuple[object, ...]) -> list[str]:
    return [e.message for e in page_entries]  # type: ignore[attr-defined]


def test_each_line_gets_the_next_sequence_starting_at_one(ring: LogRing) -> None:
    first = ring.append("info", "colony founded", source="world", tick=0)
    second = ring.append("warning", "food is low", source="world", tick=60)

    assert (first.sequence, first.latest_sequence, first.tick) == (1, 1, 0)
    assert (second.sequence, second.level, second.message) == (2, "warning", "food is low")
    assert ring.latest_sequence == 2


def test_an_empty_ring_has_no_latest_sequence_and_reads_empty(ring: LogRing) -> None:
    assert ring.latest_sequence is None
    page = ring.query()
    assert (page.entries, page.next_cursor, page.latest_sequence) == ((), 0, None)


def test_an_entry_handed_out_never_changes_when_later_lines_collapse_into_its_run(
    ring: LogRing,
) -> None:
    first = ring.append("info", "x", source="world")
    second = ring.append("info", "x", source="world")
    assert (first.repeat_count, first.latest_sequence) == (1, 1)
    assert (second.repeat_count, second.latest_sequence, second.entry_id) == (
        2,
        2,
        first.entry_id,
    )
    assert ring.query().entries == (second,)


def test_entry_ids_look_like_the_mods_and_differ_between_entries_and_rings(
    ring: LogRing,
) -> None:
    ids = [ring.append("info", f"line {n}", source="world").entry_id for n in range(3)]
    other = LogRing().append("info", "line 0", source="world").entry_id
    assert all(re.fullmatch(r"log_[0-9a-f]{32}", i) for i in [*ids, other])
    assert len({*ids, other}) == 4


def test_identical_lines_within_the_window_collapse_and_move_the_wire_sequence(
    ring: LogRing, clock: ManualClock
) -> None:
    ring.append("error", "boom", source="job")
    clock.advance(0.5)
    ring.append("error", "boom", source="job")
    clock.advance(0.9)  # measured from the previous repeat, not from the first line
    last = ring.append("error", "boom", source="job")

    assert (last.sequence, last.latest_sequence, last.repeat_count) == (1, 3, 3)
    wire = last.to_wire()
    assert (wire["Sequence"], wire["firstSequence"], wire["RepeatCount"]) == (3, 1, 3)
    assert ring.query().entries == (last,)
    assert ring.stats() == RingStats(
        capacity=10,
        size=1,
        lines=3,
        collapsed=2,
        evicted=0,
        lines_by_level={"debug": 0, "info": 0, "warning": 0, "error": 3, "fatal": 0},
    )


def test_an_identical_line_after_the_window_starts_a_new_entry(
    ring: LogRing, clock: ManualClock
) -> None:
    ring.append("error", "boom", source="job")
    clock.advance(1.5)
    ring.append("error", "boom", source="job")

    assert len(ring) == 2


@pytest.mark.parametrize(
    ("level", "message", "source", "operation"),
    [
        ("warning", "boom", "job", None),
        ("error", "bang", "job", None),
        ("error", "boom", "world", None),
        ("error", "boom", "job", "op-1"),
    ],
)
def test_lines_differing_in_level_message_source_or_operation_do_not_collapse(
    ring: LogRing, level: str, message: str, source: str, operation: str | None
) -> None:
    ring.append("error", "boom", source="job")
    ring.append(level, message, source=source, operation_id=operation)

    assert len(ring) == 2


def test_without_a_cursor_the_newest_entries_come_first(ring: LogRing) -> None:
    for index in range(6):
        ring.append("info", f"line {index}", source="world")

    page = ring.query(limit=3)
    assert messages(page.entries) == ["line 5", "line 4", "line 3"]
    assert (page.has_more, page.next_cursor, page.latest_sequence) == (True, 6, 6)


def test_a_cursor_pages_forward_from_the_oldest_match_without_gaps(ring: LogRing) -> None:
    for index in range(7):
        ring.append("info", f"line {index}", source="world")

    first = ring.query(after_sequence=1, limit=3)
    assert messages(first.entries) == ["line 3", "line 2", "line 1"]
    assert (first.has_more, first.next_cursor) == (True, 4)
    second = ring.query(after_sequence=first.next_cursor, limit=3)
    assert messages(second.entries) == ["line 6", "line 5", "line 4"]
    assert (second.has_more, second.next_cursor) == (False, 7)


def test_a_cursor_before_a_line_starts_at_the_entry_holding_it(ring: LogRing) -> None:
    ring.append("info", "before", source="world")
    ring.append("error", "boom", source="job")
    ring.append("error", "boom", source="job")
    trigger = ring.append("error", "boom", source="job").latest_sequence

    page = ring.query(after_sequence=trigger - 1)
    assert [(e.message, e.repeat_count) for e in page.entries] == [("boom", 3)]


def test_the_oldest_entries_are_evicted_and_an_old_cursor_says_truncated(
    clock: ManualClock,
) -> None:
    ring = LogRing(capacity=3, clock=clock)
    for index in range(5):
        ring.append("info", f"line {index}", source="world")

    page = ring.query(after_sequence=1)
    assert page.truncated
    assert messages(page.entries) == ["line 4", "line 3", "line 2"]
    assert page.oldest_sequence == 3
    assert not ring.query(after_sequence=3).truncated


def test_minimum_level_reads_like_the_mod_unknown_levels_count_as_info(ring: LogRing) -> None:
    ring.append("debug", "noise", source="world")
    ring.append("info", "note", source="world")
    ring.append("warning", "careful", source="world")
    ring.append("error", "broken", source="world")

    assert messages(ring.query(minimum_level="warning").entries) == ["broken", "careful"]
    assert messages(ring.query(minimum_level="ERROR").entries) == ["broken"]
    assert messages(ring.query(minimum_level="bogus").entries) == ["broken", "careful", "note"]
    assert len(ring.query(minimum_level="debug").entries) == 4
    assert len(ring.query(minimum_level="trace").entries) == 4
    assert len(ring.query(minimum_level=" ").entries) == 4  # blank: no level filter
    assert (query_rank(None), query_rank(" Warning "), level_rank("fatal")) == (-1, 2, 4)


def test_operation_filters_match_exactly_and_the_combined_one_matches_either(
    ring: LogRing,
) -> None:
    ring.append("info", "call line", source="tool", operation_id="call-1")
    ring.append(
        "info",
        "step line",
        source="tool",
        operation_id="step-1",
        root_operation_id="call-1",
        capability_id="rimworld/pause_game",
    )
    ring.append("info", "other", source="tool", operation_id="call-2")

    assert messages(ring.query(operation_id="call-1").entries) == ["call line"]
    assert messages(ring.query(root_operation_id="call-1").entries) == ["step line", "call line"]
    assert messages(ring.query(operation_or_root="call-1").entries) == ["step line", "call line"]
    assert messages(ring.query(capability_id="rimworld/pause_game").entries) == ["step line"]


def test_a_limit_of_zero_or_less_reads_nothing(ring: LogRing) -> None:
    ring.append("info", "x", source="world")
    assert ring.query(limit=0).entries == ()
    assert ring.query(after_sequence=0, limit=-5).entries == ()


def test_bad_lines_are_refused_with_the_rule(ring: LogRing) -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        ring.append("loud", "x", source="world")
    with pytest.raises(TypeError, match="message must be a str"):
        ring.append("info", 3, source="world")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="source must be a non-empty str"):
        ring.append("info", "x", source="")
    with pytest.raises(ValueError, match="capacity must be an int >= 1"):
        LogRing(0)


def test_listeners_see_every_line_and_a_failing_one_stops_nothing(
    ring: LogRing, caplog: pytest.LogCaptureFixture
) -> None:
    heard: list[tuple[int, bool]] = []

    def broken(entry: object, collapsed: bool) -> None:
        raise RuntimeError("listener bug")

    ring.subscribe(broken)
    unsubscribe = ring.subscribe(
        lambda entry, collapsed: heard.append((entry.latest_sequence, collapsed))
    )
    ring.append("error", "boom", source="job")
    ring.append("error", "boom", source="job")
    unsubscribe()
    ring.append("info", "after", source="job")

    assert heard == [(1, False), (2, True)]
    assert len(ring) == 2
    assert "listener bug" in caplog.text


def test_sequences_stay_unique_and_dense_under_concurrent_appends() -> None:
    ring = LogRing(capacity=10_000, collapse_window=0)
    sequences: list[int] = []
    lock = threading.Lock()

    def writer(name: str) -> None:
        for index in range(2000):
            entry = ring.append("info", f"{name} {index}", source=name)
            with lock:
                sequences.append(entry.sequence)

    threads = [threading.Thread(target=writer, args=(f"t{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(sequences) == list(range(1, 8001))


def test_entries_serialize_with_the_mods_field_names(ring: LogRing) -> None:
    entry = ring.append(
        "warning",
        "food is low",
        source="needs",
        tick=60,
        operation_id="step-1",
        root_operation_id="call-1",
        capability_id="rimworld/pause_game",
        parent_operation_id="call-1",
    )

    wire = entry.to_wire()
    # the mod's BridgeLogEntry as Newtonsoft writes it (declaration order), then the sim's
    assert list(wire) == [
        "Sequence",
        "EntryId",
        "Level",
        "Message",
        "StackTrace",
        "Source",
        "OperationId",
        "CapabilityId",
        "ParentOperationId",
        "RootOperationId",
        "ScriptStatementId",
        "ScriptStepId",
        "ScriptCall",
        "FirstSeenAtUtc",
        "TimestampUtc",
        "RepeatCount",
        "firstSequence",
        "tick",
    ]
    assert (wire["Sequence"], wire["Level"], wire["RootOperationId"]) == (1, "warning", "call-1")
    assert (wire["Message"], wire["Source"], wire["OperationId"]) == (
        "food is low",
        "needs",
        "step-1",
    )
    assert wire["EntryId"].startswith("log_")
    # a line of no operation: its ids are "", as the mod's string properties default to
    loose = ring.append("error", "the map was lost", source="game").to_wire()
    assert [loose[k] for k in ("OperationId", "CapabilityId", "ParentOperationId")] == ["", "", ""]
    assert loose["RootOperationId"] == ""
    page = ring.query().to_wire()
    assert set(page) == {
        "logs",
        "nextCursor",
        "hasMore",
        "truncated",
        "oldestSequence",
        "latestSequence",
    }
