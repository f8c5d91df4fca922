"""``games start --input NAME=VALUE`` from the shell: a value is read as the Go bridge reads it
(``strconv.ParseBool`` for a boolean, ``strconv.ParseInt`` in base 10 for an integer), so a
value Go refuses is refused here too, before anything is started."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .harness import ConfigDir

INPUTS = {
    "quick": {"description": "Skip the menus", "type": "boolean", "args": ["--quick"]},
    "level": {"description": "Start level", "type": "integer", "args": ["--level", "${value}"]},
}


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("level", " 3"),
        ("level", "3 "),
        ("level", "1_000"),
        ("level", "\u0663"),  # ARABIC-INDIC DIGIT THREE
        ("quick", "tRUE"),
        ("quick", " true"),
        ("quick", "yes"),
    ],
)
def test_a_value_go_cannot_read_is_launch_input_invalid(
    config_dir: ConfigDir, gabs_cli: Any, name: str, raw: str
) -> None:
    config_dir.game("compat", launchInputs=INPUTS)
    refused = gabs_cli(config_dir, "games", "start", "compat", "--input", f"{name}={raw}")
    assert (refused.returncode, refused.stdout) == (1, ""), refused.stderr
    assert refused.stderr.startswith("launch_input_invalid: "), refused.stderr
    assert f'input "{name}": value ' in refused.stderr
    assert config_dir.launch_report("compat") is None  # nothing was started
    status = gabs_cli(config_dir, "games", "status", "compat")
    assert status.stdout == "compat: stopped (no runtime claim)\n"


@pytest.mark.parametrize(("raw", "argv"), [("+3", ["--level", "3"]), ("007", ["--level", "7"])])
def test_an_integer_go_reads_reaches_the_game_in_its_canonical_form(
    config_dir: ConfigDir, gabs_cli: Any, raw: str, argv: list[str]
) -> None:
    config_dir.game("compat", launchInputs=INPUTS)
    started = gabs_cli(config_dir, "games", "start", "compat", "--input", f"level={raw}")
    try:
        assert started.returncode == 0, started.stderr
        deadline = time.monotonic() + 20
        report = config_dir.launch_report("compat")
        while report is None and time.monotonic() < deadline:
            time.sleep(0.05)
            report = config_dir.launch_report("compat")
        assert report is not None and report["argv"] == argv
    finally:
        gabs_cli(config_dir, "games", "kill", "compat")
