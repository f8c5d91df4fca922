"""The Go bridge's own lifecycle and status tests (``internal/mcp``), as behaviour any GABS bridge
shows: ``bridge.json`` stays diagnostic, a start that never spawned stamps nothing in it, a
taken cached port is answered with the listener check and the start's warnings, and a stop of a
game without a claim never waits for nothing."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, next_tools, text_of

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux processes and flock")

#: The keys of ``bridge.json`` that a spawn stamps (the launch's diagnostics).
STAMPED = ("profile", "configRevision", "startedAt")


def bridge_file(config_dir: ConfigDir, game_id: str) -> Path:
    return config_dir.path / game_id / "bridge.json"


async def test_the_diagnostics_in_bridge_json_never_reach_a_status(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # Go: TestBridgeJSONDiagnosticsNeverReachLivePath. The claim is what a status reports.
    config_dir.game("compat")
    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            path = bridge_file(config_dir, "compat")
            stamped = json.loads(path.read_text(encoding="utf-8"))
            assert all(stamped.get(key) for key in ("configRevision", "startedAt")), stamped
            bogus = {key: f"BOGUS-{key.upper()}-XYZ" for key in STAMPED}
            path.write_text(json.dumps({**stamped, **bogus}, indent=2), encoding="utf-8")
            seen = await client.call_tool("games_status", {"gameId": "compat"})
            await client.call_tool("games_stop", {"gameId": "compat"})
    everything = text_of(seen) + json.dumps(data(seen))
    assert not [marker for marker in bogus.values() if marker in everything], everything
    assert data(seen)["activeConfigRevision"] == stamped["configRevision"], data(seen)


async def test_a_start_refused_before_the_spawn_stamps_no_diagnostics(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # Go: TestPreSpawnFailurePublishesNoDiagnostics. 65 arguments of 100 KiB are over every
    # platform's limit for a new process, so nothing is spawned.
    config_dir.games["big"] = {
        "id": "big",
        "name": "Big",
        "launchMode": "DirectPath",
        "target": "/bin/true",
        "args": ["x" * (100 * 1024)] * 65,
    }
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            refused = await client.call_tool("games_start", {"gameId": "big", "timeout": 1})
    assert refused.is_error and data(refused)["code"] == "spec_too_large", text_of(refused)
    endpoint = json.loads(bridge_file(config_dir, "big").read_text(encoding="utf-8"))
    assert endpoint["gameId"] == "big" and endpoint["port"] > 0, endpoint
    assert not [key for key in STAMPED if key in endpoint], endpoint


async def test_a_taken_cached_port_names_the_listener_check_and_keeps_the_start_warnings(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # Go: TestGamesStartRejectsOccupiedEndpointCache and
    # TestOccupiedEndpointCacheCarriesStartWarnings. The profile's status hook exits 3 (neither
    # running nor stopped), which is a start warning earned before the port is found taken.
    hook = {"command": "/bin/sh", "args": ["-c", "exit 3"], "timeoutSeconds": 5}
    config_dir.games["oc"] = {
        "id": "oc",
        "name": "Occupied Cache",
        "launchMode": "DirectPath",
        "target": "/bin/sleep",
        "args": ["30"],
        "defaultProfile": "p",
        "profiles": {"p": {"lifecycle": {"status": hook}}},
    }
    with anyio.fail_after(60):
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
        async with listener:
            port = listener.extra(anyio.abc.SocketAttribute.local_port)
            folder = config_dir.path / "oc"
            folder.mkdir(parents=True, mode=0o700)
            cache = {"port": port, "token": "existing-token", "gameId": "oc"}
            (folder / "bridge.json").write_text(json.dumps(cache), encoding="utf-8")
            async with open_bridge(config_dir) as client:
                refused = await client.call_tool("games_start", {"gameId": "oc"})
    found, text = data(refused), text_of(refused)
    assert refused.is_error, text
    assert (found["code"], found["status"], found["port"]) == (
        "endpoint_unavailable",
        "endpoint_cache_in_use",
        port,
    )
    # Neither games_connect (no claim) nor games_status (reads stopped) can tell who listens.
    assert next_tools(refused) == ["games_start"], text
    assert found["nextActions"][0]["arguments"] == {"gameId": "oc", "resetEndpoint": True}
    assert f"lsof -nP -iTCP:{port} -sTCP:LISTEN" in text and "netstat" in text, text
    assert len(found["startWarnings"]) == 1, found
    assert "\n\nWarnings:\n  - " in text, text
    assert not (folder / "runtime.json").exists()


async def test_a_stop_without_a_claim_past_a_lock_that_cannot_be_opened_is_not_running(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # A directory where the transition lock belongs: with no claim there is nothing to stop,
    # and that is the answer (not the lock's failure, not an internal error).
    config_dir.game("g")
    (config_dir.path / "g" / "transition.lock").mkdir(parents=True)
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            stopped = await client.call_tool("games_stop", {"gameId": "g"})
            killed = await client.call_tool("games_kill", {"gameId": "g"})
    for action, result in (("stop", stopped), ("kill", killed)):
        assert result.is_error, text_of(result)
        assert text_of(result).splitlines()[0] == (
            f"Failed to {action} g: game g is not running (no process tracked)"
        )


@pytest.mark.beyond_go
async def test_a_stop_without_a_claim_while_the_lock_is_held_waits_for_the_holder(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    # The Go bridge reads the claim without the lock and answers `not running` at once; the
    # holder may be a start about to publish its claim, so gabs waits for it (5 s) and, the
    # lock still held, answers operation_in_progress.
    config_dir.game("g")
    folder = config_dir.path / "g"
    folder.mkdir(parents=True, mode=0o700)
    fd = os.open(folder / "transition.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with anyio.fail_after(60):
            async with open_bridge(config_dir) as client:
                busy = await client.call_tool("games_stop", {"gameId": "g"})
    finally:
        os.close(fd)
    assert not busy.is_error, text_of(busy)
    assert (data(busy)["code"], data(busy)["action"]) == ("operation_in_progress", "stop")
    assert next_tools(busy) == ["games_status"], text_of(busy)
