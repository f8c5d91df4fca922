"""Answers taken where they arrive: a Connection on gabp.sockets resolves a read of nothing but
responses in the event loop's data callback, and leaves everything else to its reader.

The peer here is a raw socket stream, so each test decides exactly which bytes arrive in which
read: whole responses, a response cut in two, a response and an event together, a broken frame.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import pytest

from gabp import (
    Connection,
    ConnectionClosed,
    SocketStream,
    connect_tcp,
    create_tcp_listener,
)
from gabp.errors import MessageError
from gabp.framing import FrameDecoder, encode_frame
from gabp.messages import Event


def _frame(message: dict[str, Any]) -> bytes:
    return encode_frame(json.dumps(message).encode())


def _answer(request: dict[str, Any], result: Any) -> bytes:
    return _frame({"v": "gabp/1", "id": request["id"], "type": "response", "result": result})


class Peer:
    """The far end: reads the connection's requests, writes whatever a test scripts."""

    def __init__(self, stream: SocketStream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder()
        self.bodies: list[bytes] = []

    async def request(self) -> dict[str, Any]:
        while not self.bodies:
            self.bodies.extend(self.decoder.feed(await self.stream.receive()))
        message: dict[str, Any] = json.loads(self.bodies.pop(0))
        return message


class Taken:
    """Counts what the connection's data callback took and what it left to the reader."""

    def __init__(self, stream: SocketStream) -> None:
        self.took = self.left = 0
        take = stream.taking
        assert take is not None  # the connection offered to take answers

        def counting(data: bytes) -> bool:
            taken = take(data)
            if taken:
                self.took += 1
            else:
                self.left += 1
            return taken

        stream.take_while_waiting(counting)


@asynccontextmanager
async def linked(
    events: list[Event] | None = None,
) -> AsyncIterator[tuple[Connection, Peer, SocketStream]]:
    listener = await create_tcp_listener("127.0.0.1", 0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener:
        stream = await connect_tcp("127.0.0.1", port)
        far = await listener.accept()
        on_event = events.append if events is not None else None
        async with Connection(stream, on_event=on_event, name="bridge") as connection:
            yield connection, Peer(far), stream
        await far.aclose()


async def test_whole_answers_are_taken_in_the_data_callback_and_reach_their_callers() -> None:
    async with linked() as (connection, peer, stream):
        counter = Taken(stream)
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                results: dict[int, Any] = {}

                async def call(index: int) -> None:
                    results[index] = await connection.request("test/echo", {"i": index})

                for index in range(3):
                    tg.start_soon(call, index)
                requests = [await peer.request() for _ in range(3)]
                # all three answers in one write: one read, taken whole
                await peer.stream.send(
                    b"".join(_answer(r, r["params"]["i"] * 10) for r in reversed(requests))
                )
        assert results == {0: 0, 1: 10, 2: 20}
        assert counter.took == 1 and counter.left == 0


class OneCall:
    """One request in flight on a linked connection: what its caller got once answered
    (``got``, with ``len(events)`` at that moment), the request as the peer read it."""

    def __init__(self, peer: Peer, counter: Taken, request: dict[str, Any]) -> None:
        self.peer, self.counter, self.request = peer, counter, request
        self.got: list[Any] = []


@asynccontextmanager
async def one_call(events: list[Event] | None = None) -> AsyncIterator[OneCall]:
    """Yields once the peer has read the request; the caller's answer is in ``got`` after."""
    seen = events if events is not None else []
    async with linked(events) as (connection, peer, stream):
        counter = Taken(stream)
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                call: OneCall | None = None

                async def caller() -> None:
                    answer = await connection.request("test/echo", {})
                    assert call is not None
                    call.got.extend([answer, len(seen)])

                tg.start_soon(caller)
                call = OneCall(peer, counter, await peer.request())
                yield call


async def test_an_answer_cut_in_two_reads_goes_to_the_reader_and_still_arrives() -> None:
    async with one_call() as call:
        data = _answer(call.request, {"whole": True})
        await call.peer.stream.send(data[:10])
        await anyio.sleep(0.05)  # a read of its own
        await call.peer.stream.send(data[10:])
    assert call.got[0] == {"whole": True}
    assert call.counter.took == 0 and call.counter.left >= 1


async def test_an_event_beside_an_answer_is_left_to_the_reader_in_order() -> None:
    events: list[Event] = []
    async with one_call(events) as call:
        event = _frame(
            {
                "v": "gabp/1",
                "id": "0b0f2a6e-4a8e-4c3e-9d4e-2f6c1c9b7a11",
                "type": "event",
                "channel": "test/news",
                "seq": 0,
                "payload": {"n": 1},
            }
        )
        await call.peer.stream.send(event + _answer(call.request, "ok"))
    assert call.got == ["ok", 1]  # the event was handled before the answer reached its caller
    assert [e.channel for e in events] == ["test/news"]
    assert call.counter.took == 0 and call.counter.left == 1


async def _failure_after(data: bytes | None, expected: type[BaseException]) -> BaseException:
    """How a request fails when the peer answers it with ``data`` (None: a response to it whose
    error is not an object)."""
    async with linked() as (connection, peer, _):
        failures: list[BaseException] = []
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:

                async def call() -> None:
                    try:
                        await connection.request("test/echo", {})
                    except expected as exc:
                        failures.append(exc)

                tg.start_soon(call)
                request = await peer.request()
                if data is None:
                    bad = {"v": "gabp/1", "id": request["id"], "type": "response", "error": "no"}
                    data = _frame(bad)
                await peer.stream.send(data)
    assert len(failures) == 1
    return failures[0]


async def test_a_malformed_answer_fails_its_caller_as_the_reader_would() -> None:
    failure = await _failure_after(None, MessageError)
    assert "invalid response" in str(failure)


async def test_a_broken_frame_while_waiting_closes_the_connection_with_its_reason() -> None:
    failure = await _failure_after(b"Content-Length: nope\r\n\r\n{}", ConnectionClosed)
    assert "framing error" in str(failure)


@pytest.mark.parametrize("taken", [True, False])
async def test_a_stream_offers_what_arrives_while_its_reader_waits(taken: bool) -> None:
    async with await create_tcp_listener("127.0.0.1", 0) as listener:
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        client = await connect_tcp("127.0.0.1", port)
        offered: list[bytes] = []

        def take(data: bytes) -> bool:
            offered.append(data)
            return taken

        client.take_while_waiting(take)
        with anyio.fail_after(5):
            server = await listener.accept()
            await server.send(b"early")  # nobody waits yet: held for the reader, not offered
            await anyio.sleep(0.05)
            assert await client.receive() == b"early"
            async with anyio.create_task_group() as tg:
                received: list[bytes] = []

                async def read() -> None:
                    with anyio.move_on_after(0.3):
                        received.append(await client.receive())

                tg.start_soon(read)
                await anyio.sleep(0.05)
                await server.send(b"later")
        assert offered == [b"later"]
        assert received == ([] if taken else [b"later"])
        client.take_while_waiting(None)
        await server.aclose()
        await client.aclose()
