"""Checkpoint F stress: a game logging 10,000+ error lines per second for 30 seconds while an agent
keeps calling tools through the real ``gabs``.

The game is the real ``rimbridge-sim`` process, started by the real ``gabs`` (MCP over stdio,
the SDK's client). An emitter on a second, direct GABP connection calls ``sim/inject_log`` in a
paced loop (a few thousand ``error`` lines per call, a few calls per second), so the log ring,
the classifier and the attention manager see every line; the same connection subscribes to the
attention channels and counts every event the game publishes. Meanwhile:

* a *gate agent* calls a game tool (``rimworld/list_colonists``, no allowlist tag) through
  ``games_call_tool`` over and over; whenever it is blocked it checks the allowlisted
  diagnostics still run, acknowledges the item and goes on;
* an *observer* calls ``games_status``, ``games_get_attention`` and ``rimbridge/ping`` (tag
  ``status``) concurrently;
* a sampler reads ``VmRSS`` of the ``gabs`` and game processes from ``/proc`` twice a second.

What must hold: the measured rate is >= 10,000 lines/s over the window; RSS stays under a bound
and does not grow from the first to the last third; attention events stay bounded by time and
calls, never by lines; the gate is right on every call (blocked while an item is open, same id
on a retry, never by an acknowledged id); every MCP call gets its answer.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from gabp.messages import Event, parse_payload
from gabs.mcp.call_results import call_view
from lib_gab.server import ServerAddress
from lib_gab.testing import bridge_session

BIN = Path(sys.executable).parent
GABS = BIN / "gabs"
RIMBRIDGE_SIM = BIN / "rimbridge-sim"
ATTENTION_CHANNELS = ["attention/opened", "attention/updated", "attention/cleared"]

WINDOW_SECONDS = 30.0
TARGET_LINES_PER_SECOND = 10_000
PACED_LINES_PER_SECOND = 12_000  # a margin over the target
BATCH = 3_000  # lines per sim/inject_log call: 4 calls per second
UPDATE_INTERVAL = 0.25  # rimbridge-sim's attention update interval (BridgeConfig default)
EVENT_SLACK = 8
RSS_BOUND_KB = 400 * 1024
RSS_GROWTH_FACTOR = 1.3
RSS_GROWTH_SLACK_KB = 24 * 1024
SPAM = (
    "NullReferenceException in ColonistBar.ColonistBarOnGUI",
    "IndexOutOfRangeException in PawnRenderer.RenderPawnInternal",
    "InvalidCastException in JobDriver_Haul.MakeNewToils",
)


@dataclass
class Tally:
    """What the test saw, for the assertions and the report."""

    sent: int = 0
    answered: int = 0
    executed: int = 0
    blocked: int = 0
    retries_same_id: int = 0
    allowlisted_during_block: int = 0
    pings: int = 0
    attached: int = 0
    acks: int = 0
    stale_acks_refused: int = 0
    acked: list[str] = field(default_factory=list)
    blocked_ids: set[str] = field(default_factory=set)
    events: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ATTENTION_CHANNELS, 0))
    opened_ids: list[str] = field(default_factory=list)
    invalid_events: list[str] = field(default_factory=list)
    lines: int = 0
    emitter_calls: int = 0
    first_sequence: int | None = None
    last_sequence: int | None = None
    emit_started: float = 0.0
    emit_ended: float = 0.0
    rss: dict[str, list[int]] = field(default_factory=lambda: {"gabs": [], "game": []})


def data(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return call_view(result)


def vm_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def child_pid(marker: str) -> int:
    """The pid of this process's child whose command line contains ``marker``."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and marker in cmdline:
            return int(entry.name)
    raise AssertionError(f"no child process with {marker!r} in its command line")


def thirds(values: list[int]) -> tuple[float, float]:
    third = max(len(values) // 3, 1)
    return statistics.mean(values[:third]), statistics.mean(values[-third:])


@pytest.mark.slow
async def test_ten_thousand_error_lines_a_second_for_thirty_seconds(tmp_path: Path) -> None:
    config = {
        "version": "1.0",
        "games": {
            "rimworld": {
                "id": "rimworld",
                "name": "RimWorld (sim)",
                "launchMode": "DirectPath",
                "target": str(RIMBRIDGE_SIM),
                # INFO: the game logs why a bridge connection closed (shown if the test fails)
                "args": ["--enable-test-tools", "--log-level", "INFO", "--seed", "7"],
                "timeouts": {"startSeconds": 20, "stopGraceSeconds": 5, "callSeconds": 20},
                # rimbridge-sim (lib_gab) serves overlapping requests; the stress calls overlap
                "maxConcurrentRequests": 16,
            }
        },
    }
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    params = StdioServerParameters(
        command=str(GABS),
        args=["serve", "--config-dir", str(tmp_path), "--log-level", "WARNING"],
        env={"GABS_CONFIG_DIR": str(tmp_path)},
    )
    tally = Tally()

    async def call(client: Client, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        tally.sent += 1
        with anyio.fail_after(30):
            result = await client.call_tool(name, arguments)
        tally.answered += 1
        return result

    def on_event(event: Event) -> None:
        if event.channel not in tally.events:
            return
        tally.events[event.channel] += 1
        try:
            item = parse_payload(event.channel, event.payload)
        except ValueError as exc:
            tally.invalid_events.append(f"{event.channel}: {exc}")
            return
        if event.channel == "attention/opened":
            tally.opened_ids.append(item.attention_id)  # type: ignore[union-attr]

    async with Client(params, read_timeout_seconds=60) as client:
        started = await call(client, "games_start", {"gameId": "rimworld"})
        assert data(started)["code"] == "started_connected", started
        game_pid = int(data(started)["process"]["pid"])
        gabs_pid = child_pid(str(tmp_path))
        handoff = json.loads((tmp_path / "rimworld" / "bridge.json").read_text(encoding="utf-8"))
        address = ServerAddress("tcp", "127.0.0.1", int(handoff["port"]))
        # nothing open yet: the game tool runs
        first = await call(client, "games_call_tool", {"tool": "rimworld/list_colonists"})
        assert data(first)["executed"] is True, first

        async with bridge_session(address, handoff["token"], on_event=on_event) as emitter:
            await emitter.request("events/subscribe", {"channels": ATTENTION_CHANNELS})
            stop = anyio.Event()

            async def emit() -> None:
                tally.emit_started = start = time.monotonic()
                while time.monotonic() - start < WINDOW_SECONDS:
                    result = await emitter.request(
                        "tools/call",
                        {
                            "name": "sim/inject_log",
                            "arguments": {
                                "level": "error",
                                "message": SPAM[tally.emitter_calls % len(SPAM)],
                                "count": BATCH,
                                "source": "ui",
                            },
                        },
                        timeout=20,
                    )
                    tally.emitter_calls += 1
                    tally.lines += result["logged"]
                    if tally.first_sequence is None:
                        tally.first_sequence = result["firstSequence"]
                    tally.last_sequence = result["latestSequence"]
                    due = start + tally.lines / PACED_LINES_PER_SECOND
                    await anyio.sleep(max(0.0, due - time.monotonic()))
                tally.emit_ended = time.monotonic()
                stop.set()

            async def sample() -> None:
                while not stop.is_set():
                    tally.rss["gabs"].append(vm_rss_kb(gabs_pid))
                    tally.rss["game"].append(vm_rss_kb(game_pid))
                    with anyio.move_on_after(0.5):
                        await stop.wait()

            async def gate_agent() -> None:
                open_id: str | None = None  # the item that blocked the last call, not acked
                just_acked: str | None = None
                while not stop.is_set():
                    result = await call(
                        client, "games_call_tool", {"tool": "rimworld/list_colonists"}
                    )
                    outcome = data(result)
                    if outcome["executed"] is True:
                        assert outcome["status"] == "ok", outcome
                        assert open_id is None, f"ran while {open_id} was open and not acked"
                        attached = outcome.get("attention") or {}
                        assert attached.get("attentionId") not in tally.acked, outcome
                        tally.attached += bool(attached)
                        tally.executed += 1
                        just_acked = None
                        continue
                    assert result.is_error, outcome
                    assert outcome["executed"] is False, outcome
                    assert outcome["status"] == "blocked_by_attention", outcome
                    attention_id = outcome["attentionId"]
                    assert attention_id not in tally.acked, (
                        f"blocked by {attention_id}, acknowledged before (last ack {just_acked})"
                    )
                    if open_id is not None:
                        assert attention_id == open_id, "a retry met a different id"
                    tally.blocked += 1
                    tally.blocked_ids.add(attention_id)
                    # a retry without an ack is refused under the same id
                    retry = data(
                        await call(client, "games_call_tool", {"tool": "rimworld/list_colonists"})
                    )
                    assert (retry["executed"], retry["attentionId"]) == (False, attention_id)
                    tally.retries_same_id += 1
                    # allowlisted diagnostics still run while it is open
                    if tally.blocked % 3 == 0:
                        logs = data(
                            await call(
                                client,
                                "games_call_tool",
                                {
                                    "tool": "rimbridge/list_logs",
                                    "arguments": {"limit": 3},
                                },
                            )
                        )
                        assert logs["executed"] is True, logs
                        tally.allowlisted_during_block += 1
                    acked = await call(
                        client,
                        "games_ack_attention",
                        {"gameId": "rimworld", "attentionId": attention_id},
                    )
                    assert data(acked)["acknowledged"] is True, acked
                    tally.acks += 1
                    tally.acked.append(attention_id)
                    just_acked, open_id = attention_id, None
                    if tally.acks % 5 == 0:  # a stale ack is refused, never clears the new item
                        stale = await call(
                            client,
                            "games_ack_attention",
                            {"gameId": "rimworld", "attentionId": attention_id},
                        )
                        assert stale.is_error and data(stale)["acknowledged"] is False
                        current = data(stale).get("currentAttention") or {}
                        assert current.get("attentionId") != attention_id
                        tally.stale_acks_refused += 1

            async def observer() -> None:
                while not stop.is_set():
                    status = data(await call(client, "games_status", {"gameId": "rimworld"}))
                    assert status["connection"]["state"] == "connected", status
                    inspected = await call(client, "games_get_attention", {"gameId": "rimworld"})
                    assert not inspected.is_error, inspected
                    item = data(inspected).get("attention")
                    if item is not None:
                        assert len(item["sample"]) <= 5
                        assert len(json.dumps(item)) < 8_000
                    ping = data(await call(client, "games_call_tool", {"tool": "rimbridge/ping"}))
                    assert ping["executed"] is True, ping  # tag status: never gated
                    tally.pings += 1
                    await anyio.sleep(0.05)

            with anyio.fail_after(WINDOW_SECONDS + 30):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(emit)
                    tg.start_soon(sample)
                    tg.start_soon(gate_agent)
                    tg.start_soon(observer)
                # let the trailing (rate-limited) update arrive, then count
                await anyio.sleep(2 * UPDATE_INTERVAL)
                status = await emitter.request(
                    "tools/call", {"name": "rimbridge/get_bridge_status", "arguments": {}}
                )
        await call(client, "games_stop", {"gameId": "rimworld"})

    window = tally.emit_ended - tally.emit_started
    assert tally.first_sequence is not None and tally.last_sequence is not None
    ring_lines = tally.last_sequence - tally.first_sequence + 1
    rate = ring_lines / window
    first_third = {k: thirds(v)[0] for k, v in tally.rss.items()}
    last_third = {k: thirds(v)[1] for k, v in tally.rss.items()}
    # Updates are paced (one per interval), escalations (a few per item), or flushed when a
    # call that reached the game ends while an update was pending (one per such call). Calls
    # that reach the game: the emitter's, allowlisted ones, pings, game calls that ran, and the
    # bridge's own diagnostics queries while it assembles the context of a blocked call or an
    # inspection (get_operation, list_logs). The game's journal counts them all: every call
    # that reached it started an operation.
    game_side_calls = status["operations"]["started"]
    assert game_side_calls >= (
        tally.emitter_calls + tally.allowlisted_during_block + tally.pings + tally.executed
    )
    event_bound = window / UPDATE_INTERVAL + game_side_calls + len(tally.opened_ids) + EVENT_SLACK
    print(
        f"\nstress: {ring_lines} lines in {window:.1f} s = {rate:,.0f} lines/s "
        f"({tally.emitter_calls} emitter calls); events {tally.events} (bound "
        f"{event_bound:.0f}); MCP calls sent {tally.sent}, answered {tally.answered}, "
        f"executed {tally.executed}, blocked {tally.blocked}, retries {tally.retries_same_id}, "
        f"allowlisted during a block {tally.allowlisted_during_block}, acks {tally.acks}, "
        f"stale acks refused {tally.stale_acks_refused}; RSS kB first/last third "
        f"{first_third} / {last_third}, max "
        f"{ {k: max(v) for k, v in tally.rss.items()} }; ring {status['logs']}"
    )

    # the game really emitted 10,000+ lines per second over the window
    assert tally.lines == ring_lines == tally.emitter_calls * BATCH
    assert window >= WINDOW_SECONDS
    assert rate >= TARGET_LINES_PER_SECOND, rate
    # nothing lost: every MCP call answered once
    assert tally.sent == tally.answered
    # the gate worked on every call and was exercised
    assert tally.blocked >= 10 and tally.acks == tally.blocked
    assert tally.retries_same_id == tally.blocked
    assert tally.allowlisted_during_block >= 3
    assert tally.blocked_ids <= set(tally.opened_ids)
    # attention events: bounded by time and calls, never by lines
    assert tally.invalid_events == []
    assert len(tally.opened_ids) == tally.events["attention/opened"] <= tally.acks + 1
    assert tally.events["attention/cleared"] == tally.acks
    updates = tally.events["attention/updated"]
    assert updates <= event_bound, (updates, event_bound)
    assert sum(tally.events.values()) < ring_lines / 100
    # memory bounded, and not growing from the first third to the last
    for name, samples in tally.rss.items():
        assert len(samples) >= 30, name
        assert max(samples) < RSS_BOUND_KB, (name, max(samples))
        assert last_third[name] <= first_third[name] * RSS_GROWTH_FACTOR + RSS_GROWTH_SLACK_KB, (
            name,
            first_third[name],
            last_third[name],
        )
    # the game's own diagnostics stayed bounded too
    assert status["logs"]["size"] <= status["logs"]["capacity"]
