"""The runtime's own checks of GABP's patterns (ids, methods, extension names, date-times, URIs)
match as JSON Schema (ECMA-262) matches them: ``$`` only at the very end, ``\\d`` and ``\\w``
only ASCII, ``\\s`` any white space. Python's ``re`` would take ``"tools/list\\n"`` as a
method and ``"1.٣"``-like digits as digits."""

from __future__ import annotations

import re

import pytest

from gabp._connection_base import METHOD, SEND_METHOD, UUID
from gabp._wire import DATE_TIME_PATTERN, URI_PATTERN, schema_regex
from gabp.messages import AppInfo, Capabilities, HelloResult

GOOD_ID = "5b0f5c1e-7b7a-4c61-9d3a-0e6c1f7b2a10"


@pytest.mark.parametrize(
    ("pattern", "good"),
    [(UUID, GOOD_ID), (METHOD, "tools/list"), (SEND_METHOD, "tools/list")],
)
def test_a_final_line_break_is_not_the_end(pattern: re.Pattern[str], good: str) -> None:
    assert pattern.match(good) is not None
    assert pattern.match(good + "\n") is None


def test_digits_are_ascii_only_and_uris_too() -> None:
    date_time = schema_regex(DATE_TIME_PATTERN)
    assert date_time.match("2026-11-29T14:58:00Z") is not None
    assert date_time.match("٢٠٢٦-11-29T14:58:00Z") is None  # Arabic-Indic digits
    uri = schema_regex(URI_PATTERN)
    assert uri.match("gabp://game/state") is not None
    assert uri.match("gabp://game/st ate") is None
    assert uri.match("gabp://game/\u00e9tat") is None  # RFC 3986: ASCII only
    assert uri.match("gabp://game/%C3%A9tat") is not None


def test_a_pattern_without_an_end_anchor_is_kept() -> None:
    assert schema_regex(r"^a").match("ab") is not None


def test_ascii_classes_inside_and_outside_brackets_and_unicode_spaces() -> None:
    assert schema_regex(r"^\w+[\d.]*$").pattern == r"^[A-Za-z0-9_]+[0-9.]*\Z"
    assert schema_regex(r"^\w$").match("\u00e9") is None
    no_space = schema_regex(r"^\S+$")
    assert no_space.match("a\u00a0b") is None  # a no-break space is white space in ECMA-262 too
    assert schema_regex(r"^a\$").match("a$") is not None  # an escaped dollar is no anchor


def test_a_schema_version_takes_ascii_digits_only() -> None:
    def welcome(version: str) -> HelloResult:
        return HelloResult(
            agent_id="g",
            app=AppInfo(name="G", version="1"),
            capabilities=Capabilities(methods=["tools/list"]),
            schema_version=version,
        )

    assert welcome("1.12").schema_version == "1.12"
    for wrong in ("1.\u0663", "1.0\n", "2.0"):
        with pytest.raises(ValueError):
            welcome(wrong)
