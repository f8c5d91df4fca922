"""The pydantic message models: strict to build, tolerant to receive."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gabp import MessageError, new_id
from gabp.messages import (
    AppInfo,
    Attention,
    AttentionAckResult,
    AttentionCurrentResult,
    Capabilities,
    ErrorObject,
    Event,
    HelloParams,
    HelloResult,
    Limits,
    Request,
    Response,
    ToolDescriptor,
    dump_message,
    parse_message,
    parse_params,
    parse_payload,
    parse_result,
)

TOKEN = "0123456789abcdef" * 4


def attention(**changes: Any) -> dict[str, Any]:
    item = {
        "attentionId": "att-1",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "Map lost after rimworld/load_game",
        "openedAtSequence": 10,
        "latestSequence": 12,
        "totalUrgentEntries": 3,
    }
    item.update(changes)
    return item


def test_a_request_dumps_as_compact_utf8_json_with_the_envelope_first() -> None:
    request = Request(
        id="6f1c1f8e-31b5-4a3e-9a56-2e41b6f9a001",
        method="tools/call",
        params={"name": "colony/rename", "arguments": {"name": "Ärger 🐛"}},
    )
    assert (
        dump_message(request)
        == (
            '{"v":"gabp/1","id":"6f1c1f8e-31b5-4a3e-9a56-2e41b6f9a001","type":"request",'
            '"method":"tools/call","params":{"name":"colony/rename",'
            '"arguments":{"name":"Ärger 🐛"}}}'
        ).encode()
    )


def test_a_success_response_always_carries_result_even_when_it_is_null() -> None:
    rid = new_id()
    assert json.loads(dump_message(Response(id=rid, result=None))) == {
        "v": "gabp/1",
        "id": rid,
        "type": "response",
        "result": None,
    }
    assert json.loads(dump_message(Response(id=rid, result=False)))["result"] is False


def test_an_error_response_carries_error_and_no_result() -> None:
    rid = new_id()
    response = Response(id=rid, error=ErrorObject(code=-32601, message="method not found: x/y"))
    assert json.loads(dump_message(response)) == {
        "v": "gabp/1",
        "id": rid,
        "type": "response",
        "error": {"code": -32601, "message": "method not found: x/y"},
    }


def test_parse_message_picks_the_model_by_type() -> None:
    rid = new_id()
    assert isinstance(
        parse_message({"v": "gabp/1", "id": rid, "type": "request", "method": "a/b"}), Request
    )
    assert isinstance(
        parse_message({"v": "gabp/1", "id": rid, "type": "response", "result": 1}), Response
    )
    event = parse_message(
        {"v": "gabp/1", "id": rid, "type": "event", "channel": "c", "seq": 0, "payload": {}}
    )
    assert isinstance(event, Event)


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ({"type": "response", "result": 1, "error": {"code": 1, "message": "x"}}, "not both"),
        ({"type": "response"}, "got neither"),
        ({"type": "request", "method": "a/b", "result": 1}, "$.result"),
        ({"type": "event", "channel": "", "seq": 0, "payload": None}, "$.channel"),
        ({"type": "event", "channel": "c", "seq": -1, "payload": None}, "$.seq"),
        ({"type": "request", "method": "A/b"}, "$.method"),
        ({"type": "request", "method": "a/b", "v": "gabp/2"}, "$.v"),
    ],
)
def test_parse_message_rejects_invalid_envelopes_naming_the_field(
    message: dict[str, Any], fragment: str
) -> None:
    rid = new_id()
    with pytest.raises(MessageError) as info:
        parse_message({"v": "gabp/1", "id": rid, **message}, strict=True)
    assert info.value.code == -32600
    assert fragment in str(info.value)
    assert info.value.message_id == rid


def test_bytes_that_are_not_json_raise_a_parse_error_with_the_recovered_id() -> None:
    rid = new_id()
    with pytest.raises(MessageError) as info:
        parse_message(f'{{"v":"gabp/1","id":"{rid}","type":'.encode())
    assert (info.value.code, info.value.message_id) == (-32700, rid)


def test_peer_mode_accepts_what_real_peers_send_and_strict_mode_does_not() -> None:
    rid = new_id()
    event = {
        "v": "gabp/1",
        "id": rid,
        "type": "event",
        "channel": "c",
        "seq": 1,
        "payload": {},
        "timestamp": 5,
    }
    assert parse_message(event).seq == 1
    with pytest.raises(MessageError, match="timestamp"):
        parse_message(event, strict=True)
    both = {"v": "gabp/1", "id": rid, "type": "response", "result": {"ok": True}, "error": None}
    assert parse_message(both).result == {"ok": True}
    with pytest.raises(MessageError):
        parse_message(both, strict=True)


def test_tools_call_accepts_parameters_from_peers_and_sends_arguments() -> None:
    params = parse_params("tools/call", {"name": "colony/rename", "parameters": {"name": "x"}})
    assert params.to_wire() == {"name": "colony/rename", "arguments": {"name": "x"}}
    with pytest.raises(MessageError):
        parse_params("tools/call", {"name": "colony/rename", "parameters": {}}, strict=True)


@pytest.mark.parametrize(
    ("params", "arguments"),
    [
        ({"parameters": {"x": 1}, "arguments": {"x": 2}}, {"x": 1}),
        ({"parameters": None, "arguments": {"x": 2}}, {"x": 2}),
        ({"parameters": None}, {}),
        ({"arguments": None}, {}),
        ({"parameters": None, "arguments": None}, {}),
        ({}, {}),
    ],
)
def test_tools_call_from_peers_prefers_parameters_and_reads_null_as_no_arguments(
    params: dict[str, Any], arguments: dict[str, Any]
) -> None:
    parsed = parse_params("tools/call", {"name": "colony/rename", **params})
    assert parsed.to_wire() == {"name": "colony/rename", "arguments": arguments}


@pytest.mark.parametrize("params", [{"arguments": None}, {"parameters": {}}])
def test_tools_call_sent_by_us_has_an_arguments_object(params: dict[str, Any]) -> None:
    with pytest.raises(MessageError):
        parse_params("tools/call", {"name": "colony/rename", **params}, strict=True)


def test_hello_reads_darwin_as_macos_and_never_shows_the_token() -> None:
    hello = {"token": TOKEN, "bridgeVersion": "1.1.0", "platform": "darwin", "launchId": new_id()}
    params = parse_params("session/hello", hello)
    assert isinstance(params, HelloParams)
    assert params.platform == "macos"
    assert TOKEN not in repr(params)
    with pytest.raises(MessageError, match="platform"):
        parse_params("session/hello", hello, strict=True)


def test_a_short_token_is_refused_with_the_rule() -> None:
    with pytest.raises(MessageError, match="at least 32 characters"):
        parse_params(
            "session/hello",
            {"token": "short", "bridgeVersion": "1", "platform": "linux", "launchId": new_id()},
        )


def test_the_hello_result_has_no_tools_key_in_its_capabilities() -> None:
    result = HelloResult(
        agent_id="rimworld",
        app=AppInfo(name="RimWorld", version="1.5"),
        capabilities=Capabilities(methods=["tools/list"], limits=Limits(max_message_size=1048576)),
    )
    wire = result.to_wire()
    assert wire["schemaVersion"] == "1.0"
    assert "tools" not in wire["capabilities"]
    assert wire["capabilities"]["limits"] == {"maxMessageSize": 1048576}
    with pytest.raises(MessageError, match="tools"):
        parse_result(
            "session/hello",
            {**wire, "capabilities": {**wire["capabilities"], "tools": []}},
            strict=True,
        )


def test_capabilities_tell_attention_support_only_when_both_methods_are_listed() -> None:
    assert Capabilities(methods=["attention/current", "attention/ack"]).supports_attention
    assert not Capabilities(methods=["attention/current"]).supports_attention


def test_peer_tool_descriptors_with_extra_keys_are_accepted_and_cleaned() -> None:
    descriptor = {
        "name": "rimworld/pause_game",
        "title": "Pause",
        "description": "Pause the game.",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object"},
        "parameters": [],
        "requiresAuth": False,
    }
    tools = parse_result("tools/list", {"tools": [descriptor]})
    assert tools.to_wire()["tools"][0] == {
        k: v for k, v in descriptor.items() if k not in {"parameters", "requiresAuth"}
    }
    with pytest.raises(MessageError):
        parse_result("tools/list", {"tools": [descriptor]}, strict=True)


def test_tool_names_need_two_slash_segments_and_no_dots() -> None:
    base = {"title": "t", "description": "d", "inputSchema": {}, "outputSchema": {}}
    ToolDescriptor.model_validate({"name": "rimworld/pause_game", **base})
    for bad in ["pause_game", "rimworld.pause", "Rimworld/pause", "rimworld/"]:
        with pytest.raises(ValueError):
            ToolDescriptor.model_validate({"name": bad, **base})


def test_the_attention_object_accepts_exactly_its_fields() -> None:
    assert parse_payload("attention/opened", attention(), strict=True).to_wire() == attention()
    with pytest.raises(MessageError, match="Extra inputs"):
        parse_payload("attention/opened", attention(history=[]), strict=True)
    with pytest.raises(MessageError, match="severity"):
        parse_payload("attention/opened", attention(severity="critical"), strict=True)
    with pytest.raises(MessageError, match="repeatCount"):
        parse_payload(
            "attention/updated",
            attention(
                sample=[{"level": "error", "message": "m", "repeatCount": 0, "latestSequence": 1}]
            ),
            strict=True,
        )


def test_attention_results_keep_null_items_on_the_wire() -> None:
    assert AttentionCurrentResult(attention=None).to_wire() == {"attention": None}
    ack = AttentionAckResult(acknowledged=False, attention_id="att-9", current_attention=None)
    assert ack.to_wire() == {
        "acknowledged": False,
        "attentionId": "att-9",
        "currentAttention": None,
    }
    opened = Attention.model_validate(attention())
    assert AttentionCurrentResult(attention=opened).to_wire() == {"attention": attention()}


def test_methods_without_a_fixed_result_shape_pass_their_result_through() -> None:
    assert parse_result("tools/call", {"anything": [1, 2]}) == {"anything": [1, 2]}
    assert parse_payload("game/tick", 5) == 5


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(result=json_values, text=st.text())
def test_any_response_round_trips_through_dump_and_parse(result: Any, text: str) -> None:
    rid = new_id()
    response = Response(id=rid, result={"value": result, "text": text})
    parsed = parse_message(dump_message(response), strict=True)
    assert parsed == response
