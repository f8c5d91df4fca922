"""Server-side rules of GABP 1.1.0's specification text, checked on real loopback sockets."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

import anyio
import pytest

from gabp import Connection, ConnectionClosed, encode_frame, new_id
from gabp.framing import FrameDecoder
from lib_gab import GabpServer, ServerLimits
from lib_gab.testing import bridge_session, hello_params

TOKEN = "5c" * 32


def make_server() -> GabpServer:
    server = GabpServer(app_name="Spec", app_version="1", agent_id="spec", token=TOKEN)

    @server.tool("game/status", description="Say that the game is alive.")
    def status() -> dict[str, Any]:
        return {"text": "running"}

    return server


def test_a_server_takes_gabp_s_recommended_ten_bridge_connections_by_default() -> None:
    assert ServerLimits().max_connections == 10


async def test_ten_bridges_are_served_at_once_and_an_eleventh_is_closed_by_default() -> None:
    async with make_server().running() as address, AsyncExitStack() as stack:
        bridges = [
            await stack.enter_async_context(bridge_session(address, TOKEN)) for _ in range(10)
        ]
        with anyio.fail_after(10):
            for bridge in bridges:
                result = await bridge.request("tools/call", {"name": "game/status"})
                assert result == {"text": "running"}
            assert address.port is not None
            stream = await anyio.connect_tcp("127.0.0.1", address.port)
            async with Connection(stream, name="eleventh") as eleventh:
                with pytest.raises(ConnectionClosed):
                    await eleventh.request("session/hello", hello_params(TOKEN))


@pytest.mark.parametrize("member", ["result", "error", "channel", "seq", "payload"])
async def test_a_request_carrying_a_member_of_another_message_type_is_not_run(
    member: str,
) -> None:
    async with make_server().running() as address:
        assert address.port is not None
        stream = await anyio.connect_tcp("127.0.0.1", address.port)
        decoder = FrameDecoder()

        async def call(message: dict[str, Any]) -> dict[str, Any]:
            await stream.send(encode_frame(json.dumps(message).encode()))
            frames: list[bytes] = []
            while not frames:
                frames = decoder.feed(await stream.receive())
            answer: dict[str, Any] = json.loads(frames[0])
            return answer

        async with stream:
            with anyio.fail_after(5):
                base = {"v": "gabp/1", "type": "request"}
                hello = base | {"id": new_id(), "method": "session/hello"}
                assert "result" in await call(hello | {"params": hello_params(TOKEN)})
                status = base | {"id": new_id(), "method": "tools/call"}
                status["params"] = {"name": "game/status"}
                refused = await call(status | {member: None})
                served = await call(status | {"id": new_id()})
    assert refused["error"]["code"] == -32600
    assert f"requests carry no {member} member" in refused["error"]["message"]
    assert served["result"] == {"text": "running"}
