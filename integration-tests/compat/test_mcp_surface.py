"""The MCP surface below the tool results, as raw JSON-RPC on stdio: the core tools' advertised
input schemas, the game state resource as ``resources/list`` shows it, and the list-changed
notices around a start and a stop.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from jsonschema import Draft202012Validator

from .harness import ConfigDir
from .test_protocol import exchange, initialize, request
from .test_transports import line, stdio_process

#: The tools both bridges serve with a blank ``gameId`` read as not given, with the other
#: arguments each needs.
BLANK_GAME_ID_IS_ABSENT: dict[str, dict[str, Any]] = {
    "games_tool_names": {},
    "games_tools": {},
    "games_tool_detail": {"tool": "x"},
    "games_call_tool": {"tool": "x"},
    "games_get_attention": {},
    "games_ack_attention": {"attentionId": "x"},
}


async def test_stdio_a_blank_game_id_passes_the_listed_schema_where_it_means_not_given(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A host that checks arguments against the listed ``inputSchema`` must let through a call
    the bridge serves: ``"gameId": ""`` is such a call for these six tools in both bridges."""
    written = line(initialize(1, {"protocolVersion": "2025-06-18"}))
    written += line(request(2, "tools/list"))
    _, by_id = await exchange(bridge_command, config_dir, tmp_path, written)
    listed = {tool["name"]: tool for tool in by_id[2]["result"]["tools"]}
    for name, others in BLANK_GAME_ID_IS_ABSENT.items():
        schema = listed[name]["inputSchema"]
        errors = [e.message for e in Draft202012Validator(schema).iter_errors({"gameId": ""})]
        errors = [e for e in errors if "required" not in e]  # the other arguments aside
        assert errors == [], (name, errors)
        assert not list(Draft202012Validator(schema).iter_errors({"gameId": "", **others})), name


class RawSession:
    """One bridge on stdio, driven a request at a time; notifications are kept in order."""

    def __init__(self, process: Any) -> None:
        self.process = process
        self.buffer = bytearray()
        self.notices: list[dict[str, Any]] = []

    async def _next(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            self.buffer += await self.process.stdout.receive()
        raw, _, rest = bytes(self.buffer).partition(b"\n")
        self.buffer = bytearray(rest)
        return json.loads(raw) if raw.strip() else await self._next()

    async def ask(self, request_id: int, method: str, params: Any = ...) -> dict[str, Any]:
        await self.process.stdin.send(line(request(request_id, method, params)))
        while True:
            message = await self._next()
            if "method" in message:
                self.notices.append(message)
            elif message.get("id") == request_id:
                return message

    async def settle(self, seconds: float) -> None:
        """Keep reading notifications for ``seconds``."""
        with anyio.move_on_after(seconds):
            while True:
                self.notices.append(await self._next())

    def taken(self) -> list[str]:
        methods = [str(notice.get("method")) for notice in self.notices]
        self.notices.clear()
        return methods


async def test_stdio_the_state_resource_and_its_list_changed_notices(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A start adds the game's state resource, listed as the Go bridge lists it, with one
    ``resources/list_changed`` (the Go bridge sends it a moment after the start's answer); a
    stop removes it with one more. The default tool surface never changes: no
    ``tools/list_changed``."""
    with anyio.fail_after(90):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            session = RawSession(process)
            await session.ask(1, "initialize", {"protocolVersion": "2025-06-18"})
            await process.stdin.send(
                line({"jsonrpc": "2.0", "method": "notifications/initialized"})
            )
            assert (await session.ask(2, "resources/list"))["result"] == {"resources": []}
            started = await session.ask(
                3, "tools/call", {"name": "games_start", "arguments": {"gameId": "compat"}}
            )
            assert started["result"]["structuredContent"]["code"] == "started_connected"
            await session.settle(4.0)
            after_start = session.taken()
            listed = await session.ask(4, "resources/list")
            stopped = await session.ask(
                5, "tools/call", {"name": "games_stop", "arguments": {"gameId": "compat"}}
            )
            await session.settle(2.0)
            after_stop = session.taken()
            emptied = await session.ask(6, "resources/list")
    assert after_start == ["notifications/resources/list_changed"]
    assert listed["result"]["resources"] == [
        {
            "uri": "gab://compat/state",
            "name": "compat Game State",
            "description": "Current state and capabilities of game: compat",
            "mimeType": "application/json",
        }
    ]
    assert not stopped["result"].get("isError"), stopped
    assert after_stop == ["notifications/resources/list_changed"]
    assert emptied["result"] == {"resources": []}
