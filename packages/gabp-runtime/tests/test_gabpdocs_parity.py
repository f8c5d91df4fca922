"""What the shared gabp-runtime packages (Go and .NET, 1.0.0) pin in their fixture tests, here.

Their tests read GABP 1.1.0's nine valid conformance fixtures into typed models and check the
values read; this file reads our re-creations of the same fixtures (the corpus entries whose
``covers`` name them) the same way. It also pins how a receiver reads what the .NET runtime's
serializer writes for "no item": it leaves out every ``null`` member, so a game built on
``Gabp.Runtime`` answers ``attention/current`` with ``{}`` and an acknowledgement that closed
the item without ``currentAttention``. The Go runtime (which the Go bridge reads with) takes a
missing member as ``null``; so does peer mode here.
"""

from __future__ import annotations

from typing import Any

import pytest

from gabp import MessageError
from gabp.messages import (
    AttentionAckResult,
    AttentionCurrentResult,
    Event,
    HelloParams,
    HelloResult,
    Request,
    Response,
    dump_message,
    parse_message,
    parse_params,
    parse_payload,
    parse_result,
)
from gabp_schemas import fixtures

COVERED = {case.rsplit("/", 1)[-1]: f.document for f in fixtures() for case in f.covers}


def covering(name: str) -> Any:
    """Our re-creation of GABP's ``CONFORMANCE/1.0/valid/<name>``."""
    return COVERED[name]


@pytest.mark.parametrize("strict", [False, True])
def test_the_hello_fixture_reads_as_a_hello_request_with_its_params(strict: bool) -> None:
    document = covering("001_session_hello.json")
    request = parse_message(document, strict=strict)
    assert isinstance(request, Request)
    assert (request.v, request.type, request.method) == ("gabp/1", "request", "session/hello")
    params = parse_params("session/hello", request.params, strict=strict)
    assert isinstance(params, HelloParams)
    wire = document["params"]
    assert (params.bridge_version, params.platform, params.launch_id) == (
        wire["bridgeVersion"],
        wire["platform"],
        wire["launchId"],
    )
    assert params.client_info is None


@pytest.mark.parametrize("strict", [False, True])
def test_the_welcome_fixture_round_trips_with_its_empty_lists_kept(strict: bool) -> None:
    document = covering("002_session_welcome.json")
    once = parse_message(document, strict=strict)
    again = parse_message(dump_message(once), strict=strict)
    assert isinstance(again, Response) and again.error is None
    result = parse_result("session/hello", again.result, strict=strict)
    assert isinstance(result, HelloResult)
    capabilities = result.capabilities
    assert (capabilities.methods, capabilities.events, capabilities.resources) == (
        ["session/hello"],
        [],
        [],
    )
    assert result.schema_version == "1.0"
    assert again.result == document["result"]


@pytest.mark.parametrize("strict", [False, True])
def test_the_call_event_and_error_fixtures_read_their_values(strict: bool) -> None:
    call = parse_message(covering("003_tools_call.json"), strict=strict)
    assert isinstance(call, Request) and call.method == "tools/call"
    params = parse_params("tools/call", call.params, strict=strict)
    assert params.arguments == covering("003_tools_call.json")["params"]["arguments"]

    event = parse_message(covering("004_event_message.json"), strict=strict)
    assert isinstance(event, Event) and event.type == "event"
    assert (event.seq, event.payload) == (
        covering("004_event_message.json")["seq"],
        covering("004_event_message.json")["payload"],
    )

    error = parse_message(covering("005_error_response.json"), strict=strict)
    assert isinstance(error, Response) and error.result is None and error.error is not None
    assert error.error.to_wire() == covering("005_error_response.json")["error"]
    assert error.error.code == -32601


@pytest.mark.parametrize("strict", [False, True])
def test_the_tool_list_fixture_round_trips_its_descriptor(strict: bool) -> None:
    document = covering("006_tools_list_response.json")
    again = parse_message(dump_message(parse_message(document, strict=strict)), strict=strict)
    assert isinstance(again, Response)
    tools = parse_result("tools/list", again.result, strict=strict).tools
    assert [tool.to_wire() for tool in tools] == document["result"]["tools"]
    assert (tools[0].input_schema["type"], tools[0].output_schema["type"]) == ("object", "object")


@pytest.mark.parametrize("strict", [False, True])
def test_the_attention_fixtures_read_their_items(strict: bool) -> None:
    current = parse_message(covering("007_attention_current_response.json"), strict=strict)
    assert isinstance(current, Response)
    item = parse_result("attention/current", current.result, strict=strict).attention
    assert item is not None and item.blocking is False

    opened = parse_message(covering("008_attention_opened_event.json"), strict=strict)
    assert isinstance(opened, Event) and opened.channel == "attention/opened"
    payload = parse_payload(opened.channel, opened.payload, strict=strict)
    assert (payload.blocking, payload.state_invalidated) == (True, True)

    document = covering("009_attention_ack_response.json")
    ack = parse_message(document, strict=strict)
    assert isinstance(ack, Response)
    result = parse_result("attention/ack", ack.result, strict=strict)
    assert result.acknowledged is False
    assert result.attention_id == document["result"]["attentionId"]
    assert result.current_attention is not None
    assert result.current_attention.attention_id != result.attention_id


def test_a_current_result_without_its_member_reads_as_no_item_from_a_peer() -> None:
    assert parse_result("attention/current", {}) == AttentionCurrentResult(attention=None)
    with pytest.raises(MessageError, match=r"\$\.attention: Field required"):
        parse_result("attention/current", {}, strict=True)


def test_an_ack_result_without_current_attention_reads_as_nothing_open_from_a_peer() -> None:
    read = parse_result("attention/ack", {"acknowledged": True, "attentionId": "att-3"})
    assert read == AttentionAckResult(
        acknowledged=True, attention_id="att-3", current_attention=None
    )
    assert read.to_wire()["currentAttention"] is None
    with pytest.raises(MessageError, match=r"\$\.currentAttention: Field required"):
        parse_result("attention/ack", {"acknowledged": True, "attentionId": "att-3"}, strict=True)


def test_a_peer_still_has_to_say_whether_its_ack_was_taken() -> None:
    with pytest.raises(MessageError, match=r"\$\.acknowledged: Field required"):
        parse_result("attention/ack", {"attentionId": "att-3"})
