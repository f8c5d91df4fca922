"""Runtime claims written by Go bridges from before launch profiles (no ``schemaVersion``):
status reads them as they are, and the first stop normalizes them, in any bridge."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge
from .results import data, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

#: A process a plain SIGTERM does not end (it ends when its stdin closes).
STUBBORN = (
    "import signal, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', "
    "flush=True); sys.stdin.read()"
)


@pytest.fixture
def stubborn() -> Iterator[subprocess.Popen[bytes]]:
    with subprocess.Popen(
        [sys.executable, "-c", STUBBORN], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        yield process
        process.kill()


def legacy_claim(config_dir: ConfigDir, game_id: str, pid: int) -> Path:
    """``runtime.json`` as an older Go bridge wrote it: ownership, pid and name only."""
    folder = config_dir.write() / game_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "runtime.json"
    path.write_text(
        json.dumps(
            {
                "gameId": game_id,
                "status": "running",
                "ownerPid": 999999,
                "gamePid": pid,
                "updatedAt": "2026-01-02T03:04:05.123456789Z",
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def test_status_shows_a_legacy_claim_and_leaves_it_as_it_is(
    config_dir: ConfigDir, gabs_cli: Any, stubborn: subprocess.Popen[bytes]
) -> None:
    config_dir.game("old")
    path = legacy_claim(config_dir, "old", stubborn.pid)
    before = path.read_bytes()

    shown = gabs_cli(config_dir, "games", "status", "old")

    assert shown.returncode == 0, shown.stderr
    assert "old: running" in shown.stdout
    assert "legacy claim" in shown.stdout
    assert path.read_bytes() == before


async def test_the_first_stop_normalizes_a_legacy_claim(
    open_bridge: OpenBridge, config_dir: ConfigDir, stubborn: subprocess.Popen[bytes]
) -> None:
    config_dir.game("old")
    path = legacy_claim(config_dir, "old", stubborn.pid)

    with anyio.fail_after(120):
        async with open_bridge(config_dir) as client:
            stopped = await client.call_tool("games_stop", {"gameId": "old"})

    assert data(stopped)["code"] == "action_succeeded_running", text_of(stopped)
    claim = json.loads(path.read_text(encoding="utf-8"))
    assert (claim["schemaVersion"], claim["normalizedFromLegacy"], claim["phase"]) == (
        2,
        True,
        "active",
    )
    assert (claim["launchMode"], claim["pidRole"], claim["gamePid"]) == (
        "CustomCommand",
        "workload",
        stubborn.pid,
    )
    assert claim["launchId"] and claim["configRevision"].startswith("sha256:")
