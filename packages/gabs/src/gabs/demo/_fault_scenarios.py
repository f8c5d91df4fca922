"""The robustness scenarios: spam (500 identical errors, one item, bounded events),
no-attention (a game without attention) and crash (stalls and a dying game mid-call)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio

from gabs.attention import Gate
from gabs.demo._agent import (
    EXECUTED,
    GAME,
    LEGACY_GAME,
    NO_ATTENTION,
    NOT_ERROR,
    RAN,
    RAN_OK,
    STATUS_OK,
    DemoAgent,
    blocked,
    operations_of,
)
from gabs.demo._transcript import Reply
from gabs.session import GameSession

__all__ = ["scenario_crash", "scenario_no_attention", "scenario_spam"]


@contextlib.asynccontextmanager
async def _observer(config_dir: Path, game_id: str) -> AsyncIterator[GameSession]:
    """A second GABP session that only observes attention events (never gates, never calls)."""
    # bridge.json has the Go bridge's shape: {"port", "token", "gameId", ...}
    bridge = json.loads((config_dir / game_id / "bridge.json").read_text(encoding="utf-8"))
    session = GameSession(
        f"{game_id}-observer",
        port=int(bridge["port"]),
        token=str(bridge["token"]),
        gate=Gate(mode="observe"),
        liveness_interval=3600,
    )
    async with anyio.create_task_group() as tg:
        await tg.start(session.run)
        try:
            yield session
        finally:
            await session.close()
            tg.cancel_scope.cancel()


async def scenario_spam(agent: DemoAgent) -> None:
    await agent.start(GAME)
    count = 500
    started = time.perf_counter()
    async with _observer(agent.config_dir, GAME) as observer:
        agent.record(
            "an observer opens its own GABP session to count attention events",
            None,
            None,
            Reply(False, "", {"subscribed": observer.subscribed}),
            [
                (
                    "subscribed to the three attention channels",
                    lambda r: len(r.get("subscribed") or []) == 3,
                )
            ],
            started,
            text=f"observer subscribed to {', '.join(observer.subscribed)}",
        )
        message = "NullReferenceException in ColonistBar.ColonistBarOnGUI"
        spammed = await agent.game_call(
            f"one call logs {count} identical errors",
            "sim/inject_log",
            {"level": "error", "message": message, "count": count},
            [
                *RAN_OK,
                ("one blocking item", lambda r: r.get("attention", "blocking") is True),
                (
                    f"totalUrgentEntries {count}",
                    lambda r: r.get("attention", "totalUrgentEntries") == count,
                ),
                (
                    f"one sample row with repeatCount {count}",
                    lambda r: (
                        len(r.get("attention", "sample") or []) == 1
                        and r.get("attention", "sample", 0, "repeatCount") == count
                    ),
                ),
            ],
        )
        attention_id = spammed.get("attention", "attentionId")
        started = time.perf_counter()
        with anyio.move_on_after(5):
            while True:  # the observer's own connection may lag behind the agent's
                item = observer.attention
                if item is not None and item.total_urgent_entries >= count:
                    break
                await anyio.sleep(0.02)
        item = observer.attention
        events = observer.cache.applied
        agent.record(
            "the observer saw a bounded number of attention events",
            None,
            None,
            Reply(
                False,
                "",
                {
                    "events": events,
                    "attentionId": item.attention_id if item else None,
                    "totalUrgentEntries": item.total_urgent_entries if item else None,
                },
            ),
            [
                ("the same item", lambda r: r.get("attentionId") == attention_id),
                (f"at most 10 events for {count} errors", lambda r: 1 <= r.get("events") <= 10),
            ],
            started,
            text=f"{events} attention event(s) for {count} urgent entries "
            f"(item {item.attention_id if item else None}, "
            f"totalUrgentEntries {item.total_urgent_entries if item else None})",
        )
    cursor = spammed.get("attention", "diagnosticsCursor")
    await agent.game_call(
        "the diagnostics plane collapsed the burst too",
        "rimbridge/list_logs",
        {"afterSequence": cursor, "limit": 10},
        [
            *RAN,
            (
                f"one log entry with RepeatCount {count}",
                lambda r: (
                    len(r.get("result", "logs") or []) == 1
                    and r.get("result", "logs", 0, "RepeatCount") == count
                ),
            ),
        ],
    )
    await agent.game_call(
        "game calls are refused under that one item",
        "rimworld/list_colonists",
        None,
        blocked(attention_id),
    )
    await agent.call(
        "acknowledge it",
        "games_ack_attention",
        {"gameId": GAME, "attentionId": attention_id},
        [NOT_ERROR, ("acknowledged true", lambda r: r.get("acknowledged") is True)],
    )
    await agent.game_call(
        "game calls run again", "rimworld/list_colonists", None, [*RAN_OK, NO_ATTENTION]
    )
    await agent.stop(GAME)


async def scenario_no_attention(agent: DemoAgent) -> None:
    await agent.start(
        LEGACY_GAME,
        [("attention supported false", lambda r: r.get("attention", "supported") is False)],
    )
    await agent.call(
        "discover its tools",
        "games_tool_names",
        {"gameId": LEGACY_GAME},
        [
            NOT_ERROR,
            (
                "example/echo and example/count",
                lambda r: (
                    {"example/echo", "example/count"}
                    <= {t.get("gabpName") for t in r.get("tools") or []}
                ),
            ),
        ],
    )
    await agent.game_call(
        "a call works as before",
        "example/echo",
        {"text": "Grüße, 世界"},
        [
            NOT_ERROR,
            EXECUTED,
            STATUS_OK,
            ("the text comes back", lambda r: r.get("result") == {"text": "Grüße, 世界"}),
        ],
        game_id=LEGACY_GAME,
    )
    await agent.call(
        "inspect attention: not supported, nothing to acknowledge",
        "games_get_attention",
        {"gameId": LEGACY_GAME},
        [NOT_ERROR, ("supported false", lambda r: r.get("supported") is False)],
    )
    await agent.game_call(
        "another call works",
        "example/count",
        {"times": 2},
        [NOT_ERROR, EXECUTED, STATUS_OK, ("result 2", lambda r: r.get("result") == 2)],
        game_id=LEGACY_GAME,
    )
    await agent.stop(LEGACY_GAME)


def _kill(pid: int) -> None:
    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))


async def scenario_crash(agent: DemoAgent) -> None:
    started_reply = await agent.start(GAME)
    pid = started_reply.get("pid") or started_reply.get("process", "pid")
    await agent.game_call(
        "stall the game's main loop for 8 s",
        "sim/stall",
        {"ms": 8000},
        RAN_OK,
    )
    await agent.game_call(
        "a call that outlives its 1 s timeout: it may still run, so the answer is unknown",
        "rimworld/get_game_info",
        None,
        [
            ("isError", lambda r: r.is_error),
            ('executed "unknown"', lambda r: r.get("executed") == "unknown"),
            ("the text says UNKNOWN", lambda r: "UNKNOWN" in r.text),
        ],
        timeout=1.0,
    )
    in_flight: dict[str, Any] = {}
    call = {"gameId": GAME, "tool": "rimworld/list_colonists", "arguments": {}}

    async def background() -> None:
        began = time.perf_counter()
        try:
            in_flight["reply"] = await agent.raw_call("games_call_tool", call)
        except TimeoutError:
            in_flight["reply"] = None
        in_flight["started"] = began

    async with anyio.create_task_group() as tg:
        tg.start_soon(background)
        began = time.perf_counter()
        operations: Reply | None = None
        with anyio.move_on_after(agent.step_timeout):
            while True:
                operations = await agent.raw_call(
                    "games_call_tool",
                    {
                        "gameId": GAME,
                        "tool": "rimbridge/list_operations",
                        "arguments": {"limit": 20},
                    },
                )
                if operations_of(operations, "rimworld/list_colonists"):
                    break
                await anyio.sleep(0.05)
        agent.record(
            "meanwhile a second call is in flight: the game has started it (diagnostics answer)",
            "games_call_tool",
            {
                "gameId": GAME,
                "tool": "rimbridge/list_operations",
                "arguments": {"limit": 20},
            },
            operations,
            [
                NOT_ERROR,
                (
                    "a running rimworld/list_colonists operation",
                    lambda r: operations_of(r, "rimworld/list_colonists"),
                ),
            ],
            began,
            problem=None if operations is not None else "no answer",
        )
        began = time.perf_counter()
        _kill(int(pid))
        agent.record(
            f"the game process crashes (SIGKILL to pid {pid})",
            None,
            None,
            Reply(False, "", {"pid": pid}),
            [],
            began,
            text=f"kill -KILL {pid}",
        )
    reply = in_flight.get("reply")
    agent.record(
        "the call that was in flight: written, never answered",
        "games_call_tool",
        call,
        reply,
        [
            ("isError", lambda r: r.is_error),
            ('executed "unknown" (never "not executed")', lambda r: r.get("executed") == "unknown"),
            ("the text says UNKNOWN", lambda r: "UNKNOWN" in r.text),
        ],
        in_flight.get("started", time.perf_counter()),
        problem=None if reply is not None else "no answer",
    )
    began = time.perf_counter()
    status: Reply | None = None
    with anyio.move_on_after(agent.step_timeout):
        while True:
            status = await agent.raw_call("games_status", {"gameId": GAME})
            if status.get("status") in ("stopped", "stale-runtime-cleaned"):
                break
            await anyio.sleep(0.05)
    agent.record(
        "the bridge noticed the exit",
        "games_status",
        {"gameId": GAME},
        status,
        [
            (
                "status stopped",
                lambda r: r.get("status") in ("stopped", "stale-runtime-cleaned"),
            ),
            (
                "the exit code says it was killed",
                lambda r: (r.get("process", "exitCode") or 0) != 0,
            ),
        ],
        began,
        problem=None if status is not None else "no answer",
    )
    await agent.game_call(
        "a further call is refused: not connected, not executed",
        "rimworld/list_colonists",
        None,
        [
            ("isError", lambda r: r.is_error),
            ("executed false", lambda r: r.get("executed") is False),
            ("code not_connected", lambda r: r.get("code") == "not_connected"),
        ],
    )
    agent.started.discard(GAME)
