"""Settings shared by every test in the workspace."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from hypothesis import settings

# Property tests check behaviour, not speed: a loaded machine (two cores, parallel workers)
# must not turn a slow example into a failure. Speed is measured by the benchmarks.
settings.register_profile("workspace", deadline=None)
settings.load_profile("workspace")


# Games a bridge starts outlive it, as the Go bridge's do (they run in their own session).
# A test that starts one through a bridge and ends without games_stop would leave it running;
# at the end of each test worker, every game process a bridge launched for this worker's
# temporary folders is ended. A game is recognised by GABS_BRIDGE_PATH, which the bridge puts in
# the game's environment and which points into the test's folder.


def _end_games_launched_under(root: Path) -> list[int]:
    prefix = str(root.resolve()) + os.sep
    ended: list[psutil.Process] = []
    for process in psutil.process_iter(["pid"]):
        try:
            bridge_path = process.environ().get("GABS_BRIDGE_PATH", "")
        except (psutil.Error, OSError):
            continue
        if bridge_path.startswith(prefix):
            with contextlib.suppress(psutil.Error):
                process.kill()
                ended.append(process)
    psutil.wait_procs(ended, timeout=5)
    return [process.pid for process in ended]


@pytest.fixture(scope="session", autouse=True)
def _no_game_outlives_the_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    yield
    _end_games_launched_under(tmp_path_factory.getbasetemp())
