"""The claim scan of the all-games status as the Go bridge's process layer has it
(``ListRuntimeClaimIDs``): a config folder that cannot be read is an incomplete scan, reported
as ``runtimeClaimScanError``, never an empty one; a sub-folder that cannot be read is skipped.
The process scan by name reports an entry it could not inspect, unless a process matched; a
start whose claim cannot be written after its probes keeps what they found."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gabs.config import GabsConfig
from gabs.lifecycle import gate
from gabs.runtime import claimed_ids, list_claims, procs
from gabs_test_support import data, mcp_client, text


def _claim(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "runtime.json").write_text("{}", encoding="utf-8")


def _refuse(monkeypatch: pytest.MonkeyPatch, refused: Path) -> None:
    """Reading the folder ``refused`` fails as it does without the read permission (tests may
    run as root, whom file modes do not stop)."""
    scan: Callable[..., Iterator[Any]] = os.scandir

    def scandir(path: Any = ".") -> Any:
        if os.path.normpath(os.fspath(path)) == os.path.realpath(refused):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scan(path)

    monkeypatch.setattr(os, "scandir", scandir)


def _denied(folder: Path) -> str:
    """The scan error of an unreadable config folder, in the Go bridge's words."""
    return f"open {os.path.realpath(folder)}: permission denied"


def test_an_unreadable_config_folder_is_a_scan_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _claim(tmp_path / "a")
    _refuse(monkeypatch, tmp_path)
    with pytest.raises(PermissionError) as caught:
        list_claims(tmp_path)
    assert str(caught.value) == _denied(tmp_path)
    assert claimed_ids(tmp_path) == []


def test_an_unreadable_sub_folder_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _claim(tmp_path / "a")
    _claim(tmp_path / "team" / "b")
    _refuse(monkeypatch, tmp_path / "team")
    assert list_claims(tmp_path) == ["a"]


def test_a_missing_config_folder_has_no_claims(tmp_path: Path) -> None:
    assert list_claims(tmp_path / "missing") == []


async def test_the_all_games_status_reports_an_unreadable_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = {"a": {"id": "a", "name": "A", "launchMode": "DirectPath", "target": "/x/run"}}
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)
    _claim(tmp_path / "gone")
    _refuse(monkeypatch, tmp_path)
    async with mcp_client(config) as client:
        status = await client.call_tool("games_status", {})
    found = data(status)
    assert found["runtimeClaimScanError"] == _denied(tmp_path)
    assert [game["gameId"] for game in found["games"]] == ["a"]


def _process(root: Path, pid: int, *, comm: str | None, argv0: str) -> None:
    """A fake ``/proc/<pid>``; ``comm=None``: a ``comm`` that cannot be read (a folder)."""
    folder = root / str(pid)
    folder.mkdir()
    if comm is None:
        (folder / "comm").mkdir()
    else:
        (folder / "comm").write_text(comm + "\n", encoding="utf-8")
    (folder / "cmdline").write_bytes(argv0.encode() + b"\0")


def test_a_process_scan_reports_what_it_could_not_inspect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Go's TestLinuxScanPropagatesInspectionFailures, with a comm that cannot be read.
    monkeypatch.setattr(procs, "_PROC", tmp_path)
    _process(tmp_path, 100, comm=None, argv0="/usr/bin/other")
    with pytest.raises(OSError, match="process table not fully inspectable"):
        procs.find_by_name("game-bin")
    _process(tmp_path, 200, comm="game-bin", argv0="/usr/bin/game-bin")
    # cmdline still decides a process whose comm cannot be read
    _process(tmp_path, 300, comm=None, argv0="/opt/game/game-bin")
    assert procs.find_by_name("game-bin") == [200, 300]
    # a process gone meanwhile (its files vanished) is a race, not a failure
    for pid in (100, 300):
        (tmp_path / str(pid) / "comm").rmdir()
        (tmp_path / str(pid) / "cmdline").unlink()
    assert procs.find_by_name("nothing-matches") == []


async def test_a_start_whose_claim_cannot_be_written_keeps_the_probe_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Go's TestGateStartErrorCarriesEarnedWarnings: a status hook that cannot tell, a process
    # found by its name, and the external instance's claim that cannot be written: the error
    # still carries what the probes found.
    name = "gabs-h5-outside"
    program = tmp_path / name
    program.symlink_to("/bin/sleep")
    outside = subprocess.Popen([str(program), "30"])  # noqa: ASYNC220
    hook = {"command": sys.executable, "args": ["-c", "raise SystemExit(2)"]}
    games = {
        "g": {
            "id": "g",
            "name": "G",
            "launchMode": "CustomCommand",
            "target": "/bin/sleep",
            "args": ["30"],
            "stopProcessName": name,
            "lifecycle": {"status": hook},
        }
    }
    config = GabsConfig.from_json({"version": "1.0", "games": games}, config_dir=tmp_path)

    def outage(*args: Any, **kwargs: Any) -> None:
        raise OSError("simulated snapshot outage")

    monkeypatch.setattr(gate, "as_external", outage)
    try:
        async with mcp_client(config) as client:
            result = await client.call_tool("games_start", {"gameId": "g"})
    finally:
        outside.kill()
        outside.wait(10)
    found = data(result)
    assert result.is_error and found["code"] == "blocked_unknown_state", found
    assert "simulated snapshot outage" in text(result)
    assert any("could not tell whether the game runs" in w for w in found["startWarnings"])
