"""The mod's attention documentation (docs/attention-policy.md) read as a specification, with
the mod's aggregator (``AttentionAggregator``) deciding what an item's samples carry.

The rules the page states (errors and fatal lines, failed, cancelled and timed-out operations
block; info, warnings and successful operations do not) are covered by ``test_policy.py`` and
``test_feed.py``; this file holds the cases where the sim did not yet behave as the mod."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lib_gab.attention import AttentionManager
from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import LogRing, OperationJournal, log_with_operation
from rimbridge_sim.feed import AttentionFeed
from rimbridge_sim.policy import Policy


class Feed:
    """A ring, a journal, an attention manager and a feed under the mod's own policy."""

    def __init__(self) -> None:
        self.clock = ManualClock(100.0)
        self.ring = LogRing(2000, collapse_window=1.0, clock=self.clock)
        self.journal = OperationJournal(clock=self.clock)
        self.manager = AttentionManager(update_interval=0.0, clock=self.clock)
        self.feed = AttentionFeed(self.manager, Policy.load("faithful"), self.ring, self.journal)

    def log(self, level: str, message: str, source: str = "world") -> None:
        log_with_operation(self.ring, self.journal, level, message, source=source)

    def item(self) -> dict[str, Any]:
        current = self.manager.current()
        assert current is not None
        return current.to_wire()


@pytest.fixture
def feed() -> Iterator[Feed]:
    made = Feed()
    yield made
    made.feed.close()


def test_a_multi_line_error_appears_in_the_sample_and_summary_as_one_line(feed: Feed) -> None:
    feed.log("error", "Exception ticking Flint:\r\nSystem.NullReferenceException\n  at Tick()  ")

    item = feed.item()
    one_line = "Exception ticking Flint:  System.NullReferenceException   at Tick()"
    assert item["sample"][0]["message"] == one_line
    assert item["summary"] == f"error: {one_line}"


def test_an_error_line_without_text_is_sampled_as_no_detail_provided(feed: Feed) -> None:
    feed.log("error", "   ")

    assert feed.item()["sample"][0]["message"] == "No detail provided."


def test_a_long_error_line_is_sampled_as_its_first_217_characters_and_three_dots(
    feed: Feed,
) -> None:
    feed.log("error", "x" * 300)

    message = feed.item()["sample"][0]["message"]
    assert message == "x" * 217 + "..."
    assert len(message) == 220


def test_the_same_error_from_two_sources_is_one_sample_with_both_repeats(feed: Feed) -> None:
    feed.log("error", "Map 0 lost its pathing grid", source="world")
    feed.log("error", "Map 0 lost its pathing grid", source="mod")

    item = feed.item()
    assert item["totalUrgentEntries"] == 2
    assert [(s["level"], s["repeatCount"]) for s in item["sample"]] == [("error", 2)]


def test_the_same_text_as_error_and_as_fatal_keeps_one_sample_per_level(feed: Feed) -> None:
    feed.log("error", "Save file corrupt")
    feed.log("fatal", "Save file corrupt")

    item = feed.item()
    assert item["severity"] == "fatal"
    assert sorted((s["level"], s["repeatCount"]) for s in item["sample"]) == [
        ("error", 1),
        ("fatal", 1),
    ]
