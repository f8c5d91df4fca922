"""A session closes its connection only once the game wrote the answers it owes (bounded).

A Lib.GAB 1.0.3 game ends its whole process when the bridge closes the connection before an
answer is written (docs/ports/lib-gab.md, section 3, item 14). On SIGTERM/SIGINT the bridge
cancels the calls in flight and closes its sessions: the close used to cut the connection at
once, while the game was still working on the cancelled call."""

from __future__ import annotations

import time

import anyio
import anyio.lowlevel

from gabs.session import GameSession
from lib_gab import GabpServer

TOKEN = "c0ffee" * 11


def slow_game(seconds: float) -> tuple[GabpServer, dict[str, float], anyio.Event]:
    server = GabpServer(app_name="Slow", app_version="1", agent_id="slow", token=TOKEN)
    seen: dict[str, float] = {}
    started = anyio.Event()

    @server.tool("game/world", description="Answer after a while.")
    async def world() -> dict[str, bool]:
        started.set()
        await anyio.sleep(seconds)
        seen["answered"] = time.monotonic()
        return {"ok": True}

    return server, seen, started


async def close_during_a_call(
    seconds: float, grace: float | None
) -> tuple[dict[str, float], float]:
    server, seen, started = slow_game(seconds)
    async with server.running() as address, anyio.create_task_group() as tg:
        assert address.port is not None
        session = GameSession("slow", port=address.port, token=TOKEN, liveness_interval=60)
        with anyio.fail_after(10):
            await tg.start(session.run)
        calls = anyio.CancelScope()

        async def call() -> None:
            with calls:
                await session.call_tool("game/world")

        tg.start_soon(call)
        with anyio.fail_after(5):
            await started.wait()
        calls.cancel()  # what a bridge shutdown does to the calls in flight
        await anyio.lowlevel.checkpoint()
        await session.close(grace=grace)
        closed = time.monotonic()
        await anyio.sleep(seconds + 0.2)  # let a late tool finish either way
    return seen, closed


async def test_a_close_waits_for_the_answer_of_a_cancelled_call() -> None:
    seen, closed = await close_during_a_call(0.4, None)
    assert "answered" in seen and seen["answered"] <= closed


async def test_the_wait_is_bounded_by_the_grace() -> None:
    began = time.monotonic()
    seen, closed = await close_during_a_call(3.0, 0.2)
    assert closed - began < 2.0
    assert "answered" not in seen or seen["answered"] > closed
