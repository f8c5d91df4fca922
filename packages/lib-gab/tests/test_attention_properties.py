"""AttentionManager invariants under any sequence of reports, acks, clock steps and flushes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from gabp.messages import Attention, parse_payload
from lib_gab.attention import AttentionManager, UrgentEntry

RANK = {"info": 0, "warning": 1, "error": 2, "fatal": 3}
MESSAGES = ["map lost", "job driver threw", "no path to cell", "x" * 40, "", "raid incoming"]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class ItemHistory:
    """What the listener said about one item."""

    opened_at: float
    root_message: str
    last: Attention
    updates: int = 0
    last_update_at: float | None = None
    cleared: bool = False
    payloads: list[Attention] = field(default_factory=list)


entries = st.builds(
    UrgentEntry,
    level=st.sampled_from(list(RANK)),
    message=st.sampled_from(MESSAGES),
    signature=st.none() | st.sampled_from(["sig-a", "sig-b"]),
    sequence=st.none() | st.integers(min_value=0, max_value=10_000),
    blocking=st.none() | st.booleans(),
    state_invalidated=st.none() | st.booleans(),
    causal_operation_id=st.none() | st.sampled_from(["op-1", "op-2"]),
    causal_method=st.none() | st.just("colony/draft_pawn"),
    diagnostics_cursor=st.none() | st.integers(min_value=0, max_value=10_000),
)


def _expected_message(message: str, limit: int) -> str:
    if not message:
        return "(empty message)"
    return message if len(message) <= limit else message[: limit - 1] + "…"


class AttentionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.manager = AttentionManager(clock=self.clock)
        self.sample_limit = 5
        self.message_limit = 500
        self.interval = 0.25
        self.histories: dict[str, ItemHistory] = {}
        self.open_id: str | None = None
        self.previous: Attention | None = None
        self.listener_failures: list[BaseException] = []

    @initialize(
        sample_limit=st.integers(min_value=1, max_value=4),
        message_limit=st.sampled_from([16, 20, 500]),
        interval=st.sampled_from([0.0, 0.25, 1.0]),
    )
    def configure(self, sample_limit: int, message_limit: int, interval: float) -> None:
        self.sample_limit, self.message_limit, self.interval = sample_limit, message_limit, interval
        self.manager = AttentionManager(
            sample_limit=sample_limit,
            message_limit=message_limit,
            update_interval=interval,
            clock=self.clock,
            listener=self.on_notification,
        )

    # -- the listener checks every payload as it arrives

    def on_notification(self, channel: str, item: Attention) -> None:
        # the manager logs and survives listener exceptions: keep them for an invariant
        try:
            self._check_notification(channel, item)
        except BaseException as exc:
            self.listener_failures.append(exc)

    def _check_notification(self, channel: str, item: Attention) -> None:
        parse_payload(channel, item.to_wire(), strict=True)
        if channel == "attention/opened":
            assert self.open_id is None, "an item opened while another was open"
            assert item.attention_id not in self.histories, "an attention id was reused"
            self.open_id = item.attention_id
            self.histories[item.attention_id] = ItemHistory(
                opened_at=self.clock.now, root_message=(item.sample or [])[0].message, last=item
            )
        else:
            assert item.attention_id == self.open_id, f"{channel} for an item that is not open"
            history = self.histories[item.attention_id]
            _assert_never_goes_down(history.last, item)
            history.last = item
            if channel == "attention/updated":
                history.updates += 1
                history.last_update_at = self.clock.now
            else:
                assert (item.state, item.blocking) == ("cleared", False)
                history.cleared = True
                self.open_id = None
                self.previous = None
        self.histories[item.attention_id].payloads.append(item)

    # -- rules

    @rule(entry=entries)
    def report(self, entry: UrgentEntry) -> None:
        before = self.open_id
        result = self.manager.report(entry)
        if entry.level == "info" and entry.blocking is None and entry.state_invalidated is None:
            assert result is None
            assert self.open_id == before
            return
        assert result is not None and result == self.open_id
        if before is not None:
            assert result == before, "an update opened a new item"
        else:
            history = self.histories[result]
            assert history.root_message == _expected_message(entry.message, self.message_limit)

    @precondition(lambda self: self.open_id is not None)
    @rule()
    def ack_the_open_item(self) -> None:
        attention_id = self.open_id
        assert attention_id is not None
        outcome = self.manager.ack(attention_id)
        assert (outcome.acknowledged, outcome.attention_id, outcome.current) == (
            True,
            attention_id,
            None,
        )
        assert self.histories[attention_id].cleared
        assert self.manager.current() is None

    @precondition(lambda self: any(h.cleared for h in self.histories.values()))
    @rule(data=st.data())
    def ack_a_stale_id(self, data: st.DataObject) -> None:
        stale = data.draw(
            st.sampled_from(sorted(i for i, h in self.histories.items() if h.cleared))
        )
        self._ack_without_effect(stale)

    @rule(attention_id=st.text(min_size=1, max_size=12))
    def ack_a_random_id(self, attention_id: str) -> None:
        if attention_id != self.open_id:
            self._ack_without_effect(attention_id)

    def _ack_without_effect(self, attention_id: str) -> None:
        before = self.manager.current()
        payloads = sum(len(h.payloads) for h in self.histories.values())
        if not attention_id.strip():  # refused, as Lib.GAB's AcknowledgeAsync refuses it
            with pytest.raises(ValueError, match="non-empty attention id"):
                self.manager.ack(attention_id)
            assert self.manager.current() == before
            assert sum(len(h.payloads) for h in self.histories.values()) == payloads
            return
        outcome = self.manager.ack(attention_id)
        assert (outcome.acknowledged, outcome.attention_id, outcome.current) == (
            False,
            attention_id,
            before,
        )
        assert self.manager.current() == before
        assert sum(len(h.payloads) for h in self.histories.values()) == payloads

    @rule(seconds=st.sampled_from([0.0, 0.01, 0.1, 0.24, 0.25, 0.3, 1.0, 5.0]))
    def advance_the_clock(self, seconds: float) -> None:
        self.clock.now += seconds

    @rule()
    def flush(self) -> None:
        due_at = self.manager.next_update_due
        wait = self.manager.flush_due()
        if due_at is None:
            assert wait is None
        elif due_at > self.clock.now:
            assert wait is not None and abs(wait - (due_at - self.clock.now)) < 1e-9
        else:
            assert wait is None
            assert self.manager.next_update_due is None

    # -- invariants

    @invariant()
    def every_notification_passed_its_checks(self) -> None:
        if self.listener_failures:
            raise self.listener_failures[0]

    @invariant()
    def at_most_one_item_is_open_and_it_is_the_one_announced(self) -> None:
        current = self.manager.current()
        if current is None:
            assert self.open_id is None
            return
        assert (current.attention_id, current.state) == (self.open_id, "open")
        if self.previous is not None and self.previous.attention_id == current.attention_id:
            _assert_never_goes_down(self.previous, current)
        self.previous = current
        sample = current.sample or []
        assert 1 <= len(sample) <= self.sample_limit
        assert sample[0].message == self.histories[current.attention_id].root_message
        assert all(len(s.message) <= self.message_limit for s in sample)
        assert len(current.summary) <= self.message_limit + 80

    @invariant()
    def updates_per_item_stay_within_the_rate_bound(self) -> None:
        # Escalations bypass the rate limit, and an item escalates at most
        # ESCALATIONS times: three severity steps, turning blocking, turning invalidating.
        if self.interval == 0:
            return
        for history in self.histories.values():
            if history.last_update_at is not None:
                elapsed = history.last_update_at - history.opened_at
                assert history.updates <= elapsed / self.interval + 2 + ESCALATIONS

    @invariant()
    def only_a_deferred_update_is_ever_due(self) -> None:
        due = self.manager.next_update_due
        if due is not None:
            assert self.open_id is not None
            assert self.interval > 0


ESCALATIONS = 5


def _assert_never_goes_down(before: Attention, after: Attention) -> None:
    assert after.total_urgent_entries >= before.total_urgent_entries
    assert after.latest_sequence >= before.latest_sequence
    assert after.opened_at_sequence == before.opened_at_sequence
    assert RANK[after.severity] >= RANK[before.severity]
    if before.state_invalidated:
        assert after.state_invalidated
    if before.blocking and after.state == "open":
        assert after.blocking


AttentionMachine.TestCase.settings = settings(
    max_examples=150,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_attention_manager_keeps_its_invariants = AttentionMachine.TestCase
