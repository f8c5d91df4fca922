"""``games_get_attention`` and ``games_ack_attention`` when the request to the game fails: a
stalled game (no answer in time), a game that answers with an error, a game that is gone. Each
is an error result in the Go bridge's words with a code that says whether an ack can have
happened, never the bridge's internal error (a lost connection used to surface as one)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs_test_support import text
from lib_gab import AttentionManager, GabpServer

TOKEN = "f" * 64
GAME = f"""
import asyncio
from lib_gab import GabpServer

async def main():
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token={TOKEN!r})
    server.enable_attention()
    async with server.running() as address:
        print(address.port, flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""
DOCUMENT = {
    "version": "1.0",
    "games": {"g": {"id": "g", "name": "Game g", "launchMode": "DirectPath", "target": "/x"}},
}


@asynccontextmanager
async def bridge(tmp_path: Path, port: int | None) -> AsyncIterator[tuple[GameManager, Client]]:
    """A client of a bridge attached to the game ``g`` at ``port``."""
    notifier = ToolListNotifier()
    config = GabsConfig.from_json(DOCUMENT, config_dir=tmp_path)
    manager = GameManager(config, on_tools_changed=notifier, liveness_interval=60)
    async with manager:
        await manager.connect("g", port=port, token=TOKEN)
        async with Client(build_server(manager, notifier=notifier)) as client:
            yield manager, client


def spawn_game() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", GAME], stdout=subprocess.PIPE, text=True, start_new_session=True
    )


@asynccontextmanager
async def game_process() -> AsyncIterator[tuple[subprocess.Popen[str], int]]:
    """The game as a process of its own (so it can be stopped with SIGSTOP), and its port."""
    process = spawn_game()
    assert process.stdout is not None
    try:
        line = await anyio.to_thread.run_sync(process.stdout.readline)
        yield process, int(line)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)
            process.kill()
        process.wait(10)
        process.stdout.close()


def structured(result: Any) -> dict[str, Any]:
    data = result.structured_content
    assert isinstance(data, dict)
    return data


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
async def test_a_stalled_game_is_no_answer_and_an_ack_may_have_happened(tmp_path: Path) -> None:
    with anyio.fail_after(40):
        async with game_process() as (process, port), bridge(tmp_path, port) as (_, client):
            os.kill(process.pid, signal.SIGSTOP)
            ack = await client.call_tool(
                "games_ack_attention", {"gameId": "g", "attentionId": "att-1", "timeout": 1}
            )
            look = await client.call_tool(
                "games_get_attention", {"gameId": "g", "refresh": True, "timeout": 1}
            )
    assert ack.is_error
    data = structured(ack)
    assert data["code"] == "no_answer"
    assert data["status"] == "error"
    assert "acknowledged" not in data  # it may have reached the game
    assert data["nextActions"] == [
        {
            "tool": "games_get_attention",
            "arguments": {"gameId": "g", "refresh": True},
            "reason": "See whether the item is still open.",
        }
    ]
    assert text(ack).startswith("Failed to acknowledge attention 'att-1' for game 'g': ")
    assert "may have reached the game" in text(ack)
    assert look.is_error
    assert structured(look)["code"] == "no_answer"
    assert text(look).startswith("Failed to query current attention for game 'g': ")


async def test_a_game_gone_is_not_sent_and_no_ack_happened(tmp_path: Path) -> None:
    with anyio.fail_after(40):
        async with game_process() as (process, port), bridge(tmp_path, port) as (manager, client):
            process.kill()
            await anyio.to_thread.run_sync(process.wait)
            session = manager.runtime("g").session
            while session is not None and session.connected:  # noqa: ASYNC110 - its state
                await anyio.sleep(0.02)
            ack = await client.call_tool(
                "games_ack_attention", {"gameId": "g", "attentionId": "att-1"}
            )
            look = await client.call_tool("games_get_attention", {"gameId": "g", "refresh": True})
    for result in (ack, look):
        assert result.is_error
        data = structured(result)
        # still reconnecting (the request was not sent) or already given up (not connected)
        assert data["code"] in ("not_sent", "not_connected"), data
        assert "internal" not in text(result).lower()
    if structured(ack)["code"] == "not_sent":
        assert structured(ack)["acknowledged"] is False
        assert text(ack).startswith("Failed to acknowledge attention 'att-1' for game 'g': ")


class RefusingAcks(AttentionManager):
    """An attention manager whose ack fails inside the game."""

    def ack(self, attention_id: str) -> Any:
        raise RuntimeError("the ack store is down")


async def test_a_game_that_answers_an_error_did_not_ack(tmp_path: Path) -> None:
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token=TOKEN)
    server.enable_attention(manager=RefusingAcks())
    with anyio.fail_after(20):
        async with server.running() as address, bridge(tmp_path, address.port) as (_, client):
            ack = await client.call_tool(
                "games_ack_attention", {"gameId": "g", "attentionId": "att-1"}
            )
            calm = await client.call_tool("games_get_attention", {"gameId": "g"})
    assert ack.is_error
    data = structured(ack)
    assert data["code"] == "game_error"
    assert data["acknowledged"] is False
    assert data["attentionId"] == "att-1"
    assert data["nextActions"][0]["tool"] == "games_status"
    assert not calm.is_error  # the cache answers; nothing is open
