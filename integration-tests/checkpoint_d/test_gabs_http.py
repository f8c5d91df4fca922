"""Checkpoint D: ``gabs serve --transport http`` as a real process: MCP Streamable HTTP behind a
bearer token and an Origin check, driving three real games at once."""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from gabp import generate_token
from gabs.mcp.call_results import call_view

GABS = Path(sys.executable).parent / "gabs"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def example() -> dict[str, Any]:
    return {
        "launchMode": "CustomCommand",
        "target": sys.executable,
        "args": ["-m", "lib_gab.example"],
        "timeouts": {"startSeconds": 20, "stopGraceSeconds": 3},
    }


def write_config(config_dir: Path, games: dict[str, dict[str, Any]]) -> None:
    entries = {
        game_id: {"id": game_id, "name": game_id.title(), **entry}
        for game_id, entry in games.items()
    }
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(
        json.dumps({"version": "1.0", "games": entries}), encoding="utf-8"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def gabs_http(config_dir: Path, *extra: str) -> AsyncIterator[tuple[str, bytearray]]:
    """Run ``gabs serve --transport http``; yield its URL and (growing) stderr."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "GABS_HTTP_TOKEN"}
    command = [
        str(GABS),
        "serve",
        "--transport",
        "http",
        "--port",
        str(port),
        "--config-dir",
        str(config_dir),
        "--log-level",
        "WARNING",
        *extra,
    ]
    stderr = bytearray()
    async with (
        await anyio.open_process(command, env=env, stdin=None) as process,
        anyio.create_task_group() as tg,
    ):

        async def drain(stream: anyio.abc.ByteReceiveStream) -> None:
            async for chunk in stream:
                stderr.extend(chunk)

        assert process.stderr is not None
        tg.start_soon(drain, process.stderr)
        try:
            with anyio.fail_after(15):
                while True:
                    try:
                        stream = await anyio.connect_tcp("127.0.0.1", port)
                    except OSError:
                        assert process.returncode is None, stderr.decode()
                        await anyio.sleep(0.05)
                        continue
                    await stream.aclose()
                    break
            yield f"http://127.0.0.1:{port}/mcp", stderr
        finally:
            process.terminate()
            with anyio.move_on_after(15):
                await process.wait()
            if process.returncode is None:
                process.kill()
            tg.cancel_scope.cancel()


@asynccontextmanager
async def mcp_client(url: str, token: str, mode: str = "legacy") -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    transport = streamable_http_client(url, http_client=http)
    async with http, Client(transport, mode=mode) as client:  # type: ignore[arg-type]
        yield client


def data(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return call_view(result)


async def test_http_requires_the_token_and_a_loopback_origin(tmp_path: Path) -> None:
    token = generate_token()
    write_config(tmp_path, {})
    (tmp_path / "http-token").write_text(token + "\n")
    with anyio.fail_after(30):
        async with gabs_http(tmp_path) as (url, stderr), httpx2.AsyncClient() as http:
            missing = await http.post(url, json=INIT, headers=MCP_HEADERS)
            assert missing.status_code == 401
            assert missing.headers["www-authenticate"].lower().startswith("bearer")
            wrong = await http.post(
                url, json=INIT, headers={**MCP_HEADERS, "Authorization": "Bearer " + "0" * 64}
            )
            assert wrong.status_code == 401
            authorized = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
            foreign = await http.post(
                url, json=INIT, headers={**authorized, "Origin": "https://evil.example"}
            )
            assert foreign.status_code == 403
            tricky = await http.post(
                url, json=INIT, headers={**authorized, "Origin": "http://localhost:80.evil.example"}
            )
            assert tricky.status_code == 403
            local = await http.post(
                url, json=INIT, headers={**authorized, "Origin": "http://localhost:5173"}
            )
            assert local.status_code == 200

            async with mcp_client(url, token) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert len(names) == 13 and "games_call_tool" in names
                listed = await client.call_tool("games_list", {})
                assert (data(listed)["count"], data(listed)["games"]) == (0, [])
        assert token not in stderr.decode()


async def test_a_missing_token_is_generated_into_a_private_file(tmp_path: Path) -> None:
    write_config(tmp_path, {})
    with anyio.fail_after(30):
        async with gabs_http(tmp_path) as (url, stderr):
            path = tmp_path / "http-token"
            token = path.read_text().strip()
            assert len(token) == 64
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert str(path) in stderr.decode() and token not in stderr.decode()
            async with mcp_client(url, token) as client:
                assert len((await client.list_tools()).tools) == 13


async def test_a_non_loopback_bind_is_refused_without_allow_remote(tmp_path: Path) -> None:
    write_config(tmp_path, {})
    (tmp_path / "http-token").write_text(generate_token())
    with anyio.fail_after(20):
        result = await anyio.run_process(
            [
                str(GABS),
                "serve",
                "--transport",
                "http",
                "--host",
                "0.0.0.0",
                "--port",
                "0",
                "--config-dir",
                str(tmp_path),
            ],
            check=False,
        )
    assert result.returncode == 2
    assert b"--allow-remote" in result.stderr


async def test_three_games_at_once_over_http(tmp_path: Path) -> None:
    token = generate_token()
    write_config(tmp_path, {"one": example(), "two": example(), "three": example()})
    (tmp_path / "http-token").write_text(token)
    with anyio.fail_after(40):
        async with (
            gabs_http(tmp_path) as (url, _),
            mcp_client(url, token, mode="auto") as client,
        ):
            started: dict[str, types.CallToolResult] = {}

            async def start(game_id: str) -> None:
                started[game_id] = await client.call_tool("games_start", {"gameId": game_id})

            async with anyio.create_task_group() as tg:
                for game_id in ("one", "two", "three"):
                    tg.start_soon(start, game_id)
            assert {g: data(r)["code"] for g, r in started.items()} == dict.fromkeys(
                ("one", "two", "three"), "started_connected"
            )
            ambiguous = await client.call_tool("games_call_tool", {"tool": "example/echo"})
            assert ambiguous.is_error and set(data(ambiguous)["candidates"]) == {
                "one",
                "two",
                "three",
            }
            for game_id in ("one", "two", "three"):
                echo = await client.call_tool(
                    "games_call_tool",
                    {"gameId": game_id, "tool": "example/echo", "arguments": {"text": game_id}},
                )
                assert data(echo)["result"] == {"text": game_id}
            # attention in one game does not block the others
            await client.call_tool(
                "games_call_tool",
                {"gameId": "two", "tool": "example/fail", "arguments": {"message": "boom"}},
            )
            blocked = await client.call_tool(
                "games_call_tool",
                {"gameId": "two", "tool": "example/echo", "arguments": {"text": "x"}},
            )
            free = await client.call_tool(
                "games_call_tool",
                {"gameId": "three", "tool": "example/echo", "arguments": {"text": "y"}},
            )
            assert data(blocked)["executed"] is False and data(free)["executed"] is True
            status = data(await client.call_tool("games_status", {}))
            assert {s["gameId"]: s["status"] for s in status["games"]} == dict.fromkeys(
                ("one", "two", "three"), "running"
            )
            for game_id in ("one", "two", "three"):
                await client.call_tool("games_stop", {"gameId": game_id})


async def test_tool_list_changes_reach_a_legacy_client_over_http(tmp_path: Path) -> None:
    token = generate_token()
    write_config(tmp_path, {"sim": {**example(), "exposeGameTools": True}})
    (tmp_path / "http-token").write_text(token)
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(40):
        async with gabs_http(tmp_path) as (url, _):
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            transport = streamable_http_client(url, http_client=http)
            async with (
                http,
                Client(transport, mode="legacy", message_handler=on_message) as client,  # type: ignore[arg-type]
            ):
                tools = client.server_capabilities.tools
                assert tools is not None and tools.list_changed is True
                assert len((await client.list_tools()).tools) == 13
                started = await client.call_tool("games_start", {"gameId": "sim"})
                assert data(started)["code"] == "started_connected"
                await changed.wait()
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert "sim_example_echo" in names
                await client.call_tool("games_stop", {"gameId": "sim"})
