"""The HTTP transport's listening socket (Nagle's algorithm off) and its answer filter."""

from __future__ import annotations

import asyncio
import socket

import pytest

from gabs.transports.http import HttpServeError, bind_listener
from gabs.transports.http_guard import without_cancelled_answers


async def test_connections_accepted_on_the_listener_have_nagles_algorithm_off() -> None:
    """An SSE answer goes out in parts; with Nagle on, each part after the first would wait
    for the client's delayed ACK (about 40 ms per call on a kept-alive connection)."""
    listener = bind_listener("127.0.0.1", 0)
    assert listener.proto == socket.IPPROTO_TCP
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
    try:
        port = listener.getsockname()[1]
        _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        assert await asyncio.wait_for(accepted, 5) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


def test_a_port_in_use_is_a_clear_error() -> None:
    taken = bind_listener("127.0.0.1", 0)
    taken.listen()
    try:
        with pytest.raises(HttpServeError, match=r"cannot listen on 127\.0\.0\.1:\d+"):
            bind_listener("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


CANCELLED = b'{"jsonrpc":"2.0","id":3,"error":{"code":-32800,"message":"Request cancelled"}}'
RESULT = b'{"jsonrpc":"2.0","id":3,"result":{"content":[],"note":"-32800"}}'


def _json_start(body: bytes) -> dict[str, object]:
    return {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"mcp-session-id", b"abc"),
        ],
    }


async def _through_filter(*messages: dict[str, object]) -> list[dict[str, object]]:
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    filtered = without_cancelled_answers(send)
    for message in messages:
        await filtered(message)
    return sent


async def test_a_cancelled_requests_json_answer_becomes_202_without_a_body() -> None:
    sent = await _through_filter(
        _json_start(CANCELLED), {"type": "http.response.body", "body": CANCELLED}
    )
    start, body = sent
    assert start["status"] == 202
    assert start["headers"] == [(b"mcp-session-id", b"abc"), (b"content-length", b"0")]
    assert body == {"type": "http.response.body", "body": b""}


async def test_any_other_json_answer_passes_unchanged() -> None:
    messages = (_json_start(RESULT), {"type": "http.response.body", "body": RESULT})
    assert await _through_filter(*messages) == list(messages)


async def test_an_event_stream_passes_unchanged() -> None:
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"text/event-stream")],
    }
    event = {"type": "http.response.body", "body": b"data: {}\r\n\r\n", "more_body": True}
    assert await _through_filter(start, event) == [start, event]
