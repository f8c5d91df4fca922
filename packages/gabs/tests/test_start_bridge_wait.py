"""A start whose own process ends while the bridge waits for the game's GABP server is judged
by the liveness rule of its claim, as the Go bridge judges it (Stage 5): proven gone is
``exited_during_start``; a game its status hook still sees running is adopted and the start is
``started_bridge_pending``; a hook that cannot tell keeps the claim, also bridge-pending."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.runtime import load_claim
from gabs_test_support import mcp_client

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def client_for(tmp_path: Path, game: dict[str, Any]) -> AsyncIterator[Client]:
    entries = {"g": {"id": "g", "name": "G", **game}}
    config = GabsConfig.from_json({"version": "1.0", "games": entries}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


def game_that_hands_over(tmp_path: Path, code_once_up: int) -> dict[str, Any]:
    """A launcher that marks the game up, then ends after the first look (1.5 s); its status
    hook says stopped before that and ``code_once_up`` after."""
    marker = tmp_path / "up"
    hook = f"import os, sys; sys.exit({code_once_up} if os.path.exists({str(marker)!r}) else 1)"
    return {
        "launchMode": "DirectPath",
        "target": sys.executable,
        "args": ["-c", f"import time; open({str(marker)!r}, 'w').close(); time.sleep(1.5)"],
        "lifecycle": {"status": {"command": sys.executable, "args": ["-c", hook]}},
    }


@pytest.mark.parametrize(
    ("code_once_up", "adopted"), [(0, True), (7, None)], ids=["running", "undecided"]
)
async def test_a_launcher_that_ends_while_the_bridge_waits_is_judged_by_its_claim(
    tmp_path: Path, code_once_up: int, adopted: bool | None
) -> None:
    async with client_for(tmp_path, game_that_hands_over(tmp_path, code_once_up)) as client:
        with anyio.fail_after(60):
            result = await client.call_tool("games_start", {"gameId": "g", "timeout": 5})
    found = result.structured_content
    assert isinstance(found, dict) and not result.is_error, result
    assert (found["code"], found.get("adopted")) == ("started_bridge_pending", adopted)
    claim = load_claim(tmp_path / "g")
    assert claim is not None and claim.phase == "active"


async def test_a_launcher_that_ends_while_the_hook_says_stopped_is_exited_with_its_evidence(
    tmp_path: Path,
) -> None:
    async with client_for(tmp_path, game_that_hands_over(tmp_path, 1)) as client:
        with anyio.fail_after(60):
            result = await client.call_tool("games_start", {"gameId": "g", "timeout": 5})
    found = result.structured_content
    assert isinstance(found, dict) and result.is_error, result
    assert (found["code"], found["hookEvidence"]) == (
        "exited_during_start",
        "status hook exit code 1",
    )
    assert load_claim(tmp_path / "g") is None
