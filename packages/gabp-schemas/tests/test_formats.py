"""The three formats the schemas rely on, asserted by this package's own rules."""

from __future__ import annotations

import pytest

from gabp_schemas._formats import format_checker

CHECKER = format_checker()


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("0f8fad5b-d9cb-469f-a165-70867728950e", True),
        ("0F8FAD5B-D9CB-469F-A165-70867728950E", True),
        ("00000000-0000-0000-0000-000000000000", True),
        ("0f8fad5bd9cb469fa16570867728950e", False),
        ("{0f8fad5b-d9cb-469f-a165-70867728950e}", False),
        ("urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e", False),
        ("0f8fad5b-d9cb-469f-a165-70867728950g", False),
    ],
)
def test_uuid_is_the_textual_8_4_4_4_12_form(value: str, ok: bool) -> None:
    assert CHECKER.conforms(value, "uuid") is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("gabp://rimworld/colony/summary", True),
        ("gabp://rimworld/logs/recent?offset=0&limit=200", True),
        ("https://example.org/a%20b", True),
        ("urn:isbn:0451450523", True),
        ("colony/summary", False),
        ("gabp://rimworld/has space", False),
        ("gabp://rimworld/bad%zz", False),
        ("1gabp://x/y", False),
        ("gabp://rimworld/pawn%C3%A9", True),
        ("gabp://rimworld/pawn\u00e9", False),
        ("gabp://rimworld/\u2028", False),
    ],
)
def test_uri_is_an_absolute_uri(value: str, ok: bool) -> None:
    assert CHECKER.conforms(value, "uri") is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-01-02T10:30:45.123Z", True),
        ("2026-01-02t10:30:45z", True),
        ("2026-01-02 10:30:45+02:00", True),
        ("2016-12-31T23:59:60Z", True),
        ("2026-02-29T00:00:00Z", False),
        ("2026-01-02T24:00:00Z", False),
        ("2026-01-02T10:30:45", False),
        ("2026-01-02", False),
        ("\u0662\u0660\u0662\u0666-01-02T10:30:45Z", False),
        ("2026-01-02T10:30:45+0200", False),
        ("yesterday", False),
    ],
)
def test_date_time_is_rfc_3339(value: str, ok: bool) -> None:
    assert CHECKER.conforms(value, "date-time") is ok


def test_non_strings_are_left_to_the_type_keyword() -> None:
    assert CHECKER.conforms(7, "uuid") and CHECKER.conforms(None, "uri")
    assert CHECKER.conforms([], "date-time")
