"""Journal listeners with an event filter, and the call path that builds no record for them
(``begin`` / ``complete_call``): the same events and records as without one."""

from __future__ import annotations

from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import OperationEvent, OperationJournal


def test_a_filtered_listener_hears_only_what_its_filter_takes_with_the_record_after_it() -> None:
    journal = OperationJournal(clock=ManualClock())
    everything: list[tuple[str, str, str]] = []
    outcomes: list[tuple[str, str, str, str | None]] = []
    journal.subscribe(
        lambda record, event: everything.append((record.id, event.kind, record.status))
    )
    journal.subscribe(
        lambda record, event: outcomes.append(
            (record.id, event.kind, record.status, record.result_summary)
        ),
        accepts=lambda event: event.kind != "started",
    )
    journal.begin("call-1", "rimbridge/run_script")
    journal.start("step-1", "x/y", parent_id="call-1")
    journal.fail("step-1", "boom")
    envelope = journal.complete_call("call-1", '{"ok":true}', {"ok": True})

    assert everything == [
        ("call-1", "started", "running"),
        ("step-1", "started", "running"),
        ("call-1", "child_started", "running"),
        ("step-1", "failed", "failed"),
        ("call-1", "completed", "completed"),
    ]
    assert outcomes == [
        ("call-1", "child_started", "running", None),
        ("step-1", "failed", "failed", None),
        ("call-1", "completed", "completed", '{"ok":true}'),
    ]
    record = journal.get("call-1")
    assert record is not None
    assert envelope == record.envelope(has_result=True)


def test_a_filter_that_raises_takes_the_event() -> None:
    journal = OperationJournal(clock=ManualClock())
    heard: list[str] = []

    def broken(event: OperationEvent) -> bool:
        raise RuntimeError("filter bug")

    journal.subscribe(lambda record, event: heard.append(event.kind), accepts=broken)
    journal.start("call-1", "x/y")
    assert heard == ["started"]


def test_without_listeners_the_call_path_records_what_start_and_complete_record() -> None:
    clock = ManualClock()
    fast, slow = OperationJournal(clock=clock), OperationJournal(clock=clock)
    fast.begin("call-1", "x/y", arguments_summary="{}", metadata={"requestedId": "x/y"})
    slow.start("call-1", "x/y", arguments_summary="{}", metadata={"requestedId": "x/y"})
    clock.advance(0.25)
    envelope = fast.complete_call("call-1", "done", {"a": 1})
    slow.complete("call-1", "done", result={"a": 1})

    def comparable(journal: OperationJournal) -> dict[str, object]:
        record = journal.get("call-1")
        assert record is not None
        wire = journal.envelope(record, include_result=True)
        for key in ("StartedAtUtc", "CompletedAtUtc"):
            wire.pop(key)
        return wire

    assert comparable(fast) == comparable(slow)
    assert envelope["DurationMs"] == 250
    assert envelope["HasResult"] is True and envelope["Result"] is None
    assert envelope["Metadata"] == {}
    assert [event.kind for event in fast.events("call-1")] == ["started", "completed"]
