"""The Go bridge's ``cmd/gabs`` tests, where ``gabs`` had to change to match them.

Each test names the Go test it follows. The rest of those files was checked side by side with
the Go binary and is pinned elsewhere (``test_go_spec_cli.py``, ``test_cli_doctor.py``, the
compat suite).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gabs.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def test_doctor_says_what_our_own_track_record_files_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # TestDoctorBroadlyReadableWarningsDescribeEachFileAccurately: every file others can read
    # is named with what it holds. Go's history.json is our track-record.json (the last good
    # context: target, arguments, folder, the config's environment values); its lock is a
    # coordination lock like Go's.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {"version": "1.0", "games": {"g": {"launchMode": "DirectPath", "target": "/bin/sh"}}}
        ),
        encoding="utf-8",
    )
    os.chmod(config, 0o600)
    game_dir = tmp_path / "g"
    game_dir.mkdir()
    for name in ("track-record.json", "track-record.lock"):
        (game_dir / name).write_text("{}", encoding="utf-8")
        os.chmod(game_dir / name, 0o644)

    with pytest.raises(SystemExit) as exited:
        main(["games", "doctor", "g", "--configDir", str(tmp_path)])

    out = capsys.readouterr().out
    assert exited.value.code == 0
    assert [line for line in out.splitlines() if "broadly readable" in line] == [
        f"  ! history file is broadly readable (-rw-r--r--): {game_dir / 'track-record.json'} — "
        "it holds launch targets, arguments, folders and configured environment values; "
        "tighten to 0600",
        f"  ! coordination lock is broadly readable (-rw-r--r--): "
        f"{game_dir / 'track-record.lock'} — keep the game's runtime folder private as a "
        "whole; tighten to 0600",
    ]
