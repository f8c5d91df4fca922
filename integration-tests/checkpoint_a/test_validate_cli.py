"""Checkpoint A: the installed gabp-validate executable over every example and fixture."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import gabp_schemas

EXECUTABLE = Path(sys.executable).parent / "gabp-validate"
EXAMPLE_FILES = [f.path for f in gabp_schemas.examples()] + [
    d.path for d in gabp_schemas.documents()
]
VALID_FIXTURES = [f.path for f in gabp_schemas.fixtures() if f.expected_valid]
INVALID_FIXTURES = [f.path for f in gabp_schemas.fixtures() if not f.expected_valid]
EXT_VALID = [f.path for f in gabp_schemas.fixtures() if f.verdicts["ext"]]
EXT_INVALID = [f.path for f in gabp_schemas.fixtures() if not f.verdicts["ext"]]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    if not EXECUTABLE.is_file():
        pytest.fail(f"gabp-validate is not installed next to {sys.executable}")
    return subprocess.run(
        [str(EXECUTABLE), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_example_and_valid_fixture_passes_in_one_run() -> None:
    files = EXAMPLE_FILES + VALID_FIXTURES
    done = run(*files)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [f"ok  {path}" for path in files]


def test_every_invalid_fixture_is_reported_invalid_in_one_run() -> None:
    done = run(*INVALID_FIXTURES)
    assert (done.returncode, done.stderr) == (1, "")
    lines = done.stdout.splitlines()
    assert len(lines) == len(INVALID_FIXTURES)
    for path, line in zip(INVALID_FIXTURES, lines, strict=True):
        assert line.startswith(f"invalid  {path}: $"), line


@pytest.mark.parametrize(
    "name",
    [
        "hello-token-shorter-than-32.json",
        "response-with-both-result-and-error.json",
        "capabilities-with-tools-key.json",
        "request-custom-method-with-digits.json",
    ],
)
def test_a_single_invalid_fixture_exits_1(name: str) -> None:
    (path,) = [p for p in INVALID_FIXTURES if p.name == name]
    done = run(path)
    assert done.returncode == 1
    assert done.stdout.startswith(f"invalid  {path}: ")


def test_with_the_extension_set_its_fixtures_pass_or_fail_as_recorded() -> None:
    accepted = run("--set", "ext", *EXAMPLE_FILES, *EXT_VALID)
    assert (accepted.returncode, accepted.stderr) == (0, "")
    rejected = run("--set", "ext", *EXT_INVALID)
    assert (rejected.returncode, rejected.stderr) == (1, "")
    assert [line.split()[0] for line in rejected.stdout.splitlines()] == ["invalid"] * len(
        EXT_INVALID
    )


def test_a_mix_of_valid_and_invalid_files_exits_1() -> None:
    done = run(VALID_FIXTURES[0], INVALID_FIXTURES[0])
    assert done.returncode == 1
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["ok", "invalid"]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run().returncode == 2
    assert run("--no-such-option", VALID_FIXTURES[0]).returncode == 2
    assert run("--method", "tools/lst", VALID_FIXTURES[0]).returncode == 2
    not_json = tmp_path / "not-json.json"
    not_json.write_text("gabp/1", encoding="utf-8")
    done = run(not_json, INVALID_FIXTURES[0])
    assert done.returncode == 2
    assert done.stderr.startswith(f"error  {not_json}: not JSON")
    assert run(tmp_path / "missing.json").returncode == 2
