"""The attention tools and ``games_status`` with an item open, where the Go bridge (GABS 1.1.0)
fixes a key or a line: no ``blocking`` for a game without attention, the status line unchanged
by an open item (our note follows it, as Go's diagnosis does), and our own texts that name the
acknowledging call once and no operation that is not there. The expected values are the Go
bridge's, pinned here (the Go binary is not needed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.mcp.lifecycle import _status_text
from gabs.mcp.rendering import attention_from_wire
from gabs.results import attention_text
from gabs_test_support import text
from lib_gab import GabpServer

TOKEN = "t" * 64
ITEM: dict[str, Any] = {
    "attentionId": "attn_mono_1",
    "state": "open",
    "severity": "error",
    "blocking": True,
    "stateInvalidated": True,
    "summary": "game/fail was called: the simulated operation failed",
    "causalMethod": "game/fail",
    "openedAtSequence": 101,
    "latestSequence": 101,
    "totalUrgentEntries": 1,
    "sample": [
        {"level": "error", "message": "simulated failure", "repeatCount": 1, "latestSequence": 101}
    ],
}


@asynccontextmanager
async def connected(tmp_path: Path, *, attention: bool) -> AsyncIterator[Client]:
    """A client of a bridge connected to an in-process game ``g`` (with attention or not)."""
    document = {
        "version": "1.0",
        "games": {"g": {"id": "g", "name": "Game g", "launchMode": "DirectPath", "target": "/x"}},
    }
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token=TOKEN)
    if attention:
        server.enable_attention()

        @server.tool("game/fail", description="Open a blocking item.")
        async def fail() -> dict[str, str]:
            await server.publish_attention(ITEM)
            return {"attentionId": ITEM["attentionId"]}

    notifier = ToolListNotifier()
    gabs_config = GabsConfig.from_json(document, config_dir=tmp_path)
    manager = GameManager(gabs_config, on_tools_changed=notifier, liveness_interval=60)
    async with manager, server.running() as address:
        await manager.connect("g", port=address.port, token=TOKEN)
        async with Client(build_server(manager, notifier=notifier)) as client:
            yield client


async def test_a_game_without_attention_has_no_blocking_key(tmp_path: Path) -> None:
    with anyio.fail_after(20):
        async with connected(tmp_path, attention=False) as client:
            seen = await client.call_tool("games_get_attention", {"gameId": "g"})
    assert not seen.is_error
    assert seen.structured_content == {"gameId": "g", "supported": False}


async def test_inspection_names_the_acknowledging_call_once(tmp_path: Path) -> None:
    with anyio.fail_after(20):
        async with connected(tmp_path, attention=True) as client:
            await client.call_tool("games_call_tool", {"gameId": "g", "tool": "game/fail"})
            seen = await client.call_tool("games_get_attention", {"gameId": "g"})
    data = seen.structured_content or {}
    assert (data["blocking"], data["attention"]["attentionId"]) == (True, "attn_mono_1")
    ack_call = 'games_ack_attention {"gameId": "g", "attentionId": "attn_mono_1"}'
    assert text(seen).count(ack_call) == 1


async def test_the_status_line_stays_the_go_bridge_line_while_an_item_is_open(
    tmp_path: Path,
) -> None:
    with anyio.fail_after(20):
        async with connected(tmp_path, attention=True) as client:
            await client.call_tool("games_call_tool", {"gameId": "g", "tool": "game/fail"})
            one = await client.call_tool("games_status", {"gameId": "g"})
            summary = await client.call_tool("games_status", {})
    note = "attn_mono_1 open (BLOCKING): game/fail was called: the simulated operation failed"
    status = "running (connected via GABP; process not managed by this GABS instance)"
    assert (one.structured_content or {})["statusDescription"] == status
    assert text(one) == f"**g** (Game g): {status}\n\nAttention: {note}\n"
    assert text(summary) == f"Game Status Summary:\n\n• **g**: {status} — attention {note}\n"


def test_status_lines_without_an_open_item_are_unchanged() -> None:
    item = {"gameId": "a", "name": "Game a", "statusDescription": "stopped"}
    closed = {**item, "attention": {"supported": True, "open": False}}
    assert _status_text(closed) == "**a** (Game a): stopped\n"
    assert _status_text(closed, summary=True) == "• **a**: stopped\n"


def test_an_item_without_an_operation_names_none() -> None:
    item = attention_from_wire(ITEM)
    assert item is not None
    lines = attention_text(item, game_id="g").splitlines()
    assert "  caused by game/fail" in lines
    assert "None" not in attention_text(item, game_id="g")
    with_operation = attention_from_wire({**ITEM, "causalOperationId": "op-7"})
    assert with_operation is not None
    assert "  caused by game/fail (operation op-7)" in attention_text(with_operation, game_id="g")
