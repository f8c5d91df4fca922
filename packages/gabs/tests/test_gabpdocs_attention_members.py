"""A game whose attention answers leave out their ``null`` item, as the .NET GABP runtime writes
them (``Gabp.Runtime`` 1.0.0 serializes with ``NullValueHandling.Ignore``: "no item" is
``{}`` for ``attention/current`` and an ack that closed the item has no ``currentAttention``).

The Go bridge 1.1.0 reads both into its gabp-runtime structs, where a missing member is
``null``: nothing is open, calls go through, the ack is taken. ``gabs`` used to refuse both
answers as invalid: the connect itself failed on the handshake's ``attention/current``.

An attention event that cannot be read (GABP's ``CONFORMANCE/1.0/invalid/008``: an opened item
without ``blocking``) is refused, and the gate asks the game before the next call.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio

from gabs.session import GameSession
from gabs_test_support import read_raw_frame, write_raw_frame

TOKEN = "beef01" * 11
HELLO = {
    "agentId": "dotnet",
    "app": {"name": "dotnet", "version": "1"},
    "capabilities": {
        # attention without its channels: the bridge asks attention/current before each call
        "methods": [
            "session/hello",
            "tools/list",
            "tools/call",
            "attention/current",
            "attention/ack",
        ],
        "events": [],
        "resources": [],
    },
    "schemaVersion": "1.0",
}
CHANNELS = ["attention/opened", "attention/updated", "attention/cleared"]
TOOLS = [
    {
        "name": "dotnet/act",
        "title": "Act",
        "description": "Act.",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"},
    }
]


async def test_attention_answers_without_their_null_item_read_as_nothing_open() -> None:
    seen: list[str] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_raw_frame(reader)) is not None:
            method = str(message.get("method"))
            seen.append(method)
            results: dict[str, Any] = {
                "session/hello": HELLO,
                "tools/list": {"tools": TOOLS},
                "tools/call": {"ran": True},
                "attention/current": {},
                "attention/ack": {"acknowledged": True, "attentionId": "attn_1"},
            }
            reply = {"v": "gabp/1", "id": message.get("id"), "type": "response"}
            write_raw_frame(writer, {**reply, "result": results.get(method)})
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, anyio.create_task_group() as tg:
        session = GameSession("dotnet", port=port, token=TOKEN, liveness_interval=60)
        with anyio.fail_after(10):
            await tg.start(session.run)
            assert session.supports_attention
            outcome = await session.call_tool("dotnet/act", {}, timeout=5)
            current = await session.refresh_attention(timeout=5)
            acked = await session.ack_attention("attn_1", timeout=5)
        await session.close()
    assert (outcome.executed, outcome.status, outcome.result) == (True, "ok", {"ran": True})
    assert current is None
    assert acked == {"acknowledged": True, "attentionId": "attn_1"}
    assert "attention/current" in seen and "tools/call" in seen


OPENED_WITHOUT_BLOCKING = {
    # GABP 1.1.0 CONFORMANCE/1.0/invalid/008: an opened item without its `blocking` member
    "attentionId": "attn_2",
    "state": "open",
    "severity": "error",
    "stateInvalidated": True,
    "summary": "The map was lost.",
    "openedAtSequence": 30,
    "latestSequence": 31,
    "totalUrgentEntries": 1,
}


async def calls_after_events(
    events: list[tuple[str, int, dict[str, Any]]], current: dict[str, Any], calls: int
) -> tuple[list[Any], list[str]]:
    """``calls`` calls of ``dotnet/act`` to a game that sends ``events`` (channel, seq,
    payload) while it answers the first call and has ``current`` open after it; the outcomes
    and the methods the game was asked, in order."""
    hello = {**HELLO, "capabilities": {**HELLO["capabilities"], "events": CHANNELS}}
    asked: list[str] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_raw_frame(reader)) is not None:
            method = str(message.get("method"))
            asked.append(method)
            reply = {"v": "gabp/1", "id": message.get("id"), "type": "response"}
            results: dict[str, Any] = {
                "session/hello": hello,
                "tools/list": {"tools": TOOLS},
                "events/subscribe": {"subscribed": CHANNELS},
                "attention/current": {"attention": current if "tools/call" in asked else None},
                "tools/call": {"ran": True},
            }
            if method == "tools/call" and asked.count("tools/call") == 1:
                for channel, seq, payload in events:
                    event_id = f"5f0c2a4e-8f1b-4c3d-9e6a-7b2d1c0e9f{seq:02d}"
                    event = {"v": "gabp/1", "id": event_id, "type": "event"}
                    write_raw_frame(
                        writer, {**event, "channel": channel, "seq": seq, "payload": payload}
                    )
            write_raw_frame(writer, {**reply, "result": results.get(method)})
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, anyio.create_task_group() as tg:
        session = GameSession("dotnet", port=port, token=TOKEN, liveness_interval=60)
        with anyio.fail_after(10):
            await tg.start(session.run)
            outcomes = [await session.call_tool("dotnet/act", {}, timeout=5) for _ in range(calls)]
        await session.close()
    return outcomes, asked


async def test_an_attention_event_that_cannot_be_read_makes_the_gate_ask_the_game_again() -> None:
    # The GABP conformance text: an invalid message is rejected and leaves no invalid state.
    # The unreadable event still says the game's item changed, so the cache may be behind: the
    # gate asks attention/current before the next call, as after a seq gap. gabs used to drop the
    # event and let the next call through on the item it had cached before.
    item = {**OPENED_WITHOUT_BLOCKING, "blocking": True}
    events = [("attention/opened", 0, OPENED_WITHOUT_BLOCKING)]
    (first, second), asked = await calls_after_events(events, item, 2)
    assert (first.executed, first.status) == (True, "ok")
    assert (second.executed, second.status) == (False, "blocked_by_attention")
    assert second.attention is not None and second.attention.attention_id == "attn_2"
    assert asked.count("attention/current") == 2 and asked.count("tools/call") == 1


async def test_a_gap_in_an_attention_channel_s_seq_makes_the_gate_ask_the_game_again() -> None:
    # seq 1 of attention/updated never arrives (it would have said the item turned blocking):
    # the cache holds the advisory item of seq 0 and 2, so the gate must not trust it and asks
    # attention/current before the next call
    advisory = {**OPENED_WITHOUT_BLOCKING, "attentionId": "attn_3", "blocking": False}
    blocking = {**OPENED_WITHOUT_BLOCKING, "blocking": True}
    events = [("attention/updated", seq, advisory) for seq in (0, 2)]
    (first, second, third), asked = await calls_after_events(events, blocking, 3)
    assert (first.executed, first.status) == (True, "ok")
    assert (second.executed, second.status) == (False, "blocked_by_attention")
    assert second.attention is not None and second.attention.attention_id == "attn_2"
    assert (third.executed, third.status) == (False, "blocked_by_attention")
    # asked once at the connect and once after the gap, not again: the answer cleared the flag
    assert asked.count("attention/current") == 2 and asked.count("tools/call") == 1
