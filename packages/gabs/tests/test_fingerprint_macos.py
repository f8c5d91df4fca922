"""gabs.runtime.procs on macOS: a process's fingerprint is the Go bridge's (``p_starttime``
from ``sysctl kern.proc.pid`` as seconds * 10^6 + microseconds), the same value in every
process that reads it, so a claim one bridge or command writes is verified by any other. The
sysctl answer is simulated: the decoding is what is checked."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from gabs.runtime import procs

# seconds, microseconds of p_starttime; then p_vmspace, p_sigacts, p_flag; p_stat at 36
RUNNING = struct.pack("<qi4xqqib", 1795862777, 53170, 0, 0, 0, 2).ljust(648, b"\0")
ZOMBIE = struct.pack("<qi4xqqib", 1795862777, 53170, 0, 0, 0, 5).ljust(648, b"\0")


@pytest.fixture
def macos(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[int, bytes]:
    table: dict[int, bytes] = {}
    monkeypatch.setattr(procs, "_PROC", tmp_path / "no-proc")
    monkeypatch.setattr(procs.sys, "platform", "darwin")
    monkeypatch.setattr(procs, "_kinfo_proc", lambda pid: table.get(pid, b""))
    return table


def test_the_fingerprint_is_go_s_start_time_in_microseconds(macos: dict[int, bytes]) -> None:
    macos[4242] = RUNNING
    assert procs.process_start_time(4242) == 1795862777053170
    assert procs.verify_pid(4242, 1795862777053170) == (
        "running",
        "pid 4242 alive, start-time fingerprint matches",
    )


def test_a_zombie_or_a_missing_process_is_gone(macos: dict[int, bytes]) -> None:
    macos[4242] = ZOMBIE
    assert procs.verify_pid(4242, 1795862777053170)[0] == "stopped"
    assert procs.verify_pid(4343, 1795862777053170) == ("stopped", "pid 4343 not found")
