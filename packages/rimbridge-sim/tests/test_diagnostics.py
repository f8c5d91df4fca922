"""The diagnostics plane: the log ring (sequences, collapsing, cursors) and the journal."""

from __future__ import annotations

import threading
import uuid
from dataclasses import FrozenInstanceError

import pytest

from lib_gab.operation import Operation, use_operation
from rimbridge_sim.diagnostics import (
    LogEntry,
    LogPage,
    LogRing,
    OperationEvent,
    OperationJournal,
    OperationRecord,
    RingStats,
    UnknownOperationError,
    level_rank,
    log_with_operation,
    new_operation_id,
)


class FakeClock:
    def __init__(self, now: float = 50.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def ring(clock: FakeClock) -> LogRing:
    return LogRing(capacity=10, collapse_window=1.0, clock=clock)


@pytest.fixture
def journal(clock: FakeClock) -> OperationJournal:
    return OperationJournal(capacity=5, event_limit=4, clock=clock)


def _entry(sequence: int, level: str, message: str, **fields: object) -> LogEntry:
    values: dict[str, object] = {
        "sequence": sequence,
        "level": level,
        "message": message,
        "source": "world",
        "tick": None,
        "time": 50.0,
        "operation_id": None,
        "root_operation_id": None,
        "repeat_count": 1,
        "latest_sequence": sequence,
        "latest_time": 50.0,
    }
    values.update(fields)
    return LogEntry(**values)  # type: ignore[arg-type]


# --- the log ring --------------------------------------------------------------------------------


def test_each_line_gets_the_next_sequence_starting_at_zero(ring: LogRing) -> None:
    first = ring.append("info", "colony founded", source="world", tick=0)
    second = ring.append("warning", "food is low", source="world", tick=60)

    assert first == _entry(0, "info", "colony founded", tick=0)
    assert second == _entry(1, "warning", "food is low", tick=60)
    assert ring.latest_sequence == 1


def test_an_empty_ring_has_no_latest_sequence_and_reads_empty(ring: LogRing) -> None:
    assert ring.latest_sequence is None
    assert ring.query() == LogPage((), -1, False, False, None, None)
    assert ring.query(after_sequence=-1) == LogPage((), -1, False, False, None, None)


def test_entries_are_frozen(ring: LogRing) -> None:
    entry = ring.append("info", "x", source="world")
    with pytest.raises(FrozenInstanceError):
        entry.message = "y"  # type: ignore[misc]


def test_identical_lines_within_the_window_collapse_into_one_entry(
    ring: LogRing, clock: FakeClock
) -> None:
    ring.append("error", "boom", source="job")
    clock.advance(0.5)
    ring.append("error", "boom", source="job")
    clock.advance(0.9)  # measured from the previous repeat, not from the first line
    last = ring.append("error", "boom", source="job")

    assert last == _entry(
        0, "error", "boom", source="job", repeat_count=3, latest_sequence=2, latest_time=51.4
    )
    assert last.first_sequence == 0
    assert ring.query(after_sequence=-1).entries == (last,)
    assert ring.stats() == RingStats(
        capacity=10,
        size=1,
        lines=3,
        collapsed=2,
        evicted=0,
        lines_by_level={"debug": 0, "info": 0, "warning": 0, "error": 3, "fatal": 0},
    )


def test_an_identical_line_after_the_window_starts_a_new_entry(
    ring: LogRing, clock: FakeClock
) -> None:
    ring.append("error", "boom", source="job")
    clock.advance(1.5)
    second = ring.append("error", "boom", source="job")

    assert second == _entry(1, "error", "boom", source="job", time=51.5, latest_time=51.5)
    assert len(ring) == 2


@pytest.mark.parametrize(
    ("level", "message", "source", "operation_id"),
    [
        ("warning", "boom", "job", None),
        ("error", "bang", "job", None),
        ("error", "boom", "world", None),
        ("error", "boom", "job", "op-1"),
    ],
)
def test_lines_differing_in_level_message_source_or_operation_do_not_collapse(
    ring: LogRing, level: str, message: str, source: str, operation_id: str | None
) -> None:
    ring.append("error", "boom", source="job")
    entry = ring.append(level, message, source=source, operation_id=operation_id)

    assert (entry.sequence, entry.repeat_count, len(ring)) == (1, 1, 2)


def test_collapsing_is_only_with_the_immediately_previous_line(ring: LogRing) -> None:
    for message in ["a", "b", "a"]:
        ring.append("error", message, source="world")

    assert [e.message for e in ring.query(after_sequence=-1).entries] == ["a", "b", "a"]


def test_a_zero_window_never_collapses(clock: FakeClock) -> None:
    ring = LogRing(collapse_window=0, clock=clock)
    ring.append("error", "boom", source="job")
    ring.append("error", "boom", source="job")

    assert len(ring) == 2


def test_the_oldest_entries_are_evicted_beyond_capacity(clock: FakeClock) -> None:
    ring = LogRing(capacity=3, clock=clock)
    for index in range(5):
        ring.append("info", f"line {index}", source="world")

    page = ring.query(after_sequence=-1)

    assert [e.sequence for e in page.entries] == [2, 3, 4]
    assert (page.truncated, page.oldest_sequence, page.latest_sequence) == (True, 2, 4)
    assert ring.stats().evicted == 2


def test_a_cursor_whose_lines_were_evicted_says_truncated(clock: FakeClock) -> None:
    ring = LogRing(capacity=3, clock=clock)
    for index in range(6):
        ring.append("info", f"line {index}", source="world")

    assert ring.query(after_sequence=1).truncated is True  # line 2 is gone
    assert ring.query(after_sequence=2).truncated is False  # everything after 2 is retained
    assert [e.sequence for e in ring.query(after_sequence=2).entries] == [3, 4, 5]


def test_eviction_of_a_collapsed_entry_truncates_every_line_it_held(clock: FakeClock) -> None:
    ring = LogRing(capacity=2, clock=clock)
    for _ in range(3):
        ring.append("error", "boom", source="job")  # sequences 0..2 in one entry
    ring.append("info", "a", source="world")
    ring.append("info", "b", source="world")  # evicts the collapsed entry

    assert ring.query(after_sequence=1).truncated is True
    assert ring.query(after_sequence=2).truncated is False


def test_a_cursor_returns_entries_whose_latest_sequence_is_after_it(
    ring: LogRing, clock: FakeClock
) -> None:
    ring.append("info", "start", source="world")  # 0
    ring.append("error", "boom", source="job")  # 1
    ring.append("error", "boom", source="job")  # 2, collapsed into 1

    page = ring.query(after_sequence=1)

    assert page.entries == (
        _entry(1, "error", "boom", source="job", repeat_count=2, latest_sequence=2),
    )
    assert page.next_cursor == 2
    # a collapsed entry comes back with its new count when repeats arrive after the cursor
    ring.append("error", "boom", source="job")  # 3
    assert [(e.sequence, e.repeat_count) for e in ring.query(after_sequence=2).entries] == [(1, 3)]
    assert ring.query(after_sequence=3).entries == ()


def test_the_cursor_before_a_line_starts_the_page_at_the_entry_holding_it(ring: LogRing) -> None:
    ring.append("info", "a", source="world")  # 0
    ring.append("error", "boom", source="job")  # 1
    ring.append("error", "boom", source="job")  # 2
    ring.append("info", "b", source="world")  # 3

    for sequence in (1, 2):
        first = ring.query(after_sequence=sequence - 1).entries[0]
        assert (first.sequence, first.latest_sequence) == (1, 2)
        assert ring.entry_at(sequence) == first
    assert ring.entry_at(3) == ring.query(after_sequence=2).entries[0]
    assert ring.entry_at(99) is None


def test_paging_with_a_limit_follows_next_cursor_without_gaps(ring: LogRing) -> None:
    for index in range(7):
        ring.append("info", f"line {index}", source="world")

    seen: list[int] = []
    cursor = -1
    while True:
        page = ring.query(after_sequence=cursor, limit=3)
        seen.extend(entry.sequence for entry in page.entries)
        cursor = page.next_cursor
        if not page.has_more:
            break

    assert seen == list(range(7))
    assert cursor == 6
    assert ring.query(after_sequence=cursor) == LogPage((), 6, False, False, 0, 6)


def test_without_a_cursor_the_newest_entries_are_returned(ring: LogRing) -> None:
    for index in range(5):
        ring.append("info", f"line {index}", source="world")

    page = ring.query(limit=2)

    assert [entry.sequence for entry in page.entries] == [3, 4]
    assert (page.next_cursor, page.has_more, page.truncated) == (4, True, False)


def test_minimum_level_filters_and_the_cursor_still_covers_skipped_lines(ring: LogRing) -> None:
    ring.append("debug", "tick", source="world")
    ring.append("warning", "low food", source="world")
    ring.append("info", "hello", source="world")
    ring.append("fatal", "crash", source="world")
    ring.append("debug", "tick 2", source="world")

    page = ring.query(after_sequence=-1, minimum_level="warning")

    assert [entry.message for entry in page.entries] == ["low food", "crash"]
    assert page.next_cursor == 4  # the skipped debug line is not read again


def test_the_operation_filter_matches_the_entry_operation_or_its_root(ring: LogRing) -> None:
    ring.append("info", "call", source="tool", operation_id="call-1")
    ring.append("info", "step", source="tool", operation_id="step-1", root_operation_id="call-1")
    ring.append("info", "other", source="tool", operation_id="call-2")
    ring.append("info", "world", source="world")

    by_root = ring.query(after_sequence=-1, operation_id="call-1")
    by_step = ring.query(after_sequence=-1, operation_id="step-1")

    assert [entry.message for entry in by_root.entries] == ["call", "step"]
    assert [entry.message for entry in by_step.entries] == ["step"]


def test_an_entry_without_a_root_is_its_own_root(ring: LogRing) -> None:
    entry = ring.append("info", "x", source="tool", operation_id="call-1")
    assert entry.root_operation_id == "call-1"


def test_bad_arguments_are_refused_with_the_rule(ring: LogRing) -> None:
    with pytest.raises(ValueError, match="level must be one of debug, info, warning"):
        ring.append("critical", "x", source="world")
    with pytest.raises(ValueError, match="source must be a non-empty str"):
        ring.append("info", "x", source="")
    with pytest.raises(TypeError, match="message must be a str"):
        ring.append("info", 3, source="world")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level must be one of"):
        ring.query(minimum_level="verbose")
    with pytest.raises(ValueError, match="limit must be an int >= 1"):
        ring.query(limit=0)
    with pytest.raises(ValueError, match="after_sequence must be an int >= -1"):
        ring.query(after_sequence=-2)
    with pytest.raises(ValueError, match="capacity must be an int >= 1"):
        LogRing(capacity=0)
    with pytest.raises(ValueError, match="collapse_window must be a number >= 0"):
        LogRing(collapse_window=-1)
    assert ring.latest_sequence is None  # nothing consumed a sequence


def test_levels_are_ordered_from_debug_to_fatal() -> None:
    assert [level_rank(level) for level in ("debug", "info", "warning", "error", "fatal")] == [
        0,
        1,
        2,
        3,
        4,
    ]


def test_listeners_see_every_line_with_its_collapsed_flag(ring: LogRing) -> None:
    seen: list[tuple[int, int, bool]] = []
    unsubscribe = ring.subscribe(lambda e, c: seen.append((e.latest_sequence, e.repeat_count, c)))
    ring.append("error", "boom", source="job")
    ring.append("error", "boom", source="job")
    ring.append("info", "ok", source="world")
    unsubscribe()
    ring.append("info", "unheard", source="world")

    assert seen == [(0, 1, False), (1, 2, True), (2, 1, False)]


def test_a_failing_listener_does_not_stop_the_append_or_other_listeners(
    ring: LogRing, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[int] = []

    def broken(entry: LogEntry, collapsed: bool) -> None:
        raise RuntimeError("listener bug")

    ring.subscribe(broken)
    ring.subscribe(lambda e, c: seen.append(e.sequence))
    entry = ring.append("info", "x", source="world")

    assert entry.sequence == 0
    assert seen == [0]
    assert "diagnostics listener" in caplog.text


def test_listeners_run_outside_the_lock(ring: LogRing) -> None:
    pages: list[LogPage] = []
    ring.subscribe(lambda e, c: pages.append(ring.query(after_sequence=-1)))
    ring.append("info", "x", source="world")  # would deadlock if the lock were held

    assert [len(page.entries) for page in pages] == [1]


def test_sequences_stay_unique_and_dense_under_concurrent_appends() -> None:
    ring = LogRing(capacity=100_000, collapse_window=0)
    sequences: list[int] = []
    lock = threading.Lock()

    def spam(name: str) -> None:
        for index in range(2000):
            entry = ring.append("info", f"{name} {index}", source="world")
            with lock:
                sequences.append(entry.sequence)

    threads = [threading.Thread(target=spam, args=(str(n),)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(sequences) == list(range(8000))


def test_log_entries_serialize_to_camel_case(ring: LogRing) -> None:
    entry = ring.append("warning", "x", source="job", tick=7, operation_id="op")

    assert entry.to_wire() == {
        "sequence": 0,
        "level": "warning",
        "message": "x",
        "source": "job",
        "tick": 7,
        "time": 50.0,
        "operationId": "op",
        "rootOperationId": "op",
        "repeatCount": 1,
        "firstSequence": 0,
        "latestSequence": 0,
        "latestTime": 50.0,
    }
    assert ring.query(after_sequence=-1).to_wire() == {
        "entries": [entry.to_wire()],
        "nextCursor": 0,
        "truncated": False,
        "hasMore": False,
        "oldestSequence": 0,
        "latestSequence": 0,
    }


# --- the operation journal -----------------------------------------------------------------------


def test_an_operation_runs_then_completes(journal: OperationJournal, clock: FakeClock) -> None:
    journal.start("call-1", "rimworld/pause_game", arguments_summary="{}")
    clock.advance(0.25)
    journal.event("call-1", "progress", "pausing")
    clock.advance(0.25)
    record = journal.complete("call-1", "paused")

    assert record == OperationRecord(
        id="call-1",
        method="rimworld/pause_game",
        parent_id=None,
        root_id="call-1",
        status="completed",
        started_at=50.0,
        finished_at=50.5,
        arguments_summary="{}",
        result_summary="paused",
        error=None,
        children=(),
        events=(
            OperationEvent(1, "started", 50.0, "{}"),
            OperationEvent(2, "progress", 50.25, "pausing"),
            OperationEvent(3, "completed", 50.5, "paused"),
        ),
        events_dropped=0,
    )
    assert journal.get("call-1") == record
    assert not record.running


@pytest.mark.parametrize("kind", ["failed", "cancelled", "timed_out"])
def test_an_operation_can_fail_be_cancelled_or_time_out(
    journal: OperationJournal, kind: str
) -> None:
    journal.start("call-1", "rimworld/load_game")
    record = journal.fail("call-1", "boom", kind=kind)  # type: ignore[arg-type]

    assert (record.status, record.error, record.events[-1].kind) == (kind, "boom", kind)
    assert journal.stats().running == 0


def test_outcome_kinds_given_to_event_finish_the_operation(journal: OperationJournal) -> None:
    journal.start("a", "x/y")
    journal.start("b", "x/y")

    assert journal.event("a", "completed", "done").status == "completed"
    assert journal.event("b", "timed_out", "slow").status == "timed_out"
    with pytest.raises(ValueError, match="kind must be progress or log here"):
        journal.event("a", "started")


def test_the_first_outcome_wins_and_a_late_one_is_kept_as_a_log_event(
    journal: OperationJournal,
) -> None:
    journal.start("call-1", "rimworld/load_game")
    journal.fail("call-1", "took too long", kind="timed_out")
    record = journal.complete("call-1", "loaded")

    assert (record.status, record.error, record.result_summary) == (
        "timed_out",
        "took too long",
        None,
    )
    assert record.events[-1].kind == "log"
    assert record.events[-1].message == "ignored late completed: loaded"


def test_children_link_to_their_parent_and_share_its_root(journal: OperationJournal) -> None:
    journal.start("call-1", "rimbridge/run_script")
    journal.start("step-1", "rimworld/pause_game", parent_id="call-1")
    journal.start("job-1", "job/haul", parent_id="step-1")

    assert journal.get("job-1").root_id == "call-1"  # type: ignore[union-attr]
    assert [r.id for r in journal.children("call-1")] == ["step-1"]
    assert [r.id for r in journal.children("step-1")] == ["job-1"]
    parent = journal.get("call-1")
    assert parent is not None
    assert parent.children == ("step-1",)
    assert parent.events[-1] == OperationEvent(
        2, "child_started", 50.0, "step-1 rimworld/pause_game"
    )
    assert journal.resolve_root("job-1") == ("call-1", "rimbridge/run_script")
    assert journal.root_of("job-1") == "call-1"


def test_an_unknown_parent_still_becomes_the_root(journal: OperationJournal) -> None:
    record = journal.start("job-1", "job/haul", parent_id="gone-call")

    assert (record.parent_id, record.root_id) == ("gone-call", "gone-call")
    assert journal.resolve_root("job-1") == ("gone-call", None)
    assert journal.resolve_root("never-seen") == ("never-seen", None)


def test_events_are_bounded_per_operation_and_readable_after_an_index(
    journal: OperationJournal,
) -> None:
    journal.start("call-1", "x/y")
    for index in range(5):
        journal.event("call-1", "progress", str(index))

    record = journal.get("call-1")
    assert record is not None
    assert [event.index for event in record.events] == [3, 4, 5, 6]
    assert record.events_dropped == 2
    assert [e.message for e in journal.events("call-1", after_index=4)] == ["3", "4"]


def test_finished_operations_are_evicted_oldest_first(journal: OperationJournal) -> None:
    journal.start("running-0", "x/y")
    for index in range(5):
        journal.start(f"done-{index}", "x/y")
        journal.complete(f"done-{index}")
    journal.start("new", "x/y")  # 7 started, capacity 5

    assert [r.id for r in journal.list(limit=10)] == [
        "new",
        "done-4",
        "done-3",
        "done-2",
        "running-0",
    ]
    assert journal.get("done-0") is None
    with pytest.raises(UnknownOperationError, match="unknown operation 'done-0'"):
        journal.complete("done-0")
    assert journal.stats().evicted == 2


def test_running_operations_are_evicted_only_when_nothing_has_finished(
    journal: OperationJournal,
) -> None:
    for index in range(6):
        journal.start(f"op-{index}", "x/y")

    assert journal.get("op-0") is None
    stats = journal.stats()
    assert (stats.size, stats.running, stats.evicted_running) == (5, 5, 1)


def test_listing_filters_by_status_and_method(journal: OperationJournal) -> None:
    journal.start("a", "rimworld/load_game")
    journal.start("b", "rimworld/save_game")
    journal.start("c", "rimworld/load_game")
    journal.fail("a", "boom")

    assert [r.id for r in journal.list(status="failed")] == ["a"]
    assert [r.id for r in journal.list(method="rimworld/load_game")] == ["c", "a"]
    assert [r.id for r in journal.list(limit=1)] == ["c"]
    with pytest.raises(ValueError, match="status must be one of"):
        journal.list(status="done")  # type: ignore[arg-type]


def test_starting_an_id_twice_is_refused(journal: OperationJournal) -> None:
    journal.start("call-1", "x/y")
    with pytest.raises(ValueError, match="already started"):
        journal.start("call-1", "x/y")


def test_journal_listeners_hear_every_event_with_the_record_after_it(
    journal: OperationJournal,
) -> None:
    heard: list[tuple[str, str, str]] = []
    journal.subscribe(lambda record, event: heard.append((record.id, event.kind, record.status)))
    journal.start("call-1", "rimbridge/run_script")
    journal.start("step-1", "x/y", parent_id="call-1")
    journal.fail("step-1", "boom")
    journal.complete("call-1")

    assert heard == [
        ("call-1", "started", "running"),
        ("step-1", "started", "running"),
        ("call-1", "child_started", "running"),
        ("step-1", "failed", "failed"),
        ("call-1", "completed", "completed"),
    ]


def test_operation_records_serialize_to_camel_case(journal: OperationJournal) -> None:
    record = journal.start("call-1", "x/y")

    assert record.to_wire(include_events=False) == {
        "operationId": "call-1",
        "method": "x/y",
        "parentId": None,
        "rootId": "call-1",
        "status": "running",
        "startedAt": 50.0,
        "finishedAt": None,
        "argumentsSummary": None,
        "resultSummary": None,
        "error": None,
        "children": [],
        "eventsDropped": 0,
    }
    assert record.to_wire()["events"] == [
        {"index": 1, "kind": "started", "time": 50.0, "message": None}
    ]


def test_new_operation_ids_are_fresh_uuids() -> None:
    first, second = new_operation_id(), new_operation_id()
    assert first != second
    assert uuid.UUID(first).version == 4


# --- attribution ---------------------------------------------------------------------------------


def test_log_with_operation_attributes_lines_to_the_current_operation_and_its_root(
    ring: LogRing, journal: OperationJournal
) -> None:
    journal.start("call-1", "rimworld/set_draft")
    journal.start("job-1", "job/goto", parent_id="call-1")
    captured = Operation("job-1", "job/goto")

    outside = log_with_operation(ring, journal, "info", "tick", source="world")
    with use_operation(Operation("call-1", "rimworld/set_draft")):
        inside = log_with_operation(ring, journal, "info", "drafted", source="tool")
    with use_operation(captured):  # later, e.g. on a game tick
        later = log_with_operation(ring, journal, "error", "job threw", source="job", tick=9)

    assert (outside.operation_id, outside.root_operation_id) == (None, None)
    assert (inside.operation_id, inside.root_operation_id) == ("call-1", "call-1")
    assert (later.operation_id, later.root_operation_id, later.tick) == ("job-1", "call-1", 9)


def test_a_cursor_past_the_latest_sequence_reads_nothing_and_resyncs(ring: LogRing) -> None:
    ring.append("info", "a", source="world")  # e.g. a cursor kept from before a restart

    assert ring.query(after_sequence=41) == LogPage((), 0, False, False, 0, 0)
