"""A ``games_connect`` that takes over a claim's ownership and then cannot connect gives the
ownership back, as the Go bridge's failed-connect rollback does (the owner fields only, fenced
to the launch)."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.runtime import RuntimeState, load_claim, save_claim
from gabs.runtime.claim import utcnow
from gabs.runtime.procs import fingerprint
from gabs_test_support import mcp_client

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def client_for(tmp_path: Path) -> AsyncIterator[Client]:
    game = {"id": "g", "name": "G", "launchMode": "DirectPath", "target": sys.executable}
    config = GabsConfig.from_json({"version": "1.0", "games": {"g": game}}, config_dir=tmp_path)
    async with mcp_client(config) as client:
        yield client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_forced_takeover_that_cannot_connect_gives_the_ownership_back(
    tmp_path: Path,
) -> None:
    lease = utcnow() + timedelta(minutes=5)
    save_claim(
        tmp_path / "g",
        RuntimeState(
            game_id="g",
            status="running",
            owner_pid=os.getpid(),
            owner_instance_id="the-other-bridge",
            owner_lease_until=lease,
            game_pid=os.getpid(),
            pid_start_time=fingerprint(os.getpid()),
            launch_id="launch-1",
            phase="active",
            spawn_state="spawned",
            launch_mode="DirectPath",
            endpoint_port=free_port(),
            endpoint_token="a" * 64,
        ),
    )
    async with client_for(tmp_path) as client:
        with anyio.fail_after(30):
            result = await client.call_tool(
                "games_connect", {"gameId": "g", "forceTakeover": True, "timeout": 1}
            )
    assert result.is_error, result
    claim = load_claim(tmp_path / "g")
    assert claim is not None
    assert (claim.launch_id, claim.owner_instance_id, claim.owner_lease_until) == (
        "launch-1",
        "the-other-bridge",
        lease,
    )
