"""Details of the lifecycle as the Go bridge has them: a game entry without ``name`` is shown
with an empty name (no id filled in), a refused start reports the track record of the launch
context it asked for, the claim of an external instance names the bridge that found it, and a
stop whose status hook contradicts the live bridge warns about the hook's exit-code contract,
and a stop whose claim vanishes under its verification is reported as the Go bridge does."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, process_alive, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


async def test_a_game_without_a_name_is_shown_with_an_empty_name(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    del config_dir.game("compat")["name"]
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            listed = await client.call_tool("games_list", {})
            assert [g["name"] for g in data(listed)["games"]] == [""], text_of(listed)
            shown = await client.call_tool("games_show", {"gameId": "compat"})
            assert "  ID: compat ()\n" in text_of(shown), text_of(shown)

            started = await start_game(client)
            assert text_of(started).startswith(
                "Game 'compat' () started successfully and connected via GABP."
            ), text_of(started)
            status = await client.call_tool("games_status", {"gameId": "compat"})
            assert text_of(status).startswith("**compat** (): running"), text_of(status)
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert text_of(stopped).startswith("Game 'compat' () was stopped"), text_of(stopped)


async def test_a_stop_the_status_hook_calls_done_while_the_bridge_lives_warns_about_the_hook(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    hooks = {}
    for name, code in (("status", 1), ("stop", 0)):
        hook = tmp_path / f"{name}.sh"
        hook.write_text(f"#!/bin/sh\nexit {code}\n", encoding="utf-8")
        hook.chmod(0o755)
        hooks[name] = {"command": str(hook)}
    config_dir.game("compat", lifecycle=hooks)
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "action_succeeded_running", text_of(stopped)
            assert data(stopped)["warnings"] == [
                "status hook reports stopped while the GABP bridge is live; the bridge wins "
                "\N{EM DASH} check the hook's exit-code contract"
            ], text_of(stopped)
            killed = await client.call_tool("games_kill", {"gameId": "compat"})
            assert data(killed)["code"] == "terminated", text_of(killed)


async def test_a_stop_whose_claim_vanishes_under_its_verification_says_so_as_go(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    claim = config_dir.path / "compat" / "runtime.json"
    hook = tmp_path / "stop.sh"
    hook.write_text(f"#!/bin/sh\nrm -f '{claim}'\n", encoding="utf-8")
    hook.chmod(0o755)
    config_dir.game("compat", lifecycle={"stop": {"command": str(hook)}})
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            pid = config_dir.game_pid("compat")
            stopped = await client.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "termination_unverified", text_of(stopped)
            assert data(stopped)["warnings"] == [
                "the runtime claim was removed or replaced while the stop was verified; "
                "the result applies to the finished launch only",
                "the stop result was not persisted: the runtime claim was superseded while the "
                "action ran",
            ], text_of(stopped)
            assert data(stopped)["evidence"] == (
                "verification abandoned: the claim was superseded"
            ), text_of(stopped)
    if pid is not None and process_alive(pid):
        os.kill(pid, signal.SIGKILL)


async def test_a_refused_start_reports_the_track_record_of_the_profile_it_asked_for(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game(
        "compat", defaultProfile="fast", profiles={"fast": {"env": {"P": "1"}}, "slow": {}}
    )
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            same = await client.call_tool("games_start", {"gameId": "compat"})
            assert "started 1\u00d7" in data(same)["trackRecord"], data(same)
            other = await client.call_tool("games_start", {"gameId": "compat", "profile": "slow"})
            assert data(other)["code"] == "already_running", text_of(other)
            assert data(other)["activeProfile"] == "fast", data(other)
            # the record of "slow", which never started, not that of the running "fast"
            assert "started" not in data(other)["trackRecord"], data(other)
            await client.call_tool("games_stop", {"gameId": "compat"})


def _run_outside(program: Path) -> subprocess.Popen[bytes]:
    """Run ``program`` as a game started by hand, reaped as soon as it ends (so a stop does
    not find it as a zombie by its name)."""
    outside = subprocess.Popen([str(program), "60"])
    threading.Thread(target=outside.wait, daemon=True).start()
    return outside


async def test_the_claim_of_an_external_instance_names_the_bridge_that_found_it(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    # a name of its own: a stop by name ends every process of that name on the machine
    name = f"ext{uuid.uuid4().hex[:12]}"
    program = tmp_path / name
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    config_dir.game("compat", stopProcessName=name)
    outside = _run_outside(program)
    try:
        with anyio.fail_after(60):
            async with open_bridge(config_dir) as client:
                found = await client.call_tool("games_start", {"gameId": "compat"})
                assert data(found)["code"] == "external_instance_detected", text_of(found)
                claim = json.loads((config_dir.path / "compat" / "runtime.json").read_text())
                stopped = await client.call_tool("games_stop", {"gameId": "compat"})
                assert not stopped.is_error, text_of(stopped)
    finally:
        outside.kill()
        outside.wait(10)
    assert (claim["source"], claim["observedProfile"]) == ("external", "unknown"), claim
    assert "profile" not in claim, claim
    # the starting bridge's preflight claim, rewritten: its owner stays, with no lease
    assert claim["ownerPid"] > 0, claim
    assert claim["ownerInstanceId"].startswith(f"{claim['ownerPid']}-"), claim
    assert claim["ownerLeaseUntil"] == "0001-01-01T00:00:00Z", claim
