"""Behaviours the Go bridge's own reconnect tests pin (GABS 1.1.0,
``internal/mcp/reconnect_test.go``), checked against ``gabs``. The expected values are the Go
bridge's, observed side by side on the same claim and pinned here (the Go binary is not needed).

* ``TestGamesConnectDiagnosesMissingBridgeEnvironmentWithoutDialing``: a store-launched game
  (``SteamManaged``, ``SteamAppId``, ``EpicAppId``) whose running process can be read and lacks
  a usable ``GABP_SERVER_PORT``/``GABP_TOKEN`` pair is refused by ``games_connect`` at once,
  ``endpoint_unavailable`` with ``Failed to resolve live GABP endpoint for '<id>': <why>``,
  without dialling the claim's endpoint (``gabs`` dialled it for the whole timeout before). A
  game started directly is dialled as before.
* ``TestGamesCallToolCanInferGameFromQualifiedName``: a tool a game lists as
  ``corebridge.core/ping`` is called as ``adventure.corebridge.core.ping`` without ``gameId``,
  and reaches the game under its GABP name ``corebridge/core/ping`` (dots read as slashes, the
  ``gabpName`` discovery shows); ``gabs`` sent the listed spelling before.
* ``TestConnectorClosesConnectionWhenClaimVanishesDuringHandshake``: a ``games_connect``
  whose claim is removed while the hello is in flight closes the connection and mirrors
  nothing (``operation_in_progress``; ``stale_bridge_credential`` when the claim was replaced
  by one with another endpoint; bound to a replacement with the same endpoint). ``gabs``
  reported it connected and served the game's tools, bound to no claim, before.
* ``TestStartSupersededDuringStage4EmitsStableCode``, ``TestStartUnobservedSuperseded...``: a
  start whose claim another launch took over while it ran is judged by the claim there is now,
  with Go's codes and texts: ``already_running`` (a successor is active),
  ``operation_in_progress`` (the claim is gone, or the successor is in a step) or
  ``blocked_unknown_state``; ``gabs`` answered ``operation_in_progress`` whatever the successor.
* A connect to a game whose launch was adopted (the bridge's own child was only the launcher,
  and has exited) keeps dialling while the claim's workload runs, as Go does; it answered ``the
  game process exited`` at once before.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gabs.config import GabsConfig, GameConfig
from gabs.games_runtime import GameRuntime
from gabs.launch.spawn import SpawnedGame
from gabs.runtime import RuntimeState
from gabs.runtime.procs import process_start_time
from gabs_test_support import mcp_client
from lib_gab import GabpServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process environments")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def workload() -> Iterator[subprocess.Popen[bytes]]:
    """A running process whose environment has none of the bridge's variables."""
    child = sleeper()
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def sleeper(**bridge: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABP_", "GABS_"))}
    return subprocess.Popen(["sleep", "60"], env={**env, **bridge})


def write_claim(
    config_dir: Path, pid: int, port: int, mode: str, token: str = "claim-token"
) -> None:
    """A running claim with an endpoint, its workload ``pid`` (as the Go test seeds it)."""
    claim = {
        "gameId": "g",
        "status": "running",
        "ownerPid": 0,
        "updatedAt": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "schemaVersion": 2,
        "launchId": "cd" * 16,
        "generation": 1,
        "phase": "active",
        "spawnState": "spawned",
        "source": "gabs",
        "launchMode": mode,
        "gamePid": pid,
        "pidStartTime": process_start_time(pid),
        "pidRole": "workload",
        "endpoint": {"port": port, "token": token},
    }
    folder = config_dir / "g"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runtime.json").write_text(json.dumps(claim), encoding="utf-8")


@asynccontextmanager
async def client_for(
    tmp_path: Path, mode: str, target: str, args: list[str] | None = None
) -> AsyncIterator[Client]:
    game = {"id": "g", "name": "G", "launchMode": mode, "target": target, "args": args or []}
    games = {"g": game}
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


async def connect(client: Client, timeout: int) -> tuple[bool, dict[str, Any], str, float]:
    began = time.monotonic()
    result = await client.call_tool("games_connect", {"gameId": "g", "timeout": timeout})
    took = time.monotonic() - began
    assert isinstance(result.structured_content, dict), result
    text = "".join(getattr(part, "text", "") for part in result.content)
    return bool(result.is_error), result.structured_content, text, took


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("mode", "target"),
    [("SteamManaged", "123456"), ("SteamAppId", "123456"), ("EpicAppId", "Falcon")],
)
async def test_connect_diagnoses_a_store_game_without_the_bridge_environment(
    tmp_path: Path, workload: subprocess.Popen[bytes], mode: str, target: str
) -> None:
    write_claim(tmp_path, workload.pid, unused_port(), mode)
    async with client_for(tmp_path, mode, target) as client:
        error, data, text, took = await connect(client, timeout=5)
    assert error, text
    assert data["code"] == "endpoint_unavailable", text
    assert data["causeClass"] == "environment", text
    assert [a["tool"] for a in data["nextActions"]] == ["games_status", "games_start"]
    assert text.startswith("Failed to resolve live GABP endpoint for 'g': "), text
    assert "GABP_SERVER_PORT/GABP_TOKEN" in text
    assert "Failed to connect to GABP server" not in text
    assert took < 3, f"diagnosed without dialling, took {took:.1f}s"


@pytest.mark.anyio
async def test_connect_attaches_when_the_process_carries_the_claim_s_endpoint(
    tmp_path: Path,
) -> None:
    """``TestGamesConnectCorroboratesProcessEnvironmentWithClaim``: the process environment
    corroborates the claim's credential (its ``GABS_GAME_ID`` is not looked at then)."""
    token = "t" * 64
    server = GabpServer(app_name="G", app_version="1", agent_id="g", token=token)
    async with server.running() as address:
        child = sleeper(
            GABP_SERVER_PORT=str(address.port), GABP_TOKEN=token, GABS_GAME_ID="another"
        )
        try:
            write_claim(tmp_path, child.pid, address.port, "SteamManaged", token)
            async with client_for(tmp_path, "SteamManaged", "123456") as client:
                error, _, text, _ = await connect(client, timeout=5)
        finally:
            child.kill()
            child.wait()
    assert not error, text
    assert f"port {address.port}" in text, text


@pytest.mark.anyio
async def test_connect_dials_a_direct_game_whatever_its_environment(
    tmp_path: Path, workload: subprocess.Popen[bytes]
) -> None:
    """Go diagnoses the store launch modes only: a direct launch is dialled and times out."""
    port = unused_port()
    write_claim(tmp_path, workload.pid, port, "DirectPath")
    async with client_for(tmp_path, "DirectPath", "/bin/sleep") as client:
        error, data, text, _ = await connect(client, timeout=1)
    assert error, text
    assert data["code"] == "blocked_unknown_state", text
    assert text.startswith(f"Failed to connect to GABP server for 'g' on port {port} after 1s"), (
        text
    )


def claim_for(pid: int, role: str) -> RuntimeState:
    state = RuntimeState(game_id="g", status="running")
    state.game_pid, state.pid_start_time, state.pid_role = pid, process_start_time(pid), role
    return state


def exited_launcher(tmp_path: Path) -> SpawnedGame:
    popen = subprocess.Popen(["true"])
    popen.wait()
    return SpawnedGame(popen=popen, argv=("true",), log_path=tmp_path / "log", started_at=0.0)


def test_an_adopted_launch_is_alive_while_its_workload_runs(
    tmp_path: Path, workload: subprocess.Popen[bytes]
) -> None:
    runtime = GameRuntime("g", GameConfig(id="g"), spawned=exited_launcher(tmp_path))
    alive = runtime.liveness(claim_for(workload.pid, "workload"))
    assert alive is not None and alive()
    # A launcher's claim (``helper``) tells nothing: the connect dials until its timeout.
    assert runtime.liveness(claim_for(workload.pid, "helper")) is None
    workload.kill()
    workload.wait()
    assert not alive()


def test_a_direct_launch_without_a_claim_is_its_own_child(tmp_path: Path) -> None:
    runtime = GameRuntime("g", GameConfig(id="g"), spawned=exited_launcher(tmp_path))
    alive = runtime.liveness(None)
    assert alive is not None and not alive()
    assert GameRuntime("g", None).liveness(None) is None


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def read_frame(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    length = 0
    while line := (await reader.readline()).strip():
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if not length:
        return None
    message: dict[str, Any] = json.loads(await reader.readexactly(length))
    return message


@asynccontextmanager
async def raw_game(
    tools: list[str], called: list[str], on_hello: Callable[[], None] = lambda: None
) -> AsyncIterator[int]:
    """A GABP game on raw sockets, as the Go tests' fake servers: it lists ``tools``, records
    the names it is called by in ``called`` and answers ``pong`` to ``corebridge/core/ping``;
    ``on_hello`` runs while the hello is in flight. Yields its port."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (request := await read_frame(reader)) is not None:
            method, params = request.get("method"), request.get("params") or {}
            result: dict[str, Any]
            if method == "session/hello":
                on_hello()
                result = {"agentId": "g", "app": {"name": "G", "version": "0.1.0"},
                          "capabilities": {"methods": ["tools/list", "tools/call"]},
                          "schemaVersion": "1.0"}  # fmt: skip
            elif method == "tools/list":
                schema = {"type": "object", "properties": {}}
                result = {"tools": [{"name": name, "inputSchema": schema} for name in tools]}
            else:
                called.append(str(params.get("name")))
                result = {"text": "pong"} if called[-1] == "corebridge/core/ping" else {}
            reply = {"v": "gabp/1", "id": request["id"], "type": "response", "result": result}
            writer.write(frame(reply))
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    async with server:
        yield int(server.sockets[0].getsockname()[1])


@pytest.mark.anyio
async def test_a_dotted_tool_is_called_by_its_gabp_name(
    tmp_path: Path, workload: subprocess.Popen[bytes]
) -> None:
    """The fake game of ``serveTestGabpSessionWithToolCalls``: it lists
    ``corebridge.core/ping`` and answers ``pong`` to ``corebridge/core/ping`` only."""
    called: list[str] = []
    async with raw_game(["corebridge.core/ping"], called) as port:
        write_claim(tmp_path, workload.pid, port, "DirectPath")
        async with client_for(tmp_path, "DirectPath", "/bin/sleep") as client:
            error, _, text, _ = await connect(client, timeout=5)
            assert not error, text
            result = await client.call_tool("games_call_tool", {"tool": "g.corebridge.core.ping"})
            status = await client.call_tool("games_status", {"gameId": "g"})
    assert not result.is_error, result
    assert result.structured_content == {"text": "pong"}
    assert called == ["corebridge/core/ping"]
    # ``TestGamesConnectCanReattachUsingBridgeConfigWithoutTrackedProcess``
    assert "connected via GABP" in "".join(getattr(p, "text", "") for p in status.content)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("change", "code"),
    [("remove", "operation_in_progress"), ("token", "stale_bridge_credential"), ("launch", None)],
)
async def test_a_claim_changed_during_the_handshake_is_not_served_unbound(
    tmp_path: Path, workload: subprocess.Popen[bytes], change: str, code: str | None
) -> None:
    """``TestConnectorClosesConnectionWhenClaimVanishesDuringHandshake``: a connection whose
    claim is removed while the hello is in flight is closed and mirrors no tools
    (``operation_in_progress``); a claim replaced by one with another endpoint is
    ``stale_bridge_credential``; one replaced with the same endpoint is bound (as Go binds it)."""
    claim_file = tmp_path / "g" / "runtime.json"

    def on_hello() -> None:
        if change == "remove":
            claim_file.unlink()
            return
        claim = json.loads(claim_file.read_text(encoding="utf-8"))
        claim["launchId"] = "ef" * 16
        if change == "token":
            claim["endpoint"]["token"] = "another-launch-token"
        claim_file.write_text(json.dumps(claim), encoding="utf-8")

    async with raw_game(["corebridge/core/ping"], [], on_hello) as port:
        write_claim(tmp_path, workload.pid, port, "DirectPath")
        async with client_for(tmp_path, "DirectPath", "/bin/sleep") as client:
            error, data, text, _ = await connect(client, timeout=5)
            names = await client.call_tool("games_tool_names", {"gameId": "g"})
            kept = json.loads(claim_file.read_text()) if claim_file.exists() else {}
    assert isinstance(names.structured_content, dict)
    if code is None:
        assert not error, text
        assert names.structured_content["total"] == 1
        assert kept["launchId"] == "ef" * 16 and kept["attachment"], kept
        return
    assert error, text
    assert data["code"] == code, text
    assert data["nextActions"][0]["tool"] == "games_status"
    assert names.structured_content["total"] == 0, "no tools without a bound connection"


#: A game that takes its own claim over as another launch would, then keeps running.
SUCCESSOR = """
import json, os, sys, time
claim = os.path.join(sys.argv[1], "g", "runtime.json")
time.sleep(0.3)
state = json.load(open(claim))
state["launchId"] = "ef" * 16
change = sys.argv[2]
if change == "active":
    state.update(phase="active", status="running")
    state.pop("operation", None)
elif change == "starting":
    state.pop("operation", None)
with open(claim + ".new", "w") as out:
    json.dump(state, out)
os.replace(claim + ".new", claim)
if change == "remove":
    os.remove(claim)
time.sleep(30)
"""


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("change", "code", "tail", "error"),
    [
        ("active", "already_running", "; a successor launch is active", False),
        (
            "remove",
            "operation_in_progress",
            " and the successor has since finished; re-check games_status",
            False,
        ),
        (
            "starting",
            "blocked_unknown_state",
            "; a successor claim exists in phase starting — re-check games_status",
            True,
        ),
        (
            "operation",
            "operation_in_progress",
            "; a successor start operation is in progress",
            False,
        ),
    ],
)
async def test_a_superseded_start_is_judged_by_the_successor(
    tmp_path: Path, change: str, code: str, tail: str, error: bool
) -> None:
    script = tmp_path / "successor.py"
    script.write_text(SUCCESSOR, encoding="utf-8")
    args = [str(script), str(tmp_path), change]
    async with client_for(tmp_path, "DirectPath", sys.executable, args) as client:
        result = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
        await client.call_tool("games_kill", {"gameId": "g"})
    data = result.structured_content
    assert isinstance(data, dict), result
    text = "".join(getattr(part, "text", "") for part in result.content)
    assert data["code"] == code, text
    assert bool(result.is_error) is error, text
    assert text.startswith(f"the launch of 'g' was superseded during startup{tail}"), text
    # startRefusalResult's next actions, by code
    reasons = {
        "already_running": [
            ("games_status", "Inspect the active instance."),
            ("games_stop", "Stop it first if the other profile is needed."),
        ],
        "operation_in_progress": [
            ("games_status", "Re-check once the in-flight operation finishes.")
        ],
        "blocked_unknown_state": [
            (
                "games_status",
                "Gather evidence; use repair --forget-runtime only if the instance is provably "
                "gone.",
            )
        ],
    }
    assert [(a["tool"], a["reason"]) for a in data["nextActions"]] == reasons[code]
    assert all(a["arguments"] == {"gameId": "g"} for a in data["nextActions"])
    if change == "active":
        assert data["phase"] == "active" and data["activeProfile"] == ""
    if change == "operation":
        assert data["operation"]["action"] == "start", data
        assert data["phase"] == "starting" and "activeProfile" not in data, data
