"""The mod's attention and architecture documentation (docs/attention-policy.md,
docs/architecture.md) read as a specification, with the mod's source deciding where the pages
leave a detail open: its attention aggregator for what an item's samples carry, its capability
registry for what a script step may name.

The rules the attention page states (errors and fatal lines, failed, cancelled and timed-out
operations block; info, warnings and successful operations do not) are covered by
``test_policy.py`` and ``test_feed.py``; this file holds the cases where the sim did not yet
behave as the mod."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from gabp import RemoteError
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


# --- script steps name capabilities (architecture.md: "every step can target any registered
# capability"; the mod's registry resolves an id or an alias, ignoring case) ------------------


_REQUEST = "aaaaaaaa-1111-4222-8333-444444444444"


def _script(*steps: dict[str, Any]) -> str:
    return json.dumps({"name": "doc", "steps": list(steps)})


@pytest.mark.anyio
async def test_a_script_step_may_name_a_capability_by_its_id_or_in_another_case(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        answer = await sim.call(
            "rimbridge/run_script",
            scriptJson=_script(
                {"id": "by-id", "call": "rimbridge.core/diagnostics/ping"},
                {"id": "upper", "call": "RIMWORLD/Pause_Game", "arguments": {"pause": True}},
            ),
        )

        assert answer["success"] is True
        steps = answer["script"]["steps"]
        assert [(s["call"], s["capabilityId"], s["success"]) for s in steps] == [
            ("rimbridge.core/diagnostics/ping", "rimbridge.core/diagnostics/ping", True),
            ("RIMWORLD/Pause_Game", "rimbridge.core/lifecycle/pause-game", True),
        ]
        assert steps[1]["result"]["success"] is True


@pytest.mark.anyio
async def test_a_script_step_naming_no_registered_capability_fails_the_whole_call(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, policy="faithful") as sim:
        with pytest.raises(RemoteError) as caught:
            await sim.call(
                "rimbridge/run_script",
                request_id=_REQUEST,
                scriptJson=_script(
                    {"call": "rimworld/pause_game"},
                    {"call": "rimworld.load_game", "arguments": {"saveName": "fixture_a"}},
                ),
            )

        message = "Capability 'rimworld.load_game' is not registered."
        assert (caught.value.code, caught.value.message) == (
            -32000,
            f"rimbridge/run_script failed: {message}",
        )
        operation = await sim.call("rimbridge/get_operation", operationId=_REQUEST)
        assert operation["trackedOperation"]["Status"] == 3  # failed
        attention = await sim.attention()
        assert attention is not None and attention["blocking"] is True


@pytest.mark.anyio
async def test_a_lua_call_of_no_registered_capability_fails_the_whole_call(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        with pytest.raises(RemoteError) as caught:
            await sim.call("rimbridge/run_lua", luaSource='rb.call("rimworld/no_such_tool")')

        assert caught.value.message == (
            "rimbridge/run_lua failed: Capability 'rimworld/no_such_tool' is not registered."
        )


# --- a tool that throws (the mod's CapabilityRegistry catches the exception into the failed
# operation's Error and logs no line, so its aggregator sees one urgent entry) ----------------


@pytest.mark.anyio
async def test_a_tool_exception_is_one_urgent_entry_the_failed_operation_under_faithful(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, policy="faithful") as sim:
        request_id = "bbbbbbbb-2222-4333-8444-555555555555"
        with pytest.raises(RemoteError):
            await sim.call("rimworld/select_pawn", request_id=request_id)

        item = await sim.attention()
        assert (item["blocking"], item["stateInvalidated"], item["severity"]) == (
            True,
            True,
            "error",
        )
        assert item["totalUrgentEntries"] == 1
        assert [(s["level"], s["repeatCount"]) for s in item["sample"]] == [("error", 1)]
        assert item["sample"][0]["message"].startswith("rimworld/select_pawn failed: ")
        assert sim.timeline == ["event:attention/opened", "response:rimworld/select_pawn"]
        # the sim's exception line is still there for diagnosis, right at the cursor
        page = await sim.call("rimbridge/list_logs", afterSequence=item["diagnosticsCursor"])
        assert page["logs"][-1]["Message"].startswith("Exception in rimworld/select_pawn: ")
