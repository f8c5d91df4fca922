"""The journal's cheap call path: a call's start and outcome are built as events only when read
or heard, and every read gives what building them at once gives (the sequences, ids, indexes,
texts, drops and order); listeners filtered by kind and method; the millisecond cache of
``iso_utc``."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from rimbridge_sim.clock import ManualClock, iso_utc
from rimbridge_sim.diagnostics import OperationEvent, OperationJournal, OperationRecord


def _script(journal: OperationJournal, clock: ManualClock) -> dict[str, Any]:
    """Calls, a child with progress, failures, a late outcome, eviction; every answer."""
    answers: dict[str, Any] = {}
    for n in range(4):
        journal.begin(f"call-{n}", "rimworld/get_game_info", arguments_summary="{}")
        clock.advance(0.003)
        answers[f"call-{n}"] = journal.complete_call(f"call-{n}", f'{{"n":{n}}}', {"n": n})
    journal.begin("script", "rimbridge/run_script", arguments_summary='{"a":1}')
    journal.start("step-1", "rimworld/pause_game", parent_id="script")
    journal.event("step-1", "progress", "half")
    clock.advance(0.002)
    journal.fail("step-1", "boom", code="tool.failed", exception_type="WorldError")
    journal.begin("slow", "rimworld/set_speed")
    journal.fail("slow", "too slow", kind="timed_out")
    journal.complete("slow", "late")  # the first outcome wins: a log line
    answers["script"] = journal.complete_call("script", '{"ok":true}', {"ok": True})
    for n in range(4, 9):  # beyond the capacity: the oldest finished ones go
        journal.begin(f"call-{n}", "rimworld/list_colonists")
        answers[f"call-{n}"] = journal.complete_call(f"call-{n}", "[]", [])
    return answers


def _reads(journal: OperationJournal, prefix: str) -> dict[str, Any]:
    def event_wire(event: OperationEvent) -> dict[str, Any]:
        wire = event.to_wire()
        if wire["EventId"]:
            wire["EventId"] = wire["EventId"].removeprefix(prefix)
        return wire

    def record_wire(record: OperationRecord) -> dict[str, Any]:
        wire = record.to_wire(include_events=False)
        wire["events"] = [event_wire(event) for event in record.events]
        wire["eventsDropped"] = record.events_dropped
        return wire

    records = journal.list(limit=100)
    return {
        "list": [record_wire(record) for record in records],
        "events": {
            record.id: [event_wire(event) for event in journal.events(record.id)]
            for record in records
        },
        "stream": [event_wire(event) for event in journal.stream(limit=100)],
        "page": [event_wire(event) for event in journal.stream(after_sequence=9, limit=3)],
        "failed": [
            event_wire(event) for event in journal.stream(event_type="operation.failed", limit=100)
        ],
        "stats": journal.stats(),
        "latest": journal.latest_event_sequence,
    }


@pytest.mark.parametrize("event_limit", [1, 2, 3, 200])
def test_events_built_when_read_are_the_events_a_listener_heard_as_they_happened(
    monkeypatch: pytest.MonkeyPatch, event_limit: int
) -> None:
    walls = itertools.count(1_795_000_000.0, 0.0007)
    monkeypatch.setattr(time, "time", lambda: next(walls))
    results: list[dict[str, Any]] = []
    heard: list[tuple[str, OperationEvent]] = []
    for listened in (True, False):
        clock = ManualClock()
        journal = OperationJournal(capacity=8, event_limit=event_limit, clock=clock)
        if listened:  # heard at once: every event and record is built as it happens
            journal.subscribe(lambda record, event: heard.append((record.id, event)))
        walls = itertools.count(1_795_000_000.0, 0.0007)
        answers = _script(journal, clock)
        prefix = journal.stream(limit=1)[0].event_id[:-12]
        results.append({"answers": answers, **_reads(journal, prefix)})
    assert results[0] == results[1]
    streamed = [event for _, event in heard if event.sequence]
    assert [event.sequence for event in streamed] == list(range(1, len(streamed) + 1))
    assert [event.event_id[-12:] for event in reversed(streamed)][:5] == [
        event["EventId"] for event in results[1]["stream"][:5]
    ]


def test_the_journal_lists_a_lazily_kept_call_with_its_two_events_in_call_order() -> None:
    journal = OperationJournal(clock=ManualClock())
    journal.begin("a", "rimworld/get_game_info", arguments_summary="{}")
    journal.begin("b", "rimworld/get_game_info", arguments_summary="{}")
    journal.complete_call("b", "B", {"b": 1})
    journal.complete_call("a", "A", {"a": 1})
    stream = journal.stream(limit=10)
    assert [(event.sequence, event.operation_id, event.kind) for event in stream] == [
        (4, "a", "completed"),
        (3, "b", "completed"),
        (2, "b", "started"),
        (1, "a", "started"),
    ]
    assert [(event.index, event.kind, event.message) for event in journal.events("a")] == [
        (1, "started", "{}"),
        (2, "completed", "A"),
    ]
    assert stream[0].has_result and not stream[3].has_result
    assert len({event.event_id for event in stream}) == 4


def test_a_child_started_event_makes_the_parents_outcome_its_third_event() -> None:
    journal = OperationJournal(clock=ManualClock())
    journal.begin("p", "rimbridge/run_script")
    journal.start("c", "rimworld/pause_game", parent_id="p")
    journal.complete_call("c", "C", {})
    journal.complete_call("p", "P", {})
    outcome = journal.stream(operation_id="p", event_type="operation.completed", limit=1)[0]
    assert (outcome.index, outcome.sequence) == (3, 4)
    assert [event.kind for event in journal.events("p")] == [
        "started",
        "child_started",
        "completed",
    ]


def test_a_kind_filter_is_asked_by_kind_and_method_and_with_accepts_both_must_take() -> None:
    journal = OperationJournal(clock=ManualClock())
    asked: list[tuple[str, str]] = []
    heard: list[tuple[str, str]] = []

    def takes(kind: str, method: str) -> bool:
        asked.append((kind, method))
        return kind != "started"

    journal.subscribe(
        lambda record, event: heard.append((record.id, event.kind)),
        takes=takes,
        accepts=lambda event: event.operation_id != "skip",
    )
    journal.begin("one", "x/y")
    journal.complete_call("one", "ok", {})
    journal.begin("skip", "x/z")
    journal.fail("skip", "boom")
    assert asked == [
        ("started", "x/y"),
        ("completed", "x/y"),
        ("started", "x/z"),
        ("failed", "x/z"),
    ]
    assert heard == [("one", "completed")]


def test_a_kind_filter_that_raises_takes_the_event() -> None:
    journal = OperationJournal(clock=ManualClock())
    heard: list[str] = []

    def broken(kind: str, method: str) -> bool:
        raise RuntimeError("filter bug")

    journal.subscribe(lambda record, event: heard.append(event.kind), takes=broken)
    journal.begin("call-1", "x/y")
    journal.complete_call("call-1", "ok", {})
    assert heard == ["started", "completed"]


def test_iso_utc_within_a_millisecond_and_near_its_edges_is_what_fromtimestamp_gives() -> None:
    def formatted(epoch_seconds: float) -> str:
        moment = datetime.fromtimestamp(epoch_seconds, UTC)
        return f"{moment.strftime('%Y-%m-%dT%H:%M:%S')}.{moment.microsecond // 1000:03d}Z"

    base = 1_795_000_123.456
    offsets = [0.0, 1e-7, 4e-7, 5e-7, 6e-7, 2e-6, 3e-6, 0.0005, 0.000997, 0.0009994]
    offsets += [0.0009995, 0.0009996, 0.000999, 0.001, 0.0010004, 0.0010005]
    for start in (base, base + 0.0004, 1_795_000_123.9995):
        for offset in offsets:  # consecutive calls: most within the millisecond just formatted
            assert iso_utc(start + offset) == formatted(start + offset), start + offset
