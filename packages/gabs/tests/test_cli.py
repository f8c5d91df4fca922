"""The gabs command line: the Go bridge's commands and global flags, ours beside them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs import __version__
from gabs.cli import main
from gabs.cli_args import hoist_global_flags, log_level, parse_backoff, parse_duration

GABS = Path(sys.executable).parent / ("gabs.exe" if sys.platform == "win32" else "gabs")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def write(config_dir: Path, games: dict[str, Any], **top: Any) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    document = {"version": "1.0", "games": games, **top}
    (config_dir / "config.json").write_text(json.dumps(document), encoding="utf-8")


def saved(config_dir: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((config_dir / "config.json").read_text("utf-8"))
    return document


# --- flags -----------------------------------------------------------------------------------


def test_global_flags_are_taken_from_any_position_until_a_double_dash() -> None:
    flags, rest = hoist_global_flags(
        ["games", "show", "--configDir", "/a", "-log-level=warn", "--", "--grace", "x"]
    )
    assert (flags.config_dir, flags.log_level, flags.grace) == ("/a", "warn", None)
    assert rest == ["games", "show", "--", "--grace", "x"]
    assert hoist_global_flags(["--config-dir=/b", "server"])[0].config_dir == "/b"


def test_durations_and_the_backoff_window_read_like_go() -> None:
    assert parse_duration("1m30s") == 90.0
    assert parse_duration("250ms") == 0.25
    assert parse_backoff(None) == (0.1, 1.0)
    assert parse_backoff("1s..inf") == (1.0, 86400.0)
    with pytest.raises(ValueError, match=r"expected 'min\.\.max'"):
        parse_backoff("5s")
    with pytest.raises(ValueError, match="cannot be greater"):
        parse_backoff("2s..1s")


def test_log_levels_take_the_go_names_and_fall_back_to_info_with_a_warning() -> None:
    assert [log_level(n)[0] for n in ("trace", "debug", "info", "warn", "error", "WARNING")] == [
        10,
        10,
        20,
        30,
        40,
        30,
    ]
    level, warning = log_level("loud")
    assert level == 20 and warning is not None and "loud" in warning


def test_version_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["version"], capsys) == (0, f"gabs {__version__}\n", "")
    assert (
        run(["version", "--json"], capsys)[1]
        == json.dumps({"name": "gabs", "version": __version__}) + "\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "usage"),
        (["fly"], "unknown subcommand: fly\n"),
        (["games", "list", "extra"], "games list takes at most 0 argument(s); unexpected: extra"),
        (["games", "list", "--configDir"], "flag --configDir requires a value"),
        (["games", "list", "--reconnectBackoff", "5s"], "invalid --reconnectBackoff"),
        (["games", "list", "--grace", "soon"], 'invalid value "soon" for flag -grace'),
        (["games", "start", "x", "--bogus"], "unknown start flag: --bogus"),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write(tmp_path, {"x": {"target": "/bin/true"}})
    appended = argv and argv[-1] != "--configDir"
    code, out, err = run([*argv, "--configDir", str(tmp_path)] if appended else argv, capsys)
    assert (code, out) == (2, "")
    assert message in err


# --- games list / show / add / remove --------------------------------------------------------


def test_games_list_prints_one_id_per_line_wherever_the_flag_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"b": {"target": "/b"}, "a.paper": {"target": "/a"}})
    for argv in (
        ["games", "list", "--configDir", str(tmp_path)],
        ["--configDir", str(tmp_path), "games", "list"],
        ["games", "-configDir", str(tmp_path), "list", "--log-level", "bogus"],
        ["games", "list", "--config-dir", str(tmp_path)],
    ):
        assert run(argv, capsys)[:2] == (0, "a.paper\nb\n")
    _, out, _ = run(["games", "list", "--json", "--configDir", str(tmp_path)], capsys)
    assert [entry["id"] for entry in json.loads(out)] == ["a.paper", "b"]
    empty = tmp_path / "empty"
    assert run(["games", "list", "--configDir", str(empty)], capsys)[1] == (
        "No games configured. Use 'gabs games add <id>' to add games.\n"
    )


def test_games_show_prints_the_entry_with_env_values_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        {
            "g": {
                "name": "Game",
                "launchMode": "CustomCommand",
                "target": "/bin/game",
                "args": ["-x"],
                "env": {"SECRET_KEY": "hunter2"},
                "defaultProfile": "fast",
                "profiles": {"fast": {"description": "Quick", "args": ["--fast"]}},
            }
        },
    )
    code, out, _ = run(["games", "show", "g", "--configDir", str(tmp_path)], capsys)
    assert code == 0 and "hunter2" not in out
    for line in (
        "Game Configuration: g",
        "  Launch Mode: CustomCommand",
        "  Base Arguments (a profile appends to these): -x",
        "  Environment: SECRET_KEY=<hidden>",
        "  fast (default) - Quick",
    ):
        assert line in out
    code, out, _ = run(["games", "show", "g", "--json", "--configDir", str(tmp_path)], capsys)
    assert json.loads(out)["env"] == {"SECRET_KEY": "<hidden>"}
    assert run(["games", "show", "nope", "--configDir", str(tmp_path)], capsys)[:2] == (
        1,
        "Game 'nope' not found.\n",
    )


def test_a_dash_prefixed_game_id_is_reachable_after_a_double_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"-dash": {"name": "Dash", "target": "/bin/dash"}})
    code, out, _ = run(["games", "show", "--configDir", str(tmp_path), "--", "-dash"], capsys)
    assert code == 0 and "Game Configuration: -dash" in out


def test_games_add_without_a_terminal_writes_a_minimal_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["games", "add", "factory", "--configDir", str(tmp_path)], capsys)
    assert (code, out) == (
        0,
        "Game 'factory' added with minimal configuration. Configure it manually or edit the "
        "config file.\n",
    )
    assert saved(tmp_path)["games"]["factory"] == {
        "id": "factory",
        "name": "factory",
        "launchMode": "DirectPath",
        "target": "",
    }
    code, out, _ = run(["games", "add", "factory", "--configDir", str(tmp_path)], capsys)
    assert (code, out) == (
        1,
        "Game 'factory' already exists. Use 'gabs games show factory' to view it.\n",
    )


def test_games_add_with_options_writes_them_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["games", "add", "sim", "--name", "Sim", "--launch-mode", "CustomCommand"]
    argv += ["--target", "./bin/sim", "--arg=--fast", "--env", "LEVEL=3"]
    argv += ["--attention-mode", "observe", "--configDir", str(tmp_path / "cfg")]
    assert run(argv, capsys)[:2] == (0, "Game 'sim' added successfully.\n")
    assert saved(tmp_path / "cfg")["games"]["sim"] == {
        "id": "sim",
        "name": "Sim",
        "launchMode": "CustomCommand",
        "target": str(tmp_path / "bin" / "sim"),
        "args": ["--fast"],
        "env": {"LEVEL": "3"},
        "attention": {"mode": "observe"},
    }
    bad = ["games", "add", "x", "--env", "NOVALUE", "--configDir", str(tmp_path / "cfg")]
    assert run(bad, capsys)[0] == 2
    store = ["games", "add", "st", "--launch-mode", "SteamAppId", "--target", "1"]
    code, _, err = run([*store, "--configDir", str(tmp_path / "cfg")], capsys)
    assert (code, err) == (
        1,
        "invalid game configuration: stopProcessName is required for SteamAppId games to enable "
        "proper game termination (or a game-level status hook plus a stop or kill hook). Without "
        "it, GABS can only stop the launcher process, not the actual game\n",
    )


def test_games_remove_deletes_the_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"a": {"target": "/a"}, "b": {"target": "/b"}})
    assert run(["games", "remove", "a", "--configDir", str(tmp_path)], capsys)[:2] == (
        0,
        "Game 'a' removed successfully.\n",
    )
    assert list(saved(tmp_path)["games"]) == ["b"]
    assert run(["games", "remove", "a", "--configDir", str(tmp_path)], capsys)[:2] == (
        1,
        "Game 'a' not found.\n",
    )


def test_an_unusable_config_file_fails_games_commands_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text("{", encoding="utf-8")
    code, out, err = run(["games", "list", "--configDir", str(tmp_path)], capsys)
    assert (code, out) == (1, "") and "failed to load games config" in err


# --- config check ----------------------------------------------------------------------------


def test_config_check_counts_games_and_lists_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"a": {"target": "/a", "colour": "red"}})
    code, out, err = run(["config", "check", "--configDir", str(tmp_path)], capsys)
    assert (code, out) == (0, f"ok: 1 game in {tmp_path / 'config.json'}\n")
    assert err == "warning: /games/a/colour: unknown key\n"


def test_config_check_lists_every_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"a": {"target": "/a"}, "b": {"launchMode": "Warp"}})
    code, out, _ = run(["config", "check", "--configDir", str(tmp_path)], capsys)
    assert code == 2
    assert out.splitlines() == [
        f"invalid: 1 of 2 games in {tmp_path / 'config.json'}",
        "  /games/b/launchMode: must be one of DirectPath, CustomCommand, SteamManaged, "
        "SteamAppId, EpicAppId",
    ]
    (tmp_path / "config.json").write_text('{"games": 3}', encoding="utf-8")
    code, out, _ = run(["config", "check", "--configDir", str(tmp_path)], capsys)
    assert code == 2 and "/games: must be an object, not a number" in out


# --- the installed executable ----------------------------------------------------------------


def test_the_installed_gabs_executable_runs_go_style_commands(tmp_path: Path) -> None:
    assert GABS.is_file(), f"{GABS} is not installed"
    env = {"PATH": str(GABS.parent), "HOME": str(tmp_path)}

    def gabs(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(GABS), *argv],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=env,
            stdin=subprocess.DEVNULL,
        )

    version = gabs("version")
    assert (version.returncode, version.stdout) == (0, f"gabs {__version__}\n")
    assert gabs("games", "add", "sim").returncode == 0
    assert (tmp_path / ".gabs" / "config.json").is_file()
    listed = gabs("games", "list")
    assert (listed.returncode, listed.stdout) == (0, "sim\n")
    other = gabs("games", "list", "--configDir", str(tmp_path / "other"))
    assert "No games configured" in other.stdout
