"""A refused hello ends the connection's serving at once, whatever was sent with it.

Raw bytes over a real loopback socket, in both modes: requests written in the same write as a
wrong-token hello (a right hello, tools/list, a tool call, more wrong hellos) are neither
answered nor run; the ``-31000`` answer goes out, then the connection closes
(docs/ports/gabp.md, section 4: no second guess on the same connection).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import anyio
import pytest

from gabp import FrameDecoder, encode_frame
from lib_gab import GabpServer, ProtocolOptions, ServerLimits
from lib_gab.testing import hello_params

TOKEN = "c4" * 32
WRONG = "0d" * 32
MODES = {"defaults": None, "lib_gab": ProtocolOptions.lib_gab()}


def make_server(options: ProtocolOptions | None, calls: list[str], **limits: Any) -> GabpServer:
    server = GabpServer(
        app_name="Hellos",
        app_version="1",
        agent_id="hellos",
        token=TOKEN,
        options=options,
        limits=ServerLimits(**limits),
    )

    @server.tool("game/touch", description="Record that the tool ran.")
    def touch() -> dict[str, Any]:
        calls.append("touch")
        return {"ok": True}

    @server.tool("game/touch_later", description="Record that the async tool ran.")
    async def touch_later() -> dict[str, Any]:
        calls.append("touch_later")
        return {"ok": True}

    return server


def frame(method: str, params: dict[str, Any]) -> tuple[str, bytes]:
    request_id = str(uuid.uuid4())
    message = {"v": "gabp/1", "id": request_id, "type": "request", "method": method}
    message["params"] = params
    return request_id, encode_frame(json.dumps(message).encode())


async def exchange(
    port: int, payload: bytes, first: bytes = b""
) -> tuple[list[dict[str, Any]], bool]:
    """Send ``first`` and wait for its answer (if any), then ``payload`` in one write; what the
    server answers to ``payload`` until it closes, and whether it did (within 5 s)."""
    decoder = FrameDecoder()
    answers: list[dict[str, Any]] = []
    closed = False
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        if first:
            await stream.send(first)
            with anyio.fail_after(5):
                while not decoder.feed(await stream.receive()):
                    pass
        await stream.send(payload)
        with anyio.move_on_after(5):
            while True:
                try:
                    data = await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    closed = True
                    break
                answers += [json.loads(body) for body in decoder.feed(data)]
    return answers, closed


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("wrong_hellos", [1, 30])
@pytest.mark.parametrize("delayed", [False, True], ids=["answered-at-once", "answer-delayed"])
async def test_a_refused_hello_serves_nothing_sent_after_it_in_the_same_write(
    mode: str, wrong_hellos: int, delayed: bool
) -> None:
    calls: list[str] = []
    # a delayed failure (token guessing) waits: what follows must wait for it, not run
    server = make_server(
        MODES[mode],
        calls,
        auth_failures_before_delay=0 if delayed else 100,
        auth_failure_delay=0.2,
    )
    wrong = [frame("session/hello", hello_params(WRONG)) for _ in range(wrong_hellos)]
    rest = [
        frame("session/hello", hello_params(TOKEN)),
        frame("tools/list", {}),
        frame("tools/call", {"name": "game/touch"}),
        frame("tools/call", {"name": "game/touch_later"}),
    ]
    async with server.running() as address:
        assert address.port is not None
        payload = b"".join(data for _, data in wrong + rest)
        answers, closed = await exchange(address.port, payload)
    assert closed
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [(wrong[0][0], -31000)]
    assert calls == []


@pytest.mark.parametrize("mode", MODES)
async def test_a_wrong_hello_on_an_established_session_ends_it_before_what_follows(
    mode: str,
) -> None:
    calls: list[str] = []
    options = MODES[mode] or ProtocolOptions(repeated_hello="welcome")
    server = make_server(options, calls)
    wrong_id, wrong = frame("session/hello", hello_params(WRONG))
    _, hello = frame("session/hello", hello_params(TOKEN))
    follow = b"".join(
        data
        for _, data in (
            frame("tools/call", {"name": "game/touch"}),
            frame("session/hello", hello_params(TOKEN)),
            frame("tools/call", {"name": "game/touch_later"}),
        )
    )
    async with server.running() as address:
        assert address.port is not None
        answers, closed = await exchange(address.port, wrong + follow, first=hello)
    assert closed
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [(wrong_id, -31000)]
    assert calls == []


@pytest.mark.parametrize("mode", MODES)
async def test_what_follows_a_right_hello_in_the_same_write_is_served_after_it(
    mode: str,
) -> None:
    calls: list[str] = []
    server = make_server(MODES[mode], calls)
    sent = [
        frame("session/hello", hello_params(TOKEN)),
        frame("tools/call", {"name": "game/touch_later"}),
        frame("tools/call", {"name": "game/touch"}),
    ]
    async with server.running() as address:
        assert address.port is not None
        decoder = FrameDecoder()
        answers: list[dict[str, Any]] = []
        async with await anyio.connect_tcp("127.0.0.1", address.port) as stream:
            await stream.send(b"".join(data for _, data in sent))
            with anyio.fail_after(5):
                while len(answers) < 3:
                    answers += [json.loads(b) for b in decoder.feed(await stream.receive())]
    assert [a["id"] for a in answers] == [request_id for request_id, _ in sent]
    assert all("result" in a for a in answers)
    assert sorted(calls) == ["touch", "touch_later"]
