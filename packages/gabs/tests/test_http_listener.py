"""The HTTP transport's listening socket: loopback binding, and Nagle's algorithm off."""

from __future__ import annotations

import asyncio
import socket

import pytest

from gabs.transports.http import HttpServeError, bind_listener


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
