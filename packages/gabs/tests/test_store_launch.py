"""A store-launched game (``SteamAppId`` through the system opener, found by
``stopProcessName``) as the Go bridge 1.1.0 reports it: the start is ``adopted`` (the opener
ended, the game was found by name), its claim holds the game's pid, the session that started
it calls it ``running``, and the evidence quotes the name as Go's ``%q`` does."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from gabs.config import GabsConfig
from gabs.mcp.call_results import call_view
from gabs.runtime import load_claim
from gabs.runtime.procs import find_by_name
from gabs_test_support import mcp_client as client_for
from gabs_test_support import text

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="xdg-open and /proc")

_SERIAL = itertools.count()


def store_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GabsConfig, str, Path]:
    """A ``SteamAppId`` game whose ``xdg-open`` starts a uniquely named ``sleep``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sleep = shutil.which("sleep")
    assert sleep is not None
    name = f"zs{os.getpid() % 100000}x{next(_SERIAL)}"
    game = bin_dir / name
    shutil.copy2(sleep, game)
    opener = bin_dir / "xdg-open"
    opener.write_text(
        f'#!/bin/sh\necho "$1" > "{tmp_path}/uri"\n("{game}" 300 >/dev/null 2>&1 &)\nexit 0\n',
        encoding="utf-8",
    )
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    entry = {
        "id": "s",
        "name": "Store",
        "launchMode": "SteamAppId",
        "target": "294100",
        "stopProcessName": name,
    }
    document = {
        "version": "1.0",
        "games": {"s": entry},
        "timeouts": {"startup": {"processStartSeconds": 10, "gabpConnectSeconds": 1}},
    }
    return GabsConfig.from_json(document, config_dir=tmp_path / "cfg"), name, tmp_path / "uri"


def status_item(result: types.CallToolResult) -> dict[str, Any]:
    data = call_view(result)
    item: dict[str, Any] = data["games"][0] if "games" in data else data
    return item


async def test_a_store_start_is_adopted_running_and_quoted_as_go_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gabs_config, name, uri = store_game(tmp_path, monkeypatch)
    async with client_for(gabs_config) as client:
        with anyio.fail_after(60):
            started = await client.call_tool("games_start", {"gameId": "s"})
            data = call_view(started)
            assert data["code"] == "started_bridge_pending", text(started)
            assert data["adopted"] is True
            assert "Note: the launch was adopted" in text(started)
            # as Go's note: a connection proves the managed environment, a verified delivery
            # report (contextDelivery) the whole context
            assert "a verified delivery report (contextDelivery) proves" in text(started)
            # the wait as Go prints a time.Duration rounded to the millisecond (1.002s, 1s)
            assert re.search(r"not ready after (\d+ms|\d+(\.\d*[1-9])?s): ", text(started))
            claim = load_claim(tmp_path / "cfg" / "s")
            assert claim is not None and claim.pid_role == "helper"
            assert [claim.game_pid] == find_by_name(name)  # the game's pid, not the opener's
            status = status_item(await client.call_tool("games_status", {"gameId": "s"}))
            assert status["status"] == "running"
            assert status["statusDescription"] == "running (GABS is tracking the game process)"
            assert status["evidence"]["detail"] == f'1 process(es) named "{name}"'
            stopped = call_view(await client.call_tool("games_stop", {"gameId": "s"}))
            assert stopped["code"] == "terminated"
            assert stopped["evidence"] == f'no process named "{name}"'
    assert uri.read_text(encoding="utf-8").strip() == "steam://rungameid/294100"
