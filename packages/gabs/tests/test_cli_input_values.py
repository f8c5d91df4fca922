"""``games start --input NAME=VALUE`` reads a value as the Go bridge 1.1.0 does: a boolean as
Go's ``strconv.ParseBool`` spells one, an integer as ``strconv.ParseInt(v, 10, 64)`` (an
optional sign and ASCII digits, nothing else), a string only when it is valid UTF-8. Every
refusal is ``launch_input_invalid`` on stderr, exit 1, before anything is claimed or spawned."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gabs.cli import main
from gabs.cli_lifecycle import coerce_input
from gabs.go_format import go_quote

INPUTS = {
    "b": {"description": "b", "type": "boolean", "args": ["--b"]},
    "i": {"description": "i", "type": "integer", "args": ["--i=${value}"]},
    "s": {"description": "s", "type": "string", "args": ["--s=${value}"]},
}


def configure(config_dir: Path) -> None:
    config_dir.mkdir(parents=True, exist_ok=True)
    game = {
        "name": "G",
        "launchMode": "DirectPath",
        "target": sys.executable,
        "args": ["-c", "pass"],
        "launchInputs": INPUTS,
    }
    (config_dir / "config.json").write_text(
        json.dumps({"version": "1.0", "games": {"g": game}}), encoding="utf-8"
    )


def start(config_dir: Path, value: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(["games", "start", "g", "--input", value, "--configDir", str(config_dir)])
    out, err = capsys.readouterr()
    assert out == ""
    code = exited.value.code
    assert isinstance(code, int)
    return code, err


@pytest.mark.parametrize("raw", ["1", "t", "T", "true", "TRUE", "True"])
def test_the_booleans_go_reads_as_true(raw: str) -> None:
    assert coerce_input("boolean", raw) is True


@pytest.mark.parametrize("raw", ["0", "f", "F", "false", "FALSE", "False"])
def test_the_booleans_go_reads_as_false(raw: str) -> None:
    assert coerce_input("boolean", raw) is False


@pytest.mark.parametrize(("raw", "number"), [("007", 7), ("+3", 3), ("-0", 0), ("-12", -12)])
def test_the_integers_go_reads(raw: str, number: int) -> None:
    assert coerce_input("integer", raw) == number


# Go's ParseBool knows exactly twelve spellings: no other case mix, no spaces around them.
@pytest.mark.parametrize("raw", ["tRUE", "tRuE", "fALSE", " true", "true ", "1 ", "\t0", "yes", ""])
def test_a_boolean_go_does_not_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: str
) -> None:
    configure(tmp_path)
    assert start(tmp_path, f"b={raw}", capsys) == (
        1,
        'launch_input_invalid: input "b": value must be a boolean (true/false)\n',
    )
    assert not (tmp_path / "g" / "runtime.json").exists()


# Python's int() also takes spaces around the digits, "_" between them and digits of other
# scripts; Go's ParseInt in base 10 takes none of them.
@pytest.mark.parametrize("raw", [" 3", "3 ", "\t3", "1_000", "\u0663", "\uff13", "0x10", "+-3", ""])
def test_an_integer_go_does_not_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: str
) -> None:
    configure(tmp_path)
    assert start(tmp_path, f"i={raw}", capsys) == (
        1,
        'launch_input_invalid: launch input "i": value is not a 64-bit integer\n',
    )
    assert not (tmp_path / "g" / "runtime.json").exists()


@pytest.mark.skipif(os.name == "nt", reason="a command line on Windows is always Unicode")
def test_a_string_that_is_not_utf8_is_refused_before_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(tmp_path)
    # How Python hands over a command-line byte that is not UTF-8.
    assert start(tmp_path, "s=a" + os.fsdecode(b"\xff"), capsys) == (
        1,
        'launch_input_invalid: launch input "s": value must be valid UTF-8\n',
    )
    assert not (tmp_path / "g" / "runtime.json").exists()


def test_go_quote_writes_a_byte_that_is_not_utf8_as_go_does() -> None:
    # Go's %q writes each byte of invalid UTF-8 as \xNN; Python holds such a command-line
    # byte as a lone surrogate (U+DC80..U+DCFF), and any other lone surrogate is the bytes of
    # its encoding, which are not UTF-8 either.
    assert go_quote("a" + os.fsdecode(b"\xff\xfe") + "b") == '"a\\xff\\xfeb"'
    assert go_quote("\ud800") == '"\\xed\\xa0\\x80"'
    assert go_quote("\u00e9\x7f\u200b") == '"\u00e9\\x7f\\u200b"'


@pytest.mark.skipif(os.name == "nt", reason="a command line on Windows is always Unicode")
@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        (["games", "start", "\udcff"], 'game_not_found: no game "\\xff" is configured\n'),
        (
            ["games", "start", "g", "--profile", "\udcff"],
            'profiles_not_configured: game "g" has no profiles configured; edit the config to '
            "add them (changes apply without restart)\n",
        ),
        (
            ["games", "start", "g", "--input", "\udcff=1"],
            'launch_input_not_declared: launch input "\\xff" is not declared for game "g"\n',
        ),
    ],
)
def test_a_name_that_is_not_utf8_is_quoted_as_go_quotes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], line: str
) -> None:
    configure(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main([*arguments, "--configDir", str(tmp_path)])
    assert exited.value.code == 1
    assert capsys.readouterr() == ("", line)
