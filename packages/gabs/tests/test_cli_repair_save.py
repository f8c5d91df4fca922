"""``gabs games repair``: a config that cannot be written back ends with one line and exit 1.

The Go bridge logs ``failed to save games config`` with the error and exits 1; ``gabs`` prints
the same words and its own error (docs/migration.md), never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX Steam library layout")


def _steam_library(root: Path) -> Path:
    steamapps = root / "Steam" / "steamapps"
    executable = steamapps / "common" / "Game" / "Game"
    executable.parent.mkdir(parents=True)
    executable.write_text("#!/bin/sh\n", encoding="utf-8")
    executable.chmod(0o755)
    (steamapps / "appmanifest_10.acf").write_text(
        '"AppState" { "name" "Game" "installdir" "Game" }', encoding="utf-8"
    )
    vdf = steamapps / "libraryfolders.vdf"
    vdf.write_text('"libraryfolders" { }\n', encoding="utf-8")
    return vdf


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GABS_STEAM_LIBRARYFOLDERS", str(_steam_library(tmp_path)))
    folder = tmp_path / "cfg"
    folder.mkdir()
    return folder


_STEAM_GAME = '"a": {"id": "a", "name": "A", "launchMode": "SteamAppId", "target": "10"}'


def _repair(config_dir: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Any, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["games", "repair", "a", "--configDir", str(config_dir)])
    out, err = capsys.readouterr()
    return exited.value.code, out, err


def test_a_refused_save_is_the_promised_line_and_exit_1(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Another entry with a duplicated member: the file cannot be written back unchanged.
    text = (
        '{"version": "1.0", "games": {' + _STEAM_GAME + ", "
        '"b": {"id": "b", "name": "B", "name": "B2", "launchMode": "DirectPath", '
        '"target": "/bin/sh"}}}'
    )
    path = config_dir / "config.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = _repair(config_dir, capsys)
    assert code == 1
    assert err == (
        "failed to save games config: the file cannot be rewritten without losing a duplicated "
        "member; remove the duplicate first:\n  /games/b/name: duplicate JSON member\n"
    )
    assert "Traceback" not in out + err
    assert "Updated 'a'" not in out
    assert path.read_text(encoding="utf-8") == text  # nothing written


def test_a_failed_write_is_the_same_line_and_exit_1(
    config_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = '{"version": "1.0", "games": {' + _STEAM_GAME + "}}"
    path = config_dir / "config.json"
    path.write_text(text, encoding="utf-8")

    def refuse(target: Path, data: bytes) -> None:
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr("gabs.config._file.write_secret_file", refuse)
    code, out, err = _repair(config_dir, capsys)
    assert code == 1
    assert err == f"failed to save games config: cannot write {path}: Permission denied\n"
    assert "Updated 'a'" not in out
    assert json.loads(path.read_text(encoding="utf-8"))["games"]["a"]["launchMode"] == (
        "SteamAppId"
    )


def test_a_successful_repair_still_switches_the_mode(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_dir / "config.json"
    path.write_text('{"version": "1.0", "games": {' + _STEAM_GAME + "}}", encoding="utf-8")
    code, out, err = _repair(config_dir, capsys)
    assert (code, err) == (0, "")
    assert out.startswith("Updated 'a' from SteamAppId to SteamManaged.\n")
    assert json.loads(path.read_text(encoding="utf-8"))["games"]["a"]["launchMode"] == (
        "SteamManaged"
    )
