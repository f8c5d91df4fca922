"""A ``games_start`` the MCP client cancels (``notifications/cancelled``) once the game's process
is up: the game must stay the bridge's, running and stoppable, never a process nobody tracks
(which would also hold the game's port, so the next start failed ``endpoint_cache_in_use``).

The Go bridge never cancels a request: its start ends and is answered. Ours leaves the
cancelled request unanswered, as MCP asks, and carries the start through its verification
first. Either way the game is running and ``games_stop`` ends it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream

from .harness import ConfigDir, bridge_environment, process_alive, wait_gone
from .test_transports import INITIALIZE, INITIALIZED, call, line


class Answers:
    """The bridge's answers by id, read from its stdout as they come."""

    def __init__(self, stream: ByteReceiveStream) -> None:
        self.stream = stream
        self.buffer = b""
        self.by_id: dict[Any, dict[str, Any]] = {}

    async def wait_for(self, request_id: int) -> dict[str, Any]:
        while request_id not in self.by_id:
            self.buffer += await self.stream.receive()
            *lines, self.buffer = self.buffer.split(b"\n")
            for raw in lines:
                if raw.strip():
                    message = json.loads(raw)
                    self.by_id[message.get("id")] = message
        return self.by_id[request_id]


def structured(answer: dict[str, Any]) -> dict[str, Any]:
    data = answer["result"].get("structuredContent")
    assert isinstance(data, dict), answer
    return data


async def game_pid(config: ConfigDir) -> int:
    """The game's process id, as soon as the game reported it."""
    while (pid := config.game_pid("compat")) is None:  # noqa: ASYNC110 - a file the game writes
        await anyio.sleep(0.01)
    return pid


async def test_a_start_cancelled_once_the_game_runs_leaves_it_running_and_stoppable(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    config_dir.game("compat", timeouts={"startSeconds": 30, "stopGraceSeconds": 5})
    directory = config_dir.write()
    home = tmp_path / "home"
    home.mkdir()
    command = [*bridge_command, "server", "stdio", "--configDir", str(directory)]
    pid = 0
    try:
        with anyio.fail_after(90):
            async with await anyio.open_process(
                command, env=bridge_environment(home), stderr=subprocess.DEVNULL
            ) as process:
                assert process.stdin is not None and process.stdout is not None
                answers = Answers(process.stdout)
                await process.stdin.send(line(INITIALIZE) + line(INITIALIZED))
                await answers.wait_for(1)
                await process.stdin.send(line(call(2, "games_start", {"gameId": "compat"})))
                pid = await game_pid(config_dir)
                cancel = {"requestId": 2, "reason": "the user pressed stop"}
                await process.stdin.send(
                    line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
                )
                await anyio.sleep(3)  # the start's verification is over by now
                await process.stdin.send(line(call(3, "games_status", {"gameId": "compat"})))
                status = structured(await answers.wait_for(3))
                await process.stdin.send(line(call(4, "games_stop", {"gameId": "compat"})))
                stopped = structured(await answers.wait_for(4))
                await process.stdin.aclose()
                await process.wait()
        with anyio.fail_after(10):
            await wait_gone(pid)  # the stop ended the game
        assert status["status"] == "running", status
        assert stopped["code"] == "terminated", stopped
    finally:
        if pid and process_alive(pid):
            os.kill(pid, 9)
