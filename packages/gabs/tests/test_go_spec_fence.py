"""T-FENCE of the Go bridge 1.1.0's test plan (``design/30-test-plan.md``), the cells not pinned
elsewhere, checked against ``gabs``.

* Abandoned caller: a stop whose caller gives up (the MCP request is cancelled) still runs to
  its end in the bridge, and its result is what ``games_status`` shows afterwards
  (``lastActionResult``), not an ``interrupted`` step found once its deadline expired.
* Lock acquisition failure surfaces as a bounded refusal, never a hang: a start that cannot take
  the transition lock to publish its claim is Go's ``blocked_unknown_state`` (its
  unexpected-error branch, ``Failed to start <id>: ...``), not an internal error.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.runtime.lock import LOCK_FILE, release_flock, try_flock
from gabs_test_support import mcp_client

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


async def test_a_stop_its_caller_abandoned_still_completes(tmp_path: Path) -> None:
    runs = tmp_path / "runs.txt"
    hook = {
        "command": "/bin/sh",
        "args": ["-c", f"sleep 1; echo run >> '{runs}'"],
        "verifyTimeoutSeconds": 1,
    }
    game = {
        "name": "G",
        "launchMode": "CustomCommand",
        "target": sys.executable,
        "args": ["-c", "import time; time.sleep(60)"],
        "lifecycle": {"stop": hook},
    }
    (tmp_path / "config.json").write_text(json.dumps({"games": {"g": game}}), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    notifier = ToolListNotifier()
    manager = GameManager(config, on_tools_changed=notifier, liveness_interval=60)
    async with manager, Client(build_server(manager, notifier=notifier), mode="legacy") as client:
        started = await client.call_tool("games_start", {"gameId": "g", "timeout": 1})
        assert (started.structured_content or {}).get("code") == "started_bridge_pending"
        try:
            with anyio.move_on_after(0.3) as abandoned:
                await client.call_tool("games_stop", {"gameId": "g"})
            assert abandoned.cancelled_caught
            item: dict[str, Any] = {}
            with anyio.fail_after(15):
                while item.get("phase") in (None, "stopping"):
                    await anyio.sleep(0.1)
                    status = await client.call_tool("games_status", {"gameId": "g"})
                    item = status.structured_content or {}
            assert item["phase"] == "active"
            assert item["lastActionResult"]["outcome"] == "action_succeeded_running"
            assert runs.read_text(encoding="utf-8") == "run\n"
        finally:
            await client.call_tool("games_kill", {"gameId": "g"})


async def test_a_start_that_cannot_take_the_transition_lock_is_blocked(tmp_path: Path) -> None:
    game = {"name": "G", "launchMode": "CustomCommand", "target": sys.executable}
    (tmp_path / "config.json").write_text(json.dumps({"games": {"g": game}}), encoding="utf-8")
    config = GabsConfig.load(tmp_path)
    folder = config.game_dir("g")
    folder.mkdir(parents=True)
    held = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        assert try_flock(held)
        async with mcp_client(config) as client:
            with anyio.fail_after(20):
                result = await client.call_tool("games_start", {"gameId": "g", "timeout": 2})
    finally:
        release_flock(held)
        os.close(held)
    found = result.structured_content or {}
    assert (result.is_error, found.get("code"), found.get("causeClass")) == (
        True,
        "blocked_unknown_state",
        "state",
    )
    assert result.content[0].text.startswith(  # type: ignore[union-attr]
        "Failed to start g: transition lock for g: transition lock held by another operation"
    )
    assert not (folder / "runtime.json").exists()
