"""The attention cache keeps event order; the gate blocks exactly what it must."""

from __future__ import annotations

from typing import Any

import pytest

from gabp.messages import Attention
from gabs.attention import ALLOW_TAGS, AttentionCache, Gate


def item(**changes: Any) -> dict[str, Any]:
    base = {
        "attentionId": "att-1",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "error: Map lost",
        "openedAtSequence": 4,
        "latestSequence": 4,
        "totalUrgentEntries": 1,
    }
    return base | changes


def test_events_apply_in_order_and_a_stale_update_is_dropped() -> None:
    cache = AttentionCache()
    cache.apply("attention/opened", item())
    cache.apply("attention/updated", item(latestSequence=9, totalUrgentEntries=3))
    assert cache.apply("attention/updated", item(latestSequence=7, totalUrgentEntries=2)) is None
    current = cache.snapshot()
    assert current is not None and (current.latest_sequence, current.total_urgent_entries) == (9, 3)
    assert cache.dropped_stale == 1


def test_cleared_removes_only_the_item_it_names() -> None:
    cache = AttentionCache()
    cache.apply("attention/opened", item(attentionId="att-2"))
    cache.apply("attention/cleared", item(attentionId="att-1", state="cleared", blocking=False))
    assert cache.snapshot() is not None
    cache.apply("attention/cleared", item(attentionId="att-2", state="cleared", blocking=False))
    assert cache.snapshot() is None and cache.known


def test_an_invalid_payload_is_ignored_and_the_cache_keeps_its_state() -> None:
    cache = AttentionCache()
    cache.apply("attention/opened", item())
    assert cache.apply("attention/updated", {"attentionId": "att-1"}) is None
    assert cache.snapshot() == Attention.model_validate(item())


def test_attention_current_does_not_overwrite_a_newer_event() -> None:
    cache = AttentionCache()
    cache.apply("attention/updated", item(latestSequence=12))
    cache.set_current(Attention.model_validate(item(latestSequence=5)))
    assert cache.snapshot().latest_sequence == 12  # type: ignore[union-attr]


BLOCKING = Attention.model_validate(item())
ADVISORY = Attention.model_validate(item(blocking=False, severity="warning"))


@pytest.mark.parametrize(
    ("gate", "tool", "tags", "attention", "allowed", "reason"),
    [
        (Gate(), "colony/draft", (), None, True, "no_attention"),
        (Gate(), "colony/draft", (), BLOCKING, False, "blocked"),
        (Gate(), "colony/draft", (), ADVISORY, True, "advisory"),
        (
            Gate(),
            "rimbridge/list_logs",
            ("diagnostic", "read-only"),
            BLOCKING,
            True,
            "allowlisted_tag",
        ),
        (
            Gate(allow=frozenset({"colony/draft"})),
            "colony/draft",
            (),
            BLOCKING,
            True,
            "allowlisted_name",
        ),
        (Gate(), "colony/set_status", (), BLOCKING, False, "blocked"),  # never by words in names
        (Gate(), "colony/get_status", (), BLOCKING, False, "blocked"),
        (Gate(mode="observe"), "colony/draft", (), BLOCKING, True, "observe_only"),
        (Gate(mode="off"), "colony/draft", (), BLOCKING, True, "mode_off"),
    ],
)
def test_the_gate_decides_by_mode_blocking_tags_and_names_only(
    gate: Gate,
    tool: str,
    tags: tuple[str, ...],
    attention: Attention | None,
    allowed: bool,
    reason: str,
) -> None:
    decision = gate.check(tool, tags, supported=True, attention=attention, known=True)
    assert (decision.allowed, decision.reason) == (allowed, reason)


def test_every_documented_allow_tag_lets_a_call_through() -> None:
    for tag in ALLOW_TAGS:
        assert Gate().check("x/y", (tag,), supported=True, attention=BLOCKING, known=True).allowed


def test_an_unknown_attention_state_fails_closed_unless_configured_open() -> None:
    closed = Gate().check("colony/draft", (), supported=True, attention=None, known=False)
    assert (closed.allowed, closed.reason) == (False, "unavailable")
    diagnostic = Gate().check(
        "rimbridge/ping", ("status",), supported=True, attention=None, known=False
    )
    assert diagnostic.allowed
    opened = Gate(fail_closed=False).check(
        "colony/draft", (), supported=True, attention=None, known=False
    )
    assert opened.allowed


def test_games_without_attention_support_are_never_gated() -> None:
    decision = Gate().check("colony/draft", (), supported=False, attention=None, known=False)
    assert (decision.allowed, decision.reason) == (True, "unsupported")
