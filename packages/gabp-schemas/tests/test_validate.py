"""validate(), validate_document() and the schema lookups."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import gabp_schemas
from gabp_schemas import (
    SchemaValidationError,
    UnknownSchemaError,
    ValidationIssue,
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
    custom = {"v": "gabp/1", "id": UUID, "type": "request", "method": "rimbridge/list_logs"}
    assert schema_name_for(custom) == "envelope"
    validate(custom)


def test_events_are_routed_by_channel_and_attention_channels_get_the_attention_schema() -> None:
    event = {
        "v": "gabp/1",
        "id": UUID,
        "type": "event",
        "channel": "attention/opened",
        "seq": 0,
        "payload": {},
    }
    assert schema_name_for(event) == "events/attention.payload"
    assert schema_name_for({**event, "channel": "colony/raid"}) == "events/event.message"
    assert any(line.startswith("$.payload:") for line in errors_of(event))
    validate({**event, "channel": "colony/raid"})


def test_responses_are_type_checked_only_when_the_method_is_given() -> None:
    message = response({"attention": "not an item"})
    assert schema_name_for(message) == "envelope"
    validate(message)
    assert errors_of(message, method="attention/current") == [
        "$.result.attention: 'not an item' is not of type 'object', 'null'"
    ]


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
    assert errors_of(message) == [
        "$.error: not allowed together with 'result' (a response has exactly one of the two)"
    ]


def test_a_response_with_neither_result_nor_error_names_the_rule() -> None:
    message = response(None)
    del message["result"]
    assert errors_of(message) == ["$: a response needs either 'result' or 'error'"]


def test_an_unknown_method_for_a_response_is_a_usage_error() -> None:
    with pytest.raises(UnknownSchemaError, match="no schema for method 'tools/lst'"):
        validate(response(None), method="tools/lst")


def test_a_message_that_is_not_an_object_is_rejected_by_the_envelope() -> None:
    assert errors_of([1, 2]) == ["$: [1, 2] is not of type 'object'"]


def test_validate_document_checks_the_bridge_blocked_call_result() -> None:
    (example,) = gabp_schemas.documents()
    validate_document(example.document)
    broken = copy.deepcopy(example.document)
    broken["executed"] = True
    broken["attention"]["blocking"] = False
    with pytest.raises(SchemaValidationError) as caught:
        validate_document(broken, schema="bridge/blocked-call.result")
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


def test_schema_ids_cover_the_whole_tree_under_the_public_base() -> None:
    ids = schema_ids()
    assert len(ids) == len(gabp_schemas.schema_names()) == 30
    assert all(i.startswith("https://gabp.dev/schema/1.0/") for i in ids)
    assert "https://gabp.dev/schema/1.0/envelope.schema.json" in ids
