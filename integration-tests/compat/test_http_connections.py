"""HTTP at the connection level, as any GABS bridge serves it: requests kept alive and pipelined
on one connection are answered in order, a POST whose client leaves before its body is whole is
not served, and SIGTERM ends the bridge even with a client's GET stream open.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest

from .harness import ConfigDir, process_alive
from .test_transports import API_KEY, INITIALIZE, INITIALIZED, call, http_bridge

AUTH = {"Authorization": f"Bearer {API_KEY}"}
PLAIN = {**AUTH, "Accept": "application/json", "Content-Type": "application/json"}


def raw_post(message: dict[str, Any], *, declared_extra: int = 0) -> bytes:
    """A whole HTTP/1.1 POST of ``message`` to ``/mcp`` (its ``Content-Length`` declared
    ``declared_extra`` bytes longer than the body)."""
    body = json.dumps(message).encode()
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {API_KEY}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nContent-Length: {len(body) + declared_extra}\r\n\r\n"
    )
    return head.encode() + body


async def test_http_pipelined_requests_on_one_connection_are_answered_in_order(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    async with http_bridge(bridge_command, config_dir, tmp_path) as (base, _process):
        port = int(base.rsplit(":", 1)[1])
        with anyio.fail_after(30):
            stream = await anyio.connect_tcp("127.0.0.1", port)
            first, second = call(11, "games_list", {}), call(12, "games_status", {})
            await stream.send(raw_post(first) + raw_post(second))
            received = b""
            while b'"id":12' not in received:
                received += await stream.receive()
            await stream.aclose()
    assert received.count(b"HTTP/1.1 200") == 2, received[:300]
    assert 0 <= received.index(b'"id":11') < received.index(b'"id":12')


async def test_http_a_post_cut_short_by_its_client_is_not_served(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A ``games_stop`` whose client declared a longer body and left after the JSON: the game
    keeps running. (Before, ``gabs`` served the part that had arrived, as it was JSON.)"""
    config_dir.game("compat")
    async with (
        http_bridge(bridge_command, config_dir, tmp_path) as (base, _process),
        httpx.AsyncClient(timeout=60) as http,
    ):
        port = int(base.rsplit(":", 1)[1])
        with anyio.fail_after(90):
            started = await http.post(
                f"{base}/mcp", json=call(2, "games_start", {"gameId": "compat"}), headers=PLAIN
            )
            assert started.status_code == 200, started.text
            pid = config_dir.game_pid("compat")  # written before the game connected
            assert pid is not None and process_alive(pid)
            stream = await anyio.connect_tcp("127.0.0.1", port)
            stop = call(3, "games_stop", {"gameId": "compat"})
            await stream.send(raw_post(stop, declared_extra=32))
            await anyio.sleep(0.5)
            await stream.aclose()
            await anyio.sleep(3)  # a stop that was served would have ended the game by now
            alive = process_alive(pid)
            stopped = await http.post(
                f"{base}/mcp", json=call(4, "games_stop", {"gameId": "compat"}), headers=PLAIN
            )
    assert alive, "the cut-short games_stop was served"
    assert stopped.status_code == 200


@pytest.mark.beyond_go
async def test_http_sigterm_ends_the_bridge_with_a_session_stream_open(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """Every Streamable HTTP client of the SDK keeps a GET stream open; SIGTERM must still end
    the bridge promptly, with status 0. (The Go bridge has no sessions and no GET stream on
    ``/mcp``.)"""
    streaming = {**AUTH, "Accept": "application/json, text/event-stream"}
    async with (
        http_bridge(bridge_command, config_dir, tmp_path) as (base, process),
        httpx.AsyncClient(timeout=30) as http,
    ):
        opened = await http.post(f"{base}/mcp", json=INITIALIZE, headers=streaming)
        session = {
            **streaming,
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-06-18",
        }
        await http.post(f"{base}/mcp", json=INITIALIZED, headers=session)
        get = {**session, "Accept": "text/event-stream"}
        async with http.stream("GET", f"{base}/mcp", headers=get) as stream:
            assert stream.status_code == 200
            process.send_signal(signal.SIGTERM)
            ended = anyio.current_time()
            with anyio.move_on_after(20):
                await process.wait()
            took = anyio.current_time() - ended
    assert process.returncode == 0, (process.returncode, took)
    assert took < 10, took
