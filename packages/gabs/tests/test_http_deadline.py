"""A new HTTP connection must send its first request in time; one that has is left alone."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import uvicorn

from gabs.transports.http import bind_listener
from gabs.transports.http_deadline import first_request_protocol

DEADLINE = 0.5


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    body = b"ok"
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """(whether the peer closed within ``seconds``, what it sent before)."""
    sock.settimeout(0.05)
    received = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return True, received
        if not chunk:
            return True, received
        received += chunk
    return False, received


async def test_a_connection_without_a_whole_first_request_is_closed_at_the_deadline() -> None:
    listener = bind_listener("127.0.0.1", 0)
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        _app,
        log_config=None,
        access_log=False,
        lifespan="off",
        timeout_keep_alive=30,
        http=first_request_protocol(DEADLINE),
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        for _ in range(1000):  # uvicorn offers only a flag for "started"
            if server.started:
                break
            await asyncio.sleep(0.01)
        assert server.started
        idle = socket.create_connection(("127.0.0.1", port))
        partial = socket.create_connection(("127.0.0.1", port))
        partial.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        served = socket.create_connection(("127.0.0.1", port))
        served.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        slow_body = socket.create_connection(("127.0.0.1", port))
        slow_body.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab")
        started = time.monotonic()
        results = await asyncio.to_thread(
            lambda: [_closed_within(s, 3 * DEADLINE) for s in (idle, partial, served)]
        )
        waited = time.monotonic() - started
        slow_body.sendall(b"cd")
        slow_closed, slow_answer = await asyncio.to_thread(_closed_within, slow_body, DEADLINE)
        for sock in (idle, partial, served, slow_body):
            sock.close()
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)
    (idle_closed, idle_got), (partial_closed, partial_got), (served_closed, answer) = results
    assert idle_closed and idle_got == b""
    assert partial_closed and partial_got == b""
    assert waited >= 3 * DEADLINE - 0.2  # the served one stayed open the whole time
    assert not served_closed and answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
    # a request that arrived whole before the deadline may take longer for its body
    assert not slow_closed and slow_answer.startswith(b"HTTP/1.1 200")
