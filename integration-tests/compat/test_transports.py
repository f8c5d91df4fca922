"""The transports as any GABS bridge serves them: stdio in ``Content-Length`` framing, and HTTP at
``/mcp`` (``server http --addr HOST:PORT``) with ``/health``, the config's ``apiKey`` as a
bearer token, plain JSON answers, and a clean exit on SIGTERM.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from anyio.abc import Process
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from .harness import (
    INTERLEAVING_GAME,
    ConfigDir,
    bridge_environment,
    start_game,
    structured,
    text_of,
)

API_KEY = "compat-api-key-0123456789abcdef0123456789abcdef"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "compat", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_GAMES = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "games_list", "arguments": {}},
}


def framed(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read_framed(stream: Any, buffer: bytearray) -> dict[str, Any]:
    """One ``Content-Length`` frame from the bridge's stdout."""
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            header = bytes(buffer[:end]).decode()
            assert header.startswith("Content-Length:"), header
            length = int(header.split(":", 1)[1])
            if len(buffer) >= end + 4 + length:
                body = bytes(buffer[end + 4 : end + 4 + length])
                del buffer[: end + 4 + length]
                message: dict[str, Any] = json.loads(body)
                return message
        buffer += await stream.receive()


@asynccontextmanager
async def stdio_process(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> AsyncIterator[Process]:
    """``<bridge> server stdio`` as a process, with the compat game configured."""
    config_dir.game("compat")
    directory = config_dir.write()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    command = [*bridge_command, "server", "stdio", "--configDir", str(directory)]
    async with await anyio.open_process(
        command, env=bridge_environment(home), stderr=subprocess.DEVNULL
    ) as process:
        yield process


async def test_stdio_content_length_framing_is_answered_in_kind(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    with anyio.fail_after(60):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(framed(INITIALIZE) + framed(INITIALIZED))
            buffer = bytearray()
            initialized = await read_framed(process.stdout, buffer)
            await process.stdin.send(framed(LIST_GAMES))
            listed = await read_framed(process.stdout, buffer)
            await process.stdin.aclose()
            await process.wait()
    assert initialized["id"] == 1 and initialized["result"]["serverInfo"]["name"] == "gabs"
    assert listed["id"] == 2
    games = listed["result"]["structuredContent"]["games"]
    assert {g.get("gameId", g.get("id")) for g in games} == {"compat"}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def read_lines(stream: Any) -> list[dict[str, Any]]:
    """Every newline-delimited message the bridge writes until its stdout ends."""
    data = bytearray()
    with suppress(anyio.EndOfStream):
        while True:
            data += await stream.receive()
    return [json.loads(raw) for raw in bytes(data).splitlines() if raw.strip()]


def call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


@pytest.mark.parametrize("framing", ["lines", "content-length"])
async def test_stdio_requests_written_before_stdin_closes_are_all_answered(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path, framing: str
) -> None:
    encode = line if framing == "lines" else framed
    requests = [call(10 + n, "games_list", {}) for n in range(8)]
    requests += [call(20 + n, "games_status", {"gameId": "compat"}) for n in range(8)]
    requests += [call(30 + n, "games_call_tool", {"gameId": "nope", "tool": "x"}) for n in range(8)]
    with anyio.fail_after(60):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            written = encode(INITIALIZE) + encode(INITIALIZED)
            written += b"".join(encode(request) for request in requests)
            await process.stdin.send(written)
            await process.stdin.aclose()  # everything written, then the end at once
            if framing == "lines":
                answers = await read_lines(process.stdout)
            else:
                buffer = bytearray()
                answers = [await read_framed(process.stdout, buffer) for _ in range(25)]
            await process.wait()
    by_id = {answer["id"]: answer for answer in answers}
    assert set(by_id) == {1} | {request["id"] for request in requests}
    assert all("result" in answer for answer in answers), answers
    assert process.returncode == 0


async def test_stdio_sigterm_ends_the_bridge_cleanly(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    with anyio.fail_after(60):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(line(INITIALIZE) + line(INITIALIZED) + line(LIST_GAMES))
            buffer = bytearray()
            while buffer.count(b"\n") < 2:  # serving: both answers are out
                buffer += await process.stdout.receive()
            process.send_signal(signal.SIGTERM)
            await process.wait()
    assert process.returncode == 0


def free_port() -> int:
    """A port free now (the bridge binds it itself: not every bridge reports a port 0 bind)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def http_bridge(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> AsyncIterator[tuple[str, Process]]:
    """The bridge serving HTTP on a free loopback port, once ``/health`` answers."""
    config_dir.top["apiKey"] = API_KEY
    directory = config_dir.write()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    port = free_port()
    command = [
        *bridge_command,
        "server",
        "http",
        "--addr",
        f"127.0.0.1:{port}",
        "--configDir",
        str(directory),
        "--log-level",
        "warn",
    ]
    base = f"http://127.0.0.1:{port}"
    async with await anyio.open_process(
        command, env=bridge_environment(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ) as process:
        try:
            async with httpx.AsyncClient() as http:
                while True:  # the bridge process starts up; poll its health endpoint
                    try:
                        if (await http.get(f"{base}/health")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    assert process.returncode is None, "the bridge exited"
                    await anyio.sleep(0.1)
            yield base, process
        finally:
            if process.returncode is None:
                process.terminate()
                with anyio.move_on_after(15):
                    await process.wait()
                if process.returncode is None:
                    process.kill()


@pytest.mark.beyond_go
async def test_http_a_connection_that_sends_no_request_is_closed(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A connection must send its first request line and headers within 10 s, or it is
    closed; a request that started in time is served. (The Go bridge sets no timeout: such
    connections stay open, each holding one of the process's file descriptors.)"""
    config_dir.game("compat")
    async with http_bridge(bridge_command, config_dir, tmp_path) as (base, _process):
        port = int(base.rsplit(":", 1)[1])
        with anyio.fail_after(30):
            idle = await anyio.connect_tcp("127.0.0.1", port)
            partial = await anyio.connect_tcp("127.0.0.1", port)
            await partial.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            opened = anyio.current_time()
            for stream in (idle, partial):
                with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
                    await stream.receive()
                await stream.aclose()
            waited = anyio.current_time() - opened
            async with httpx.AsyncClient(headers={"Authorization": f"Bearer {API_KEY}"}) as http:
                answer = await http.post(f"{base}/mcp", json=INITIALIZE)
    assert 8 <= waited <= 20, waited
    assert answer.status_code == 200 and answer.json()["id"] == 1


async def test_http_health_api_key_and_plain_json_answers(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            health = await http.get(f"{base}/health")
            plain = {"Accept": "application/json", "Content-Type": "application/json"}
            anonymous = await http.post(f"{base}/mcp", json=INITIALIZE, headers=plain)
            keyed = {**plain, "Authorization": f"Bearer {API_KEY}"}
            wrong = await http.post(
                f"{base}/mcp", json=INITIALIZE, headers={**plain, "Authorization": "Bearer nope"}
            )
            initialized = await http.post(f"{base}/mcp", json=INITIALIZE, headers=keyed)
            listed = await http.post(f"{base}/mcp", json=LIST_GAMES, headers=keyed)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert anonymous.status_code == 401 and wrong.status_code == 401
    assert initialized.status_code == 200
    assert initialized.headers["content-type"].startswith("application/json")
    assert initialized.json()["result"]["serverInfo"]["name"] == "gabs"
    assert listed.status_code == 200
    games = listed.json()["result"]["structuredContent"]["games"]
    assert {g.get("gameId", g.get("id")) for g in games} == {"compat"}


async def open_session(
    http: httpx.AsyncClient, base: str, headers: dict[str, str]
) -> httpx.Response:
    """``initialize`` and ``notifications/initialized`` over plain HTTP; a session id the
    bridge gives (and the protocol version, when none was set) go into ``headers``."""
    initialized = await http.post(f"{base}/mcp", json=INITIALIZE, headers=headers)
    session = initialized.headers.get("mcp-session-id")
    if session:
        headers["Mcp-Session-Id"] = session
        if "MCP-Protocol-Version" not in headers:
            headers["MCP-Protocol-Version"] = initialized.json()["result"]["protocolVersion"]
    await http.post(f"{base}/mcp", json=INITIALIZED, headers=headers)
    return initialized


async def test_http_answers_a_streaming_client_with_one_json_body_per_request(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A client that accepts both JSON and SSE gets each answer as one JSON body."""
    config_dir.game("compat")
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {API_KEY}",
    }
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            initialized = await open_session(http, base, headers)
            listed = await http.post(f"{base}/mcp", json=LIST_GAMES, headers=headers)
    for answer in (initialized, listed):
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("application/json"), answer.headers
    games = listed.json()["result"]["structuredContent"]["games"]
    assert {g.get("gameId", g.get("id")) for g in games} == {"compat"}


# The Go bridge serves one MCP request at a time, so a cancellation reaches it only after the
# call it cancels has been answered.
@pytest.mark.beyond_go
async def test_http_a_cancelled_request_gets_no_answer(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """MCP: a request the client cancelled is not answered (no result, no error)."""
    config_dir.game("slow", script=INTERLEAVING_GAME)
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {API_KEY}",
        "MCP-Protocol-Version": "2025-06-18",
    }
    slow = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {
            "name": "games_call_tool",
            "arguments": {"gameId": "slow", "tool": "interleave/wait", "arguments": {"ms": 5000}},
        },
    }
    answered: list[httpx.Response] = []
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            await open_session(http, base, headers)
            start = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "games_start", "arguments": {"gameId": "slow"}},
            }
            started = await http.post(f"{base}/mcp", json=start, headers=headers, timeout=60)
            assert '"started_connected"' in started.text, started.text

            async def call() -> None:
                answered.append(await http.post(f"{base}/mcp", json=slow, headers=headers))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await anyio.sleep(1.0)  # the call is in flight at the game
                cancel = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 3, "reason": "the user changed their mind"},
                }
                await http.post(f"{base}/mcp", json=cancel, headers=headers)
            stop = {
                **start,
                "id": 4,
                "params": {"name": "games_stop", "arguments": start["params"]["arguments"]},
            }  # type: ignore[index]
            await http.post(f"{base}/mcp", json=stop, headers=headers, timeout=60)
    body = answered[0].text
    assert '"id":3' not in body.replace(" ", ""), body
    assert "-32800" not in body and '"result"' not in body, body


async def test_http_sigterm_ends_the_bridge_cleanly(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    with anyio.fail_after(90):
        async with http_bridge(bridge_command, config_dir, tmp_path) as (_, process):
            process.send_signal(signal.SIGTERM)
            await process.wait()
    assert process.returncode == 0


async def test_the_sdk_client_starts_calls_and_stops_a_game_over_streamable_http(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with http_bridge(bridge_command, config_dir, tmp_path) as (base, _):
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {API_KEY}"})
            transport = streamable_http_client(f"{base}/mcp", http_client=http)
            async with http, Client(transport, mode="legacy") as client:  # type: ignore[arg-type]
                await start_game(client)
                echoed = await client.call_tool(
                    "games_call_tool",
                    {"gameId": "compat", "tool": "compat/echo", "arguments": {"text": "über"}},
                )
                stopped = await client.call_tool("games_stop", {"gameId": "compat"})
    assert structured(echoed) == {"text": "über"}
    assert not stopped.is_error, text_of(stopped)


async def test_stdio_requests_without_the_handshake_are_served(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A script may pipe a request straight in, without ``initialize`` first."""
    with anyio.fail_after(60):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(line(LIST_GAMES))
            await process.stdin.aclose()
            answers = await read_lines(process.stdout)
            await process.wait()
    assert [answer["id"] for answer in answers] == [2]
    games = answers[0]["result"]["structuredContent"]["games"]
    assert {g.get("gameId", g.get("id")) for g in games} == {"compat"}
    assert process.returncode == 0


@pytest.mark.beyond_go
async def test_stdio_blank_lines_between_requests_are_skipped(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """An empty or whitespace-only line is no message: the session goes on. (The Go bridge's
    decoder reads such a line as the end of its input: it stops and exits 0, unanswered.)"""
    with anyio.fail_after(60):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(line(INITIALIZE) + line(INITIALIZED))
            buffer = bytearray()
            while buffer.count(b"\n") < 1:  # the handshake is answered: the mode is lines
                buffer += await process.stdout.receive()
            await process.stdin.send(b"\n")
            await process.stdin.send(b"  \t \r\n" + line(LIST_GAMES) + b"\n\n")
            await process.stdin.send(line(call(3, "games_status", {"gameId": "compat"})))
            while buffer.count(b"\n") < 3:
                buffer += await process.stdout.receive()
            alive = process.returncode is None
            await process.stdin.aclose()
            await process.wait()
    answers = [json.loads(raw) for raw in bytes(buffer).splitlines()]
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert all("result" in answer for answer in answers), answers
    assert alive and process.returncode == 0


@pytest.mark.beyond_go
async def test_stdio_a_first_line_that_is_not_json_is_skipped(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A first line that starts with neither ``{``, ``[`` nor a header is read as a line of
    newline-delimited JSON that is not JSON: skipped, and the requests after it are answered.
    (The Go bridge cannot tell the framing from it: every read fails again at once, and it
    logs ``failed to read message`` in a loop that never ends, answering nothing.)"""
    with anyio.fail_after(20):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(b"xyz\n" + line(INITIALIZE) + line(INITIALIZED))
            await process.stdin.send(line(LIST_GAMES))
            await process.stdin.aclose()
            answers = await read_lines(process.stdout)
            await process.wait()
    assert [answer["id"] for answer in answers] == [1, 2]
    assert process.returncode == 0


async def test_http_answers_as_a_plain_json_rpc_endpoint(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """Refusals are JSON ``{"error": ...}``; any ``Content-Type`` is read as JSON (``curl -d``
    sends a form type); a POST needs no session; other methods from a plain client are 405; a
    body over 1 MiB is 400; ``/health`` answers any method."""
    config_dir.game("compat")
    keyed = {"Authorization": f"Bearer {API_KEY}"}
    form = {**keyed, "Content-Type": "application/x-www-form-urlencoded"}
    streaming = {**keyed, "Accept": "application/json, text/event-stream"}
    streaming["Content-Type"] = "application/json"
    huge = {"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"x": "a" * (1 << 20)}}
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            refused = await http.post(f"{base}/mcp", json=LIST_GAMES)
            as_form = await http.post(f"{base}/mcp", content=json.dumps(LIST_GAMES), headers=form)
            sessionless = await http.post(f"{base}/mcp", json=LIST_GAMES, headers=streaming)
            got = await http.get(f"{base}/mcp", headers=keyed)
            deleted = await http.delete(f"{base}/mcp", headers=keyed)
            too_large = await http.post(f"{base}/mcp", json=huge, headers=keyed)
            health = await http.post(f"{base}/health")
            elsewhere = await http.post(f"{base}/elsewhere", json=LIST_GAMES, headers=keyed)
    assert refused.status_code == 401
    assert refused.headers["content-type"].startswith("application/json")
    assert isinstance(refused.json()["error"], str)
    for answer in (as_form, sessionless):
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("application/json")
        assert answer.json()["id"] == 2 and "games" in answer.json()["result"]["structuredContent"]
    for answer in (got, deleted):
        assert answer.status_code == 405
        assert answer.headers["content-type"].startswith("application/json")
    assert too_large.status_code == 400
    assert too_large.json() == {"error": "Request body too large (max 1048576 bytes)"}
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert elsewhere.status_code == 404


async def test_http_reads_every_post_as_json_and_refuses_other_methods_without_a_session(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """Whatever a client's ``Accept`` and ``Content-Type`` say, a POST is read as JSON and
    answered with JSON (an ``initialize`` from a client that accepts only ``text/event-stream``,
    a session's request sent as ``text/plain``), and a GET, PUT or DELETE without a session is
    ``405`` with a JSON ``{"error": ...}``, from a streaming client too."""
    config_dir.game("compat")
    keyed = {"Authorization": f"Bearer {API_KEY}"}
    sse_only = {**keyed, "Accept": "text/event-stream", "Content-Type": "application/json"}
    streaming = {**keyed, "Accept": "application/json, text/event-stream"}
    streaming["Content-Type"] = "application/json"
    tools_list = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            opened = await http.post(f"{base}/mcp", json=INITIALIZE, headers=sse_only)
            await open_session(http, base, streaming)
            as_text = await http.post(
                f"{base}/mcp",
                content=json.dumps(tools_list),
                headers={**streaming, "Content-Type": "text/plain"},
            )
            sessionless = {**keyed, "Accept": "text/event-stream"}
            refused = [
                await http.request(method, f"{base}/mcp", headers=sessionless)
                for method in ("GET", "PUT", "DELETE")
            ]
    assert opened.status_code == 200, opened.text
    assert opened.headers["content-type"].startswith("application/json")
    assert opened.json()["result"]["serverInfo"]["name"] == "gabs"
    assert as_text.status_code == 200, as_text.text
    assert as_text.headers["content-type"].startswith("application/json")
    assert as_text.json()["id"] == 3 and "tools" in as_text.json()["result"]
    for answer in refused:
        assert answer.status_code == 405, (answer.request.method, answer.text)
        assert answer.headers["content-type"].startswith("application/json")
        assert isinstance(answer.json()["error"], str)


async def test_http_refuses_a_batch_with_400(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A JSON-RPC batch (an array) is not served: ``400`` with a JSON body, on any bridge."""
    config_dir.game("compat")
    keyed = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            batch = await http.post(f"{base}/mcp", json=[LIST_GAMES], headers=keyed)
            empty = await http.post(f"{base}/mcp", json=[], headers=keyed)
    for answer in (batch, empty):
        assert answer.status_code == 400, answer.text
        assert answer.headers["content-type"].startswith("application/json")


# The Go bridge answers such bodies {"error": "Invalid JSON-RPC message"} (or 204 for `null`
# and `{}`), and reads no MCP-Protocol-Version.
@pytest.mark.beyond_go
async def test_http_answers_json_rpc_errors_to_no_message_and_to_an_unsupported_version(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A JSON body that is no JSON-RPC message is ``400`` ``-32600`` without an id; a request
    with an ``MCP-Protocol-Version`` the bridge does not speak is ``400`` ``Unsupported protocol
    version`` with its id; an ``initialize`` with one is served (its body negotiates)."""
    config_dir.game("compat")
    keyed = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    wrong = {**keyed, "MCP-Protocol-Version": "1999-01-01"}
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            refused = [
                await http.post(f"{base}/mcp", content=body, headers=keyed)
                for body in (b"[]", b"null", b"{}", b'{"method": "notifications/initialized"}')
            ]
            listed = await http.post(f"{base}/mcp", json=LIST_GAMES, headers=wrong)
            opened = await http.post(f"{base}/mcp", json=INITIALIZE, headers=wrong)
    for answer in refused:
        assert answer.status_code == 400, answer.text
        assert answer.json()["id"] is None and answer.json()["error"]["code"] == -32600
    assert listed.status_code == 400, listed.text
    assert listed.json()["id"] == 2
    assert listed.json()["error"]["message"] == "Unsupported protocol version"
    assert opened.status_code == 200 and opened.json()["result"]["serverInfo"]["name"] == "gabs"
