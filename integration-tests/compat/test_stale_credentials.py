"""A game that keeps running with an earlier launch's GABP endpoint is refused as
``stale_bridge_credential``, never dialled with either credential (issue 11)."""

from __future__ import annotations

import json
import os
import secrets
import socket
import sys
from pathlib import Path

import anyio
import pytest

from .harness import ConfigDir, OpenBridge, start_game
from .results import data, next_tools, process_alive, text_of, wait_gone
from .test_lifecycle_processes import fake_opener

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process environments in /proc")


async def test_a_game_holding_an_earlier_launchs_endpoint_is_a_stale_bridge_credential(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    claim_file = config_dir.path / "compat" / "runtime.json"
    with anyio.fail_after(180):
        async with open_bridge(config_dir) as first:
            await start_game(first)
        pid = config_dir.game_pid("compat")
        assert pid is not None and process_alive(pid), "the game ended with its bridge"

        # The claim moves on to a new per-launch credential while the game keeps the one it
        # was started with (what a new launch context does to a game that never restarted).
        claim = json.loads(claim_file.read_text(encoding="utf-8"))
        issued = claim["endpoint"]["token"]
        fresh = secrets.token_hex(max(len(issued) // 2, 16))
        claim["endpoint"]["token"] = fresh
        claim_file.write_text(json.dumps(claim), encoding="utf-8")
        os.chmod(claim_file, 0o600)

        async with open_bridge(config_dir) as second:
            refused = await second.call_tool("games_connect", {"gameId": "compat"})
            assert refused.is_error, text_of(refused)
            assert data(refused)["code"] == "stale_bridge_credential", text_of(refused)
            assert next_tools(refused) == ["games_status", "games_stop"], text_of(refused)
            assert issued not in text_of(refused)
            kept = json.loads(claim_file.read_text(encoding="utf-8"))
            assert kept["endpoint"]["token"] == fresh, "the claim's credential was replaced"
            assert process_alive(pid)
            stopped = await second.call_tool("games_stop", {"gameId": "compat"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_start_that_finds_the_game_on_an_earlier_endpoint_warns_and_connect_refuses(
    open_bridge: OpenBridge, config_dir: ConfigDir, tmp_path: Path
) -> None:
    name = f"compat-stale-{os.getpid()}"
    # A store client that was already running hands the game its old endpoint, not the one
    # the bridge issued for this launch.
    earlier = {
        "GABP_SERVER_PORT": str(free_port()),
        "GABP_TOKEN": secrets.token_hex(32),
        "GABS_GAME_ID": "store",
    }
    opener = fake_opener(tmp_path / "bin", name, config_dir.games_dir, earlier)
    entry = config_dir.game(
        "store", launchMode="SteamAppId", target="4242003", stopProcessName=name
    )
    entry.pop("args")
    entry.pop("env")
    path = f"{opener.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with anyio.fail_after(180):
        async with open_bridge(config_dir, env={"PATH": path}) as client:
            started = await client.call_tool("games_start", {"gameId": "store", "timeout": 2})
            assert not started.is_error, text_of(started)
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            warnings = data(started).get("startWarnings") or []
            assert any("stale_bridge_credential" in w for w in warnings), text_of(started)
            pid = config_dir.game_pid("store")
            while pid is None:
                await anyio.sleep(0.05)
                pid = config_dir.game_pid("store")
            refused = await client.call_tool("games_connect", {"gameId": "store"})
            assert data(refused)["code"] == "stale_bridge_credential", text_of(refused)
            stopped = await client.call_tool("games_stop", {"gameId": "store"})
            assert data(stopped)["code"] == "terminated", text_of(stopped)
            await wait_gone(pid)


def sleeping_opener(folder: Path, process_name: str, shell_line: str) -> Path:
    """An ``xdg-open`` that runs ``shell_line`` (to change the environment it hands on), then
    starts a process named ``process_name`` that never serves GABP."""
    folder.mkdir(parents=True, exist_ok=True)
    opener = folder / "xdg-open"
    opener.write_text(
        "#!/bin/bash\n"
        f"{shell_line}\n"
        f"(exec -a {process_name} sleep 120 > /dev/null 2>&1 &)\n"
        "exit 0\n",
        encoding="utf-8",
    )
    opener.chmod(0o755)
    return opener


@pytest.mark.parametrize(
    ("shell_line", "diagnosed"),
    [
        ("unset GABP_SERVER_PORT GABP_TOKEN GABS_GAME_ID", True),
        ("unset GABP_TOKEN", True),
        ("true", False),  # the variables arrived; the game is still loading its bridge
    ],
)
async def test_a_store_game_without_the_bridge_variables_is_diagnosed_not_dialled(
    open_bridge: OpenBridge,
    config_dir: ConfigDir,
    tmp_path: Path,
    shell_line: str,
    diagnosed: bool,
) -> None:
    name = f"compat-noenv-{os.getpid()}"
    opener = sleeping_opener(tmp_path / "bin", name, shell_line)
    entry = config_dir.game(
        "store", launchMode="SteamAppId", target="4242004", stopProcessName=name
    )
    entry.pop("args")
    entry.pop("env")
    path = f"{opener.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with anyio.fail_after(180):
        async with open_bridge(config_dir, env={"PATH": path}) as client:
            started = await client.call_tool("games_start", {"gameId": "store", "timeout": 1})
            assert data(started)["code"] == "started_bridge_pending", text_of(started)
            began = anyio.current_time()
            refused = await client.call_tool("games_connect", {"gameId": "store", "timeout": 2})
            took = anyio.current_time() - began
            stopped = await client.call_tool("games_stop", {"gameId": "store"})
    assert refused.is_error, text_of(refused)
    assert data(stopped)["code"] == "terminated", text_of(stopped)
    if diagnosed:  # the process provably never got an endpoint: nothing is dialled
        assert data(refused)["code"] == "endpoint_unavailable", text_of(refused)
        assert text_of(refused).startswith("Failed to resolve live GABP endpoint for 'store': ")
        assert took < 1.5, took
    else:  # the workload runs (its launcher has exited): dialled for the whole timeout
        assert data(refused)["code"] == "blocked_unknown_state", text_of(refused)
        first = text_of(refused).splitlines()[0]
        assert first.startswith("Failed to connect to GABP server for 'store' on port"), first
        assert first.endswith("Make sure the GABP bridge is loaded."), first
        assert took >= 1.5, took
