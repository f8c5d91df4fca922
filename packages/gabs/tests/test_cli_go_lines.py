"""The command line's short fixed lines as the Go bridge 1.1.0 prints them (stream, exit code,
quoting), pinned from runs of both bridges side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs.cli import main

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def write(config_dir: Path, games: dict[str, Any]) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(
        json.dumps({"version": "1.0", "games": games}), encoding="utf-8"
    )


def test_a_start_of_an_unknown_game_quotes_the_id_as_go_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {})
    assert run(["games", "start", "nosuch", "--configDir", str(tmp_path)], capsys) == (
        1,
        "",
        'game_not_found: no game "nosuch" is configured\n',
    )


@posix_only
def test_a_second_start_prints_go_s_already_running_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(tmp_path, {"g": {"launchMode": "DirectPath", "target": "/bin/sleep", "args": ["60"]}})
    base = ["--configDir", str(tmp_path)]
    try:
        code, out, _ = run(["games", "start", "g", *base], capsys)
        assert code == 0 and out.startswith("started_attachment_deferred: 'g' verified (pid ")
        pid = int(out.split("(pid ")[1].split(",")[0])
        assert run(["games", "start", "g", *base], capsys) == (
            1,
            "",
            f"already_running: g is already running (pid {pid} alive, start-time fingerprint "
            "matches)\n",
        )
    finally:
        run(["games", "kill", "g", *base], capsys)


class _Terminal:
    """Answers to the prompts, as typed on a terminal."""

    def __init__(self, *lines: str) -> None:
        self.lines = [f"{line}\n" for line in lines]

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.lines.pop(0) if self.lines else ""


@pytest.mark.skipif(sys.platform == "darwin", reason="the DirectPath prompt differs on macOS")
def test_games_add_asks_as_go_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {})
    monkeypatch.setattr(
        sys, "stdin", _Terminal("", "Bogus", "CustomCommand", "/bin/echo", "", "", "")
    )
    code, out, err = run(["games", "add", "g1", "--configDir", str(tmp_path)], capsys)
    modes = "(DirectPath|SteamManaged|SteamAppId|EpicAppId|CustomCommand) [DirectPath]: "
    assert (code, err) == (0, "")
    assert out == (
        "Adding game configuration for 'g1':\n"
        "Game Name [g1]: "
        f"Launch Mode {modes}"
        "Invalid choice. Please select one of: DirectPath, SteamManaged, SteamAppId, EpicAppId, "
        "CustomCommand\n"
        f"Launch Mode {modes}"
        "Target (path/id): "
        "Working Directory (optional): "
        "Stop Process Name (optional - for better game stopping): "
        "Description (optional): "
        "Game 'g1' added successfully.\n"
    )
    monkeypatch.setattr(sys, "stdin", _Terminal("", "", "/bin/true", "", "", ""))
    _, out, _ = run(["games", "add", "g2", "--configDir", str(tmp_path)], capsys)
    assert f"Launch Mode {modes}Target (executable path): " in out


@pytest.mark.parametrize("mode", ["SteamAppId", "EpicAppId"])
def test_games_add_asks_again_for_a_required_stop_process_name_as_go_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    write(tmp_path, {})
    monkeypatch.setattr(sys, "stdin", _Terminal("", mode, "123", "", "  ", "game.exe", ""))
    code, out, err = run(["games", "add", "g1", "--configDir", str(tmp_path)], capsys)
    assert (code, err) == (0, "")
    target = "Steam App ID" if mode == "SteamAppId" else "path/id"
    ask = f"Stop Process Name (REQUIRED for {mode} games): "
    warning = (
        f"\u26a0\ufe0f  Stop Process Name is required for {mode} games to enable proper game "
        "termination.\n"
    )
    lines = out.split(f"Target ({target}): {ask}", 1)[1].split("\n")
    # The Go bridge's layout: its warning line, two lines indented by three spaces, the question.
    assert lines[0] == warning.rstrip("\n")
    assert [line[:3] for line in lines[1:3]] == ["   ", "   "]
    assert lines[3:6] == [ask + lines[0], *lines[1:3]]
    assert out.count(warning) == 2
    assert out.endswith(f"{ask}Description (optional): Game 'g1' added successfully.\n")
    stored = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert stored["games"]["g1"]["stopProcessName"] == "game.exe"


class _Interrupted(_Terminal):
    """A terminal where Ctrl-C is pressed once the given answers are used up."""

    def readline(self) -> str:
        if not self.lines:
            raise KeyboardInterrupt
        return super().readline()


def test_games_add_stops_at_ctrl_c_where_go_keeps_asking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Kept difference: the Go bridge catches SIGINT for every command and goes on asking.
    monkeypatch.setattr(sys, "stdin", _Interrupted("", ""))
    code, out, err = run(["games", "add", "g1", "--configDir", str(tmp_path / "c")], capsys)
    assert (code, err) == (130, "gabs: interrupted\n")
    assert out.split("[DirectPath]: ")[-1].startswith("Target (executable path")
    assert out.endswith("): ") and "Working Directory" not in out
    assert not (tmp_path / "c" / "config.json").exists()


_NOT_CANONICAL = (
    'game ID "a/../b" is not in canonical form; it aliases another ID\'s runtime directory '
    "(avoid '.', '..', '//' and a trailing '/')"
)
_COLLIDES = (
    'game ID "M" maps to the same runtime directory as "m" on a case- or '
    "normalization-insensitive filesystem; use distinct IDs"
)


@pytest.mark.parametrize(
    ("game_id", "answers", "error"),
    [
        ("", (), "game ID is required"),
        ("g1", ("", "CustomCommand"), "target is required for CustomCommand launch mode"),
        (
            "a/../b",
            (),
            "invalid configuration:\n  /games/a~1..~1b: game ID is not addressable at runtime: "
            + _NOT_CANONICAL,
        ),
        ("M", (), f"invalid configuration:\n  /games/M: {_COLLIDES}"),
    ],
)
def test_games_add_refuses_an_entry_with_go_s_message_after_the_questions(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    game_id: str,
    answers: tuple[str, ...],
    error: str,
) -> None:
    write(tmp_path, {"m": {"id": "m", "name": "M", "launchMode": "DirectPath", "target": "/x"}})
    before = (tmp_path / "config.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", _Terminal(*answers, *[""] * (6 - len(answers))))
    code, out, err = run(["games", "add", game_id, "--configDir", str(tmp_path)], capsys)
    assert (code, err) == (1, f"invalid game configuration: {error}\n")
    assert out.endswith("Description (optional): ")
    assert (tmp_path / "config.json").read_bytes() == before


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["games", "add"], "games add requires a game ID"),
        (["games", "show"], "games show requires a game ID"),
        (["games", "remove"], "games remove requires a game ID"),
        (["games", "doctor"], "games doctor requires a game ID"),
        (["games", "repair"], "games repair requires a game ID"),
        (["games", "start"], "games start requires a game ID"),
        (["games", "stop"], "games stop requires a game ID"),
        (["games", "kill"], "games kill requires a game ID"),
        (["games", "fly"], "unknown games action: fly"),
        (["games", "doctor", "x", "--bogus"], "unknown doctor flag: --bogus"),
        (["games", "repair", "x", "--bogus"], "unknown repair flag: --bogus"),
        (["games", "show", "a", "b"], "games show takes at most 1 argument(s); unexpected: b"),
        (["games", "status", "a", "b"], "games status takes at most 1 argument(s); unexpected: b"),
        (
            ["games", "list", "--bogus"],
            'unknown list flag: --bogus (place a dash-prefixed game ID after "--")',
        ),
        (
            ["games", "list", "--", "a", "b"],
            "games list takes at most 0 argument(s); unexpected: a b",
        ),
        (
            ["games", "doctor", "--", "a", "b"],
            'games doctor takes only the game ID after "--"; place flags before it (unexpected: b)',
        ),
    ],
)
def test_usage_errors_are_go_s_one_line_on_stderr(
    argv: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {})
    assert run([*argv[:2], "--configDir", str(tmp_path), *argv[2:]], capsys) == (2, "", f"{line}\n")


def test_help_goes_to_stderr_and_an_unknown_command_names_itself(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for flag in ("-h", "--help", "help"):
        code, out, err = run([flag], capsys)
        assert (code, out) == (0, "") and "games" in err
    code, out, err = run(["fly"], capsys)
    assert (code, out) == (2, "") and err.startswith("unknown subcommand: fly\n")
    code, out, err = run(["games"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("Please specify what you'd like to do with games.\n\n")


def test_a_bad_grace_is_go_s_flag_line_and_a_bad_address_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {})
    base = ["--configDir", str(tmp_path)]
    assert run(["games", "list", "--grace", "soon", *base], capsys) == (
        2,
        "",
        'invalid value "soon" for flag -grace: parse error\n',
    )
    code, out, err = run(["server", "http", "--addr", "nonsense", *base], capsys)
    assert (code, out) == (1, "")
    assert "nonsense" in err


@posix_only
def test_stop_and_kill_act_on_the_claim_when_the_config_is_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    base = ["--configDir", str(tmp_path)]
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    assert run(["games", "stop", "g", *base], capsys) == (
        0,
        "g is not running (no runtime claim).\n",
        "",
    )
    write(tmp_path, {"g": {"launchMode": "DirectPath", "target": "/bin/sleep", "args": ["60"]}})
    try:
        assert run(["games", "start", "g", *base], capsys)[0] == 0
        (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
        code, out, _ = run(["games", "kill", "g", *base], capsys)
        assert (code, out.split(" — ")[0]) == (0, "g: terminated")
    finally:
        write(tmp_path, {"g": {"launchMode": "DirectPath", "target": "/bin/sleep"}})
        run(["games", "kill", "g", *base], capsys)


@posix_only
def test_a_server_with_dev_null_as_stdin_ends_cleanly_as_go_s_does(tmp_path: Path) -> None:
    gabs = Path(sys.executable).parent / "gabs"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
    env["HOME"] = str(tmp_path)
    done = subprocess.run(
        [str(gabs), "server", "--configDir", str(tmp_path), "--log-level", "warn"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
