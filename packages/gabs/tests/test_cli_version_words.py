"""``gabs version`` ignores the words after it, as the Go bridge does; its global flags count."""

from __future__ import annotations

import json

import pytest

from gabs import __version__
from gabs.cli import run


@pytest.mark.parametrize(
    "words", [["-h"], ["--help"], ["--bogus"], ["extra", "words"], ["--", "--json"]]
)
def test_words_after_version_are_ignored(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["version", *words]) == 0
    assert capsys.readouterr() == (f"gabs {__version__}\n", "")


def test_json_is_still_ours(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["version", "-h", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"name": "gabs", "version": __version__}


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (["--grace", "x"], 'invalid value "x" for flag -grace: parse error'),
        (
            ["--reconnectBackoff", "5s..1s"],
            "invalid --reconnectBackoff: min duration (5s) cannot be greater than max "
            "duration (1s)",
        ),
        (["--configDir"], "flag --configDir requires a value"),
    ],
)
def test_a_wrong_global_flag_is_still_exit_2(
    flags: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["version", *flags]) == 2
    assert capsys.readouterr() == ("", line + "\n")
