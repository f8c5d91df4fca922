"""Attention policies: the shipped ones, first-match rules, loading and validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rimbridge_sim.diagnostics import LogRing, OperationJournal, OperationRecord
from rimbridge_sim.policy import Decision, Policy, PolicyError

BLOCKING = (True, False)
BLOCKING_INVALIDATING = (True, True)
ADVISORY = (False, False)
ADVISORY_INVALIDATING = (False, True)
IGNORED = None


def _line(
    policy: Policy, level: str, message: str, source: str = "world"
) -> tuple[bool, bool] | None:
    entry = LogRing().append(level, message, source=source)
    decision = policy.classify_log(entry)
    return None if decision is None else (decision.blocking, decision.state_invalidated)


def _operation(
    kind: str, method: str = "rimworld/load_game", error: str | None = "boom"
) -> OperationRecord:
    journal = OperationJournal()
    record = journal.start("call-1", method)
    if kind == "started":
        return record
    if kind == "completed":
        return journal.complete("call-1")
    if kind in ("failed", "cancelled", "timed_out"):
        return journal.fail("call-1", error or "", kind=kind)  # type: ignore[arg-type]
    return journal.event("call-1", kind, "x")  # type: ignore[arg-type]


def _event(policy: Policy, kind: str, **fields: Any) -> tuple[bool, bool] | None:
    decision = policy.classify_operation(_operation(kind, **fields), kind)
    return None if decision is None else (decision.blocking, decision.state_invalidated)


@pytest.fixture(scope="module")
def faithful() -> Policy:
    return Policy.load("faithful")


@pytest.fixture(scope="module")
def recommended() -> Policy:
    return Policy.load("recommended")


# --- the shipped policies ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "message", "source", "expected"),
    [
        ("debug", "tick", "world", IGNORED),
        ("info", "Game loaded: Colony1", "load", IGNORED),
        ("warning", "Food is running low", "world", IGNORED),
        ("warning", "Map removed: Map_1", "world", IGNORED),
        ("error", "Exception in JobDriver_Goto", "job", BLOCKING_INVALIDATING),
        ("error", "Texture Things/Foo not found", "world", BLOCKING_INVALIDATING),
        ("fatal", "Out of memory", "world", BLOCKING_INVALIDATING),
        # the sim's own line for a thrown tool: the mod writes none, its failed operation counts
        ("error", "Exception in rimworld/select_pawn: InvalidArgumentError: x", "tool", IGNORED),
        ("error", "Exception in rimworld/select_pawn", "mod", BLOCKING_INVALIDATING),
    ],
)
def test_faithful_blocks_and_invalidates_on_every_error_and_nothing_else(
    faithful: Policy, level: str, message: str, source: str, expected: object
) -> None:
    assert _line(faithful, level, message, source) == expected


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("started", IGNORED),
        ("progress", IGNORED),
        ("completed", IGNORED),
        ("failed", BLOCKING_INVALIDATING),
        ("cancelled", BLOCKING_INVALIDATING),
        ("timed_out", BLOCKING_INVALIDATING),
    ],
)
def test_faithful_blocks_and_invalidates_on_every_unsuccessful_operation(
    faithful: Policy, kind: str, expected: object
) -> None:
    assert _event(faithful, kind) == expected


@pytest.mark.parametrize(
    ("level", "message", "source", "expected"),
    [
        # noise
        ("warning", "Could not find a path from (1, 0, 1) to (9, 0, 9)", "job", IGNORED),
        ("warning", "Texture Things/Item/Foo not found", "world", IGNORED),
        ("error", "Texture Things/Item/Foo not found", "world", IGNORED),
        ("info", "[debug] regenerated 12 regions", "world", IGNORED),
        ("debug", "Exception-looking debug line", "world", IGNORED),
        ("info", "Colonist Tynan started hauling", "job", IGNORED),
        # warnings are advisory; errors block
        ("warning", "Food is running low", "world", ADVISORY),
        ("warning", "Could not find a bed for Tynan", "job", ADVISORY),
        ("error", "Exception in JobDriver_Goto: NullReferenceException", "job", BLOCKING),
        ("fatal", "Out of memory", "world", BLOCKING),
        # loads and map loss invalidate state
        ("info", "Game loaded: Colony1", "load", ADVISORY_INVALIDATING),
        ("info", "Map replaced: Map_1 -> Map_2", "load", ADVISORY_INVALIDATING),
        ("info", "Returned to main menu", "world", ADVISORY_INVALIDATING),
        (
            "warning",
            "Map removed: Map_1 (2 operations relied on it)",
            "world",
            BLOCKING_INVALIDATING,
        ),
        ("info", "Map removed: Map_1", "sim", BLOCKING_INVALIDATING),
        ("error", "Could not read save file Colony1.rws", "load", BLOCKING_INVALIDATING),
        ("info", "Loading game Colony1", "load", IGNORED),
    ],
)
def test_recommended_classifies_representative_lines(
    recommended: Policy, level: str, message: str, source: str, expected: object
) -> None:
    assert _line(recommended, level, message, source) == expected


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("started", IGNORED),
        ("progress", IGNORED),
        ("completed", IGNORED),  # a payload failure completes its operation: never attention
        ("failed", BLOCKING),
        ("timed_out", BLOCKING_INVALIDATING),
        ("cancelled", ADVISORY_INVALIDATING),
    ],
)
def test_recommended_classifies_operation_outcomes(
    recommended: Policy, kind: str, expected: object
) -> None:
    assert _event(recommended, kind) == expected


def test_decisions_name_the_rule_and_its_note(recommended: Policy) -> None:
    decision = recommended.classify_log(LogRing().append("warning", "Food low", source="world"))

    assert decision == Decision(
        blocking=False,
        state_invalidated=False,
        rule_index=7,
        note="Other warnings are surfaced but never gate calls.",
    )


def test_the_shipped_files_round_trip_through_to_dict(recommended: Policy) -> None:
    again = Policy.from_dict(recommended.to_dict())
    assert again.to_dict() == recommended.to_dict()


# --- rules ---------------------------------------------------------------------------------------


def test_the_first_matching_rule_wins() -> None:
    policy = Policy.from_dict(
        {
            "name": "t",
            "rules": [
                {"match": {"messagePattern": "harmless"}, "decision": "ignore"},
                {"match": {"levels": ["error"]}, "decision": "blocking", "note": "errors"},
                {"match": {"sources": ["job"]}, "decision": "advisory", "note": "jobs"},
            ],
        }
    )

    assert _line(policy, "error", "a harmless error", "job") is IGNORED
    assert policy.classify_log(LogRing().append("error", "bad", source="job")) == Decision(
        True, False, 1, "errors"
    )
    assert _line(policy, "info", "bad", "job") == ADVISORY
    assert _line(policy, "info", "bad", "world") is IGNORED  # default


def test_every_condition_of_a_rule_must_hold() -> None:
    policy = Policy.from_dict(
        {
            "name": "t",
            "rules": [
                {
                    "match": {"levels": ["warning"], "sources": ["job"], "messagePattern": "^x"},
                    "decision": "blocking",
                }
            ],
        }
    )

    assert _line(policy, "warning", "x1", "job") == BLOCKING
    assert _line(policy, "error", "x1", "job") is IGNORED
    assert _line(policy, "warning", "x1", "world") is IGNORED
    assert _line(policy, "warning", "yx", "job") is IGNORED


def test_operation_rules_match_kind_method_and_error_and_never_log_lines() -> None:
    policy = Policy.from_dict(
        {
            "name": "t",
            "rules": [
                {
                    "match": {
                        "operationEvents": ["failed"],
                        "methodPattern": "^rimworld/",
                        "errorPattern": "stale",
                    },
                    "decision": "blocking",
                    "stateInvalidated": True,
                },
                {
                    "match": {"operationEvents": ["completed"], "methodPattern": "load_game$"},
                    "decision": "advisory",
                    "stateInvalidated": True,
                },
            ],
        }
    )

    assert _event(policy, "failed", error="stale pawn id") == BLOCKING_INVALIDATING
    assert _event(policy, "failed", error="other") is IGNORED
    assert _event(policy, "failed", method="sim/x", error="stale") is IGNORED
    assert _event(policy, "completed") == ADVISORY_INVALIDATING
    assert _line(policy, "error", "stale", "rimworld/") is IGNORED


def test_the_default_applies_to_lines_and_outcomes_but_never_to_debug_or_progress() -> None:
    policy = Policy.from_dict({"name": "t", "rules": [], "default": "blocking"})

    assert _line(policy, "info", "anything") == BLOCKING
    assert _line(policy, "debug", "anything") is IGNORED
    assert _event(policy, "cancelled") == BLOCKING
    assert _event(policy, "completed") is IGNORED
    assert _event(policy, "progress") is IGNORED
    assert policy.classify_line("info", "world", "x") == Decision(True, False, -1, "default")


def test_repeated_classification_of_one_line_is_cached_and_stable(recommended: Policy) -> None:
    first = recommended.classify_line("error", "job", "boom")
    assert all(recommended.classify_line("error", "job", "boom") is first for _ in range(3))


# --- loading -------------------------------------------------------------------------------------


def test_a_policy_loads_from_a_json_file(tmp_path: Path) -> None:
    document = {
        "name": "mine",
        "description": "only fatal",
        "rules": [{"match": {"levels": ["fatal"]}, "decision": "blocking"}],
    }
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(document), encoding="utf-8")

    for spec in (path, str(path)):
        policy = Policy.load(spec)
        assert (policy.name, policy.description, policy.origin) == ("mine", "only fatal", str(path))
        assert _line(policy, "fatal", "x") == BLOCKING
        assert _line(policy, "error", "x") is IGNORED


def test_a_policy_loads_from_a_dict_and_a_policy_loads_as_itself(recommended: Policy) -> None:
    policy = Policy.load({"name": "d", "rules": []})

    assert (policy.name, policy.rules, policy.default, policy.origin) == (
        "d",
        (),
        "ignore",
        "<dict>",
    )
    assert Policy.load(recommended) is recommended


def test_unknown_names_missing_files_and_bad_json_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="no such policy; expected faithful or recommended"):
        Policy.load("strict")
    with pytest.raises(PolicyError, match=r"\$: cannot read the file"):
        Policy.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",', encoding="utf-8")
    with pytest.raises(PolicyError, match=r"\$: not valid JSON: .* at line 1 column 14"):
        Policy.load(bad)
    with pytest.raises(PolicyError, match="no shipped policy named 'strict'"):
        Policy.builtin("strict")


# --- validation ----------------------------------------------------------------------------------


def _problems(document: object) -> tuple[str, ...]:
    with pytest.raises(PolicyError) as caught:
        Policy.from_dict(document)
    return caught.value.problems


def test_a_bad_decision_is_named_by_its_json_path() -> None:
    rules = [
        {"match": {"levels": ["error"]}, "decision": "blocking"},
        {"match": {"levels": ["error"]}, "decision": "ignore"},
        {"match": {"levels": ["error"]}, "decision": "block"},
    ]

    assert _problems({"name": "t", "rules": rules}) == (
        "$.rules[2].decision: must be blocking, advisory or ignore, got 'block'",
    )


def test_a_bad_regex_is_named_by_its_json_path() -> None:
    problems = _problems(
        {"name": "t", "rules": [{"match": {"messagePattern": "(unclosed"}, "decision": "ignore"}]}
    )

    assert len(problems) == 1
    assert problems[0].startswith(
        "$.rules[0].match.messagePattern: invalid regular expression '(unclosed': "
    )


def test_every_problem_is_reported_at_once() -> None:
    document = {
        "nmae": "typo",
        "default": "maybe",
        "rules": [
            "not a rule",
            {"decision": "advisory"},
            {"match": {"levels": ["loud"], "sources": []}, "decision": "advisory", "extra": 1},
            {
                "match": {"levels": ["error"], "operationEvents": ["failed"]},
                "decision": "blocking",
            },
            {"match": {"methodPattern": "x"}, "decision": "blocking"},
            {"match": {}, "decision": "blocking"},
            {"match": {"levels": ["error"]}, "decision": "ignore", "stateInvalidated": True},
            {"match": {"levels": ["debug"]}, "decision": "advisory"},
            {"match": {"operationEvents": ["exploded"]}, "decision": "blocking", "note": 3},
            {"match": {"levels": ["error"]}, "decision": "blocking", "stateInvalidated": "yes"},
        ],
    }

    assert _problems(document) == (
        "$.nmae: unknown key; expected one of name, description, rules, default",
        "$.name: required; a non-empty string",
        "$.default: must be blocking, advisory or ignore, got 'maybe'",
        "$.rules[0]: must be an object",
        "$.rules[1].match: required; an object of conditions",
        "$.rules[2].extra: unknown key; expected one of match, decision, stateInvalidated, note",
        "$.rules[2].match.levels[0]: must be one of debug, info, warning, error, fatal, got 'loud'",
        "$.rules[2].match.sources: must be a non-empty list of strings",
        "$.rules[3].match: mixes log keys (levels) with operation keys (operationEvents); a "
        "rule matches log entries or operation events, not both: split it into two rules",
        "$.rules[4].match.operationEvents: required when methodPattern or errorPattern is given",
        "$.rules[5].match: must name at least one condition: levels, sources or messagePattern "
        "(log entries) or operationEvents (operation events)",
        "$.rules[6].stateInvalidated: needs decision blocking or advisory, not ignore",
        "$.rules[7].match.levels: debug lines are never attention; drop debug or use decision "
        "ignore",
        "$.rules[8].note: must be a string",
        "$.rules[8].match.operationEvents[0]: must be one of started, progress, completed, "
        "failed, cancelled, timed_out, child_started, log, got 'exploded'",
        "$.rules[9].stateInvalidated: must be true or false, got 'yes'",
    )


def test_the_error_message_names_the_origin_and_lists_the_problems(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"name": "p", "rules": [{"match": {"levels": ["x"]}, "decision": "ignore"}]}')

    with pytest.raises(PolicyError) as caught:
        Policy.load(path)

    assert str(caught.value) == (
        f"invalid attention policy {path}:\n"
        "  $.rules[0].match.levels[0]: must be one of debug, info, warning, error, fatal, got 'x'"
    )
    assert isinstance(caught.value, ValueError)


def test_a_document_that_is_not_an_object_or_lacks_rules_is_refused() -> None:
    assert _problems([1, 2]) == ("$: must be an object",)
    assert _problems({"name": "t"}) == ("$.rules: required; a list of rules",)
