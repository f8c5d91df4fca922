"""Checkpoint F security: tokens, loopback binds, the HTTP guard, secret files, and logs.

* lib_gab and the real ``rimbridge-sim`` refuse a wrong or missing token with ``-31000`` and
  close the connection;
* a non-loopback bind is refused (``GabpServer(host="0.0.0.0")``; ``gabs serve --transport
  http --host 0.0.0.0`` without ``--allow-remote`` exits 2);
* Streamable HTTP answers 401 without the bearer token and 403 to a foreign Origin;
* secret files are mode 0600: the launcher's ``bridge.json``, the generated ``http-token``,
  anything written with ``gabp.write_secret_file``;
* neither the launch token nor the HTTP token appears in gabs's stderr (at DEBUG), the game's
  log file or the captured logs of an in-process bridge.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from gabp import Connection, RemoteError, generate_token, write_secret_file
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.mcp.call_results import call_view
from gabs.transports.http import resolve_token
from lib_gab import GabpServer, ServerConfigError
from lib_gab.server import ServerAddress
from lib_gab.testing import hello_params

BIN = Path(sys.executable).parent
GABS = BIN / "gabs"
RIMBRIDGE_SIM = BIN / "rimbridge-sim"
LISTENING = re.compile(rb"listening on 127\.0\.0\.1:(\d+)")
AUTH_FAILED = -31000
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


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def data(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return call_view(result)


async def refused_hello(address: ServerAddress, params: dict[str, Any]) -> RemoteError:
    """Say hello with ``params``; return the error and check the game closed the connection."""
    assert address.host is not None and address.port is not None
    stream = await anyio.connect_tcp(address.host, address.port)
    async with Connection(stream, name="intruder") as connection:
        with pytest.raises(RemoteError) as refused:
            await connection.request("session/hello", params, timeout=5)
        assert await connection.wait_closed(timeout=5), "the connection stayed open"
        with pytest.raises(Exception):  # noqa: B017 (any refusal: the session never started)
            await connection.request("tools/list", timeout=2)
    return refused.value


def bad_hellos(token: str) -> dict[str, dict[str, Any]]:
    wrong = hello_params(token)
    wrong["token"] = generate_token()
    missing = hello_params(token)
    del missing["token"]
    short = hello_params(token)
    short["token"] = token[:8]
    prefixed = hello_params(token)
    prefixed["token"] = token + "0"
    return {"wrong": wrong, "missing": missing, "short": short, "longer": prefixed}


async def test_lib_gab_refuses_wrong_and_missing_tokens_and_closes() -> None:
    token = generate_token()
    server = GabpServer(app_name="Sec", app_version="1", agent_id="sec", token=token)
    server.enable_attention()
    with anyio.fail_after(30):
        async with server.running() as address:
            for name, params in bad_hellos(token).items():
                error = await refused_hello(address, params)
                assert error.code == AUTH_FAILED, name
                assert token not in error.message and token not in json.dumps(error.data)
            # a request before any hello is refused too (session not established)
            assert address.port is not None
            stream = await anyio.connect_tcp("127.0.0.1", address.port)
            async with Connection(stream, name="early") as early:
                with pytest.raises(RemoteError) as not_yet:
                    await early.request("tools/list", timeout=5)
                assert not_yet.value.code == -31001


async def test_rimbridge_sim_refuses_wrong_and_missing_tokens_and_closes(tmp_path: Path) -> None:
    token = generate_token()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GABP_", "GABS_"))}
    command = [str(RIMBRIDGE_SIM), "--port", "0", "--log-level", "WARNING"]
    command += ["--data-dir", str(tmp_path)]
    with anyio.fail_after(40):
        async with await anyio.open_process(
            command, env={**clean, "GABP_TOKEN": token}, stdin=None, stdout=None
        ) as process:
            assert process.stderr is not None
            seen = b""
            while (found := LISTENING.search(seen)) is None:
                seen += await process.stderr.receive()
            address = ServerAddress("tcp", "127.0.0.1", int(found.group(1)))
            try:
                for name, params in bad_hellos(token).items():
                    error = await refused_hello(address, params)
                    assert error.code == AUTH_FAILED, name
            finally:
                process.terminate()
                await process.wait()
    assert token.encode() not in seen


def test_a_non_loopback_bind_is_refused_by_lib_gab() -> None:
    for host in ("0.0.0.0", "::", "192.168.1.10", "localhost.evil.example"):
        with pytest.raises(ServerConfigError, match="loopback"):
            GabpServer(app_name="x", app_version="1", agent_id="x", token="0" * 64, host=host)


async def test_gabs_http_refuses_a_non_loopback_bind_without_allow_remote(tmp_path: Path) -> None:
    (tmp_path / "http-token").write_text(generate_token())
    for host in ("0.0.0.0", "::"):
        with anyio.fail_after(20):
            result = await anyio.run_process(
                [
                    *(str(GABS), "serve", "--transport", "http", "--host", host),
                    *("--port", "0", "--config-dir", str(tmp_path)),
                ],
                check=False,
            )
        assert result.returncode == 2, result
        assert b"--allow-remote" in result.stderr


def test_secret_files_are_written_mode_0600(tmp_path: Path) -> None:
    target = tmp_path / "secret.json"
    target.write_text("old")
    target.chmod(0o644)
    previous = os.umask(0)
    try:
        write_secret_file(target, b'{"token": "x"}')
        write_secret_file(tmp_path / "fresh" / "secret", b"x")
    finally:
        os.umask(previous)
    assert (mode(target), target.read_bytes()) == (0o600, b'{"token": "x"}')
    assert mode(tmp_path / "fresh" / "secret") == 0o600
    # the HTTP token the bridge generates when none is configured
    config = GabsConfig(tmp_path / "bridge")
    secret, configured, path = resolve_token(config)
    assert (configured, path) == (False, tmp_path / "bridge" / "http-token")
    assert path is not None and mode(path) == 0o600 and path.read_text().strip() == secret
    assert len(secret) == 64


def write_config(config_dir: Path) -> None:
    config = {
        "version": "1.0",
        "games": {
            "rimworld": {
                "id": "rimworld",
                "name": "RimWorld (sim)",
                "launchMode": "DirectPath",
                "target": str(RIMBRIDGE_SIM),
                "args": ["--enable-test-tools", "--log-level", "DEBUG", "--tick-rate", "0"],
                "timeouts": {"startSeconds": 20, "stopGraceSeconds": 5},
            }
        },
    }
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")


@asynccontextmanager
async def gabs_http(config_dir: Path, port: int) -> AsyncIterator[bytearray]:
    """``gabs serve --transport http`` at DEBUG; yields its (growing) stderr."""
    env = {k: v for k, v in os.environ.items() if k != "GABS_HTTP_TOKEN"}
    command = [str(GABS), "serve", "--transport", "http", "--port", str(port)]
    command += ["--config-dir", str(config_dir), "--log-level", "DEBUG"]
    stderr = bytearray()
    async with (
        await anyio.open_process(command, env=env, stdin=None, stdout=None) as process,
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
                        probe = await anyio.connect_tcp("127.0.0.1", port)
                    except OSError:
                        assert process.returncode is None, stderr.decode()
                        await anyio.sleep(0.05)
                        continue
                    await probe.aclose()
                    break
            yield stderr
        finally:
            process.terminate()
            with anyio.move_on_after(15):
                await process.wait()
            if process.returncode is None:
                process.kill()
            tg.cancel_scope.cancel()


async def test_http_guard_and_no_token_in_any_log(tmp_path: Path) -> None:
    http_token = generate_token()
    write_config(tmp_path)
    token_file = tmp_path / "http-token"
    token_file.write_text(http_token + "\n")
    token_file.chmod(0o600)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with anyio.fail_after(60):
        async with gabs_http(tmp_path, port) as stderr:
            async with httpx2.AsyncClient() as http:
                missing = await http.post(url, json=INIT, headers=MCP_HEADERS)
                assert missing.status_code == 401
                wrong = await http.post(
                    url,
                    json=INIT,
                    headers={**MCP_HEADERS, "Authorization": f"Bearer {generate_token()}"},
                )
                assert wrong.status_code == 401
                basic = await http.post(
                    url, json=INIT, headers={**MCP_HEADERS, "Authorization": f"Basic {http_token}"}
                )
                assert basic.status_code == 401
                authorized = {**MCP_HEADERS, "Authorization": f"Bearer {http_token}"}
                for origin in ("https://evil.example", "http://127.0.0.1.evil.example", "null"):
                    foreign = await http.post(
                        url, json=INIT, headers={**authorized, "Origin": origin}
                    )
                    assert foreign.status_code == 403, origin
                assert http_token not in (missing.text + wrong.text + foreign.text)

            client_http = create_mcp_http_client(headers={"Authorization": f"Bearer {http_token}"})
            async with (
                client_http,
                Client(streamable_http_client(url, http_client=client_http)) as client,  # type: ignore[arg-type]
            ):
                started = await client.call_tool("games_start", {"gameId": "rimworld"})
                assert data(started)["code"] == "started_connected", started
                bridge_file = tmp_path / "rimworld" / "bridge.json"
                assert mode(bridge_file) == 0o600
                launch_token = json.loads(bridge_file.read_text(encoding="utf-8"))["token"]
                injected = await client.call_tool(
                    "games_call_tool",
                    {
                        "tool": "sim/inject_log",
                        "arguments": {
                            "level": "error",
                            "message": "NullReferenceException in ColonistBar.ColonistBarOnGUI",
                            "source": "ui",
                            "count": 500,
                        },
                    },
                )
                blocked = await client.call_tool(
                    "games_call_tool", {"tool": "rimworld/list_colonists"}
                )
                assert data(injected)["executed"] is True
                await client.call_tool("games_get_attention", {"gameId": "rimworld"})
                shown = await client.call_tool("games_show", {"gameId": "rimworld"})
                status = await client.call_tool("games_status", {})
                for result in (started, blocked, shown, status):
                    dumped = result.model_dump_json()
                    assert launch_token not in dumped and http_token not in dumped
                await client.call_tool("games_stop", {"gameId": "rimworld"})
        log = (tmp_path / "rimworld" / "launch.log").read_text(encoding="utf-8", errors="replace")
        assert "DEBUG" in log  # the game logged at DEBUG, into this file
        assert "gabs" in stderr.decode() and "DEBUG" in stderr.decode()
        for secret in (launch_token, http_token):
            assert secret not in stderr.decode(errors="replace")
            assert secret not in log
        assert mode(tmp_path / "rimworld" / "launch.log") == 0o600


async def test_an_in_process_bridge_never_logs_the_token(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    token = generate_token()
    game = GabpServer(app_name="Sec", app_version="1", agent_id="sec", token=token)
    game.enable_attention()

    @game.tool("sec/echo", description="Echo.")
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    config = GabsConfig.from_json(
        {
            "version": "1.0",
            "games": {
                "sec": {"id": "sec", "name": "Sec", "launchMode": "SteamAppId", "target": "1"}
            },
        },
        config_dir=tmp_path,
    )
    caplog.set_level(logging.DEBUG)
    notifier = ToolListNotifier()
    with anyio.fail_after(30):
        async with AsyncExitStack() as stack:
            address = await stack.enter_async_context(game.running())
            manager = await stack.enter_async_context(
                GameManager(config, on_tools_changed=notifier, liveness_interval=3600)
            )
            client = await stack.enter_async_context(
                Client(build_server(manager, notifier=notifier))
            )
            refused = await client.call_tool(
                "games_connect", {"gameId": "sec", "port": address.port, "token": token[::-1]}
            )
            assert refused.is_error
            connected = await client.call_tool(
                "games_connect", {"gameId": "sec", "port": address.port, "token": token}
            )
            assert data(connected)["connected"] is True
            echoed = await client.call_tool(
                "games_call_tool", {"tool": "sec/echo", "arguments": {"text": "hi"}}
            )
            assert data(echoed)["result"] == {"text": "hi"}
            for result in (refused, connected, echoed):
                assert token not in result.model_dump_json()
                assert token[::-1] not in result.model_dump_json()
    assert caplog.records, "nothing was logged at DEBUG"
    assert token not in caplog.text and token[::-1] not in caplog.text
