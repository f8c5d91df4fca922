"""A game folder whose transition lock cannot be opened (here: ``transition.lock`` is a
directory) refuses a start with the Go bridge's ``blocked_unknown_state`` and its words, over
MCP and on the command line, and a stop of a game without a claim is still a plain "not
running"."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from .harness import ConfigDir, OpenBridge
from .results import data, text_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file semantics")


def _broken_lock(config_dir: ConfigDir) -> str:
    folder = config_dir.path / "compat"
    (folder / "transition.lock").mkdir(parents=True)
    folder.chmod(0o700)
    return str(folder / "transition.lock")


async def test_a_start_whose_lock_cannot_be_opened_is_blocked_in_go_words(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    lock = _broken_lock(config_dir)
    with anyio.fail_after(60):
        async with open_bridge(config_dir) as client:
            refused = await client.call_tool("games_start", {"gameId": "compat"})
    assert refused.is_error, text_of(refused)
    assert data(refused)["code"] == "blocked_unknown_state", text_of(refused)
    expected = (
        f"Failed to start compat: failed to acquire transition lock for compat: open {lock}: "
        "is a directory"
    )
    assert expected in text_of(refused), text_of(refused)


async def test_the_command_line_says_the_same_and_exits_1(
    config_dir: ConfigDir, gabs_cli: Any
) -> None:
    config_dir.game("compat")
    lock = _broken_lock(config_dir)
    started = await anyio.to_thread.run_sync(
        lambda: gabs_cli(config_dir, "games", "start", "compat")
    )
    assert started.returncode == 1, started
    assert "Traceback" not in started.stderr, started.stderr
    line = (
        "blocked_unknown_state: failed to start 'compat': failed to acquire transition lock for "
        f"compat: open {lock}: is a directory"
    )
    assert line in started.stderr.splitlines(), started.stderr


async def test_a_stop_without_a_claim_is_not_running_whatever_the_lock(
    config_dir: ConfigDir, gabs_cli: Any
) -> None:
    config_dir.game("compat")
    _broken_lock(config_dir)
    stopped = await anyio.to_thread.run_sync(
        lambda: gabs_cli(config_dir, "games", "stop", "compat")
    )
    assert (stopped.returncode, stopped.stdout) == (
        0,
        "compat is not running (no runtime claim).\n",
    )
