"""Checkpoint A: two gabp.Connections over real loopback TCP, and a peer process that dies."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
import pytest

from gabp import (
    Connection,
    ConnectionClosed,
    ConnectionLimits,
    InboundRequest,
    RemoteError,
    RequestTimeout,
)
from gabp.messages import Event


@asynccontextmanager
async def tcp_pair(
    handlers: dict[str, Any],
    *,
    on_event: Callable[[Event], None] | None = None,
    server_limits: ConnectionLimits | None = None,
) -> AsyncIterator[tuple[Connection, Connection]]:
    """A server Connection and a client Connection joined by a real loopback socket."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    accepted: list[anyio.abc.SocketStream] = []
    ready = anyio.Event()

    async def accept_one(stream: anyio.abc.SocketStream) -> None:
        accepted.append(stream)
        ready.set()
        await anyio.sleep_forever()

    async with anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, accept_one)
        client_stream = await anyio.connect_tcp("127.0.0.1", port)
        with anyio.fail_after(5):
            await ready.wait()
        async with (
            Connection(accepted[0], handlers=handlers, limits=server_limits, name="game") as server,
            Connection(client_stream, on_event=on_event, name="bridge") as client,
        ):
            yield server, client
        tg.cancel_scope.cancel()
    await listener.aclose()


async def test_a_thousand_concurrent_requests_over_tcp_each_get_their_own_answer() -> None:
    async def double(req: InboundRequest) -> dict[str, int]:
        await anyio.lowlevel.checkpoint()
        return {"n": req.params["n"] * 2}

    results: dict[int, Any] = {}
    async with tcp_pair({"test/double": double}) as (_, client):

        async def call(n: int) -> None:
            results[n] = await client.request("test/double", {"n": n})

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for n in range(1000):
                    tg.start_soon(call, n)
        assert client.pending_requests == 0
    assert results == {n: {"n": 2 * n} for n in range(1000)}


async def test_events_over_tcp_arrive_in_order_and_before_the_response_that_follows_them() -> None:
    log: list[Any] = []

    async def burst(req: InboundRequest) -> str:
        for i in range(req.params["count"]):
            await req.connection.emit("game/tick", {"i": i})
        return "burst done"

    async with tcp_pair({"test/burst": burst}, on_event=lambda e: log.append(e.payload["i"])) as (
        _,
        client,
    ):
        with anyio.fail_after(10):
            result = await client.request("test/burst", {"count": 500})
            log.append(result)
    assert log == [*range(500), "burst done"]


async def test_a_request_the_peer_never_answers_times_out_over_tcp() -> None:
    async def hang(_: InboundRequest) -> None:
        await anyio.sleep_forever()

    async with tcp_pair({"test/hang": hang}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RequestTimeout):
            await client.request("test/hang", timeout=0.2)
        assert client.pending_requests == 0


async def test_a_handler_error_over_tcp_reaches_the_caller_as_a_remote_error() -> None:
    async with tcp_pair({}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await client.request("test/unknown")
    assert info.value.code == -32601


DYING_PEER = textwrap.dedent(
    """
    import os, socket, sys
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    conn, _ = listener.accept()
    received = b""
    while received.count(b"Content-Length") < 3:
        chunk = conn.recv(65536)
        if not chunk:
            break
        received += chunk
    os._exit(3)  # die in the middle of three requests, answering none
    """
)


async def test_every_waiter_fails_with_connection_closed_when_the_peer_process_dies() -> None:
    async with await anyio.open_process([sys.executable, "-c", DYING_PEER]) as process:
        assert process.stdout is not None
        with anyio.fail_after(10):
            port = int((await process.stdout.receive()).decode())
        stream = await anyio.connect_tcp("127.0.0.1", port)
        failures: list[str] = []
        async with Connection(stream, name="bridge") as client:

            async def call(i: int) -> None:
                try:
                    await client.request("test/work", {"i": i}, timeout=20)
                except ConnectionClosed as exc:
                    failures.append(exc.reason)

            with anyio.fail_after(15):
                async with anyio.create_task_group() as tg:
                    for i in range(3):
                        tg.start_soon(call, i)
            assert client.closed
        assert len(failures) == 3
        assert all("peer closed" in reason or "lost" in reason for reason in failures)
        with anyio.fail_after(10):
            assert await process.wait() == 3
