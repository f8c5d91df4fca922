"""A game whose application runs on uvloop: the server and a bridge on uvloop's event loop.

uvloop's transports have asyncio's methods but do not derive from asyncio's transport classes;
a game that runs its loop on uvloop must still be served."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from gabp import Event
from lib_gab import GabpServer
from lib_gab.testing import bridge_session

uvloop = pytest.importorskip("uvloop")  # not built for Windows
TOKEN = "c" * 64


@pytest.fixture
def anyio_backend() -> tuple[str, dict[str, Any]]:
    return ("asyncio", {"use_uvloop": True})


async def test_a_game_on_uvloop_serves_calls_events_and_attention() -> None:
    assert type(asyncio.get_running_loop()).__module__.startswith("uvloop")
    server = GabpServer(app_name="Game", app_version="1", agent_id="game", token=TOKEN)
    manager = server.enable_attention(update_interval=0)

    @server.tool("game/double", description="Double n.")
    async def double(n: int) -> int:
        await anyio.lowlevel.checkpoint()
        return 2 * n

    @server.tool("game/fail", description="Report an error and return.")
    def fail() -> dict[str, bool]:
        manager.report_entry("error", "the map was lost")
        return {"ok": True}

    events: list[Event] = []
    opened = anyio.Event()

    def on_event(event: Event) -> None:
        events.append(event)
        opened.set()

    async with (
        server.running() as address,
        bridge_session(address, TOKEN, on_event=on_event) as conn,
    ):
        with anyio.fail_after(10):
            await conn.request("events/subscribe", {"channels": ["attention/opened"]})
            results: dict[int, int] = {}

            async def call(n: int) -> None:
                results[n] = await conn.request(
                    "tools/call", {"name": "game/double", "arguments": {"n": n}}
                )

            async with anyio.create_task_group() as tg:
                for n in range(200):
                    tg.start_soon(call, n)
            assert await conn.request("tools/call", {"name": "game/fail"}) == {"ok": True}
            await opened.wait()
            current = await conn.request("attention/current", {})
    assert results == {n: 2 * n for n in range(200)}
    assert events[0].channel == "attention/opened"
    assert current["attention"]["causalMethod"] == "game/fail"
    assert current["attention"]["blocking"] is True
