"""Server-side rules of GABP 1.1.0's specification text, checked on real loopback sockets."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabp import encode_frame, new_id
from gabp.framing import FrameDecoder
from lib_gab import GabpServer
from lib_gab.testing import bridge_session, hello_params

TOKEN = "5c" * 32


def make_server() -> GabpServer:
    server = GabpServer(app_name="Spec", app_version="1", agent_id="spec", token=TOKEN)

    @server.tool("game/status", description="Say that the game is alive.")
    def status() -> dict[str, Any]:
        return {"text": "running"}

    return server


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


async def test_a_unix_socket_server_removes_its_socket_on_exit_so_it_can_start_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "gabp-1.sock"
    server = GabpServer(
        app_name="Spec",
        app_version="1",
        agent_id="spec",
        token=TOKEN,
        transport="unix",
        unix_path=path,
    )
    for _ in range(2):
        async with server.running() as address:
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            async with bridge_session(address, TOKEN) as bridge:
                assert await bridge.request("tools/list", {}) == {"tools": []}
        assert not path.exists()
