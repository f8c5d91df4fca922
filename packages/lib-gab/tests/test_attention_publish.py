"""AttentionManager.publish and .clear: whole items as an integration built them (Lib.GAB's
PublishAsync and ClearAsync), beside report."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from gabp.messages import Attention, ClearedAttention, parse_payload
from gabp_schemas import validate
from lib_gab import AttentionManager, UrgentEntry
from lib_gab.operation import Operation, current_operation, use_operation


class Recorder:
    """Every notification as wire JSON, each checked by both schema sets."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, channel: str, item: Attention) -> None:
        wire = item.to_wire()
        parse_payload(channel, wire, strict=True)
        event = {
            "v": "gabp/1",
            "id": str(uuid.uuid4()),
            "type": "event",
            "channel": channel,
            "seq": 0,
            "payload": wire,
        }
        validate(event)
        validate(event, schema_set="ext")
        self.events.append((channel, wire))


def item(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "attentionId": "rb-attn-1",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": True,
        "summary": "Pawn 'Kira' vanished during a draft order.",
        "openedAtSequence": 40,
        "latestSequence": 42,
        "totalUrgentEntries": 3,
        "diagnosticsCursor": 42,
        "sample": [
            {"level": "error", "message": "Pawn not found", "repeatCount": 2, "latestSequence": 41},
            {"level": "warning", "message": "Job dropped", "repeatCount": 1, "latestSequence": 42},
        ],
    }
    base.update(overrides)
    return base


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def manager(recorder: Recorder) -> AttentionManager:
    return AttentionManager(listener=recorder)


def test_publishing_opens_the_item_exactly_as_given(
    manager: AttentionManager, recorder: Recorder
) -> None:
    published = manager.publish(item())
    assert published.to_wire() == item()
    assert recorder.events == [("attention/opened", item())]
    current = manager.current()
    assert current is not None and current.to_wire() == item()


def test_republishing_the_same_id_updates_and_zeros_keep_the_open_items_values(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.publish(item())
    updated = manager.publish(
        item(summary="Still missing.", openedAtSequence=0, latestSequence=0, totalUrgentEntries=0)
    )
    assert (updated.opened_at_sequence, updated.latest_sequence) == (40, 42)
    assert updated.total_urgent_entries == 3
    assert [channel for channel, _ in recorder.events] == ["attention/opened", "attention/updated"]
    assert recorder.events[1][1]["summary"] == "Still missing."


def test_a_new_id_replaces_the_open_item_and_is_opened_as_lib_gab_does(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.publish(item())
    manager.publish(item(attentionId="rb-attn-2", openedAtSequence=50, latestSequence=0))
    assert [channel for channel, _ in recorder.events] == ["attention/opened", "attention/opened"]
    current = manager.current()
    assert current is not None
    assert (current.attention_id, current.latest_sequence) == ("rb-attn-2", 50)
    assert manager.stats.items_opened == 2


def test_a_published_item_is_always_open(manager: AttentionManager, recorder: Recorder) -> None:
    assert manager.publish(item(state="cleared")).state == "open"
    assert recorder.events[0][1]["state"] == "open"


def test_clearing_sends_the_open_item_cleared_and_not_blocking(
    manager: AttentionManager, recorder: Recorder
) -> None:
    assert manager.clear() is None
    manager.publish(item())
    cleared = manager.clear()
    assert isinstance(cleared, ClearedAttention)
    assert cleared.to_wire() == item(state="cleared", blocking=False)
    assert recorder.events[-1] == ("attention/cleared", item(state="cleared", blocking=False))
    assert manager.current() is None
    assert manager.clear() is None


def test_clearing_with_a_partial_item_fills_the_rest_from_the_open_one(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.publish(item())
    cleared = manager.clear({"summary": "Resolved by reloading the map."})
    assert cleared is not None
    # as in Lib.GAB: sequences, counts, texts and the sample come from the open item, while
    # the flags a partial item leaves out keep Lib.GAB's defaults (stateInvalidated false)
    assert cleared.to_wire() == item(
        state="cleared",
        blocking=False,
        stateInvalidated=False,
        summary="Resolved by reloading the map.",
    )


def test_acknowledging_a_published_item_clears_it(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.publish(item())
    assert manager.ack("rb-attn-other").acknowledged is False
    outcome = manager.ack("rb-attn-1")
    assert (outcome.acknowledged, outcome.current) == (True, None)
    assert recorder.events[-1] == ("attention/cleared", item(state="cleared", blocking=False))


def test_entries_reported_into_a_published_item_coalesce_under_its_id(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.publish(item())
    assert manager.report(UrgentEntry("fatal", "Map unloaded", sequence=60)) == "rb-attn-1"
    current = manager.current()
    assert current is not None
    assert (current.severity, current.latest_sequence, current.total_urgent_entries) == (
        "fatal",
        60,
        4,
    )
    assert [s.message for s in current.sample or []] == [
        "Pawn not found",
        "Job dropped",
        "Map unloaded",
    ]
    assert recorder.events[-1][0] == "attention/updated"


def test_an_item_that_breaks_the_wire_contract_is_refused_and_nothing_changes(
    manager: AttentionManager, recorder: Recorder
) -> None:
    manager.publish(item())
    with pytest.raises(ValueError, match="summary"):
        manager.publish(item(attentionId="rb-attn-2", summary=""))
    with pytest.raises(ValueError, match="severity"):
        manager.publish(item(severity="catastrophic"))
    with pytest.raises(TypeError):
        manager.publish("rb-attn-3")  # type: ignore[arg-type]
    current = manager.current()
    assert current is not None and current.attention_id == "rb-attn-1"
    assert len(recorder.events) == 1


def test_a_mapping_may_use_snake_case_and_leave_out_what_lib_gab_defaults(
    manager: AttentionManager,
) -> None:
    published = manager.publish(
        {"attention_id": "rb-attn-7", "summary": "A raid started.", "opened_at_sequence": 9}
    )
    assert published.to_wire() == {
        "attentionId": "rb-attn-7",
        "state": "open",
        "severity": "error",
        "blocking": False,
        "stateInvalidated": False,
        "summary": "A raid started.",
        "openedAtSequence": 9,
        "latestSequence": 9,
        "totalUrgentEntries": 0,
    }


def test_an_item_without_a_cause_gets_the_operation_it_was_published_under(
    recorder: Recorder,
) -> None:
    def provider() -> tuple[str, str] | None:
        operation = current_operation()
        return (operation.id, operation.method) if operation else None

    manager = AttentionManager(listener=recorder, operation_provider=provider)
    request_id = str(uuid.uuid4())
    with use_operation(Operation(request_id, "colony/draft_pawn")):
        published = manager.publish(item())
        named = manager.publish(item(attentionId="rb-attn-2", causalOperationId="op-own"))
    assert (published.causal_operation_id, published.causal_method) == (
        request_id,
        "colony/draft_pawn",
    )
    assert (named.causal_operation_id, named.causal_method) == ("op-own", None)


def test_a_published_item_counts_in_the_stats(manager: AttentionManager) -> None:
    manager.publish(item())
    manager.publish(item())
    manager.clear()
    assert manager.stats.events_emitted == {"opened": 1, "updated": 1, "cleared": 1}
