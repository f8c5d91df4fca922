"""Starting the Steam client: the process outlives the call, and is still looked after."""

from __future__ import annotations

import gc
import os
import sys
import time
import warnings

import pytest

from gabs.launch import steam

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads a child's state in /proc"
)


def _command(seconds: float) -> list[str]:
    return [sys.executable, "-c", f"import time; time.sleep({seconds})"]


def _reaped(pid: int) -> bool:
    """Whether the child ``pid`` was already waited for by someone else."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_client_still_running_is_kept_not_finalised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steam, "client_start_command", lambda: _command(60))
    monkeypatch.setattr(steam, "_STARTED", [], raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert steam.open_client() is None
        gc.collect()
    try:
        assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
        (process,) = steam._STARTED
        assert process.poll() is None
    finally:
        for process in steam._STARTED:
            process.kill()
            process.wait(timeout=10)


def test_a_client_that_ended_is_reaped_at_the_next_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steam, "_STARTED", [])
    monkeypatch.setattr(steam, "client_start_command", lambda: _command(60))
    assert steam.open_client() is None
    (first,) = steam._STARTED
    first.kill()
    deadline = time.monotonic() + 10
    while not _zombie(first.pid):
        if time.monotonic() > deadline:
            pytest.fail("the killed client did not end within 10 s")
        time.sleep(0.01)
    monkeypatch.setattr(steam, "client_start_command", lambda: _command(0))
    try:
        assert steam.open_client() is None
        assert first not in steam._STARTED  # its exit status was collected: no zombie left
        assert first.returncode is not None and _reaped(first.pid)
    finally:
        for process in steam._STARTED:
            process.kill()
            process.wait(timeout=10)


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has ended and waits to be reaped (Linux's ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_a_command_that_cannot_start_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(steam, "_STARTED", [])
    monkeypatch.setattr(steam, "client_start_command", lambda: ["/nonexistent/steam"])
    problem = steam.open_client()
    assert problem is not None and problem.startswith("cannot start the Steam client:")
    assert steam._STARTED == []
