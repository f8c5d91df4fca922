"""A game's result nested deep: the call's answer still reaches the client. Up to
``STRUCTURED_DEPTH`` it is passed through as structured content; deeper (the SDK's writer,
pydantic, refuses values about 250 deep, and the whole answer was lost as an internal error)
as text with an empty object as structured content; past what the GABP reader takes, the call
fails at once as an unreadable answer instead of waiting for its timeout."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.mcp.call_results import CALL_META_KEY, STRUCTURED_DEPTH
from gabs_test_support import raw_frame, read_raw_frame

TOKEN = "c0ffee" * 11
TOOLS = [{"name": "deep/read", "description": "Read deep.", "inputSchema": {"type": "object"}}]
HELLO = {
    "agentId": "deep",
    "app": {"name": "deep", "version": "1"},
    "capabilities": {"methods": ["session/hello", "tools/list", "tools/call"]},
    "schemaVersion": "1.0",
}


def deep_game(depth: int) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any]:
    """A game whose one tool answers ``{"x": [[...]]}`` with ``depth`` nested lists."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_raw_frame(reader)) is not None:
            base = {"v": "gabp/1", "id": message["id"], "type": "response"}
            if message.get("method") == "session/hello":
                writer.write(raw_frame({**base, "result": HELLO}))
            elif message.get("method") == "tools/list":
                writer.write(raw_frame({**base, "result": {"tools": TOOLS}}))
            else:  # written by hand: the encoder would not write it this deep
                head = json.dumps(base)[:-1].encode()
                body = head + b',"result":{"x":' + b"[" * depth + b"]" * depth + b"}}"
                writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
        writer.close()

    return serve


async def _call(tmp_path: Path, depth: int) -> Any:
    server = await asyncio.start_server(deep_game(depth), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    entry = {"id": "g", "name": "G", "launchMode": "CustomCommand", "target": "unused"}
    config = GabsConfig.from_json({"version": "1.0", "games": {"g": entry}}, config_dir=tmp_path)
    manager = GameManager(config, on_tools_changed=ToolListNotifier(), liveness_interval=60)
    async with server, manager:
        await manager.connect("g", port=port, token=TOKEN)
        async with Client(build_server(manager)) as client:
            with anyio.fail_after(10):  # the call's own timeout is 30 s
                arguments = {"gameId": "g", "tool": "deep/read", "arguments": {}, "timeout": 30}
                return await client.call_tool("games_call_tool", arguments)


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


async def test_a_result_within_the_bound_is_passed_through(tmp_path: Path) -> None:
    depth = STRUCTURED_DEPTH - 2  # the result object and "x" are two levels more
    result = await _call(tmp_path, depth)
    assert not result.is_error
    assert result.structured_content == {"x": _nested(depth)}
    assert "structuredOmitted" not in result.meta[CALL_META_KEY]


@pytest.mark.parametrize("depth", [STRUCTURED_DEPTH, 300, 900])
async def test_a_deeper_result_reaches_the_client_as_text(tmp_path: Path, depth: int) -> None:
    result = await _call(tmp_path, depth)
    assert not result.is_error
    assert result.structured_content == {}
    meta = result.meta[CALL_META_KEY]
    assert (meta["executed"], meta["status"]) == (True, "ok")
    assert meta["structuredOmitted"] == f"nested more than {STRUCTURED_DEPTH} levels deep"
    assert json.loads(result.content[0].text) == {"x": _nested(depth)}


async def test_a_result_too_deep_to_read_fails_the_call_at_once(tmp_path: Path) -> None:
    result = await _call(tmp_path, 5000)
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("UNKNOWN whether deep/read ran in game g: unreadable answer")
    assert "nested too deeply to parse" in text
