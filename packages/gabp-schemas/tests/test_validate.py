"""validate(), validate_document() and the schema lookups."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import gabp_schemas
from gabp_schemas import (
    Check,
    SchemaValidationError,
    UnknownSchemaError,
    ValidationIssue,
    checks_for,
    load_schema,
    schema_ids,
    schema_name_for,
    validate,
    validate_document,
)

UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def hello(**params: Any) -> dict[str, Any]:
    base = {
        "token": "f" * 64,
        "bridgeVersion": "1.1.0",
        "platform": "macos",
        "launchId": "7d444840-9dc0-11d1-b245-5ffdce74fad2",
    }
    base.update(params)
    return {"v": "gabp/1", "id": UUID, "type": "request", "method": "session/hello", "params": base}


def response(result: Any) -> dict[str, Any]:
    return {"v": "gabp/1", "id": UUID, "type": "response", "result": result}


def errors_of(message: Any, **kwargs: Any) -> list[str]:
    with pytest.raises(SchemaValidationError) as caught:
        validate(message, **kwargs)
    return caught.value.errors


def test_a_short_token_is_reported_with_its_path_value_and_rule() -> None:
    assert errors_of(hello(token="abc")) == ["$.params.token: 'abc' is too short (minLength 32)"]


def test_every_error_is_reported_not_just_the_first() -> None:
    message = hello(token="abc", platform="darwin", launchId="nope")
    message["seq"] = 3
    with pytest.raises(SchemaValidationError) as caught:
        validate(message)
    assert [issue.path for issue in caught.value.issues] == [
        "$.params.launchId",
        "$.params.platform",
        "$.params.token",
        "$.seq",
    ]
    text = str(caught.value)
    assert text.splitlines()[0] == "4 schema errors against methods/session.hello.request:"
    assert all(line in text for line in caught.value.errors)


def test_issues_carry_path_message_and_keyword() -> None:
    with pytest.raises(SchemaValidationError) as caught:
        validate(hello(platform="darwin"))
    assert caught.value.issues == [
        ValidationIssue(
            path="$.params.platform",
            message="'darwin' is not one of ['windows', 'macos', 'linux']",
            keyword="enum",
        )
    ]


def test_schema_validation_error_is_a_value_error() -> None:
    assert issubclass(SchemaValidationError, ValueError)


@pytest.mark.parametrize(
    "bad_id",
    [
        "not-a-uuid",
        "0f8fad5bd9cb469fa16570867728950e",
        "{0f8fad5b-d9cb-469f-a165-70867728950e}",
        "0f8fad5b-d9cb-469f-a165-70867728950",
    ],
)
def test_format_uuid_is_enforced_on_the_id(bad_id: str) -> None:
    message = hello()
    message["id"] = bad_id
    assert errors_of(message) == [f"$.id: {bad_id!r} is not a 'uuid'"]


@pytest.mark.parametrize(
    "good_id",
    [UUID.upper(), "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "00000000-0000-0000-0000-000000000000"],
)
def test_any_uuid_version_and_letter_case_is_accepted(good_id: str) -> None:
    message = hello()
    message["id"] = good_id
    validate(message)


def test_format_uuid_is_enforced_on_the_launch_id() -> None:
    assert errors_of(hello(launchId="launch-7")) == [
        "$.params.launchId: 'launch-7' is not a 'uuid'"
    ]


def test_bytes_and_str_bodies_are_parsed_before_validation() -> None:
    body = json.dumps(hello())
    validate(body)
    validate(body.encode("utf-8"))
    assert errors_of(json.dumps(hello(token="x")).encode()) == [
        "$.params.token: 'x' is too short (minLength 32)"
    ]


def test_a_body_that_is_not_json_is_a_validation_error_at_the_root() -> None:
    (line,) = errors_of(b"{not json")
    assert line.startswith("$: not a JSON document:")


def test_requests_are_routed_by_their_own_method() -> None:
    assert schema_name_for(hello()) == "methods/session.hello.request"
    custom = {"v": "gabp/1", "id": UUID, "type": "request", "method": "rimbridge/logs"}
    assert schema_name_for(custom) == "envelope"
    validate(custom)


def test_a_custom_method_with_digits_or_underscores_breaks_gabps_sender_pattern() -> None:
    custom = {"v": "gabp/1", "id": UUID, "type": "request", "method": "rimbridge/list_logs"}
    assert errors_of(custom) == [
        "$.method: 'rimbridge/list_logs' does not match '^[a-z]+(/[a-z]+)+$'"
    ]


def test_events_are_judged_by_the_event_schema_and_attention_payloads_by_the_payload_schema() -> (
    None
):
    event = {
        "v": "gabp/1",
        "id": UUID,
        "type": "event",
        "channel": "attention/opened",
        "seq": 0,
        "payload": {},
    }
    assert checks_for(event) == [
        Check("events/event.message"),
        Check("events/attention.payload", "payload"),
    ]
    assert schema_name_for(event) == "events/event.message"
    assert schema_name_for(event, schema_set="ext") == "ext/events/attention.event"
    assert schema_name_for({**event, "channel": "colony/raid"}) == "events/event.message"
    assert all(line.startswith("$.payload:") for line in errors_of(event))
    validate({**event, "channel": "colony/raid"})


def test_an_event_may_carry_a_date_time_timestamp_as_gabps_event_schema_allows() -> None:
    event = {"v": "gabp/1", "id": UUID, "type": "event", "channel": "colony/raid", "seq": 1}
    validate({**event, "payload": None, "timestamp": "2026-03-01T10:00:00.5+01:00"})
    assert errors_of({**event, "payload": None, "timestamp": "2026-02-30T10:00:00Z"}) == [
        "$.timestamp: '2026-02-30T10:00:00Z' is not a 'date-time'"
    ]


def test_the_extension_set_adds_the_attention_lifecycle_rules() -> None:
    payload = {
        "attentionId": "att-1",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "a job failed",
        "openedAtSequence": 3,
        "latestSequence": 3,
        "totalUrgentEntries": 1,
    }
    event = {
        "v": "gabp/1",
        "id": UUID,
        "type": "event",
        "channel": "attention/cleared",
        "seq": 0,
        "payload": payload,
    }
    validate(event)
    assert errors_of(event, schema_set="ext") == [
        "$.payload.blocking: False was expected",
        "$.payload.state: 'cleared' was expected",
    ]


def test_responses_are_type_checked_only_when_the_method_is_given() -> None:
    message = response({"attention": "not an item"})
    assert schema_name_for(message) == "envelope"
    validate(message)
    assert errors_of(message, method="attention/current") == [
        "$.result.attention: 'not an item' is not of type 'null', 'object'"
    ]


def test_subscribe_responses_have_a_schema_only_in_the_extension_set() -> None:
    message = response({"subscribed": "colony/raid"})
    assert schema_name_for(message, method="events/subscribe") == "envelope"
    validate(message, method="events/subscribe")
    assert errors_of(message, method="events/subscribe", schema_set="ext") == [
        "$.result.subscribed: 'colony/raid' is not of type 'array'"
    ]


def test_the_welcome_is_judged_by_gabps_welcome_schema() -> None:
    welcome = response(
        {
            "agentId": "rimworld",
            "app": {"name": "RimWorld", "version": "1.6"},
            "capabilities": {"extensions": {"concurrency": {"maxConcurrentRequests": 0}}},
            "schemaVersion": "1.0",
        }
    )
    assert schema_name_for(welcome, method="session/hello") == "methods/session.welcome.response"
    validate(welcome, method="session/hello")
    assert errors_of(welcome, method="session/hello", schema_set="ext") == [
        "$.result.capabilities.extensions.concurrency.maxConcurrentRequests: "
        "0 is less than the minimum of 1"
    ]


def test_an_unknown_schema_set_is_a_usage_error() -> None:
    with pytest.raises(UnknownSchemaError, match="no schema set 'strict'"):
        validate(hello(), schema_set="strict")  # type: ignore[arg-type]


def test_an_error_response_is_checked_in_full_with_or_without_the_method() -> None:
    message = {
        "v": "gabp/1",
        "id": UUID,
        "type": "response",
        "error": {"code": -32601, "message": ""},
    }
    expected = ["$.error.message: '' should be non-empty (minLength 1)"]
    assert errors_of(message) == expected
    assert errors_of(message, method="tools/list") == expected
    message["error"]["message"] = "Method not found"
    validate(message, method="tools/list")


def test_result_may_be_null_or_false() -> None:
    validate(response(None))
    validate(response(False))


def test_a_response_with_both_result_and_error_names_the_rule() -> None:
    message = response(None)
    message["error"] = {"code": 1, "message": "x"}
    expected = ["$: a response carries exactly one of result and error, not both"]
    assert errors_of(message) == expected
    assert errors_of(message, method="attention/current") == expected


def test_a_response_with_neither_result_nor_error_names_the_rule() -> None:
    message = response(None)
    del message["result"]
    assert errors_of(message) == ["$: a response needs either 'result' or 'error'"]


def test_an_unknown_method_for_a_response_is_a_usage_error() -> None:
    with pytest.raises(UnknownSchemaError, match="no schema for method 'tools/lst'"):
        validate(response(None), method="tools/lst")


def test_a_message_that_is_not_an_object_is_rejected_by_the_envelope() -> None:
    assert errors_of([1, 2]) == ["$: [1, 2] is not of type 'object'"]


def test_a_message_without_a_known_type_is_told_so() -> None:
    assert errors_of({"v": "gabp/1", "id": UUID}) == ["$: 'type' is a required property"]
    assert errors_of({"v": "gabp/1", "id": UUID, "type": "notification"}) == [
        "$.type: 'notification' is not a message type (request, response or event)"
    ]


def test_each_unexpected_member_is_reported_at_its_own_path() -> None:
    message = hello()
    message["channel"] = "x"
    message["params"]["extra"] = 1
    assert errors_of(message) == [
        "$.channel: not allowed in a request",
        "$.params.extra: not allowed here (no such member)",
    ]


def test_validate_document_checks_the_bridge_blocked_call_result() -> None:
    (example,) = gabp_schemas.documents()
    validate_document(example.document)
    broken = copy.deepcopy(example.document)
    broken["executed"] = True
    broken["attention"]["blocking"] = False
    with pytest.raises(SchemaValidationError) as caught:
        validate_document(broken, schema="ext/bridge/blocked-call.result")
    assert caught.value.errors == [
        "$.attention.blocking: True was expected",
        "$.executed: False was expected",
    ]


def test_validate_document_rejects_an_unknown_schema_name() -> None:
    with pytest.raises(UnknownSchemaError, match="no schema named 'bridge/nothing'"):
        validate_document({}, schema="bridge/nothing")


def test_load_schema_accepts_a_short_name_or_an_id_and_returns_a_copy() -> None:
    by_name = load_schema("common/attention")
    by_id = load_schema("https://gabp.dev/schema/1.0/common/attention.schema.json")
    assert by_name == by_id
    by_name["title"] = "changed"
    assert load_schema("common/attention")["title"] != "changed"


def test_schema_ids_cover_both_sets_each_under_its_own_base() -> None:
    normative, extension = schema_ids("gabp"), schema_ids("ext")
    assert len(normative) == len(gabp_schemas.schema_names("gabp")) == 27
    assert len(extension) == len(gabp_schemas.schema_names("ext")) == 8
    assert sorted(normative + extension) == schema_ids()
    assert all(i.startswith("https://gabp.dev/schema/1.0/") for i in normative)
    assert all(i.startswith("https://gabp.dev/schema/ext/1.0/") for i in extension)
    assert "https://gabp.dev/schema/1.0/envelope.schema.json" in normative


def test_earlier_names_of_gabp_schemas_still_resolve() -> None:
    assert load_schema("methods/session.hello.response") == load_schema(
        "methods/session.welcome.response"
    )
    assert load_schema("https://gabp.dev/schema/1.0/methods/session.hello.response.json") == (
        load_schema("methods/session.welcome.response")
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("bridge/blocked-call.result", "ext/bridge/blocked-call.result"),
        (
            "https://gabp.dev/schema/1.0/bridge/blocked-call.result.json",
            "ext/bridge/blocked-call.result",
        ),
        ("methods/events.subscribe.response", "ext/methods/events.subscribe.response"),
        (
            "https://gabp.dev/schema/1.0/methods/events.unsubscribe.response.json",
            "ext/methods/events.unsubscribe.response",
        ),
        ("https://gabp.dev/schema/1.0/events/attention.payload.json", "ext/events/attention.event"),
    ],
)
def test_gabp_names_never_resolve_to_extension_schemas(old: str, new: str) -> None:
    # GABP 1.1.0 has no schema at these names; a later release may add one there.
    with pytest.raises(UnknownSchemaError, match=f"GABP 1.1.0 defines none.*{new}"):
        load_schema(old)
    with pytest.raises(UnknownSchemaError):
        validate_document({}, schema=old)
    assert load_schema(new)["$id"].startswith("https://gabp.dev/schema/ext/1.0/")


def tool_call(name: str) -> dict[str, Any]:
    return {
        "v": "gabp/1",
        "id": UUID,
        "type": "request",
        "method": "tools/call",
        "params": {"name": name, "arguments": {}},
    }


def welcome(**result: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "agentId": "rimworld",
        "app": {"name": "RimWorld", "version": "1.5"},
        "capabilities": {},
        "schemaVersion": "1.0",
    }
    base.update(result)
    return response(base)


# Patterns are ECMA-262 regular expressions (what GABP's own ajv-based validator runs), not
# Python's: "$" is the end of the text, "\d" an ASCII digit.
@pytest.mark.parametrize(
    ("message", "method"),
    [
        (tool_call("rimworld/pause_game\n"), None),
        ({"v": "gabp/1", "id": UUID, "type": "request", "method": "custom/thing\n"}, None),
        (welcome(schemaVersion="1.0\n"), "session/hello"),
        (welcome(schemaVersion="1.\u0663"), "session/hello"),
        (welcome(capabilities={"methods": ["tools/call\n"]}), "session/hello"),
        (welcome(capabilities={"extensions": {"concurrency\n": {}}}), "session/hello"),
    ],
)
def test_patterns_are_ecma_262_so_a_final_newline_or_a_non_ascii_digit_fails(
    message: dict[str, Any], method: str | None
) -> None:
    assert not gabp_schemas.verdict(message, method=method)
    stripped = json.loads(json.dumps(message).replace("\\n", "").replace("\\u0663", "0"))
    assert gabp_schemas.verdict(stripped, method=method)


def test_an_extension_key_outside_the_pattern_is_reported_at_its_own_path() -> None:
    message = welcome(capabilities={"extensions": {"concurrency\n": {}}})
    assert errors_of(message, method="session/hello") == [
        '$.result.capabilities.extensions["concurrency\\n"]: not allowed here (no such member)'
    ]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    event = {"v": "gabp/1", "id": UUID, "type": "event", "channel": "colony/raid", "seq": 0}
    body = json.dumps({**event, "payload": "here"}).replace('"here"', constant)
    assert errors_of(body) == [f"$: not a JSON document: {constant} is not a JSON value"]
    assert errors_of(body.encode()) == errors_of(body)
