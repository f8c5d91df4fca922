"""The mod's own core tests (``Tests/RimBridgeServer.Core.Tests``) read as a specification: the
behaviours they pin that the simulation follows after a fix, one test each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import anyio
import pytest

from lib_gab.attention import AttentionManager
from rimbridge_annotations import tool
from rimbridge_sim.calls import MainLoopTimeout, call_spec
from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import LogRing, OperationJournal
from rimbridge_sim.feed import AttentionFeed
from rimbridge_sim.integration import BridgeConfig, RimBridge
from rimbridge_sim.policy import Policy
from rimbridge_sim.tools._waits import Probe, wait_until
from rimbridge_sim.world import World

TOKEN = "7c1e" * 16
T = TypeVar("T")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- LogJournalTests -----------------------------------------------------------------------------


def test_an_identical_line_folds_into_the_previous_one_within_two_seconds() -> None:
    clock = ManualClock(10.0)
    ring = LogRing(clock=clock)
    ring.append("warning", "same message", source="unity")
    clock.advance(1.5)
    ring.append("warning", "same message", source="unity")

    page = ring.query(limit=10)
    assert [entry.repeat_count for entry in page.entries] == [2]


# --- AttentionAggregatorTests --------------------------------------------------------------------


def _feed() -> tuple[LogRing, OperationJournal, AttentionManager, AttentionFeed]:
    clock = ManualClock(100.0)
    ring = LogRing(clock=clock)
    journal = OperationJournal(clock=clock)
    manager = AttentionManager(update_interval=0.25, clock=clock)
    return ring, journal, manager, AttentionFeed(manager, Policy.load("faithful"), ring, journal)


def test_a_timed_out_operation_opens_fatal_attention_with_the_latest_log_line_as_cursor() -> None:
    ring, journal, manager, feed = _feed()
    for index in range(25):  # info lines: no attention under the mod's rule
        ring.append("info", f"line {index}", source="unity")
    journal.start("op_second", "rimworld/select_pawn")
    journal.fail("op_second", "Timed out waiting for selector.", kind="timed_out")

    item = manager.current()
    assert item is not None
    wire = item.to_wire()
    assert (wire["severity"], wire["blocking"], wire["diagnosticsCursor"]) == ("fatal", True, 24)
    assert wire["causalOperationId"] == "op_second"
    feed.close()


# --- ConditionWaiterTests ------------------------------------------------------------------------


class _BusyAfterFirstProbe:
    """A host whose main loop answers the first probe, then never again."""

    def __init__(self) -> None:
        self.probes = 0
        self.config = SimpleNamespace(tick_rate=60.0)

    async def on_main_thread(self, function: Callable[[], T], *, timeout: float | None = None) -> T:
        self.probes += 1
        if self.probes > 1:
            raise MainLoopTimeout("probe timed out")
        return function()

    async def let_frames_pass(self, frames: int) -> None:
        await anyio.sleep(0.001)


@pytest.mark.anyio
async def test_a_wait_whose_later_probes_cannot_run_answers_with_the_last_state_seen() -> None:
    host = _BusyAfterFirstProbe()
    outcome = await wait_until(
        host,  # type: ignore[arg-type]
        lambda: Probe(False, "waiting", "snapshot-1", "not yet"),
        timeout_ms=20,
        poll_ms=1,
        timeout_message="timed out",
    )

    assert not outcome.satisfied
    assert outcome.probe_failures >= 1
    assert outcome.last_probe_error == "probe timed out"
    assert outcome.snapshot == "snapshot-1"
    assert outcome.message == "timed out Last probe error: probe timed out"
    assert outcome.blocking_reason is None  # the busy probe names none, as the mod's


# --- AutomationReadinessTests --------------------------------------------------------------------


def test_a_pending_language_switch_makes_the_game_not_playable_until_it_ends() -> None:
    world = World(1)
    world.start_debug_game(seed=1, map_size=(20, 20), colonists=1)
    world.queue_language("French")

    state = world.state_snapshot()
    assert state["longEventPending"] is True
    assert (state["playable"], state["visualReady"], state["automationReady"]) == (
        False,
        False,
        False,
    )
    assert state["mapDataReady"] is True

    for _ in range(600):
        if world.state_snapshot()["longEventPending"] is False:
            break
        world.advance_realtime(1)
    assert world.state_snapshot()["playable"] is True


# --- OperationRunnerTests, CapabilityRegistryTests -----------------------------------------------


class _SlowTools:
    @tool("sim/too_slow", "Raise a timeout.", tags=("test",))
    @call_spec(world=False)
    def too_slow(self) -> dict[str, Any]:
        raise TimeoutError("too slow")


@pytest.mark.anyio
async def test_a_cancelled_call_ends_its_operation_cancelled(tmp_path: Path) -> None:
    bridge = RimBridge(BridgeConfig(token=TOKEN, data_dir=tmp_path, tick_rate=0))
    try:
        with anyio.move_on_after(0.3):
            await bridge.server.call_tool(
                "rimbridge/wait_for_operation", {"operationId": "op_never", "timeoutMs": 60_000}
            )
        (record,) = bridge.journal.list(method="rimbridge/wait_for_operation")
        assert record.status == "cancelled"
        envelope = bridge.journal.envelope(record)
        assert (envelope["Status"], envelope["Error"]["Code"]) == (5, "tool.cancelled")
    finally:
        bridge.close()


@pytest.mark.anyio
async def test_a_tool_body_raising_a_timeout_times_its_operation_out(tmp_path: Path) -> None:
    bridge = RimBridge(
        BridgeConfig(token=TOKEN, data_dir=tmp_path, tick_rate=0, enable_test_tools=True)
    )
    try:
        bridge.register(_SlowTools())
        with pytest.raises(Exception, match="too slow"):
            await bridge.server.call_tool("sim/too_slow", {})
        (record,) = bridge.journal.list(method="sim/too_slow")
        assert record.status == "timed_out"
    finally:
        bridge.close()
