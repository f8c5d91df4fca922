"""Starting the Steam client: the process outlives the call, and is still looked after."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from gabs.launch import steam

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads a child's state in /proc"
)


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A stand-in client that writes its pid to the returned file, then runs for a minute."""
    pid_file = tmp_path / "client.pid"
    script = (
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    )
    monkeypatch.setattr(steam, "client_start_command", lambda: [sys.executable, "-c", script])
    yield pid_file
    if pid_file.exists() and pid_file.read_text():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def _pid(pid_file: Path) -> int:
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        if time.monotonic() > deadline:
            pytest.fail("the stand-in client did not start within 30 s")
        time.sleep(0.01)
    return int(pid_file.read_text())


def test_a_client_still_running_is_not_finalised(stand_in: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert steam.open_client() is None
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert Path(f"/proc/{_pid(stand_in)}").exists()


def test_a_client_that_ends_is_reaped_without_another_start(stand_in: Path) -> None:
    assert steam.open_client() is None
    pid = _pid(stand_in)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists():  # a zombie keeps its entry until it is waited for
        if time.monotonic() > deadline:
            pytest.fail("the ended client was not reaped within 10 s (a zombie)")
        time.sleep(0.01)


def test_a_command_that_cannot_start_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steam, "client_start_command", lambda: ["/nonexistent/steam"])
    problem = steam.open_client()
    assert problem is not None and problem.startswith("cannot start the Steam client:")
