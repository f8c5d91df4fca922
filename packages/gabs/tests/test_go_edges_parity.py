"""Small edges where ours must read as the Go bridge 1.1.0 (built with Go 1.27.3): the reason a
reported working directory could not be canonicalized (``CanonicalizeCwd`` in
``internal/process/context_delivery.go``, whose ``filepath.EvalSymlinks`` words the failure),
and the ``\\p{...}`` names of a launch input's pattern (Go's ``regexp/syntax``). The expected
texts and matches are what Go printed for the same paths and patterns."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gabs.config import full_match
from gabs.config._re2 import Re2Error, compile_re2
from gabs.lifecycle.digests import compute_digests, evaluate_delivery, parse_observed
from gabs.runtime.endpoint import prepare_endpoint, stamp_bridge_file

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


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX errors")
def test_a_stamp_on_a_bridge_file_that_cannot_be_read_words_it_as_go_s_read_file(
    tmp_path: Path,
) -> None:
    # StampBridgeDiagnostics reads bridge.json with os.ReadFile; its error is the start warning's
    folder = tmp_path / "g"
    ready = prepare_endpoint(folder, "g")
    bridge = folder / "bridge.json"

    def stamp() -> str | None:
        return stamp_bridge_file(
            folder, port=ready.port, token=ready.token, profile="", revision="r", started_at="t"
        )

    bridge.unlink()
    assert stamp() == f"open {bridge}: no such file or directory"
    bridge.mkdir()
    assert stamp() == f"read {bridge}: is a directory"


# --- \p{...} in a launch input's pattern -------------------------------------------------------

#: A pattern Go accepts, a value, and whether Go matches it (``^(?:<pattern>)$``).
GO_UNICODE_MATCHES = [
    (r"\p{Greek}+", "\u03b1\u03b2\u03b3", True),  # a script
    (r"\p{Greek}+", "abc", False),
    (r"\P{Greek}+", "abc", True),
    (r"\p{^Greek}", "\u03b1", False),
    (r"[\p{Hiragana}\p{Katakana}]+", "ひらカタ", True),
    (r"\p{Han}+", "漢字", True),
    (r"\p{Cyrillic}", "ж", True),
    (r"\p{greek}", "\u03b1", True),  # names read without regard to case, `_`, `-` or spaces
    (r"\p{OLD-ITALIC}", "\U00010300", True),
    (r"\p{Letter}\p{Decimal_Number}", "a1", True),  # the long names of categories
    (r"\p{uppercase_letter}", "a", False),
    (r"\p{LC}\p{Lc}", "aB", True),  # cased letters
    (r"\p{LC}", "ª", False),  # a letter without case (Lo)
    (r"\p{ASCII}", "é", False),
    (r"\p{Assigned}", "\u0378", False),  # an unassigned code point
    (r"\p{Cn}", "\u0378", True),
    (r"\p{L}", "\U0001e030", True),  # a letter since Unicode 15 (Go's tables, not Python's)
]


@pytest.mark.parametrize(("pattern", "value", "matches"), GO_UNICODE_MATCHES)
def test_a_unicode_class_matches_what_go_matches(pattern: str, value: str, matches: bool) -> None:
    assert full_match(pattern, value) is matches


@pytest.mark.parametrize("pattern", [r"\p{Foo}", r"\p{Zzzz}", r"\p{L&}", r"\p{}", r"\p{Unknown}"])
def test_a_name_go_does_not_know_is_refused_with_go_s_words(pattern: str) -> None:
    with pytest.raises(Re2Error) as refused:
        compile_re2(pattern)
    assert str(refused.value) == f"error parsing regexp: invalid character class range: `{pattern}`"
