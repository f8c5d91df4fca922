"""The command line as the Go bridge 1.1.0's own tests pin it (``cmd/gabs/*_test.go``), with
the Go bridge's answers taken from runs of both bridges side by side."""

from __future__ import annotations

import json
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
