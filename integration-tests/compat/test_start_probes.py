"""A start holds its claim before it asks the status hooks whether the game already runs: a
second start from another process meanwhile is ``operation_in_progress`` and runs no hook. A
launcher that ends while the bridge waits for the game's GABP server, its game still seen
running by the status hook, makes an adopted ``started_bridge_pending`` start."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

# A status hook that notes each run, then says "stopped" (exit 1) once the test lets it go.
SLOW_STATUS = (
    "import pathlib, sys, time; here = pathlib.Path(sys.argv[1]); "
    "open(here / 'calls', 'a').write('run\\n'); end = time.monotonic() + 15\n"
    "while not (here / 'release').exists() and time.monotonic() < end:\n"
    "    time.sleep(0.02)\n"
    "sys.exit(1)"
)


async def _appears(path: Path) -> None:
    """Until ``path`` holds a whole line (the hook creates the file before it writes to it)."""
    file = anyio.Path(path)
    while True:
        if await file.exists() and (await file.read_text(encoding="utf-8")).endswith("\n"):
            return
        await anyio.sleep(0.05)


async def test_a_start_from_another_process_while_the_first_probes_is_operation_in_progress(
    open_bridge: OpenBridge, config_dir: ConfigDir, gabs_cli: Any, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    hook = {
        "command": sys.executable,
        "args": ["-c", SLOW_STATUS, str(marks)],
        "timeoutSeconds": 30,
    }
    config_dir.game("compat", lifecycle={"status": hook})
    calls = marks / "calls"
    try:
        with anyio.fail_after(90):
            async with open_bridge(config_dir) as client:
                async with anyio.create_task_group() as group:
                    group.start_soon(start_game, client)
                    await _appears(calls)
                    second = await anyio.to_thread.run_sync(
                        gabs_cli, config_dir, "games", "start", "compat"
                    )
                    probes = calls.read_text(encoding="utf-8").splitlines()
                    (marks / "release").touch()
                stopped = await client.call_tool("games_stop", {"gameId": "compat"})
                assert not stopped.is_error, text_of(stopped)
    finally:
        (marks / "release").touch()
    output = second.stdout + second.stderr
    assert second.returncode != 0, output
    assert "operation_in_progress" in output, output
    assert "compat is already starting" in output, output
    # the second start found the first one's claim: it asked no status hook itself
    assert probes == ["run"], (probes, output)


async def test_a_launcher_that_ends_while_its_game_runs_is_an_adopted_bridge_pending_start(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    # The launcher marks the game up and ends after the first look; the status hook then
    # says running (exit 0), before the launch stopped (exit 1).
    marker = tmp_path / "up"
    hook = f"import os, sys; sys.exit(0 if os.path.exists({str(marker)!r}) else 1)"
    launcher = f"import time; open({str(marker)!r}, 'w').close(); time.sleep(1.5)"
    config_dir.game(
        "compat",
        args=["-c", launcher],
        lifecycle={"status": {"command": sys.executable, "args": ["-c", hook]}},
    )
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "compat", "timeout": 5})
            found = data(started)
            assert not started.is_error, text_of(started)
            assert (found["code"], found.get("adopted")) == ("started_bridge_pending", True)
            status = await client.call_tool("games_status", {"gameId": "compat"})
            assert data(status)["status"] in ("running", "running-disconnected"), text_of(status)


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "60"])


async def test_a_forced_takeover_that_cannot_connect_gives_the_ownership_back(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    folder = config_dir.write() / "compat"
    folder.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    owner, game = _sleeper(), _sleeper()
    claim = {
        "gameId": "compat",
        "status": "running",
        "ownerPid": owner.pid,
        "ownerInstanceId": "the-other-bridge",
        "ownerLeaseUntil": "2999-01-01T00:00:00Z",
        "ownerLastActive": "2026-01-02T03:04:05Z",
        "gamePid": game.pid,
        "updatedAt": "2026-01-02T03:04:05Z",
        "schemaVersion": 2,
        "launchId": "0123456789abcdef0123456789abcdef",
        "generation": 3,
        "phase": "active",
        "spawnState": "spawned",
        "source": "gabs",
        "launchMode": "CustomCommand",
        "pidRole": "workload",
        "endpoint": {"port": port, "token": "a" * 64},
    }
    path = folder / "runtime.json"
    path.write_text(json.dumps(claim, indent=2), encoding="utf-8")
    path.chmod(0o600)
    try:
        with anyio.fail_after(60):
            async with open_bridge(config_dir) as client:
                failed = await client.call_tool(
                    "games_connect", {"gameId": "compat", "forceTakeover": True, "timeout": 1}
                )
                after = json.loads(path.read_text(encoding="utf-8"))
    finally:
        for process in (owner, game):
            process.kill()
            process.wait(10)
    assert failed.is_error, text_of(failed)
    owned = {key: after.get(key) for key in ("launchId", "ownerPid", "ownerInstanceId")}
    assert owned == {
        "launchId": claim["launchId"],
        "ownerPid": owner.pid,
        "ownerInstanceId": "the-other-bridge",
    }, after
    assert after["ownerLeaseUntil"].startswith("2999-01-01T00:00:00"), after
