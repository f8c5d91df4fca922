"""``games_status`` while this bridge's own start of the game is in progress: the status is
``starting`` as in the Go bridge, and the words say the start is this session's (the Go bridge's
only words for it name another session, since it never reports on its own start)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from gabs.config import GabsConfig
from gabs.games_views import status_description
from gabs_test_support import data, mcp_client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_words_for_a_start_in_progress() -> None:
    assert status_description("starting", None) == (
        "starting (another GABS session is launching the game)"
    )
    assert status_description("starting", None, own=True) == (
        "starting (this GABS session is launching the game)"
    )
    assert status_description("running", None, own=True) == "running (GABS controls the process)"


async def test_a_start_in_progress_is_this_sessions(tmp_path: Path) -> None:
    games = {
        "g": {
            "id": "g",
            "name": "G",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": ["-c", "import time; time.sleep(60)"],
            "timeouts": {"startSeconds": 2, "stopGraceSeconds": 3},
        }
    }
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    seen: list[str] = []
    with anyio.fail_after(30):
        async with mcp_client(config) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "games_start", {"gameId": "g"})
                # the process is verified for half a second before its claim is promoted
                for _ in range(200):
                    status = data(await client.call_tool("games_status", {"gameId": "g"}))
                    if status["status"] == "starting":
                        seen.append(status["statusDescription"])
                    elif seen:
                        break
                    await anyio.sleep(0.01)
            await client.call_tool("games_kill", {"gameId": "g"})
    assert seen, "no status was taken while the start was in progress"
    assert set(seen) == {"starting (this GABS session is launching the game)"}
