"""Processes found by ``stopProcessName`` outside any claim, as the Go bridge 1.1.0 words and
orders them: the ``external_instance_detected`` refusal for one process and for several, the
status of a game without a claim (no evidence), and pids in ``/proc``'s name order."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from gabs.config import GabsConfig
from gabs.mcp.call_results import call_view
from gabs.runtime import procs
from gabs_test_support import mcp_client

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="/proc")

_SERIAL = itertools.count()


def unique_sleep(tmp_path: Path) -> Path:
    source = shutil.which("sleep")
    assert source is not None
    path = tmp_path / f"zn{os.getpid() % 100000}x{next(_SERIAL)}"
    shutil.copy2(source, path)
    return path


@contextmanager
def running(program: Path, count: int) -> Iterator[list[int]]:
    with ExitStack() as stack:
        pids = []
        for _ in range(count):
            process = subprocess.Popen([str(program), "300"])
            stack.callback(process.wait, 10)
            stack.callback(process.kill)
            pids.append(process.pid)
        yield pids


@asynccontextmanager
async def client_for(tmp_path: Path, name: str) -> AsyncIterator[Client]:
    game = {"id": "g", "name": "Gee", "launchMode": "DirectPath", "target": "/bin/true"}
    game["stopProcessName"] = name
    gabs_config = GabsConfig.from_json(
        {"version": "1.0", "games": {"g": game}}, config_dir=tmp_path
    )
    async with mcp_client(gabs_config) as client:
        yield client


async def start_refusal(tmp_path: Path, name: str) -> dict[str, Any]:
    async with client_for(tmp_path, name) as client:
        with anyio.fail_after(30):
            result = await client.call_tool("games_start", {"gameId": "g"})
    assert result.is_error
    first = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    return {**call_view(result), "message": first.splitlines()[0]}


async def test_one_process_of_the_name_is_recorded_as_the_external_instance(
    tmp_path: Path,
) -> None:
    program = unique_sleep(tmp_path)
    with running(program, 1) as pids:
        data = await start_refusal(tmp_path, program.name)
    assert data["code"] == "external_instance_detected"
    assert data["message"] == (
        f'a process named "{program.name}" (pid {pids[0]}) is already running; it is now '
        "tracked as an external instance of g"
    )
    assert "candidates" not in data
    assert data["externalSnapshotPersisted"] is True


async def test_several_processes_of_the_name_are_listed_by_pid(tmp_path: Path) -> None:
    program = unique_sleep(tmp_path)
    with running(program, 2) as pids:
        data = await start_refusal(tmp_path, program.name)
    listed = [f"pid {pid}" for pid in sorted(pids, key=str)]
    assert data["code"] == "external_instance_detected"
    assert data["message"] == (
        f'multiple processes named "{program.name}" are running ({", ".join(listed)}); resolve '
        "manually before starting"
    )
    assert data["candidates"] == listed
    assert data["externalSnapshotPersisted"] is False


async def test_a_game_without_a_claim_has_no_evidence_in_its_status(tmp_path: Path) -> None:
    async with client_for(tmp_path, f"zgnone{os.getpid()}") as client:
        data = call_view(await client.call_tool("games_status", {"gameId": "g"}))
    item = data["games"][0] if "games" in data else data
    assert item["status"] == "stopped"
    assert "evidence" not in item


def test_pids_come_in_the_order_of_proc_s_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for pid in ("99", "100", "1000", "5"):
        (tmp_path / pid).mkdir()
        (tmp_path / pid / "comm").write_text("game\n", encoding="utf-8")
        (tmp_path / pid / "cmdline").write_bytes(b"game\0")
    monkeypatch.setattr(procs, "_PROC", tmp_path)
    assert procs.find_by_name("game") == [100, 1000, 5, 99]
