"""Requests served alone (``serial_methods``), and a close that leaves the rest of a read unserved.

Raw frames over a real loopback socket: one write holds several requests, as a peer that
pipelines them sends them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc
import pytest

from gabp import (
    Connection,
    FrameDecoder,
    InboundRequest,
    ProtocolError,
    SocketStream,
    create_tcp_listener,
    encode_frame,
)


def frame(method: str, params: dict[str, Any] | None = None) -> tuple[str, bytes]:
    request_id = str(uuid.uuid4())
    message = {
        "v": "gabp/1",
        "id": request_id,
        "type": "request",
        "method": method,
        "params": params or {},
    }
    return request_id, encode_frame(json.dumps(message).encode())


async def exchange(
    make: Callable[[SocketStream], Connection], payload: bytes
) -> tuple[list[dict[str, Any]], bool]:
    """Serve one connection made by ``make``; send ``payload`` in one write; what comes back
    until the server closes (within 5 s), and whether it closed."""
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def serve(stream: SocketStream) -> None:
        async with make(stream) as connection:
            await connection.wait_closed()

    answers: list[dict[str, Any]] = []
    closed = False
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        decoder = FrameDecoder()
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            await stream.send(payload)
            with anyio.move_on_after(5):
                while True:
                    try:
                        data = await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                        closed = True
                        break
                    answers += [json.loads(body) for body in decoder.feed(data)]
        tg.cancel_scope.cancel()
    return answers, closed


def codes(answers: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(a["id"], a["error"]["code"] if "error" in a else a["result"]) for a in answers]


@pytest.mark.parametrize("waits", [False, True], ids=["at-once", "after-a-wait"])
@pytest.mark.parametrize("seen_before", [False, True], ids=["first", "method-seen"])
async def test_a_serial_request_that_closes_leaves_what_follows_it_unserved(
    waits: bool, seen_before: bool
) -> None:
    ran: list[str] = []

    async def hello(request: InboundRequest) -> Any:
        if waits:
            await anyio.sleep(0.1)
        if request.params.get("ok"):
            return "welcome"
        request.close_after_response = "refused"
        raise ProtocolError(-31000, "refused")

    async def work(request: InboundRequest) -> Any:
        ran.append(request.id)
        return "done"

    def make(stream: SocketStream) -> Connection:
        return Connection(
            stream,
            handlers={"test/hello": hello, "test/work": work},
            serial_methods=("test/hello",),
        )

    sent = [frame("test/hello", {"ok": True})] if seen_before else []
    sent += [frame("test/hello"), frame("test/hello", {"ok": True}), frame("test/work")]
    sent += [frame("test/hello") for _ in range(5)]
    answers, closed = await exchange(make, b"".join(data for _, data in sent))
    assert closed
    expected = [(sent[0][0], "welcome")] if seen_before else []
    refused = sent[1 if seen_before else 0][0]
    assert codes(answers) == [*expected, (refused, -31000)]
    assert ran == []


async def test_requests_after_a_serial_one_wait_for_its_answer_and_follow_it() -> None:
    order: list[str] = []

    async def hello(request: InboundRequest) -> Any:
        await anyio.sleep(0.1)
        order.append("hello")
        return "welcome"

    async def work(request: InboundRequest) -> Any:
        order.append("work")
        return "done"

    def make(stream: SocketStream) -> Connection:
        return Connection(
            stream,
            handlers={"test/hello": hello, "test/work": work},
            serial_methods=("test/hello",),
        )

    sent = [frame("test/work"), frame("test/hello"), frame("test/work"), frame("test/work")]
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def serve(stream: SocketStream) -> None:
        async with make(stream) as connection:
            await connection.wait_closed()

    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        decoder = FrameDecoder()
        answers: list[dict[str, Any]] = []
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            await stream.send(b"".join(data for _, data in sent))
            with anyio.fail_after(5):
                while len(answers) < 4:
                    answers += [json.loads(b) for b in decoder.feed(await stream.receive())]
        tg.cancel_scope.cancel()
    assert [a["id"] for a in answers] == [request_id for request_id, _ in sent]
    assert order == ["work", "hello", "work", "work"]


async def test_a_request_that_closes_the_connection_leaves_the_rest_of_the_read_unserved() -> None:
    ran: list[str] = []

    async def work(request: InboundRequest) -> Any:
        ran.append(request.id)
        if request.params.get("last"):
            request.close_after_response = "done for now"
        return "done"

    def make(stream: SocketStream) -> Connection:
        return Connection(stream, handlers={"test/work": work})

    sent = [frame("test/work"), frame("test/work", {"last": True}), frame("test/work")]
    sent.append(frame("test/work"))
    answers, closed = await exchange(make, b"".join(data for _, data in sent))
    assert closed
    assert (sent[1][0], "done") in codes(answers)
    unserved = {sent[2][0], sent[3][0]}
    assert not unserved & {a["id"] for a in answers}
    assert not unserved & set(ran)
