"""The mod's own event channels (``rimbridge.operation``, ``rimbridge.log``) and its startup
facts (the welcome's app, the startup log line), over real loopback TCP."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabp import RemoteError
from gabp.messages import Event
from lib_gab.testing import bridge_session, hello_params
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.integration import RimBridge

TOKEN = "5e1a" * 16
CHANNELS = ["rimbridge.operation", "rimbridge.log"]


class Subscriber:
    def __init__(self, bridge: RimBridge) -> None:
        self.bridge = bridge
        self.conn: Any = None
        self.events: list[Event] = []
        self.arrived = anyio.Event()

    def on_event(self, event: Event) -> None:
        self.events.append(event)
        self.arrived.set()

    async def call(self, tool: str, /, **arguments: Any) -> Any:
        return await self.conn.request(
            "tools/call", {"name": tool, "arguments": arguments}, timeout=10
        )

    def payloads(self, channel: str) -> list[dict[str, Any]]:
        return [e.payload for e in self.events if e.channel == channel]

    async def until(self, channel: str, done: Any) -> list[dict[str, Any]]:
        """The channel's payloads once ``done(payloads)`` holds (fails after 5 s)."""
        with anyio.fail_after(5):
            while not done(self.payloads(channel)):
                self.arrived = anyio.Event()
                await self.arrived.wait()
        return self.payloads(channel)


@asynccontextmanager
async def subscribed(tmp_path: Path, **options: Any) -> AsyncIterator[Subscriber]:
    options.setdefault("tick_rate", 0)
    bridge = RimBridge(
        BridgeConfig(token=TOKEN, data_dir=tmp_path, enable_test_tools=True, **options)
    )
    sub = Subscriber(bridge)
    async with (
        bridge.running() as address,
        bridge_session(address, TOKEN, on_event=sub.on_event) as conn,
    ):
        sub.conn = conn
        answer = await conn.request("events/subscribe", {"channels": CHANNELS}, timeout=5)
        assert answer["subscribed"] == CHANNELS
        yield sub


async def test_a_failed_call_is_sent_with_the_record_list_operation_events_shows(
    tmp_path: Path,
) -> None:
    async with subscribed(tmp_path) as sub:
        with pytest.raises(RemoteError):
            await sub.call("rimbridge/get_operation", operationId=" ")  # a diagnostics tool
        sent = await sub.until("rimbridge.operation", lambda p: len(p) == 1)
        listed = await sub.call(
            "rimbridge/list_operation_events",
            eventType="operation.failed",
            includeDiagnostics=True,
        )
    (record,) = listed["events"]
    assert sent == [{"type": "operation.failed", "operationEvent": record}]
    assert record["CapabilityId"].startswith("rimbridge.core/diagnostics/")
    assert record["Status"] == 3  # failed
    assert record["ErrorMessage"].endswith("Parameter name: operationId")


async def test_only_outcomes_are_sent_and_diagnostics_completions_are_not(
    tmp_path: Path,
) -> None:
    async with subscribed(tmp_path) as sub:
        await sub.call("rimbridge/ping")
        await sub.call("rimbridge/list_logs")
        await sub.call("rimbridge/get_bridge_status")
        paused = await sub.call("rimworld/pause_game")
        sent = await sub.until("rimbridge.operation", lambda p: len(p) >= 1)
        await anyio.sleep(0.1)  # nothing else follows
        sent = sub.payloads("rimbridge.operation")
    assert [(p["type"], p["operationEvent"]["OperationId"]) for p in sent] == [
        ("operation.completed", paused["operation"]["OperationId"])
    ]
    event = sent[0]["operationEvent"]
    assert (event["EventType"], event["Status"], event["Success"]) == (
        "operation.completed",
        2,
        True,
    )
    assert event["CapabilityId"] == paused["operation"]["CapabilityId"]


async def test_warning_and_error_lines_are_sent_as_list_logs_shows_them_and_info_is_not(
    tmp_path: Path,
) -> None:
    async with subscribed(tmp_path) as sub:
        for level in ("debug", "info", "warning", "error", "fatal"):
            await sub.call("sim/inject_log", level=level, message=f"a {level} line")
        sent = await sub.until("rimbridge.log", lambda p: len(p) >= 3)
        logs = (await sub.call("rimbridge/list_logs", minimumLevel="warning"))["logs"]
    assert [p["type"] for p in sent] == ["log", "log", "log"]
    entries = [p["logEntry"] for p in sent]
    assert [e["Message"] for e in entries] == ["a warning line", "a error line", "a fatal line"]
    assert entries == list(reversed(logs[:3]))  # list_logs is newest first
    assert entries[0]["OperationId"] != ""  # attributed to the call that logged it


async def test_a_repeating_line_is_sent_again_only_at_the_mods_repeat_thresholds(
    tmp_path: Path,
) -> None:
    async with subscribed(tmp_path) as sub:
        await sub.call("sim/inject_log", level="error", message="Boom", count=250)
        await sub.call("sim/inject_log", level="warning", message="after")
        sent = await sub.until(
            "rimbridge.log", lambda p: p and p[-1]["logEntry"]["Message"] == "after"
        )
    booms = [p["logEntry"] for p in sent[:-1]]
    assert [e["RepeatCount"] for e in booms] == [1, 2, 5, 10, 25, 50, 100, 200]
    assert len({e["EntryId"] for e in booms}) == 1
    assert sent[-1]["logEntry"]["RepeatCount"] == 1


async def test_both_channels_are_offered_beside_attention_and_attention_still_works(
    tmp_path: Path,
) -> None:
    async with subscribed(tmp_path) as sub:
        answer = await sub.conn.request(
            "events/subscribe", {"channels": ["attention/opened"]}, timeout=5
        )
        assert answer["subscribed"] == ["attention/opened"]
        await sub.call("sim/inject_log", level="error", message="Broken")
        await sub.until("attention/opened", lambda p: len(p) == 1)
        await sub.until("rimbridge.log", lambda p: len(p) == 1)


async def test_the_welcome_names_the_mod_and_its_assembly_version(tmp_path: Path) -> None:
    bridge = RimBridge(BridgeConfig(token=TOKEN, data_dir=tmp_path, tick_rate=0))
    async with (
        bridge.running() as address,
        bridge_session(address, TOKEN, hello=False) as conn,
    ):
        welcome = await conn.request("session/hello", hello_params(TOKEN), timeout=5)
    assert welcome["app"] == {"name": "RimBridgeServer", "version": "2.0.0.0"}
    assert set(CHANNELS) <= set(welcome["capabilities"]["events"])


async def test_nothing_is_queued_while_nobody_subscribes(tmp_path: Path) -> None:
    bridge = RimBridge(BridgeConfig(token=TOKEN, data_dir=tmp_path, tick_rate=0))
    try:
        before = bridge.relay.stats.queued
        for index in range(10):
            bridge.log("error", f"line {index}", "mod")
        assert bridge.relay.stats.queued == before
    finally:
        bridge.close()


@pytest.mark.parametrize(
    ("launched_by_gabs", "how"),
    [(False, "running standalone"), (True, "connected to GABS")],
)
async def test_the_startup_log_line_names_the_port_and_never_the_token(
    tmp_path: Path, launched_by_gabs: bool, how: str
) -> None:
    bridge = RimBridge(
        BridgeConfig(token=TOKEN, data_dir=tmp_path, tick_rate=0, launched_by_gabs=launched_by_gabs)
    )
    async with bridge.running() as address:
        entries = bridge.ring.query(minimum_level="debug", limit=100).entries
    lines = [(e.level, e.source, e.message) for e in entries]
    assert ("info", "unity", f"[RimBridge] GABP server {how} on port {address.port}") in lines
    assert not any(TOKEN in message for _, _, message in lines)


async def test_a_full_queue_drops_the_oldest_events_and_never_blocks_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bridge = RimBridge(BridgeConfig(token=TOKEN, data_dir=tmp_path, tick_rate=0))
    # a subscriber that never reads: the server says someone listens, nothing drains the queue
    monkeypatch.setattr(bridge.server, "subscriber_count", lambda channel: 1)
    try:
        # not serving: nothing drains the queue, and logging still returns at once
        before = bridge.relay.stats.queued
        started = time.monotonic()
        for index in range(1500):
            bridge.log("error", f"line {index}", "mod")
        assert time.monotonic() - started < 5
        stats = bridge.relay.stats
        assert stats.queued == before + 1500
        assert (stats.dropped, stats.emitted) == (before + 1500 - 1000, 0)
    finally:
        bridge.close()
