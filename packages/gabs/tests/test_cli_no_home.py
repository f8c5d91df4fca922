"""No home directory (``HOME`` empty or unset): the Go bridge's refusal, per command.

The texts were printed by the Go bridge 1.1.0 run side by side (its log lines ``<ts> ERROR
failed to load games config {"error": "..."}`` are one plain line in ``gabs``). ``Path.home``
is pointed at a temporary folder so that a command that wrongly went on would write there, where
the test sees it, and never to ``/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gabs.cli import run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="$HOME (Windows: %USERPROFILE%)")

E = "failed to get home directory: $HOME is not defined"
LOAD = f"failed to load games config: failed to create config paths: {E}"


@pytest.fixture(params=["empty", "unset"])
def no_home(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Path:
    if request.param == "empty":
        monkeypatch.setenv("HOME", "")
    else:
        monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("GABS_CONFIG_DIR", raising=False)
    fallback = tmp_path / "fallback"
    fallback.mkdir()
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: fallback))
    monkeypatch.chdir(tmp_path)
    return fallback


@pytest.mark.parametrize(
    ("args", "out", "err"),
    [
        (["games", "list"], "", LOAD),
        (["games", "show", "x"], "", LOAD),
        (["games", "remove", "x"], "", LOAD),
        (["games", "repair", "x"], "", LOAD),
        (
            ["games", "repair", "x", "--forget-runtime", "--yes"],
            f"Cannot access a runtime claim for 'x': {E}",
            "",
        ),
        (
            ["games", "doctor", "x"],
            f"Configuration: invalid\n  {E}\nGame 'x': not found in configuration\n"
            f"Track record: unreadable ({E})",
            "",
        ),
        (
            ["games", "status"],
            "",
            f"warning: configuration could not be read: failed to create config paths: {E} "
            f"(listing runtime claims only)\nwarning: runtime claims could not be scanned: {E} "
            "(summary may be incomplete)",
        ),
        (
            ["games", "status", "x"],
            "",
            f"x: cannot read runtime claim: failed to read runtime state: {E}",
        ),
        (["games", "start", "x"], "", f"config_invalid: {E}"),
        (
            ["games", "kill", "x"],
            "",
            f"blocked_unknown_state: the runtime claim for 'x' is unreadable: failed to read "
            f"runtime state: {E}. Use 'gabs games repair x --forget-runtime' if the game is "
            "provably gone.",
        ),
        (["server"], "", f"failed to resolve config path: {E}"),
        (["games", "list", "--configDir="], "", LOAD),
    ],
)
def test_each_command_refuses_as_go_with_exit_1(
    no_home: Path, capsys: pytest.CaptureFixture[str], args: list[str], out: str, err: str
) -> None:
    assert run(args) == 1
    assert capsys.readouterr() == (out + "\n" if out else "", err + "\n" if err else "")
    assert list(no_home.iterdir()) == []  # nothing read or written in a guessed folder


def test_a_usage_error_comes_first(no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["games", "show"]) == 2
    assert "home directory" not in capsys.readouterr().err


def test_a_config_dir_needs_no_home(
    no_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(["games", "add", "x", "--configDir", str(tmp_path / "cfg")]) == 0
    assert run(["games", "list", "--configDir", str(tmp_path / "cfg")]) == 0
    assert capsys.readouterr().out.endswith("\nx\n")
    assert list(no_home.iterdir()) == []


def test_gabs_config_dir_needs_no_home(
    no_home: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GABS_CONFIG_DIR", str(tmp_path / "cfg"))
    assert run(["games", "status", "x"]) == 0
    assert capsys.readouterr().out == "x: stopped (no runtime claim)\n"


def test_version_needs_no_home(no_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["version"]) == 0
    assert capsys.readouterr().out.startswith("gabs ")


def test_our_config_check_says_invalid_with_exit_2(
    no_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["config", "check"]) == 2
    assert capsys.readouterr() == (f"invalid: {E}\n", "")
    assert list(no_home.iterdir()) == []
