"""ECMA-262 reading of schema patterns (gabp_schemas._patterns)."""

from __future__ import annotations

import pytest

from gabp_schemas._patterns import ecma_search, to_python


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^[a-z]+(/[a-z]+)+$", "tools/call", True),
        ("^[a-z]+(/[a-z]+)+$", "tools/call\n", False),
        ("^a\\$$", "a$", True),
        ("^[$]$", "$", True),
        ("^1\\.\\d+$", "1.0", True),
        ("^1\\.\\d+$", "1.\u0663", False),
        ("^\\w+$", "\u00e9", False),
        ("^.$", "\r", False),
        ("^.$", "\u2028", False),
        ("^.$", "\u00e9", True),
        ("^\\s$", "\u00a0", True),
        ("^\\s$", "\ufeff", True),
        ("^\\S$", "\u3000", False),
        ("^[\\s]$", "\u2028", True),
        ("^a[]$", "a", False),
        ("^[^]$", "\n", True),
        ("^[^a]$", "b", True),
        ("^[^a]$", "a", False),
    ],
)
def test_ecma_search_reads_patterns_as_ecma_262(pattern: str, text: str, matches: bool) -> None:
    assert ecma_search(pattern, text) is matches


def test_gabp_patterns_translate_only_their_end_anchor() -> None:
    assert to_python("^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$") == (
        "^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+\\Z"
    )
