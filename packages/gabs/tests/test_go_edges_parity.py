"""Texts the Go bridge 1.1.0 builds from OS errors, where ours must read the same: the reason a
reported working directory could not be canonicalized (``CanonicalizeCwd`` in
``internal/process/context_delivery.go``, whose ``filepath.EvalSymlinks`` words the failure).
The expected texts are what Go's ``filepath.EvalSymlinks`` prints for the same paths."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gabs.lifecycle.digests import compute_digests, evaluate_delivery, parse_observed

PREFIX = "the reported working directory could not be canonicalized: "


def _cwd_reason(tmp_path: Path, reported: Path) -> tuple[str, str]:
    real = tmp_path / "real"
    real.mkdir(exist_ok=True)
    pinned = compute_digests([], str(real), False, {}, {}, [])
    seen = parse_observed({"agentId": "g", "observed": {"argv": [], "cwd": str(reported)}})
    verdict = evaluate_delivery(pinned, seen)
    return verdict["channels"]["cwd"], verdict["reasons"]["cwd"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths and errors")
def test_a_reported_directory_below_a_file_is_a_bare_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert _cwd_reason(tmp_path, tmp_path / "file" / "x") == (
        "unknown",
        PREFIX + "not a directory",
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks")
def test_a_reported_directory_in_a_symlink_loop_is_eval_symlinks_too_many_links(
    tmp_path: Path,
) -> None:
    (tmp_path / "one").symlink_to(tmp_path / "two")
    (tmp_path / "two").symlink_to(tmp_path / "one")
    for reported in (tmp_path / "one", tmp_path / "one" / "x"):
        assert _cwd_reason(tmp_path, reported) == (
            "unknown",
            PREFIX + "EvalSymlinks: too many links",
        )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths and errors")
def test_a_missing_part_names_the_lstat_of_that_part_in_go_s_lower_case(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert _cwd_reason(tmp_path, tmp_path / "gone" / "deeper") == (
        "unknown",
        PREFIX + f"lstat {tmp_path / 'gone'}: no such file or directory",
    )
    assert _cwd_reason(tmp_path, tmp_path / "dangling") == (
        "unknown",
        PREFIX + f"lstat {tmp_path / 'nowhere'}: no such file or directory",
    )
