"""games_stop and games_kill of a game without a runtime claim stop the processes named by its
``stopProcessName`` (a game started by hand), as the Go bridge's tools do; and games_start of a
game this session is connected to reports the claim's profile, phase and evidence."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig
from gabs.mcp.call_results import call_view
from gabs.runtime import load_claim
from gabs_test_support import mcp_client as client_for
from gabs_test_support import text

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

_SERIAL = itertools.count()


def unique_copy(tmp_path: Path, program: str) -> Path:
    """``program`` copied under a name no other process on the machine has (comm keeps 15)."""
    source = shutil.which(program)
    assert source is not None, program
    path = tmp_path / f"zg{os.getpid() % 100000}x{next(_SERIAL)}"
    shutil.copy2(source, path)
    return path


@contextmanager
def running(*command: str | Path) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([str(part) for part in command])
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def config(tmp_path: Path, **entry: Any) -> GabsConfig:
    game = {"id": "g", "name": "Gee", "launchMode": "DirectPath", "target": "/bin/true", **entry}
    return GabsConfig.from_json({"version": "1.0", "games": {"g": game}}, config_dir=tmp_path)


def wait_for_file(path: Path) -> None:
    """Block until ``path`` exists (10 s at most); used before anything else runs."""
    deadline = time.monotonic() + 10
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


async def wait_gone(process: subprocess.Popen[bytes]) -> int:
    return await anyio.to_thread.run_sync(lambda: process.wait(10))


async def test_a_stop_without_a_claim_stops_the_process_named_by_stop_process_name(
    tmp_path: Path,
) -> None:
    sleeper = unique_copy(tmp_path, "sleep")
    with running(sleeper, "300") as process:
        async with client_for(config(tmp_path, stopProcessName=sleeper.name)) as client:
            with anyio.fail_after(20):
                stopped = await client.call_tool("games_stop", {"gameId": "g"})
        assert not stopped.is_error, text(stopped)
        assert text(stopped).splitlines()[0] == "Game 'g' (Gee) stopped successfully"
        data = call_view(stopped)
        assert (data["code"], data["action"], data["claimRemoved"]) == ("terminated", "stop", False)
        assert data["evidence"] == f'no process named "{sleeper.name}"'
        assert data["stopProcessName"] == sleeper.name
        assert await wait_gone(process) == -signal.SIGTERM
    assert load_claim(tmp_path / "g") is None  # nothing records a launch it did not make


async def test_a_stop_that_the_game_ignores_is_reported_running_and_a_kill_ends_it(
    tmp_path: Path,
) -> None:
    shell = unique_copy(tmp_path, "sh")
    ready = tmp_path / "trap-set"
    loop = f"trap '' TERM; : > '{ready}'; while :; do sleep 0.1; done"
    gabs_config = config(tmp_path, stopProcessName=shell.name, timeouts={"stopGraceSeconds": 1})
    with running(shell, "-c", loop) as process:
        # the stop must find the trap set: a fixed pause lost that race on a loaded machine
        wait_for_file(ready)
        async with client_for(gabs_config) as client:
            with anyio.fail_after(20):
                stopped = await client.call_tool("games_stop", {"gameId": "g"})
                assert process.poll() is None
                killed = await client.call_tool("games_kill", {"gameId": "g"})
        # a stop never escalates: still running, and a kill is what is suggested
        assert not stopped.is_error, text(stopped)
        data = call_view(stopped)
        assert data["code"] == "action_succeeded_running"
        assert data["evidence"] == f'1 process(es) named "{shell.name}" still running'
        assert [a["tool"] for a in data["nextActions"]] == ["games_kill", "games_status"]
        assert not killed.is_error, text(killed)
        assert text(killed).splitlines()[0] == "Game 'g' (Gee) terminated successfully"
        assert call_view(killed)["code"] == "terminated"
        assert await wait_gone(process) == -signal.SIGKILL


async def test_with_no_such_process_the_answer_names_the_process_searched(tmp_path: Path) -> None:
    name = f"zgnone{os.getpid()}"
    async with client_for(config(tmp_path, stopProcessName=name)) as client:
        stopped = await client.call_tool("games_kill", {"gameId": "g"})
    assert stopped.is_error
    assert call_view(stopped)["code"] == "not_running"
    assert text(stopped).splitlines()[0] == (
        f'Failed to kill g: game g is not running (no process tracked; no process named "{name}" '
        "found)"
    )


async def test_a_game_without_stop_process_name_is_still_not_running(tmp_path: Path) -> None:
    async with client_for(config(tmp_path)) as client:
        stopped = await client.call_tool("games_stop", {"gameId": "g"})
    assert stopped.is_error and call_view(stopped)["code"] == "not_running"
    # The Go bridge's words, as they are (stdio_server.go, stopUntrackedGame).
    assert text(stopped).splitlines()[0] == (
        "Failed to stop g: game g is not running (no process tracked)"
    )


async def test_a_second_start_in_the_session_reports_the_running_launch(tmp_path: Path) -> None:
    """already_running as the Go bridge reports it, then a verified stop whose text carries the
    evidence and whose result carries the track record."""
    gabs_config = config(
        tmp_path,
        launchMode="CustomCommand",
        target=sys.executable,
        args=["-m", "lib_gab.example"],
        profiles={"normal": {"description": "n"}, "fast": {"description": "f"}},
        defaultProfile="normal",
        timeouts={"startSeconds": 20, "stopGraceSeconds": 3},
    )
    async with client_for(gabs_config) as client:
        with anyio.fail_after(60):
            started = await client.call_tool("games_start", {"gameId": "g"})
            assert call_view(started)["code"] == "started_connected", text(started)
            again = await client.call_tool("games_start", {"gameId": "g"})
            other = await client.call_tool("games_start", {"gameId": "g", "profile": "fast"})
            connected = await client.call_tool("games_connect", {"gameId": "g"})
            stopped = await client.call_tool("games_stop", {"gameId": "g"})
    assert not again.is_error, text(again)
    # The Go bridge's words for a connect to the game this session holds (no port named).
    assert text(connected).splitlines()[0].startswith("Already connected to 'g'. Re-synced ")
    data = call_view(again)
    assert data["code"] == "already_running"
    assert (data["activeProfile"], data["requestedProfile"], data["phase"]) == (
        "normal",
        "normal",
        "active",
    )
    assert data["evidence"] == {
        "verdict": "running",
        "source": "gabp",
        "detail": "live GABP connection",
    }
    assert [(a["tool"], a["reason"]) for a in data["nextActions"]] == [
        ("games_status", "Inspect the active instance."),
        ("games_stop", "Stop it first if the other profile is needed."),
    ]
    # Go's start gate line: the game id and the evidence (the profile is in activeProfile).
    assert text(again).splitlines()[0] == "g is already running (live GABP connection)"
    assert call_view(other)["requestedProfile"] == "fast"
    stop = call_view(stopped)
    assert stop["code"] == "terminated", text(stopped)
    assert text(stopped).splitlines()[0].endswith(f" {stop['evidence']}.")
    assert "clean stops 1\u00d7" in stop["trackRecord"]
