"""The shipped examples: all valid, listed in their manifest, and one consistent story."""

from __future__ import annotations

import pytest

import gabp_schemas
from gabp_schemas import Document, Fixture, load_manifest, validate, validate_document

EXAMPLES = gabp_schemas.data_root() / "examples" / "1.0"
MESSAGES = list(gabp_schemas.examples())
DOCUMENTS = list(gabp_schemas.documents())


def _by_name(name: str) -> dict[str, object]:
    (match,) = [f.document for f in MESSAGES if f.path.name == name]
    assert isinstance(match, dict)
    return match


def test_the_examples_manifest_lists_exactly_the_example_files() -> None:
    on_disk = {
        p.relative_to(EXAMPLES).as_posix()
        for p in EXAMPLES.rglob("*.json")
        if p.name != "manifest.json"
    }
    assert set(load_manifest("examples")) == on_disk


def test_every_method_has_a_request_and_a_response_example() -> None:
    requests = {f.document["method"] for f in MESSAGES if f.document["type"] == "request"}
    responses = {f.method for f in MESSAGES if f.document["type"] == "response"}
    assert set(gabp_schemas.METHODS) <= requests
    assert set(gabp_schemas.METHODS) <= responses


def test_every_attention_channel_and_a_plain_channel_have_an_event_example() -> None:
    channels = {f.document["channel"] for f in MESSAGES if f.document["type"] == "event"}
    assert set(gabp_schemas.ATTENTION_CHANNELS) <= channels
    assert channels - set(gabp_schemas.ATTENTION_CHANNELS)


@pytest.mark.parametrize("example", MESSAGES, ids=lambda f: f.path.name)
def test_every_example_message_is_valid_under_both_schema_sets(example: Fixture) -> None:
    assert example.expected_valid
    validate(example.document, method=example.method)
    validate(example.document, method=example.method, schema_set="ext")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d.path.name)
def test_every_bridge_document_example_is_valid(document: Document) -> None:
    validate_document(document.document, document.schema)


def test_the_bridge_blocked_call_example_is_listed_with_its_schema() -> None:
    assert [(d.path.name, d.schema) for d in DOCUMENTS] == [
        ("070_blocked-call.result.json", "ext/bridge/blocked-call.result")
    ]


def test_the_attention_story_uses_one_attention_id_throughout() -> None:
    opened = _by_name("053_attention-opened.event.json")["payload"]
    current = _by_name("056_attention-current-open.response.json")["result"]
    ack = _by_name("061_attention-ack.response.json")["result"]
    cleared = _by_name("062_attention-cleared.event.json")["payload"]
    stale = _by_name("059_attention-ack-stale.response.json")["result"]
    (blocked,) = [d.document for d in DOCUMENTS]
    assert isinstance(opened, dict) and isinstance(current, dict)
    assert isinstance(ack, dict) and isinstance(cleared, dict) and isinstance(stale, dict)
    item_id = opened["attentionId"]
    assert current["attention"] == opened
    assert blocked["attention"]["attentionId"] == item_id
    assert ack == {"acknowledged": True, "attentionId": item_id, "currentAttention": None}
    assert (cleared["attentionId"], cleared["state"], cleared["blocking"]) == (
        item_id,
        "cleared",
        False,
    )
    assert stale["acknowledged"] is False
    assert stale["attentionId"] != item_id
    assert stale["currentAttention"]["attentionId"] == item_id


def test_the_opened_item_names_the_call_that_caused_it() -> None:
    call = _by_name("052_colony-draft-pawn.request.json")
    opened = _by_name("053_attention-opened.event.json")["payload"]
    response = _by_name("054_colony-draft-pawn.response.json")
    assert isinstance(opened, dict) and isinstance(call["params"], dict)
    assert opened["causalOperationId"] == call["id"] == response["id"]
    assert opened["causalMethod"] == call["params"]["name"]


def test_each_response_example_echoes_its_request_id() -> None:
    requests = {
        f.path.name.split("_", 1)[1].removesuffix(".request.json"): f.document
        for f in MESSAGES
        if f.path.name.endswith(".request.json")
    }
    paired = 0
    for example in MESSAGES:
        stem = example.path.name.split("_", 1)[1]
        partner = requests.get(stem.removesuffix(".response.json"))
        if stem.endswith(".response.json") and partner is not None:
            assert example.document["id"] == partner["id"], example.path.name
            paired += 1
    assert paired >= len(gabp_schemas.METHODS)
