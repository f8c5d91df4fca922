"""The gabs command line: output on stdout, diagnostics on stderr, stable exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs import __version__
from gabs.cli import main
from gabs.config import GabsConfig

GABS = Path(sys.executable).parent / ("gabs.exe" if sys.platform == "win32" else "gabs")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def add_sim(config_dir: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> None:
    argv = ["games", "add", "sim", "--name", "Simulated colony", "--launch-mode"]
    argv += ["CustomCommand", "--target", "rimbridge-sim", "--config-dir", str(config_dir)]
    assert run([*argv, *extra], capsys)[0] == 0


def saved(config_dir: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((config_dir / "config.json").read_text("utf-8"))
    return document


# --- version and usage -----------------------------------------------------------------------


def test_version_prints_the_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["version"], capsys) == (0, f"gabs {__version__}\n", "")
    assert run(["version", "--json"], capsys) == (
        0,
        json.dumps({"name": "gabs", "version": __version__}) + "\n",
        "",
    )


def test_a_missing_or_unknown_command_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run([], capsys)
    assert (code, out) == (2, "")
    assert "the following arguments are required: COMMAND" in err
    code, out, err = run(["games", "fly"], capsys)
    assert (code, out) == (2, "")
    assert "invalid choice: 'fly'" in err


# --- config check ----------------------------------------------------------------------------


def test_config_check_counts_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["config", "check", "--config-dir", str(tmp_path)], capsys) == (
        0,
        f"ok: 0 games in {tmp_path / 'config.json'} (no file yet)\n",
        "",
    )
    add_sim(tmp_path, capsys)
    assert run(["config", "check", "--config-dir", str(tmp_path)], capsys) == (
        0,
        f"ok: 1 game in {tmp_path / 'config.json'}\n",
        "",
    )


def test_config_check_lists_each_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps(
            {
                "version": "1.0",
                "games": {
                    "rimworld": {
                        "id": "rimworld",
                        "name": "RimWorld",
                        "launchMode": "Shell",
                        "target": "/x",
                        "attention": {"mode": "block"},
                    }
                },
            }
        ),
        encoding="utf-8",
    )
    assert run(["config", "check", "--config-dir", str(tmp_path)], capsys) == (
        2,
        f"invalid: invalid config {path}\n"
        "  $.games.rimworld.attention.mode: must be one of off, observe, gate\n"
        "  $.games.rimworld.launchMode: must be one of DirectPath, CustomCommand, "
        "SteamAppId, EpicAppId\n",
        "",
    )


def test_config_check_reports_bad_json_with_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text('{"games": }', encoding="utf-8")
    code, out, _ = run(["config", "check", "--config-dir", str(tmp_path)], capsys)
    assert code == 2
    assert out.endswith("is not valid JSON: Expecting value (line 1, column 11)\n")


def test_config_check_notes_go_bridge_keys_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {}, "toolNormalization": {}}), encoding="utf-8"
    )
    assert run(["config", "check", "--config-dir", str(tmp_path)], capsys) == (
        0,
        f"ok: 0 games in {tmp_path / 'config.json'}\n",
        "note: $.toolNormalization: a Go-bridge setting this bridge does not use; kept\n",
    )


def test_the_config_dir_comes_from_gabs_config_dir_or_before_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GABS_CONFIG_DIR", str(tmp_path / "env"))
    code, out, _ = run(["config", "check"], capsys)
    assert (code, out) == (0, f"ok: 0 games in {tmp_path / 'env' / 'config.json'} (no file yet)\n")
    code, out, _ = run(["--config-dir", str(tmp_path / "opt"), "config", "check"], capsys)
    assert (code, out) == (0, f"ok: 0 games in {tmp_path / 'opt' / 'config.json'} (no file yet)\n")


# --- games add, list, show, remove -----------------------------------------------------------


def test_games_add_writes_a_valid_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["games", "add", "rimworld", "--name", "RimWorld", "--launch-mode", "DirectPath"]
    argv += ["--target", "bin/RimWorldLinux", "--arg=-batchmode", "--arg=-logfile"]
    argv += ["--working-dir", "bin", "--env", "RIMBRIDGE_TOKEN=s3cr=t", "--description", "RW"]
    argv += ["--attention-mode", "observe", "--allow", "rimbridge/list_logs"]
    argv += ["--expose-game-tools", "--config-dir", str(tmp_path / "cfg")]
    assert run(argv, capsys) == (
        0,
        f"added game rimworld in {tmp_path / 'cfg' / 'config.json'}\n",
        "",
    )
    assert saved(tmp_path / "cfg") == {
        "version": "1.0",
        "games": {
            "rimworld": {
                "id": "rimworld",
                "name": "RimWorld",
                "launchMode": "DirectPath",
                "target": str(tmp_path / "bin" / "RimWorldLinux"),
                "args": ["-batchmode", "-logfile"],
                "workingDir": str(tmp_path / "bin"),
                "env": {"RIMBRIDGE_TOKEN": "s3cr=t"},
                "description": "RW",
                "attention": {"mode": "observe", "allow": ["rimbridge/list_logs"]},
                "exposeGameTools": True,
            }
        },
    }
    assert GabsConfig.load(tmp_path / "cfg").game("rimworld").attention.mode == "observe"


def test_games_add_refuses_a_duplicate_unless_replacing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_sim(tmp_path, capsys)
    argv = ["games", "add", "sim", "--name", "Other", "--launch-mode", "DirectPath"]
    argv += ["--target", "/opt/other", "--config-dir", str(tmp_path)]
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert err == "gabs: a game with id 'sim' is already configured (replace it explicitly)\n"
    assert run([*argv, "--replace"], capsys) == (
        0,
        f"replaced game sim in {tmp_path / 'config.json'}\n",
        "",
    )
    assert saved(tmp_path)["games"]["sim"]["name"] == "Other"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--env", "NOVALUE"], "gabs: --env 'NOVALUE': expected KEY=VALUE\n"),
        (
            ["--allow", " "],
            "  $.games.sim.attention.allow: tool names must not be empty",
        ),
    ],
)
def test_games_add_rejects_bad_values_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = ["games", "add", "sim", "--name", "Sim", "--launch-mode", "CustomCommand"]
    argv += ["--target", "rimbridge-sim", "--config-dir", str(tmp_path), *extra]
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert message in err
    assert not (tmp_path / "config.json").exists()


def test_games_add_names_the_path_of_a_bad_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["games", "add", "my game", "--name", "x", "--launch-mode", "DirectPath"]
    argv += ["--target", "/x", "--config-dir", str(tmp_path)]
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "")
    assert '$.games["my game"]: game ids must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' in err


def test_games_add_offers_only_the_launch_modes_it_can_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["games", "add", "s", "--name", "S", "--launch-mode", "SteamAppId", "--target", "1"]
    code, _, err = run([*argv, "--config-dir", str(tmp_path)], capsys)
    assert code == 2
    assert "argument --launch-mode: invalid choice: 'SteamAppId'" in err
    assert "DirectPath" in err.splitlines()[-1]
    assert "EpicAppId" not in err


def test_games_list_prints_a_table_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["games", "list", "--config-dir", str(tmp_path)], capsys) == (
        0,
        "",
        f"no games configured in {tmp_path / 'config.json'}; add one with 'gabs games add'\n",
    )
    add_sim(tmp_path, capsys, "--env", "SECRET=x")
    assert run(["games", "list", "--config-dir", str(tmp_path)], capsys) == (
        0,
        "ID   NAME              LAUNCH MODE    ATTENTION  TARGET\n"
        "sim  Simulated colony  CustomCommand  gate       rimbridge-sim\n",
        "",
    )
    code, out, _ = run(["games", "list", "--json", "--config-dir", str(tmp_path)], capsys)
    assert (code, json.loads(out)) == (
        0,
        [
            {
                "id": "sim",
                "name": "Simulated colony",
                "launchMode": "CustomCommand",
                "target": "rimbridge-sim",
                "env": {"SECRET": "<hidden>"},
            }
        ],
    )


def test_games_show_prints_every_setting_with_env_values_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_sim(tmp_path, capsys, "--env", "SECRET=hunter2", "--arg=--seed", "--arg=7")
    code, out, err = run(["games", "show", "sim", "--config-dir", str(tmp_path)], capsys)
    assert (code, err) == (0, "")
    assert "hunter2" not in out
    assert out.splitlines() == [
        "id:                    sim",
        "name:                  Simulated colony",
        "launch mode:           CustomCommand",
        "target:                rimbridge-sim",
        'args:                  ["--seed", "7"]',
        f"working dir:           (the config dir: {tmp_path})",
        "env:                   SECRET=<hidden>",
        "description:           (none)",
        "attention mode:        gate",
        "attention allow:       (none)",
        "attention fail closed: true",
        "expose game tools:     false",
        "gabp port:             (a free port per launch)",
        "timeouts:              start 30 s, call 30 s, stop grace 5 s, connect 10 s",
        f"runtime dir:           {tmp_path / 'sim'}",
    ]
    code, out, _ = run(["games", "show", "sim", "--json", "--config-dir", str(tmp_path)], capsys)
    assert (code, json.loads(out)) == (
        0,
        {
            "id": "sim",
            "name": "Simulated colony",
            "launchMode": "CustomCommand",
            "target": "rimbridge-sim",
            "args": ["--seed", "7"],
            "env": {"SECRET": "<hidden>"},
            "unsetEnv": [],
            "attention": {"mode": "gate", "allow": [], "failClosed": True},
            "exposeGameTools": False,
            "timeouts": {
                "startSeconds": 30.0,
                "callSeconds": 30.0,
                "stopGraceSeconds": 5.0,
                "connectSeconds": 10.0,
            },
            "launchable": True,
        },
    )


def test_an_unknown_game_is_a_usage_error_naming_the_configured_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_sim(tmp_path, capsys)
    for command in ("show", "remove"):
        assert run(["games", command, "nope", "--config-dir", str(tmp_path)], capsys) == (
            2,
            "",
            "gabs: no game 'nope' is configured (configured games: sim)\n",
        )


def test_games_remove_deletes_the_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    add_sim(tmp_path, capsys)
    assert run(["games", "remove", "sim", "--config-dir", str(tmp_path)], capsys) == (
        0,
        f"removed game sim from {tmp_path / 'config.json'}\n",
        "",
    )
    assert saved(tmp_path) == {"version": "1.0", "games": {}}


def test_an_invalid_config_makes_every_games_command_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text('{"games": {"x": 1}}', encoding="utf-8")
    code, out, err = run(["games", "list", "--config-dir", str(tmp_path)], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"gabs: invalid config {tmp_path / 'config.json'}\n  $.games.x: must be an object\n"
    )


# --- the installed executable ----------------------------------------------------------------


def test_the_installed_gabs_executable_runs_commands(tmp_path: Path) -> None:
    assert GABS.is_file(), f"{GABS} is not installed"
    version = subprocess.run(
        [str(GABS), "version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (version.returncode, version.stdout, version.stderr) == (0, f"gabs {__version__}\n", "")
    add = [str(GABS), "games", "add", "sim", "--name", "Sim", "--launch-mode", "CustomCommand"]
    add += ["--target", "rimbridge-sim"]
    env = {"PATH": str(GABS.parent), "GABS_CONFIG_DIR": str(tmp_path), "HOME": str(tmp_path)}
    added = subprocess.run(add, capture_output=True, text=True, timeout=60, check=False, env=env)
    assert (added.returncode, added.stderr) == (0, "")
    listed = subprocess.run(
        [str(GABS), "games", "list", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert (listed.returncode, [game["id"] for game in json.loads(listed.stdout)]) == (0, ["sim"])
    bad = subprocess.run(
        [str(GABS), "games", "show", "other"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert (bad.returncode, bad.stdout) == (2, "")
