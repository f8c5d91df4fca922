"""``gabs server http`` on SIGTERM: it exits (status 0) promptly, as the Go bridge 1.1.0 does,
even with a session's GET stream open (every Streamable HTTP client of the SDK keeps one), and
a request still in flight is given :data:`~gabs.transports.http.SHUTDOWN_GRACE_SECONDS` to
finish, not forever. Before, an open GET stream kept the bridge running until a second signal,
and so did a request that never finished."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx2 as httpx
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

TOKEN = "s" * 64
AUTH = {"Authorization": f"Bearer {TOKEN}"}
STREAMING = {**AUTH, "Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "shutdown-test", "version": "1"},
    },
}

# ``gabs server http`` on a given port; with ``slow``, a grace of 1 s and an MCP app whose
# every request takes a minute (a request that is still in flight at the signal).
SERVE = """
import asyncio, sys
from gabs import serving
from gabs.transports import http

if sys.argv[3] == "slow":
    http.SHUTDOWN_GRACE_SECONDS = 1

    async def slow_app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["path"] == "/health":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        print("in flight", flush=True)
        await asyncio.sleep(60)

    http.build_http_app = lambda *args, **kwargs: slow_app

sys.exit(serving.serve(sys.argv[1], "http", port=int(sys.argv[2])))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def _bridge(tmp_path: Path, mode: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.json").write_text(json.dumps({"version": "1.0", "games": {}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
    env.update(HOME=str(tmp_path), GABS_HTTP_TOKEN=TOKEN)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with subprocess.Popen(
        [sys.executable, "-c", SERVE, str(config), str(port), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        try:
            deadline = time.monotonic() + 60
            while True:
                assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the bridge did not answer /health"
                try:
                    if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            yield process, base
        finally:
            process.kill()


def _exit_after_sigterm(process: subprocess.Popen[bytes]) -> tuple[int | None, float, str]:
    """Send SIGTERM: the exit status (None: still running after 20 s, then killed), how long
    the bridge took, and what it wrote to stderr."""
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code: int | None = None
    try:
        code = process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    took = time.monotonic() - signalled
    assert process.stderr is not None
    return code, took, process.stderr.read().decode(errors="replace")


def test_sigterm_ends_a_session_get_stream_and_the_bridge(tmp_path: Path) -> None:
    with _bridge(tmp_path, "real") as (process, base), httpx.Client(timeout=10) as client:
        opened = client.post(f"{base}/mcp", json=INITIALIZE, headers=STREAMING)
        session = {
            **AUTH,
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-06-18",
        }
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        client.post(f"{base}/mcp", json=initialized, headers={**session, **STREAMING})
        get = {**session, "Accept": "text/event-stream"}
        with client.stream("GET", f"{base}/mcp", headers=get) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            code, took, said = _exit_after_sigterm(process)
            with suppress(httpx.HTTPError):  # the stream ends with the bridge
                for _ in stream.iter_bytes():
                    pass
    assert (code, took < 8) == (0, True), (took, said)


def test_a_request_in_flight_is_given_the_grace_then_the_bridge_exits(tmp_path: Path) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    with (
        _bridge(tmp_path, "slow") as (process, base),
        socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1]))) as sock,
    ):
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        assert process.stdout is not None
        assert process.stdout.readline() == b"in flight\n"
        code, took, said = _exit_after_sigterm(process)
    assert (code, 0.5 < took < 8) == (0, True), (took, said)
