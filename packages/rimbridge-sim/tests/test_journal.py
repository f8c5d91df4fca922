"""The operation journal: operations by id, their events, the event stream, results."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime

import pytest

from lib_gab.operation import Operation, use_operation
from rimbridge_sim.clock import ManualClock, iso_utc
from rimbridge_sim.diagnostics import (
    LogRing,
    OperationJournal,
    UnknownOperationError,
    log_with_operation,
    new_operation_id,
)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ring(clock: ManualClock) -> LogRing:
    return LogRing(capacity=10, collapse_window=1.0, clock=clock)


@pytest.fixture
def journal(clock: ManualClock) -> OperationJournal:
    return OperationJournal(capacity=5, event_limit=4, clock=clock)


# --- the operation journal -----------------------------------------------------------------------


def test_an_operation_runs_then_completes(journal: OperationJournal, clock: ManualClock) -> None:
    journal.start("call-1", "rimworld/pause_game", arguments_summary="{}")
    clock.advance(0.25)
    journal.event("call-1", "progress", "pausing")
    clock.advance(0.25)
    record = journal.complete("call-1", "paused")

    assert (record.id, record.method, record.parent_id, record.root_id, record.status) == (
        "call-1",
        "rimworld/pause_game",
        None,
        "call-1",
        "completed",
    )
    assert (record.started_at, record.finished_at, record.result_summary, record.error) == (
        50.0,
        50.5,
        "paused",
        None,
    )
    # a progress event stays on the operation: no place in the journal-wide stream
    assert [(e.index, e.kind, e.time, e.message, e.sequence) for e in record.events] == [
        (1, "started", 50.0, "{}", 1),
        (2, "progress", 50.25, "pausing", 0),
        (3, "completed", 50.5, "paused", 2),
    ]
    assert record.events_dropped == 0
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
    last = parent.events[-1]
    assert (last.index, last.kind, last.message) == (
        2,
        "child_started",
        "step-1 rimworld/pause_game",
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
    # "a" finished last, so it comes first, as in the mod's list
    assert [r.id for r in journal.list(method="rimworld/load_game")] == ["a", "c"]
    assert [r.id for r in journal.list(limit=1)] == ["a"]
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


def test_an_operation_serializes_as_the_mods_envelope_with_its_links(
    journal: OperationJournal,
) -> None:
    journal.start("call-1", "rimworld/load_game", arguments_summary='{"saveName":"a"}')
    record = journal.fail(
        "call-1", "FileNotFoundException: a.rws", code="tool.failed", exception_type="IOError"
    )

    wire = record.to_wire(include_events=False)
    # the mod's OperationEnvelope as Newtonsoft writes it: declaration order, PascalCase,
    # Status as the enum's integer (3: Failed), then the journal's links
    assert list(wire)[:13] == [
        "OperationId",
        "CapabilityId",
        "Status",
        "Success",
        "StartedAtUtc",
        "CompletedAtUtc",
        "DurationMs",
        "Result",
        "HasResult",
        "ResultWasTruncated",
        "Warnings",
        "Error",
        "Metadata",
    ]
    assert {k: wire[k] for k in ("OperationId", "CapabilityId", "Status", "Success")} == {
        "OperationId": "call-1",
        "CapabilityId": "rimbridge.core/lifecycle/load-game",
        "Status": 3,
        "Success": False,
    }
    assert wire["Error"] == {
        "Code": "tool.failed",
        "Message": "FileNotFoundException: a.rws",
        "ExceptionType": "IOError",
        "Details": None,
    }
    assert list(wire["Error"]) == ["Code", "Message", "ExceptionType", "Details"]
    assert (wire["Result"], wire["Warnings"], wire["Metadata"]) == (None, [], {})
    assert wire["StartedAtUtc"].endswith("Z")
    assert wire["CompletedAtUtc"].endswith("Z")
    assert (wire["DurationMs"], wire["parentId"], wire["rootId"], wire["children"]) == (
        0,
        None,
        "call-1",
        [],
    )
    assert [e["EventType"] for e in record.to_wire()["events"]] == [
        "operation.started",
        "operation.failed",
    ]


def test_the_journal_wide_event_stream_pages_by_sequence_and_filters(
    journal: OperationJournal,
) -> None:
    journal.start("a", "rimworld/pause_game")
    journal.start("b", "rimworld/load_game")
    journal.complete("a")
    journal.fail("b", "boom")

    assert [(e.sequence, e.operation_id, e.kind) for e in journal.stream()] == [
        (4, "b", "failed"),
        (3, "a", "completed"),
        (2, "b", "started"),
        (1, "a", "started"),
    ]
    assert [e.sequence for e in journal.stream(after_sequence=2)] == [4, 3]
    assert [e.sequence for e in journal.stream(event_type="operation.failed")] == [4]
    assert [e.sequence for e in journal.stream(operation_id="a", limit=1)] == [3]
    assert journal.stream(limit=0) == []
    assert journal.latest_event_sequence == 4


def test_the_stream_holds_starts_and_outcomes_only_with_dense_sequences_and_event_ids(
    journal: OperationJournal,
) -> None:
    journal.start("call-1", "rimbridge/run_script")
    journal.start("step-1", "x/y", parent_id="call-1")  # the script's child_started
    journal.event("step-1", "progress", "half way")
    journal.complete("step-1", result={"ok": True})
    journal.complete("step-1", "again")  # a late outcome: a log event on the operation
    journal.fail("call-1", "boom", code="tool.failed")

    streamed = journal.stream()
    assert [(e.sequence, e.operation_id, e.kind) for e in streamed] == [
        (4, "call-1", "failed"),
        (3, "step-1", "completed"),
        (2, "step-1", "started"),
        (1, "call-1", "started"),
    ]
    assert journal.latest_event_sequence == 4
    assert journal.stats().events == 4
    assert len({e.event_id for e in streamed}) == 4
    assert all(e.event_id.startswith("evt_") and len(e.event_id) == 36 for e in streamed)
    # the operations' own lists keep everything; the extra kinds have no stream sequence
    script, step = journal.get("call-1"), journal.get("step-1")
    assert script is not None and step is not None
    assert [(e.kind, e.sequence) for e in script.events] == [
        ("started", 1),
        ("child_started", 0),
        ("failed", 4),
    ]
    assert [(e.kind, e.sequence) for e in step.events] == [
        ("started", 2),
        ("progress", 0),
        ("completed", 3),
        ("log", 0),
    ]
    failed, completed, started = streamed[0], streamed[1], streamed[3]
    assert (failed.error_code, failed.error_message, failed.has_result) == (
        "tool.failed",
        "boom",
        False,
    )
    assert (completed.error_code, completed.has_result) == ("", True)
    wire = started.to_wire()
    assert (wire["Success"], wire["ErrorCode"], wire["ErrorMessage"]) == (False, "", "")
    assert wire["Status"] == 1
    assert completed.to_wire()["Success"] is True
    assert completed.to_wire()["Status"] == 2
    assert (script.events[1].to_wire()["Sequence"], script.events[1].to_wire()["EventId"]) == (
        None,
        None,
    )


def test_an_operation_moves_to_the_front_when_it_starts_and_when_it_finishes(
    journal: OperationJournal,
) -> None:
    journal.start("script", "rimbridge/run_script")
    journal.start("step", "x/y", parent_id="script")
    journal.complete("step")
    assert [r.id for r in journal.list()] == ["step", "script"]
    journal.complete("script")
    assert [r.id for r in journal.list()] == ["script", "step"]
    journal.complete("script", "late")  # ignored, so it does not move
    journal.start("next", "x/y")
    assert [r.id for r in journal.list()] == ["next", "script", "step"]


def test_the_default_capacities_are_the_mods(clock: ManualClock) -> None:
    stats = OperationJournal(clock=clock).stats()
    assert (stats.capacity, stats.event_capacity, stats.result_capacity) == (1000, 5000, 50)


def test_recent_results_are_retained_bounded_and_cut_when_too_long(clock: ManualClock) -> None:
    journal = OperationJournal(capacity=10, result_capacity=2, clock=clock)
    for index in range(3):
        journal.start(f"op-{index}", "x/y")
        journal.complete(f"op-{index}", result={"index": index})
    journal.start("big", "x/y")
    journal.complete("big", result={"text": "x" * 20_000})

    assert journal.result_of("op-0") == (False, None, False)
    assert journal.result_of("op-2") == (True, {"index": 2}, False)
    retained, cut, truncated = journal.result_of("big")
    assert (retained, truncated, cut) == (True, True, {"text": "x" * 1024 + "..."})
    record = journal.get("op-2")
    assert record is not None
    assert journal.envelope(record, include_result=True)["Result"] == {"index": 2}
    assert journal.envelope(record)["Result"] is None


def test_new_operation_ids_are_fresh_and_named_as_the_mod_names_them() -> None:
    first, second = new_operation_id(), new_operation_id()
    assert first != second
    assert first.startswith("op_")
    assert uuid.UUID(hex=first.removeprefix("op_")).version == 4


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


def test_has_result_says_whether_a_result_is_retained_with_or_without_it(
    clock: ManualClock,
) -> None:
    journal = OperationJournal(result_capacity=1, clock=clock)
    for operation_id in ("old", "new", "none"):
        journal.start(operation_id, "rimworld/get_game_info")
    journal.complete("old", "x", result={"a": 1})
    journal.complete("new", "y", result={"b": 2})  # the one retained result is this one now
    journal.complete("none", "z")

    def envelope(operation_id: str, include_result: bool) -> dict[str, object]:
        record = journal.get(operation_id)
        assert record is not None
        return journal.envelope(record, include_result=include_result)

    for include_result in (False, True):
        assert envelope("new", include_result)["HasResult"] is True
        assert envelope("old", include_result)["HasResult"] is False
        assert envelope("none", include_result)["HasResult"] is False
    assert envelope("new", True)["Result"] == {"b": 2}
    assert envelope("new", False)["Result"] is None
    assert envelope("old", True)["Result"] is None


# --- wall times ----------------------------------------------------------------------------------


def _formatted(epoch_seconds: float) -> str:
    moment = datetime.fromtimestamp(epoch_seconds, UTC)
    return f"{moment.strftime('%Y-%m-%dT%H:%M:%S')}.{moment.microsecond // 1000:03d}Z"


def test_iso_utc_writes_what_fromtimestamp_gives_rounding_included() -> None:
    edges = [
        1.9999995,  # half a microsecond below the next second: rounds up into it
        1.9999994,
        1_795_000_000.9999996,
        1_795_000_000.4999995,
        0.0000005,
        0.0,
        -0.5,
        -1.0000004,
        -86_400.9999996,
    ]
    rng = random.Random(7)
    spread = [rng.uniform(0, 4e9) for _ in range(2000)]
    second_edges = [float(int(t)) + k / 1e6 + 5e-7 for t in spread[:200] for k in (0, 499_999)]
    for epoch_seconds in edges + spread + second_edges:
        assert iso_utc(epoch_seconds) == _formatted(epoch_seconds), epoch_seconds
