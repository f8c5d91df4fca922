"""GameSession against real lib_gab servers over loopback TCP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from gabs.attention import Gate
from gabs.game_tools import MirroredTool, mcp_tool_name
from gabs.session import GameSession
from lib_gab import GabpServer, ServerLimits, ToolError, UrgentEntry

TOKEN = "c0ffee" * 11


def game(*, attention: bool = True) -> tuple[GabpServer, dict[str, int]]:
    server = GabpServer(app_name="Sim", app_version="1", agent_id="sim", token=TOKEN)
    calls = {"draft": 0}
    manager = server.enable_attention() if attention else None

    @server.tool("colony/draft", description="Draft a pawn.")
    def draft(pawn: str) -> dict[str, Any]:
        calls["draft"] += 1
        return {"drafted": pawn}

    @server.tool("colony/break_map", description="Succeed, then lose the map.")
    def break_map() -> dict[str, bool]:
        assert manager is not None
        manager.report(UrgentEntry(level="error", message="Map lost", state_invalidated=True))
        return {"ok": True}

    @server.tool("rimbridge/list_logs", description="Read logs.", tags=["diagnostic", "read-only"])
    def list_logs() -> list[str]:
        return ["Map lost"]

    @server.tool("colony/refuse", description="Fail in-band.")
    def refuse() -> None:
        raise ToolError("the pawn is downed")

    @server.tool("colony/hang", description="Never answer in time.")
    async def hang() -> None:
        await anyio.sleep(30)

    return server, calls


@asynccontextmanager
async def session_for(server: GabpServer, **options: Any) -> AsyncIterator[GameSession]:
    async with server.running() as address, anyio.create_task_group() as tg:
        assert address.port is not None
        session = GameSession(
            "sim", port=address.port, token=TOKEN, liveness_interval=60, **options
        )
        with anyio.fail_after(10):
            await tg.start(session.run)
        try:
            yield session
        finally:
            await session.close()


async def test_the_session_says_hello_mirrors_tools_and_subscribes_to_attention() -> None:
    server, _ = game()
    async with session_for(server) as session:
        assert session.state == "connected"
        assert session.supports_attention
        assert session.subscribed == ["attention/opened", "attention/updated", "attention/cleared"]
        assert session.cache.known and session.attention is None
        assert set(session.tools) == {
            "colony/draft",
            "colony/break_map",
            "rimbridge/list_logs",
            "colony/refuse",
            "colony/hang",
        }
        assert session.tools["rimbridge/list_logs"].tags == ("diagnostic", "read-only")


async def test_a_call_that_opens_attention_gets_it_attached_then_the_gate_blocks() -> None:
    server, calls = game()
    async with session_for(server) as session:
        with anyio.fail_after(10):
            broke = await session.call_tool("colony/break_map")
            assert (broke.executed, broke.status, broke.result) == (True, "ok", {"ok": True})
            assert broke.attention is not None and broke.attention_relation == "caused_by_call"
            assert broke.attention.causal_operation_id == broke.operation_id
            attention_id = broke.attention.attention_id

            blocked = await session.call_tool("colony/draft", {"pawn": "Ari"})
            again = await session.call_tool("colony/draft", {"pawn": "Ari"})
            assert (blocked.executed, blocked.status) == (False, "blocked_by_attention")
            assert blocked.attention is not None and blocked.attention.attention_id == attention_id
            assert again.attention is not None and again.attention.attention_id == attention_id
            assert calls["draft"] == 0  # never reached the game

            logs = await session.call_tool("rimbridge/list_logs")
            assert (logs.executed, logs.gate.reason if logs.gate else None) == (
                True,
                "allowlisted_tag",
            )

            stale = await session.ack_attention("att-nope")
            assert stale["acknowledged"] is False
            assert (await session.call_tool("colony/draft", {"pawn": "Ari"})).executed is False
            acked = await session.ack_attention(attention_id)
            assert acked["acknowledged"] is True
            assert session.attention is None
            done = await session.call_tool("colony/draft", {"pawn": "Ari"})
            assert (done.executed, done.result) == (True, {"drafted": "Ari"})
            assert calls["draft"] == 1


async def test_observe_mode_shows_open_attention_but_never_blocks() -> None:
    server, calls = game()
    async with session_for(server, gate=Gate(mode="observe")) as session:
        with anyio.fail_after(10):
            await session.call_tool("colony/break_map")
            outcome = await session.call_tool("colony/draft", {"pawn": "Bo"})
    assert (outcome.executed, outcome.attention_relation) == (True, "open_before_call")
    assert calls["draft"] == 1


async def test_a_game_without_attention_works_and_is_never_gated() -> None:
    server, _ = game(attention=False)
    async with session_for(server) as session:
        with anyio.fail_after(10):
            outcome = await session.call_tool("colony/draft", {"pawn": "Cy"})
        assert not session.supports_attention and session.subscribed == []
    assert (outcome.executed, outcome.gate.reason if outcome.gate else None) == (
        True,
        "unsupported",
    )


async def test_in_band_errors_say_whether_the_tool_ran() -> None:
    server, _ = game()
    async with session_for(server) as session:
        with anyio.fail_after(10):
            refused = await session.call_tool("colony/refuse")
            invalid = await session.call_tool("colony/draft", {"pawn": 3})
            missing = await session.call_tool("colony/nope")
    assert (refused.executed, refused.status, refused.error) == (
        True,
        "error",
        {"code": -32000, "message": "the pawn is downed"},
    )
    assert (invalid.executed, invalid.error and invalid.error["code"]) == (False, -32602)
    assert (missing.executed, missing.error and missing.error["code"]) == (False, -31002)
    assert refused.sent and invalid.sent and missing.sent  # the game refused them


async def test_a_call_without_an_answer_is_reported_as_unknown_never_as_not_executed() -> None:
    server, _ = game()
    async with session_for(server) as session:
        with anyio.fail_after(10):
            outcome = await session.call_tool("colony/hang", timeout=0.2)
    assert (outcome.executed, outcome.status) == ("unknown", "unknown")


async def test_a_call_that_gets_no_turn_in_time_was_not_sent() -> None:
    server, calls = game()
    async with session_for(server) as session:
        taken = 0
        while session.slots.try_acquire():  # every turn the game has, taken by other requests
            taken += 1
        with anyio.fail_after(10):
            unsent = await session.call_tool("colony/draft", {"pawn": "Bo"}, timeout=0.2)
        for _ in range(taken):
            session.slots.release()
    assert (unsent.executed, unsent.status, unsent.sent) == (False, "error", False)
    assert calls["draft"] == 0


def test_mirrored_tools_read_the_older_parameters_shape_and_get_safe_mcp_names() -> None:
    tool = MirroredTool.from_descriptor(
        {
            "name": "rimworld/pause_game",
            "description": "Pause.",
            "parameters": [
                {"name": "paused", "type": "Bool", "required": True, "description": "x"}
            ],
            "requiresAuth": False,
        }
    )
    assert tool.input_schema == {
        "type": "object",
        "properties": {"paused": {"type": "boolean", "description": "x"}},
        "required": ["paused"],
    }
    assert mcp_tool_name("rimworld", "rimworld/pause_game") == "rimworld_rimworld_pause_game"
    assert len(mcp_tool_name("g" * 40, "a/" + "b" * 60)) == 64


@pytest.mark.parametrize("mode", ["gate"])
async def test_a_session_reconnects_and_rereads_the_open_item(mode: str) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first, _ = game()
    first.port = port
    async with anyio.create_task_group() as tg:
        session = GameSession(
            "sim", port=port, token=TOKEN, liveness_interval=60, reconnect_backoff=(0.01, 0.05)
        )
        async with first.running():
            with anyio.fail_after(10):
                await tg.start(session.run)
                await session.call_tool("colony/break_map")
        # the game restarts on the same port, with a new (open) item of its own
        second, _ = game()
        second.port = port
        assert second.attention is not None
        second.attention.report(UrgentEntry(level="error", message="Still broken"))
        async with second.running():
            with anyio.fail_after(15):
                while session.reconnects == 0:  # noqa: ASYNC110 - polling the session's state
                    await anyio.sleep(0.05)
            current = session.attention
            assert current is not None and current.summary == "error: Still broken"
            await session.close()


async def test_a_call_larger_than_the_game_reads_is_not_sent_and_the_session_stays() -> None:
    # the game advertises maxMessageSize: a larger request would make it close the connection
    # on the frame's header (every call in flight lost); it is refused here, not run
    server = GabpServer(
        app_name="Sim",
        app_version="1",
        agent_id="sim",
        token=TOKEN,
        limits=ServerLimits(max_message_bytes=4096),
    )
    calls: list[int] = []

    @server.tool("colony/note", description="Keep a note.")
    def note(text: str) -> int:
        calls.append(len(text))
        return len(text)

    async with session_for(server) as session:
        big = await session.call_tool("colony/note", {"text": "x" * 5000})
        small = await session.call_tool("colony/note", {"text": "x" * 100})
        assert session.connected
    assert (big.executed, big.status, big.sent) == (False, "error", False)
    assert big.error is not None
    assert "more than the 4096-byte message limit" in big.error["message"]
    assert (small.executed, small.result) == (True, 100)
    assert calls == [100]
