"""When a start's steps happen. The deadline a start's claim carries is the whole start's: a
launch whose deadline passes before the game could be spawned does not spawn it (another start
may already be replacing it), and it never turns into a spawn failure or a game fault. The
endpoint preparation is held up by holding the game's ``bridge.lock``, the file lock both
bridges take around ``bridge.json``. The Steam advisory of a Steam start is found before the
endpoint is prepared, so an endpoint failure carries it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge
from .results import data, text_of

pytestmark = pytest.mark.skipif(os.name == "nt", reason="flock")

STEAM_ADVISORY = (
    "Steam does not appear to be running; the launch may stall at login/startup or the game "
    "may relaunch itself through Steam"
)


def _hold_bridge_lock(game_dir: Path, past_claim: float) -> threading.Event:
    """Take ``bridge.lock`` now and release it (from a thread) ``past_claim`` seconds after the
    start's claim (``runtime.json``) appeared, however long the bridge takes to get there; the
    event is set once it is released."""
    import fcntl  # POSIX only (the module is skipped elsewhere)

    game_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(game_dir / "bridge.lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    released = threading.Event()

    def release_later() -> None:
        give_up = time.monotonic() + 60
        while not (game_dir / "runtime.json").exists() and time.monotonic() < give_up:
            time.sleep(0.02)
        time.sleep(past_claim)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        released.set()

    threading.Thread(target=release_later, daemon=True).start()
    return released


async def test_a_start_whose_deadline_passes_before_the_spawn_does_not_spawn(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    config_dir.top["timeouts"] = {"startup": {"processStartSeconds": 1, "gabpConnectSeconds": 5}}
    directory = config_dir.write()
    with anyio.fail_after(90):
        async with open_bridge(config_dir) as client:
            released = _hold_bridge_lock(directory / "compat", 1.5)
            result = await client.call_tool("games_start", {"gameId": "compat"})
            await anyio.to_thread.run_sync(released.wait, 70)
            status = data(await client.call_tool("games_status", {"gameId": "compat"}))
    assert config_dir.game_pid("compat") is None, "the game was spawned after its deadline"
    assert config_dir.launch_report("compat") is None
    assert not result.is_error, text_of(result)
    assert text_of(result).splitlines()[0] == (
        "the launch of 'compat' was superseded during startup and the successor has since "
        "finished; re-check games_status"
    )
    assert data(result) == {
        "code": "operation_in_progress",
        "gameId": "compat",
        "causeClass": "state",
        "nextActions": [
            {
                "tool": "games_status",
                "arguments": {"gameId": "compat"},
                "reason": "Re-check once the in-flight operation finishes.",
            }
        ],
        "trackRecord": "no successful starts recorded for this context",
    }
    assert status["status"] == "stopped"


def _steam_visible() -> bool:
    """Whether a Steam client can be seen the way both bridges look for one on Linux."""
    found = (
        subprocess.run(["pgrep", *how], capture_output=True, check=False).returncode == 0
        for how in (["-x", "steam"], ["-f", "/steam"])
    )
    return any(found)


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux Steam client scan")
async def test_the_steam_advisory_comes_before_the_endpoint_and_stays_with_its_failure(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    if _steam_visible():
        pytest.skip("a Steam client is running here")
    config_dir.games["compat"] = {
        "id": "compat",
        "name": "Compat game compat",
        "launchMode": "SteamAppId",
        "target": "4242",
        "stopProcessName": "nothing-x",
    }
    directory = config_dir.write()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        (directory / "compat").mkdir(parents=True)
        cached = {"port": port, "token": "t" * 64, "gameId": "compat"}
        (directory / "compat" / "bridge.json").write_text(json.dumps(cached), encoding="utf-8")
        with anyio.fail_after(60):
            async with open_bridge(config_dir) as client:
                result = await client.call_tool("games_start", {"gameId": "compat"})
    assert result.is_error, text_of(result)
    assert (data(result)["code"], data(result)["status"]) == (
        "endpoint_unavailable",
        "endpoint_cache_in_use",
    )
    assert data(result)["startWarnings"] == [STEAM_ADVISORY]
    # the text, then the warnings (our gabs adds its code and next-action lines after them)
    assert text_of(result).startswith("GABS endpoint cache for game 'compat' uses port ")
    assert f"\n\nWarnings:\n  - {STEAM_ADVISORY}\n" in text_of(result) + "\n", text_of(result)


def test_the_command_line_says_a_start_past_its_deadline_was_superseded(
    gabs_cli: Any, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    config_dir.top["timeouts"] = {"startup": {"processStartSeconds": 1, "gabpConnectSeconds": 5}}
    directory = config_dir.write()
    released = _hold_bridge_lock(directory / "compat", 1.5)
    done = gabs_cli(config_dir, "games", "start", "compat")
    assert released.wait(70)
    assert config_dir.game_pid("compat") is None, "the game was spawned after its deadline"
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "operation_in_progress: the start of 'compat' was superseded during startup; re-check "
        "'gabs games status compat'"
    )
    assert not (directory / "compat" / "runtime.json").exists()  # its claim was released
