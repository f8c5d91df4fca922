"""Checkpoint F fixtures: every test here runs on asyncio (the bridge's and the games' loop).

A failing test that launched games through ``gabs`` (a config dir in its ``tmp_path``) gets
each game's ``launch.log`` tail and whether its process still runs added to its report: a
bridge only sees "the peer closed the connection", the game's own log says why.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path

import pytest

LOG_TAIL_BYTES = 8 * 1024


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _process_state(game_dir: Path) -> str:
    try:
        pid = int(json.loads((game_dir / "runtime.json").read_text(encoding="utf-8"))["gamePid"])
    except (OSError, ValueError, KeyError, TypeError):
        return "game process: unknown (no runtime claim)"
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return f"game process {pid}: gone"
    return f"game process {pid}: " + ("exited, not reaped" if state == "Z" else "running")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    tmp_path = getattr(item, "funcargs", {}).get("tmp_path")
    if report.when == "call" and report.failed and isinstance(tmp_path, Path):
        for log in sorted(tmp_path.glob("*/launch.log")):
            with log.open("rb") as stream:
                stream.seek(max(0, log.stat().st_size - LOG_TAIL_BYTES))
                tail = stream.read().decode("utf-8", "replace")
            report.sections.append(
                (f"game {log.parent.name}", f"{_process_state(log.parent)}\n{tail}")
            )
    return report
