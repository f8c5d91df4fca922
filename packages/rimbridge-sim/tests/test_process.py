"""The real ``rimbridge-sim`` executable: GABS handoff, flags, token, signals."""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.text import TextReceiveStream

from lib_gab import ServerAddress
from lib_gab.testing import bridge_session

EXECUTABLE = Path(sys.executable).parent / "rimbridge-sim"
TOKEN = "ab12" * 16
LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
GENERATED = re.compile(r"generated bridge token \(give it to your bridge as GABP_TOKEN\): (\w+)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def launched(
    args: list[str], env: dict[str, str]
) -> AsyncIterator[tuple[anyio.abc.Process, int, str]]:
    """Start the process; yield it with its port and the stderr read until it listened."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GABP_", "GABS_"))}
    process = await anyio.open_process(
        [str(EXECUTABLE), "--log-level", "WARNING", *args],
        env={**clean, **env},
        stdin=None,
        stdout=None,
    )
    try:
        assert process.stderr is not None
        text = ""
        with anyio.fail_after(10):
            async for chunk in TextReceiveStream(process.stderr):
                text += chunk
                found = LISTENING.search(text)
                if found:
                    break
        assert found, text
        yield process, int(found.group(1)), text
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.fail_after(5), anyio.CancelScope(shield=True):
            await process.wait()


async def stopped(process: anyio.abc.Process, signum: int) -> int:
    process.send_signal(signum)
    with anyio.fail_after(5):
        return await process.wait()


async def test_the_process_takes_port_token_and_agent_id_from_the_gabs_environment() -> None:
    port = free_port()
    env = {"GABP_SERVER_PORT": str(port), "GABP_TOKEN": TOKEN, "GABS_GAME_ID": "colony-7"}
    async with launched(["--seed", "3"], env) as (process, bound, stderr):
        assert bound == port
        assert TOKEN not in stderr
        address = ServerAddress("tcp", host="127.0.0.1", port=port)
        async with bridge_session(address, TOKEN, hello=False) as conn:
            from lib_gab.testing import hello_params

            hello = await conn.request("session/hello", hello_params(TOKEN), timeout=5)
            assert hello["agentId"] == "colony-7"
            assert {"attention/current", "attention/ack"} <= set(hello["capabilities"]["methods"])
            # the Go bridge sends `parameters`
            info: Any = await conn.request(
                "tools/call",
                {"name": "rimworld/get_game_info", "parameters": {}},
                timeout=5,
            )
            assert (info["phase"], info["mapId"]) == ("playing", "Map_1")
            speed = await conn.request(
                "tools/call",
                {"name": "rimworld/set_time_speed", "parameters": {"speed": "Fast"}},
                timeout=5,
            )
            assert (speed["success"], speed["timeSpeed"]) == (True, "Fast")
            assert speed["operation"]["CapabilityId"] == "rimbridge.core/lifecycle/set-time-speed"
        assert await stopped(process, signal.SIGTERM) == 0


async def test_without_a_token_the_process_generates_and_prints_one(tmp_path: Path) -> None:
    args = ["--port", "0", "--no-start-game", "--enable-test-tools", "--data-dir", str(tmp_path)]
    async with launched(args, {}) as (process, port, stderr):
        found = GENERATED.search(stderr)
        assert found, stderr
        token = found.group(1)
        assert len(token) >= 32
        address = ServerAddress("tcp", host="127.0.0.1", port=port)
        async with bridge_session(address, token) as conn:
            info = await conn.request(
                "tools/call", {"name": "rimworld/get_game_info", "arguments": {}}, timeout=5
            )
            assert info["phase"] == "main_menu"
            names = {t["name"] for t in (await conn.request("tools/list", {}))["tools"]}
            assert "sim/stall" in names
        assert await stopped(process, signal.SIGINT) == 0


async def test_a_bad_policy_exits_with_a_configuration_error() -> None:
    process = await anyio.run_process(
        [str(EXECUTABLE), "--policy", "no-such-policy", "--token", TOKEN],
        check=False,
    )
    assert process.returncode == 2
    assert b"no such policy" in process.stderr


async def test_a_port_in_use_exits_with_one_line_that_says_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await anyio.run_process(
            [str(EXECUTABLE), "--port", str(port), "--token", TOKEN, "--no-start-game"],
            check=False,
        )
    assert process.returncode == 2
    stderr = process.stderr.decode()
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        f"rimbridge-sim: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
