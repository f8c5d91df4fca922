"""Checkpoint C: the attention workflow RimBridgeServer's README describes for GABS, run through
the real ``gabs`` executable against ``rimbridge-sim`` (which has a blocking item open before
the first call: scenario ``startup-error``).

The README promises: ordinary game calls pause until the item is reviewed
(``games_get_attention``) and acknowledged (``games_ack_attention``), while the tagged
diagnostics and lifecycle tools it names (``rimbridge/get_bridge_status``,
``rimbridge/list_operation_events``, ``rimbridge/list_logs``,
``rimbridge/wait_for_game_loaded``, ``rimbridge/wait_for_long_event_idle``) stay available for
diagnosis and recovery. What reached the game is read from the game's own journal.

As in ``test_documented_agent_flow.py``, ``GABS_FLOW_BRIDGE`` names another GABS build (the Go
bridge 1.1.0) to run the same flow through.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

BIN = Path(sys.executable).parent
RIMBRIDGE_SIM = BIN / "rimbridge-sim"

RECOVERY_TOOLS = {
    "rimbridge/get_bridge_status": "success",
    "rimbridge/list_operation_events": "events",
    "rimbridge/list_logs": "logs",
    "rimbridge/wait_for_game_loaded": "success",
    "rimbridge/wait_for_long_event_idle": "success",
}
"""The tools the mod's README names as available while blocking attention is open, and a
key of their answer (the two list reads answer without ``success``, as in the mod)."""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables")


class Caller:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def bridge(self, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        result = await self.client.call_tool(tool, arguments)
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        return bool(result.is_error), text

    async def game(self, tool: str, **arguments: Any) -> tuple[bool, str]:
        return await self.bridge(
            "games_call_tool", {"gameId": "rimworld", "tool": tool, "arguments": arguments}
        )

    async def game_result(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The game's answer: the first line of the text is its JSON result, with both
        bridges (an attention notice, when one is added, follows it)."""
        is_error, text = await self.game(tool, **arguments)
        assert not is_error, f"{tool}: {text}"
        result: dict[str, Any] = json.JSONDecoder().raw_decode(text)[0]
        return result

    async def journal_methods(self) -> list[str]:
        listed = await self.game_result("rimbridge/list_operations", limit=500)
        return [op["method"] for op in listed["operations"]]


@asynccontextmanager
async def blocked_game(config_dir: Path, bridge: Any) -> AsyncIterator[Caller]:
    config = {
        "version": "1.0",
        "games": {
            "rimworld": {
                "id": "rimworld",
                "name": "RimWorld",
                "launchMode": "DirectPath",
                "target": str(RIMBRIDGE_SIM),
                "args": ["--scenario", "startup-error", "--log-level", "WARNING"],
                "attention": {"mode": "gate"},
                "timeouts": {"startSeconds": 20, "stopGraceSeconds": 5, "callSeconds": 20},
            }
        },
    }
    async with Client(
        bridge.params(config_dir, config), mode="legacy", read_timeout_seconds=30
    ) as client:
        caller = Caller(client)
        is_error, text = await caller.bridge("games_start", {"gameId": "rimworld"})
        assert not is_error, text
        try:
            yield caller
        finally:
            await client.call_tool("games_stop", {"gameId": "rimworld"})


async def test_the_readme_recovery_tools_answer_while_game_calls_wait_for_an_ack(
    tmp_path: Path, flow_bridge: Any
) -> None:
    with anyio.fail_after(60):
        async with blocked_game(tmp_path, flow_bridge) as caller:
            status = await caller.game_result("rimbridge/get_bridge_status")
            attention = status["attention"]
            assert attention["blocking"] is True
            for tool, key in RECOVERY_TOOLS.items():
                assert (await caller.game_result(tool))[key] not in (None, False), tool

            is_error, text = await caller.game("rimworld/list_colonists")
            assert is_error, text
            assert "rimworld/list_colonists" not in await caller.journal_methods()

            is_error, text = await caller.bridge("games_get_attention", {"gameId": "rimworld"})
            assert not is_error and attention["attentionId"] in text, text
            is_error, text = await caller.bridge(
                "games_ack_attention",
                {"gameId": "rimworld", "attentionId": attention["attentionId"]},
            )
            assert not is_error, text

            colonists = await caller.game_result("rimworld/list_colonists")
            assert colonists["success"] is True and colonists["count"] > 0
            assert "rimworld/list_colonists" in await caller.journal_methods()
