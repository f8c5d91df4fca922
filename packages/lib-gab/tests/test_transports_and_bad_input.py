"""The stdio transport as a real process, and a barrage of bad input that must never hurt."""

from __future__ import annotations

import errno
import json
import random
import sys
import textwrap
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.abc
import pytest
from anyio.streams.stapled import StapledByteStream

from gabp import Connection, encode_frame, new_id
from lib_gab import GabpServer
from lib_gab.testing import bridge_session, hello_params

TOKEN = "9a" * 32

STDIO_SERVER = textwrap.dedent(
    f"""
    import logging, sys
    from lib_gab import GabpServer
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    server = GabpServer(app_name="stdio game", app_version="1", agent_id="stdio",
                        token={TOKEN!r}, transport="stdio")

    @server.tool("test/echo", description="Echo.")
    def echo(text: str) -> dict:
        return {{"text": text}}

    server.run()
    """
)


async def test_a_stdio_server_serves_a_bridge_over_its_standard_streams() -> None:
    async with await anyio.open_process([sys.executable, "-c", STDIO_SERVER]) as process:
        assert process.stdin is not None and process.stdout is not None
        stream = StapledByteStream(process.stdin, process.stdout)
        async with Connection(stream, name="bridge") as conn:
            with anyio.fail_after(20):
                hello = await conn.request("session/hello", hello_params(TOKEN))
                result = await conn.request(
                    "tools/call", {"name": "test/echo", "arguments": {"text": "Grüße 🐛"}}
                )
        assert hello["agentId"] == "stdio"
        assert result == {"text": "Grüße 🐛"}
        with anyio.fail_after(10):
            await process.wait()  # stdin closed: the server ends by itself


def _bad_payloads(rng: random.Random) -> list[bytes]:
    def frame(body: bytes) -> bytes:
        return encode_frame(body)

    def random_json() -> Any:
        choices: list[Any] = [
            None,
            True,
            rng.randint(-(2**40), 2**40),
            "x" * rng.randint(0, 50),
            [1, "a", None],
            {"v": "gabp/1"},
            {"type": rng.choice(["request", "response", "event", "other"])},
        ]
        return rng.choice(choices)

    payloads = []
    for _ in range(150):
        kind = rng.randrange(8)
        if kind == 0:
            payloads.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 300))))
        elif kind == 1:
            payloads.append(frame(bytes(rng.randrange(256) for _ in range(rng.randint(0, 100)))))
        elif kind == 2:
            payloads.append(frame(json.dumps(random_json()).encode()))
        elif kind == 3:
            message = {
                "v": "gabp/1",
                "id": new_id(),
                "type": "request",
                "method": rng.choice(["session/hello", "tools/call", "x/y", "tools/list"]),
                "params": random_json() if rng.random() < 0.5 else {"token": random_json()},
            }
            payloads.append(frame(json.dumps(message).encode()))
        elif kind == 4:
            payloads.append(b"Content-Length: %d\r\n\r\n" % rng.randint(0, 10**12))
        elif kind == 5:
            payloads.append(b"Content-Length: 5\r\n\r\n{" + b"\xff" * 4)
        elif kind == 6:
            payloads.append(b"content-length: -3\r\nX: y\r\n\r\n")
        else:
            payloads.append(
                frame(b'{"v":"gabp/1","id":"' + new_id().encode() + b'","type":"request"')
            )
    return payloads


async def _send_and_collect(port: int, payload: bytes) -> None:
    stream = await anyio.connect_tcp("127.0.0.1", port)
    async with stream:
        await stream.send(payload)
        with anyio.move_on_after(0.5):
            while True:
                try:
                    await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    return


@pytest.mark.parametrize("seed", [1, 2])
async def test_no_bad_input_crashes_or_hangs_the_server(seed: int) -> None:
    server = GabpServer(app_name="g", app_version="1", agent_id="g", token=TOKEN)

    @server.tool("test/echo", description="Echo.")
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    payloads = _bad_payloads(random.Random(seed))
    async with server.running() as address:
        assert address.port is not None
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for payload in payloads:
                    tg.start_soon(_send_and_collect, address.port, payload)
            async with bridge_session(address, TOKEN) as conn:
                assert await conn.request(
                    "tools/call", {"name": "test/echo", "arguments": {"text": "still here"}}
                ) == {"text": "still here"}


class _FailingFirst(anyio.abc.Listener[Any]):
    """A listener whose next ``times`` accepts fail as a process out of descriptors sees."""

    def __init__(self, inner: anyio.abc.Listener[Any], times: int) -> None:
        self.inner, self.times, self.failed = inner, times, 0
        self.all_failed = anyio.Event()

    def fail_more(self, times: int) -> None:
        self.times += times
        self.all_failed = anyio.Event()

    async def accept(self) -> Any:
        if self.failed < self.times:
            self.failed += 1
            if self.failed == self.times:
                self.all_failed.set()
            raise anyio.BrokenResourceError from OSError(errno.EMFILE, "Too many open files")
        return await self.inner.accept()

    async def serve(self, handler: Any, task_group: Any = None) -> None:
        async with anyio.create_task_group() as tg:  # as anyio's listeners serve
            while True:
                tg.start_soon(handler, await self.accept())

    async def aclose(self) -> None:
        await self.inner.aclose()

    @property
    def extra_attributes(self) -> Any:
        return self.inner.extra_attributes


@pytest.mark.parametrize("transport", ["tcp", "unix"])
async def test_a_failed_accept_leaves_the_server_and_its_bridges_running(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    transport: Literal["tcp", "unix"],
) -> None:
    server = GabpServer(
        app_name="g",
        app_version="1",
        agent_id="g",
        token=TOKEN,
        transport=transport,
        unix_path=tmp_path / "g.sock" if transport == "unix" else None,
    )

    @server.tool("test/echo", description="Echo.")
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    listen = server._listen
    wrapped: list[_FailingFirst] = []

    async def failing_listen() -> anyio.abc.Listener[Any]:
        wrapped.append(_FailingFirst(await listen(), times=3))
        return wrapped[0]

    monkeypatch.setattr(server, "_listen", failing_listen)
    call = {"name": "test/echo", "arguments": {"text": "still here"}}
    # the first accepts fail (EMFILE); the server goes on accepting
    with anyio.fail_after(20):
        async with server.running() as address, bridge_session(address, TOKEN) as first:
            assert wrapped[0].failed == 3
            wrapped[0].fail_more(1)  # and the one after the next bridge fails too
            async with bridge_session(address, TOKEN) as second:
                assert await second.request("tools/call", call) == {"text": "still here"}
                await wrapped[0].all_failed.wait()
                assert await first.request("tools/call", call) == {"text": "still here"}
            assert await first.request("tools/call", call) == {"text": "still here"}
            assert server.connection_count == 1
    assert "accepting a connection failed, still listening" in caplog.text
