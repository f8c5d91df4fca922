"""The conformance corpus: every file's verdict under both schema sets, as its manifest records.

The corpus re-creates every fixture and example of the public GABP 1.1.0 release (with values
of its own, listed under ``covers``) beside this repository's own cases. Files under
``valid/`` pass both sets, under ``invalid/`` neither, under ``ext-invalid/`` GABP's schemas but
not the extension set's rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gabp_schemas
from gabp_schemas import SCHEMA_SETS, Fixture, SchemaValidationError, load_manifest, validate

CONFORMANCE = gabp_schemas.data_root() / "conformance" / "1.0"
FIXTURES = list(gabp_schemas.fixtures())
EXAMPLES = list(gabp_schemas.examples())
MANIFEST = load_manifest("conformance")
FOLDER_VERDICTS = {
    "valid": {"gabp": True, "ext": True},
    "invalid": {"gabp": False, "ext": False},
    "ext-invalid": {"gabp": True, "ext": False},
}

GABP_1_1_0_CASES = {
    *(
        f"CONFORMANCE/1.0/valid/{name}.json"
        for name in (
            "001_session_hello",
            "002_session_welcome",
            "003_tools_call",
            "004_event_message",
            "005_error_response",
            "006_tools_list_response",
            "007_attention_current_response",
            "008_attention_opened_event",
            "009_attention_ack_response",
        )
    ),
    *(
        f"CONFORMANCE/1.0/invalid/{name}.json"
        for name in (
            "001_missing_id",
            "002_both_result_and_error",
            "003_event_with_method",
            "004_invalid_method_pattern",
            "005_wrong_version",
            "006_invalid_tool_name",
            "007_attention_ack_missing_attention_id",
            "008_attention_event_missing_blocking",
        )
    ),
    *(
        f"EXAMPLES/1.0/{name}"
        for name in (
            "attention/040_attention-current.req.json",
            "attention/041_attention-current.res.json",
            "attention/042_attention-opened.msg.json",
            "attention/043_attention-ack.req.json",
            "attention/044_attention-ack.res.json",
            "attention/045_attention-cleared.msg.json",
            "events/020_subscribe.req.json",
            "events/021_event.msg.json",
            "handshake/001_session-hello.json",
            "handshake/002_session-welcome.json",
            "state/030_state-get.req.json",
            "state/031_state-get.res.json",
            "state/032_state-set.req.json",
            "state/033_state-set.res.json",
            "tools/010_tools-list.req.json",
            "tools/011_tools-list.res.json",
            "tools/012_tools-call.req.json",
            "tools/013_tools-call.res.json",
        )
    ),
}
"""Every fixture and example of the public GABP 1.1.0 release (17 + 18), by path there."""


def _rel(fixture: Fixture) -> str:
    return fixture.path.relative_to(CONFORMANCE).as_posix()


def _entry(fixture: Fixture) -> dict[str, Any]:
    return MANIFEST[_rel(fixture)]


def _judged(fixture: Fixture, schema_set: str) -> SchemaValidationError | None:
    try:
        validate(fixture.document, method=fixture.method, schema_set=schema_set)  # type: ignore[arg-type]
    except SchemaValidationError as exc:
        return exc
    return None


CASES = [(f, s) for f in FIXTURES + EXAMPLES for s in SCHEMA_SETS]


def test_the_conformance_manifest_lists_exactly_the_fixture_files() -> None:
    on_disk = {
        p.relative_to(CONFORMANCE).as_posix()
        for folder in FOLDER_VERDICTS
        for p in (CONFORMANCE / folder).glob("*.json")
    }
    assert set(MANIFEST) == on_disk
    assert {p.name for p in CONFORMANCE.iterdir() if p.is_dir()} == set(FOLDER_VERDICTS)


def test_every_fixture_records_a_verdict_for_both_sets_matching_its_folder() -> None:
    for fixture in FIXTURES:
        assert dict(fixture.verdicts) == FOLDER_VERDICTS[_rel(fixture).split("/")[0]], fixture.path
        assert fixture.expected_valid is fixture.verdicts["gabp"]


def test_every_example_records_that_both_sets_accept_it() -> None:
    assert EXAMPLES
    assert all(dict(e.verdicts) == {"gabp": True, "ext": True} for e in EXAMPLES)


@pytest.mark.parametrize(
    ("fixture", "schema_set"), CASES, ids=[f"{f.path.name}-{s}" for f, s in CASES]
)
def test_each_set_gives_every_file_the_recorded_verdict(fixture: Fixture, schema_set: str) -> None:
    rejected = _judged(fixture, schema_set)
    assert (rejected is None) is fixture.verdicts[schema_set], rejected


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if not f.verdicts["ext"]], ids=_rel)
def test_every_rejected_fixture_names_its_rule_and_is_rejected_at_that_path(
    fixture: Fixture,
) -> None:
    entry = _entry(fixture)
    assert isinstance(entry.get("rule"), str) and entry["rule"]
    schema_set = "gabp" if not fixture.verdicts["gabp"] else "ext"
    rejected = _judged(fixture, schema_set)
    assert rejected is not None
    assert entry["path"] in {issue.path for issue in rejected.issues}, rejected.errors


def test_accepted_fixtures_carry_no_rule() -> None:
    for fixture in FIXTURES:
        if fixture.verdicts["ext"]:
            assert "rule" not in _entry(fixture), fixture.path


def test_rules_are_unique() -> None:
    rules = [e["rule"] for e in MANIFEST.values() if "rule" in e]
    assert len(rules) == len(set(rules))


def test_the_extension_set_never_accepts_what_gabps_schemas_reject() -> None:
    for item in FIXTURES + EXAMPLES:
        assert item.verdicts["gabp"] or not item.verdicts["ext"], item.path


def test_lenient_accept_marks_only_fixtures_gabps_schemas_reject() -> None:
    marked = [f for f in FIXTURES if _entry(f).get("lenientAccept")]
    assert len(marked) >= 4
    assert all(not f.verdicts["gabp"] for f in marked)


def test_every_gabp_1_1_0_fixture_and_example_is_re_created_exactly_once() -> None:
    covered = [case for f in FIXTURES for case in f.covers]
    assert sorted(covered) == sorted(GABP_1_1_0_CASES)
    for fixture in FIXTURES:
        for case in fixture.covers:
            expected = "/invalid/" not in case
            assert fixture.verdicts["gabp"] is expected, (fixture.path, case)


@pytest.mark.parametrize(
    "fixture",
    [
        f
        for f in FIXTURES
        if not f.verdicts["gabp"]
        and isinstance(f.document, dict)
        and f.document.get("type") != "response"
    ],
    ids=_rel,
)
def test_rejected_requests_and_events_are_rejected_without_the_manifest_method(
    fixture: Fixture,
) -> None:
    with pytest.raises(SchemaValidationError):
        validate(fixture.document)


def test_fixture_files_are_listed_in_path_order() -> None:
    paths: list[Path] = [f.path for f in FIXTURES]
    assert paths == sorted(paths)
