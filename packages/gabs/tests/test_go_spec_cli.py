"""The command line as the Go bridge 1.1.0's own tests pin it (``cmd/gabs/*_test.go``), with
the Go bridge's answers taken from runs of both bridges side by side."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gabs.cli import main


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


# TestManageGamesAddressesDashPrefixedID: `games -- stop -dash` takes the action from the
# escaped tokens.
def test_a_double_dash_before_the_action_addresses_a_dash_prefixed_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["games", "--configDir", str(tmp_path), "--", "stop", "-dash"], capsys) == (
        0,
        "-dash is not running (no runtime claim).\n",
        "",
    )


# TestEscapedIDFillsThePositionalSlot: the escaped id is the game id, the flags before it stay
# flags.
def test_start_flags_before_the_double_dash_and_the_id_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {})
    argv = ["games", "start", "--configDir", str(tmp_path), "--profile", "fast", "--", "-dash"]
    assert run(argv, capsys) == (1, "", 'game_not_found: no game "-dash" is configured\n')


def test_start_takes_only_the_id_after_the_double_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["games", "start", "--configDir", str(tmp_path), "--", "a", "b"]
    assert run(argv, capsys) == (
        2,
        "",
        'games start takes only the game ID after "--"; place flags before it (unexpected: b)\n',
    )


# TestGamesActionsRejectTrailingArgs: a surplus argument is refused with the arity line, `add`
# included (our options of `add` and their values are not counted).
@pytest.mark.parametrize(
    ("tail", "unexpected"),
    [
        (["x", "y", "z"], "y z"),
        (["x", "--name", "n", "y"], "y"),
        (["--", "-dash", "extra"], "extra"),
    ],
)
def test_add_refuses_a_surplus_argument_with_go_s_line(
    tail: list[str], unexpected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["games", "add", "--configDir", str(tmp_path), *tail], capsys) == (
        2,
        "",
        f"games add takes at most 1 argument(s); unexpected: {unexpected}\n",
    )
    assert not (tmp_path / "config.json").exists()


def test_a_help_flag_after_the_double_dash_is_not_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["games", "--configDir", str(tmp_path), "--", "-h"], capsys) == (
        2,
        "",
        "unknown games action: -h\n",
    )


_DOTDOT = (
    'game ID "../victim" is not in canonical form; it aliases another ID\'s runtime directory '
    "(avoid '.', '..', '//' and a trailing '/')"
)
_GHOST = 'game ID "ghost" resolves through a symlink outside the config base'


def _outside(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A config folder, a `victim` folder beside it and a `ghost` symlink leading out of it."""
    base, victim, outside = tmp_path / "base", tmp_path / "victim", tmp_path / "outside"
    for folder in (base, victim, outside):
        folder.mkdir()
        (folder / "runtime.json").write_text("{}", encoding="utf-8")
    (base / "runtime.json").unlink()
    (victim / "history.json").write_text('{"profiles": {}}', encoding="utf-8")
    (base / "ghost").symlink_to(outside, target_is_directory=True)
    return base, victim, outside


# TestForgetRuntimeClaimRejectsTraversal, TestForgetRuntimeClaimRejectsSymlinkedGameDir: a
# forget never removes a claim outside the config folder.
@pytest.mark.parametrize(("game_id", "problem"), [("../victim", _DOTDOT), ("ghost", _GHOST)])
def test_forget_runtime_never_leaves_the_config_folder(
    game_id: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, victim, outside = _outside(tmp_path)
    argv = ["games", "repair", game_id, "--forget-runtime", "--yes", "--configDir", str(base)]
    assert run(argv, capsys) == (
        1,
        f"Cannot access a runtime claim for '{game_id}': {problem}\n",
        "",
    )
    assert sorted(p.name for p in victim.iterdir()) == ["history.json", "runtime.json"]
    assert sorted(p.name for p in outside.iterdir()) == ["runtime.json"]


# SafeGameDir (what the forget tests rely on) guards status, stop, kill and doctor alike.
@pytest.mark.parametrize(("game_id", "problem"), [("../victim", _DOTDOT), ("ghost", _GHOST)])
def test_status_and_stop_refuse_a_folder_outside_the_config_folder(
    game_id: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _, outside = _outside(tmp_path)
    assert run(["games", "status", game_id, "--configDir", str(base)], capsys) == (
        1,
        "",
        f"{game_id}: cannot read runtime claim: failed to read runtime state: {problem}\n",
    )
    for action in ("stop", "kill"):
        code, out, err = run(["games", action, game_id, "--configDir", str(base)], capsys)
        assert (code, out) == (1, "")
        assert err == (
            f"blocked_unknown_state: the runtime claim for '{game_id}' is unreadable: "
            f"failed to read runtime state: {problem}. Use 'gabs games repair {game_id} "
            "--forget-runtime' if the game is provably gone.\n"
        )
    assert sorted(p.name for p in outside.iterdir()) == ["runtime.json"]  # no lock file either


@pytest.mark.parametrize(("game_id", "problem"), [("../victim", _DOTDOT), ("ghost", _GHOST)])
def test_doctor_reads_no_track_record_outside_the_config_folder(
    game_id: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _, _ = _outside(tmp_path)
    code, out, _ = run(["games", "doctor", game_id, "--configDir", str(base)], capsys)
    assert code == 1
    assert out.endswith(f"Track record: unreadable ({problem})\n")


def test_an_in_root_symlink_to_another_game_folder_is_refused(tmp_path: Path) -> None:
    from gabs.config import game_dir_problem

    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert game_dir_problem(tmp_path, "real") is None
    assert game_dir_problem(tmp_path, "new/nested") is None
    assert game_dir_problem(tmp_path, "alias") == (
        f"game directory component {tmp_path.resolve() / 'alias'} is a symlink"
    )
    assert game_dir_problem(tmp_path, "file/x") == (
        f"game directory component {tmp_path.resolve() / 'file'} is not a directory"
    )


# TestStartCLIEmitsLaunchModeIncompatible's other branch (startGameCLI): an unusable config is
# `config_invalid: ` and the framing of the config store, `configuration <revision> is invalid`.
def test_start_frames_an_unusable_config_as_go_s_config_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "config.json").write_text('{"version":"1.0","games":{}, bad', encoding="utf-8")
    code, out, err = run(["games", "start", "u", "--configDir", str(tmp_path)], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(
        "config_invalid: configuration sha256:4cbad65ace99 is invalid: failed to parse config "
        "file: "
    )
    (tmp_path / "config.json").unlink()
    (tmp_path / "config.json").mkdir()
    assert run(["games", "start", "u", "--configDir", str(tmp_path)], capsys) == (
        1,
        "",
        "config_invalid: configuration unreadable is invalid: read "
        f"{tmp_path / 'config.json'}: is a directory\n",
    )


# TestProcessSizeUsesPlatformSpecificUnixLimits, through the CLI: a start the OS would refuse
# is `spec_too_large: ` and the size check's sentence (the Go CLI has no "Refusing to start").
@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.sysconf("SC_PAGE_SIZE") != 4096,
    reason="Linux exec limits with 4 KiB pages",
)
def test_start_prints_the_size_refusal_as_the_go_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path, {"g": {"launchMode": "DirectPath", "target": "/bin/true", "args": ["y" * 204800]}}
    )
    assert run(["games", "start", "g", "--configDir", str(tmp_path)], capsys) == (
        1,
        "",
        "spec_too_large: argument 1 is 204801 bytes including its terminator, exceeding the "
        "per-string exec limit of 131072\n",
    )


# TestForgetRuntimeClaimRemovesCorruptClaim (with forgetRuntimeClaim's flow): an unreadable
# claim is removed only after a second confirmation (or --yes), and the result says so.
@pytest.mark.parametrize(
    ("answers", "code", "removed"), [("y\n", 1, False), ("y\ny\n", 0, True), ("", 0, True)]
)
def test_forgetting_a_corrupt_claim_asks_twice(
    answers: str,
    code: int,
    removed: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "c").mkdir()
    claim = tmp_path / "c" / "runtime.json"
    claim.write_text("{ this is not valid json", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    argv = ["games", "repair", "c", "--forget-runtime", "--configDir", str(tmp_path)]
    if not answers:
        argv.append("--yes")
    status, out, _ = run(argv, capsys)
    assert (status, claim.exists()) == (code, not removed)
    assert "\nWARNING: the runtime claim is unreadable.\n" in out
    if answers:
        assert "Discard pending credits and remove anyway? [y/N] " in out
    assert out.endswith(
        "Removed the runtime claim for 'c' (pending credits discarded).\n"
        if removed
        else "Aborted; the runtime claim was not removed.\n"
    )


def test_start_refuses_a_game_folder_that_leads_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _, outside = _outside(tmp_path)
    write(base, {"ghost": {"launchMode": "DirectPath", "target": "/bin/true"}})
    code, out, err = run(["games", "start", "ghost", "--configDir", str(base)], capsys)
    assert (code, out) == (1, "")
    assert err == (
        "blocked_unknown_state: runtime claim for ghost is unreadable: failed to read "
        f"runtime state: {_GHOST}; inspect it or run repair --forget-runtime\n"
    )
    assert sorted(p.name for p in outside.iterdir()) == ["runtime.json"]


# cliStartFailureText: `games start` prints its own short line for a game that exits during
# start (then the output tail as it is) and for a start with nothing observable.
def test_games_start_prints_gos_short_line_for_a_game_that_exits_during_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        {
            "g": {
                "name": "G",
                "launchMode": "DirectPath",
                "target": "/bin/sh",
                "args": ["-c", "echo boom; exit 3"],
            }
        },
    )
    assert run(["games", "start", "g", "--configDir", str(tmp_path)], capsys) == (
        1,
        "",
        "exited_during_start: 'g' exited during start (exit code 3); this is attributed to "
        "the workload\nboom\n\n",
    )


@pytest.mark.skipif(sys.platform != "linux", reason="the store opener is xdg-open")
def test_games_start_prints_gos_short_line_for_an_unobserved_store_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    opener = tmp_path / "bin" / "xdg-open"
    opener.parent.mkdir()
    opener.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", f"{opener.parent}{os.pathsep}{os.environ['PATH']}")
    config = tmp_path / "cfg"
    config.mkdir()
    (config / "config.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "games": {"g": {"name": "G", "launchMode": "SteamAppId", "target": "294100"}},
                "timeouts": {"startup": {"processStartSeconds": 1}},
            }
        ),
        encoding="utf-8",
    )
    code, out, err = run(["games", "start", "g", "--configDir", str(config)], capsys)
    assert (code, out) == (1, "")
    assert err.endswith(
        "unobserved: nothing observable for 'g' within the start budget; the store launcher may "
        "still be working \u2014 re-check 'gabs games status g'\n"
    )


# lifecycle.SteamNotRunningAdvisory: the one warning of a store start when no Steam client is
# seen, in the Go bridge's words (printed by `games start` as a `warning:` line).
def test_a_store_start_without_a_steam_client_warns_in_go_s_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gabs.lifecycle.start as start_module

    monkeypatch.setattr(start_module, "client_running", lambda: False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no opener: nothing is started
    entry = {"name": "X", "launchMode": "SteamAppId", "target": "294100", "stopProcessName": "x"}
    write(tmp_path, {"x": entry})
    code, out, err = run(["games", "start", "x", "--configDir", str(tmp_path)], capsys)
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        "warning: Steam does not appear to be running; the launch may stall at login/startup or "
        "the game may relaunch itself through Steam"
    )
    assert err.splitlines()[1].startswith("spawn_failed: failed to start 'x': ")
