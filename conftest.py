"""Settings shared by every test in the workspace."""

from __future__ import annotations

import contextlib
import logging
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


# gabs' command line, run in process by many tests, sets up logging the way a CLI does: the root
# logger's level, its own handler on the stderr of the moment (a capture that is closed after
# the test) and quieter levels for some libraries. Each test gets the logging it started with
# back, so a later test neither sees records it did not ask for nor writes to a closed stream.


def _is_pytests(handler: logging.Handler) -> bool:
    return type(handler).__module__.startswith("_pytest")


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    root = logging.getLogger()
    handlers = [h for h in root.handlers if not _is_pytests(h)]
    levels = {
        name: logger.level
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    root_level = root.level
    yield
    for handler in [h for h in root.handlers if not _is_pytests(h) and h not in handlers]:
        root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    if root.level != root_level:
        root.setLevel(root_level)
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        level = levels.get(name, logging.NOTSET)
        if isinstance(logger, logging.Logger) and logger.level != level:
            logger.setLevel(level)
