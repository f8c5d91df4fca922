"""Checkpoint D: the real ``gabs`` executable as an MCP stdio server, driven by the SDK's client,
launching real game processes from a temporary config.

The games are lib_gab's example (attention on), its legacy example (no attention) and a small
game that can crash mid-call (``crashy_game.py``). The bridge hands each launch its port, token
and game id through the environment, as it would for a real game.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from gabp import generate_token
from gabs.mcp.call_results import call_view

GABS = Path(sys.executable).parent / "gabs"
HERE = Path(__file__).resolve().parent


def example(module: str = "lib_gab.example", **extra: Any) -> dict[str, Any]:
    return {
        "launchMode": "CustomCommand",
        "target": sys.executable,
        "args": ["-m", module],
        "timeouts": {"startSeconds": 20, "stopGraceSeconds": 3, "callSeconds": 10},
        **extra,
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


@asynccontextmanager
async def gabs_stdio(config_dir: Path, *, mode: str = "auto") -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=str(GABS),
        args=["serve", "--config-dir", str(config_dir), "--log-level", "WARNING"],
        env={"GABS_CONFIG_DIR": str(config_dir)},
    )
    async with Client(params, mode=mode, read_timeout_seconds=30) as client:  # type: ignore[arg-type]
        yield client


def data(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return call_view(result)


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def call(client: Client, name: str, /, **arguments: Any) -> types.CallToolResult:
    return await client.call_tool(name, arguments)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_start_discover_call_attention_ack_stop(tmp_path: Path, mode: str) -> None:
    write_config(tmp_path, {"example": example()})
    with anyio.fail_after(40):
        async with gabs_stdio(tmp_path, mode=mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"games_list", "games_call_tool", "games_ack_attention"} <= names

            listed = await call(client, "games_list")
            assert data(listed)["games"][0]["gameId"] == "example"  # the short list, as in Go
            before = await call(client, "games_status", gameId="example")
            assert data(before)["status"] == "stopped"

            started = await call(client, "games_start", gameId="example")
            assert not started.is_error, text(started)
            assert data(started)["code"] == "started_connected"

            found = await call(client, "games_tool_names", gameId="example")
            assert {"example/echo", "example/fail"} <= {t["gabpName"] for t in data(found)["tools"]}
            detail = await call(client, "games_tool_detail", tool="example/fail")
            assert "blocking" in data(detail)["inputSchema"]["properties"]

            echo = await call(
                client,
                "games_call_tool",
                tool="example/echo",
                arguments={"text": "Grüße, 世界 🎮"},
            )
            assert not echo.is_error
            assert data(echo)["result"] == {"text": "Grüße, 世界 🎮"}
            assert "Grüße, 世界 🎮" in text(echo)

            failed = await call(
                client,
                "games_call_tool",
                tool="example/fail",
                arguments={"message": "Raid destroyed the storage", "blocking": True},
            )
            assert not failed.is_error
            outcome = data(failed)
            assert (outcome["executed"], outcome["attentionRelation"]) == (True, "caused_by_call")
            attention_id = outcome["attention"]["attentionId"]
            assert "Raid destroyed the storage" in text(failed) and attention_id in text(failed)

            blocked = await call(
                client, "games_call_tool", tool="example/fail", arguments={"message": "again"}
            )
            assert blocked.is_error
            assert (data(blocked)["executed"], data(blocked)["code"]) == (
                False,
                "blocked_by_attention",
            )
            assert data(blocked)["attentionId"] == attention_id

            inspected = await call(client, "games_get_attention", gameId="example")
            assert data(inspected)["attention"]["attentionId"] == attention_id
            status = await call(client, "games_status", gameId="example")
            assert data(status)["attention"]["attentionId"] == attention_id

            acked = await call(
                client, "games_ack_attention", gameId="example", attentionId=attention_id
            )
            assert data(acked)["acknowledged"] is True
            retried = await call(
                client, "games_call_tool", tool="example/echo", arguments={"text": "weiter"}
            )
            assert not retried.is_error and data(retried)["result"] == {"text": "weiter"}

            stopped = await call(client, "games_stop", gameId="example")
            assert data(stopped)["code"] == "terminated"
            after = await call(client, "games_status", gameId="example")
            assert data(after)["status"] in ("stopped", "stale-runtime-cleaned")
    log = tmp_path / "example" / "launch.log"
    assert log.exists()


async def test_a_legacy_game_without_attention_works(tmp_path: Path) -> None:
    write_config(tmp_path, {"legacy": example("lib_gab.legacy_example")})
    with anyio.fail_after(30):
        async with gabs_stdio(tmp_path) as client:
            started = await call(client, "games_start", gameId="legacy")
            assert not started.is_error, text(started)
            attention = await call(client, "games_get_attention", gameId="legacy")
            assert data(attention)["supported"] is False
            echo = await call(
                client, "games_call_tool", tool="example/echo", arguments={"text": "ñ"}
            )
            assert data(echo)["result"] == {"text": "ñ"}
            counted = await call(
                client, "games_call_tool", tool="example/count", arguments={"times": 2}
            )
            assert data(counted)["result"] == 2
            status = await call(client, "games_status", gameId="legacy")
            assert data(status)["attention"]["supported"] is False
            await call(client, "games_stop", gameId="legacy")


async def test_a_game_crashing_mid_call_is_unknown_then_exited(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        {
            "crashy": {
                **example(),
                "args": [str(HERE / "crashy_game.py")],
            }
        },
    )
    with anyio.fail_after(40):
        async with gabs_stdio(tmp_path) as client:
            started = await call(client, "games_start", gameId="crashy")
            assert not started.is_error, text(started)
            crashed = await call(client, "games_call_tool", tool="crashy/crash")
            assert crashed.is_error
            assert (data(crashed)["executed"], data(crashed)["status"]) == ("unknown", "unknown")
            assert "UNKNOWN" in text(crashed)
            while True:
                status = data(await call(client, "games_status", gameId="crashy"))
                if status["status"] in ("stopped", "stale-runtime-cleaned"):
                    break
                await anyio.sleep(0.1)
            assert status["process"]["exitCode"] == 3
            refused = await call(
                client,
                "games_call_tool",
                gameId="crashy",
                tool="crashy/echo",
                arguments={"text": "x"},
            )
            assert refused.is_error and data(refused)["executed"] is False
            # and it can be started again
            again = await call(client, "games_start", gameId="crashy")
            assert data(again)["code"] == "started_connected", text(again)
            echo = await call(
                client, "games_call_tool", tool="crashy/echo", arguments={"text": "back"}
            )
            assert data(echo)["result"] == {"text": "back"}
            await call(client, "games_kill", gameId="crashy")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def external_game(port: int, token: str) -> AsyncIterator[None]:
    env = {**os.environ, "GABS_GAME_ID": "outside"}
    for key in ("GABP_SERVER_PORT", "GABP_TOKEN"):
        env.pop(key, None)
    async with await anyio.open_process(
        [sys.executable, "-m", "lib_gab.example", "--port", str(port), "--token", token],
        env=env,
        stdout=None,
    ) as process:
        assert process.stderr is not None
        seen = b""
        while b"listening on" not in seen:
            seen += await process.stderr.receive()
        try:
            yield
        finally:
            process.kill()
            await process.wait()


async def test_the_bridge_reconnects_to_a_restarted_game(tmp_path: Path) -> None:
    write_config(tmp_path, {"outside": {"launchMode": "SteamAppId", "target": "294100"}})
    port, token = _free_port(), generate_token()
    with anyio.fail_after(40):
        async with gabs_stdio(tmp_path) as client:
            async with external_game(port, token):
                connected = await call(
                    client, "games_connect", gameId="outside", port=port, token=token
                )
                assert data(connected)["connected"] is True, text(connected)
                first = await call(
                    client, "games_call_tool", tool="example/echo", arguments={"text": "1"}
                )
                assert data(first)["result"] == {"text": "1"}
            # the game is gone; it comes back on the same port with the same token
            async with external_game(port, token):
                while True:
                    status = data(await call(client, "games_status", gameId="outside"))
                    connection = status["connection"] or {}
                    if connection.get("state") == "connected" and connection.get("reconnects"):
                        break
                    await anyio.sleep(0.1)
                second = await call(
                    client, "games_call_tool", tool="example/echo", arguments={"text": "2"}
                )
                assert data(second)["result"] == {"text": "2"}
                refused = await call(client, "games_start", gameId="outside")
                assert data(refused)["code"] == "already_running", text(refused)
