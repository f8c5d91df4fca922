"""Raw lines on the stdio transport, as the Go bridge 1.1.0 answers them: a client may skip the
handshake (its first request is served without ``initialize``), and a request that is not valid
JSON-RPC but has an id gets an error answer with that id instead of none."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server, initialization_options
from gabs.transports.stdio import framed_stdio

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


@asynccontextmanager
async def raw_stdio(tmp_path: Path) -> AsyncIterator[tuple[int, int]]:
    """A bridge without games on a pair of pipes: (the fd to write to, the fd to read from)."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    notifier = ToolListNotifier()
    config = GabsConfig.from_json({"version": "1.0", "games": {}}, config_dir=tmp_path)
    async with AsyncExitStack() as stack:
        stack.callback(lambda: [os.close(fd) for fd in (in_read, in_write, out_read, out_write)])
        manager = await stack.enter_async_context(GameManager(config, on_tools_changed=notifier))
        server = build_server(manager, notifier=notifier)

        async def serve() -> None:
            async with framed_stdio(in_read, out_write) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, initialization_options(server))

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            yield in_write, out_read
            tg.cancel_scope.cancel()


async def exchange(tmp_path: Path, lines: list[bytes], answers: int) -> list[dict[str, Any]]:
    """Write ``lines`` and read ``answers`` newline-delimited answers."""
    async with raw_stdio(tmp_path) as (to_server, from_server):
        os.write(to_server, b"".join(line + b"\n" for line in lines))
        buffer = b""
        with anyio.fail_after(30):
            while buffer.count(b"\n") < answers:
                buffer += await anyio.to_thread.run_sync(
                    os.read, from_server, 65536, abandon_on_cancel=True
                )
    return [json.loads(line) for line in buffer.splitlines()]


def request(request_id: Any, method: str, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


async def test_requests_without_the_handshake_are_served(tmp_path: Path) -> None:
    """``echo '{...tools/call...}' | gabs server``: the Go bridge answers without initialize."""
    listed, called, unknown = await exchange(
        tmp_path,
        [
            request(7, "tools/list"),
            request("c", "tools/call", {"name": "games_list", "arguments": {}}),
            request(8, "bogus/method"),
        ],
        3,
    )
    assert listed["id"] == 7 and "games_list" in {t["name"] for t in listed["result"]["tools"]}
    assert called["id"] == "c" and called["result"]["structuredContent"]["games"] == []
    assert unknown["id"] == 8 and unknown["error"]["code"] == -32601


async def test_a_second_initialize_is_answered_again(tmp_path: Path) -> None:
    first, second = await exchange(
        tmp_path, [json.dumps(INITIALIZE).encode(), json.dumps({**INITIALIZE, "id": 2}).encode()], 2
    )
    assert [first["id"], second["id"]] == [1, 2]
    assert second["result"]["serverInfo"]["name"] == "gabs"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (request(2, "tools/call", "not an object"), {"id": 2, "code": -32602}),
        (json.dumps({"id": "x", "method": "tools/list"}).encode(), {"id": "x", "code": -32600}),
    ],
    ids=["params-not-an-object", "no-jsonrpc-member"],
)
async def test_an_invalid_request_with_an_id_is_answered(
    tmp_path: Path, line: bytes, expected: dict[str, Any]
) -> None:
    """The Go bridge answers these (``-32602 Invalid params``, or serves them); they used to
    get no answer at all, and the client waited for ever."""
    answers = await exchange(
        tmp_path,
        [json.dumps(INITIALIZE).encode(), b"{not json", b"", line, request(3, "bogus")],
        3,
    )
    refused = next(a for a in answers if a["id"] == expected["id"])
    assert refused["error"]["code"] == expected["code"]
    assert sorted(str(a["id"]) for a in answers) == sorted(["1", str(expected["id"]), "3"])
