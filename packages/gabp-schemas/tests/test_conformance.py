"""The conformance fixtures: accepted or rejected as their manifest says, for the said rule."""

from __future__ import annotations

from pathlib import Path

import pytest

import gabp_schemas
from gabp_schemas import Fixture, SchemaValidationError, load_manifest, validate

CONFORMANCE = gabp_schemas.data_root() / "conformance" / "1.0"
VALID = [f for f in gabp_schemas.fixtures() if f.expected_valid]
INVALID = [f for f in gabp_schemas.fixtures() if not f.expected_valid]
SELF_ROUTED_INVALID = [
    f for f in INVALID if isinstance(f.document, dict) and f.document.get("type") != "response"
]


def _id(fixture: Fixture) -> str:
    return fixture.path.name


def _entry(fixture: Fixture) -> dict[str, object]:
    return load_manifest("conformance")[fixture.path.relative_to(CONFORMANCE).as_posix()]


def test_there_are_at_least_25_valid_and_25_invalid_fixtures() -> None:
    assert len(VALID) >= 25
    assert len(INVALID) >= 25


def test_the_conformance_manifest_lists_exactly_the_fixture_files() -> None:
    on_disk = {
        p.relative_to(CONFORMANCE).as_posix()
        for folder in ("valid", "invalid")
        for p in (CONFORMANCE / folder).glob("*.json")
    }
    assert set(load_manifest("conformance")) == on_disk


def test_every_invalid_fixture_has_a_rule_and_a_path_in_the_manifest() -> None:
    for fixture in INVALID:
        entry = _entry(fixture)
        assert isinstance(entry.get("rule"), str) and entry["rule"], fixture.path.name
        assert isinstance(entry.get("path"), str), fixture.path.name
        assert str(entry["path"]).startswith("$"), fixture.path.name


def test_valid_fixtures_carry_no_rule() -> None:
    assert all("rule" not in _entry(f) for f in VALID)


@pytest.mark.parametrize("fixture", VALID, ids=_id)
def test_every_valid_fixture_is_accepted(fixture: Fixture) -> None:
    validate(fixture.document, method=fixture.method)


@pytest.mark.parametrize("fixture", INVALID, ids=_id)
def test_every_invalid_fixture_is_rejected_at_the_field_its_rule_concerns(
    fixture: Fixture,
) -> None:
    with pytest.raises(SchemaValidationError) as caught:
        validate(fixture.document, method=fixture.method)
    expected_path = _entry(fixture)["path"]
    assert {issue.path for issue in caught.value.issues} == {expected_path}, caught.value.errors


@pytest.mark.parametrize("fixture", SELF_ROUTED_INVALID, ids=_id)
def test_invalid_requests_and_events_are_rejected_without_the_manifest_method(
    fixture: Fixture,
) -> None:
    with pytest.raises(SchemaValidationError):
        validate(fixture.document)


def test_invalid_fixture_names_are_unique_rules() -> None:
    rules = [str(_entry(f)["rule"]) for f in INVALID]
    assert len(rules) == len(set(rules))


def test_fixture_files_are_listed_in_path_order() -> None:
    paths: list[Path] = [f.path for f in gabp_schemas.fixtures()]
    assert paths == sorted(paths)
