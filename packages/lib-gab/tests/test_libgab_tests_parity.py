"""Lib.GAB 1.0.3's own tests (Lib.GAB.Tests), test by test, where test_libgab_spec.py left a
behaviour a bridge or a game developer sees without a counterpart: the attention lifecycle
events of GabpServerTransportTests, the log lines of ToolRegistryTests, every tool name they
refuse, and what an optional parameter without a default advertises and receives
(docs/ports/lib-gab.md, section 5)."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import anyio
import pytest

from gabp.messages import Event
from lib_gab import (
    ATTENTION_CHANNELS,
    GabpServer,
    InvalidArguments,
    ProtocolOptions,
    ToolParameter,
    create_server,
    create_simple_server,
    tool,
)
from lib_gab.testing import bridge_session, hello_params

TOKEN = "t" * 64


class ParameterBindingTools:
    @tool(
        "math/add",
        description="Add two numbers",
        result_description="Returns the sum of the two inputs as an integer.",
    )
    def add(
        self,
        a: Annotated[int, ToolParameter(description="First number")],
        b: Annotated[int, ToolParameter(description="Second number")],
    ) -> int:
        return a + b


class UndefaultedTools:
    @tool("math/increment", description="Increment a number if one is given")
    def increment(
        self, value: Annotated[int, ToolParameter(description="Value", required=False)]
    ) -> int | None:
        return None if value is None else value + 1


def attention_item(attention_id: str, summary: str, opened: int, latest: int) -> dict[str, Any]:
    """GabpServerTransportTests.CreateAttentionItem, as a mapping."""
    return {
        "attentionId": attention_id,
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": True,
        "summary": summary,
        "causalOperationId": "op_123",
        "causalMethod": "rimworld/select_pawn",
        "openedAtSequence": opened,
        "latestSequence": latest,
        "diagnosticsCursor": latest,
        "totalUrgentEntries": 5,
        "sample": [
            {
                "level": "error",
                "message": "Representative error",
                "repeatCount": 2,
                "latestSequence": latest,
            }
        ],
    }


# -- GabpServerTransportTests.AttentionLifecycleEventsEmitOpenedUpdatedAndCleared -------------


@pytest.mark.anyio
async def test_publishing_updating_and_acknowledging_reach_a_subscribed_bridge_in_order() -> None:
    server = create_server().use_app_info("Test App", "1.0.0").enable_attention_support().build()
    send, received = anyio.create_memory_object_stream[Event](10)
    async with (
        server.running() as address,
        bridge_session(address, server.token, hello=False, on_event=send.send_nowait) as bridge,
    ):
        with anyio.fail_after(5):
            welcome = await bridge.request("session/hello", hello_params(server.token))
            # SessionHelloAdvertisesAttentionSurfaceWhenEnabled, in the welcome a bridge reads
            methods = welcome["capabilities"]["methods"]
            assert {"attention/current", "attention/ack", "tools/call"} <= set(methods)
            assert set(ATTENTION_CHANNELS) <= set(welcome["capabilities"]["events"])
            await bridge.request("events/subscribe", {"channels": list(ATTENTION_CHANNELS)})
            await server.publish_attention(attention_item("attn_7", "Open attention", 10, 12))
            opened = await received.receive()
            updated_item = attention_item("attn_7", "Updated attention", 10, 15)
            updated_item["totalUrgentEntries"] = 9
            await server.publish_attention(updated_item)
            updated = await received.receive()
            await server.acknowledge_attention("attn_7")
            cleared = await received.receive()
    send.close()
    received.close()
    assert (opened.channel, opened.payload["attentionId"], opened.payload["state"]) == (
        "attention/opened",
        "attn_7",
        "open",
    )
    assert opened.payload["sample"][0]["repeatCount"] == 2
    assert (updated.channel, updated.payload["summary"]) == (
        "attention/updated",
        "Updated attention",
    )
    assert (updated.payload["totalUrgentEntries"], updated.payload["latestSequence"]) == (9, 15)
    assert (cleared.channel, cleared.payload["state"], cleared.payload["blocking"]) == (
        "attention/cleared",
        "cleared",
        False,
    )


# -- ToolRegistryTests: what a call with other names logs --------------------------------------


@pytest.mark.anyio
async def test_a_letter_case_match_is_logged_as_one_and_not_as_an_unknown_argument(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = create_server().use_app_info("Test App", "1.0.0").use_lib_gab_protocol_choices()
    built = server.build()
    built.register_tools_from(ParameterBindingTools())
    with caplog.at_level(logging.WARNING, logger="lib_gab"):
        assert await built.call_tool("math/add", {"A": 5, "B": 3}) == 8
    messages = [record.getMessage() for record in caplog.records]
    assert messages == [
        "math/add: argument 'A' taken as 'a' (letter case differs)",
        "math/add: argument 'B' taken as 'b' (letter case differs)",
    ]


@pytest.mark.anyio
async def test_an_unknown_argument_is_logged_and_ignored_with_lib_gabs_choices_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lenient = create_server().use_app_info("Test App", "1.0.0").use_lib_gab_protocol_choices()
    server = lenient.build()
    server.register_tools_from(ParameterBindingTools())
    with caplog.at_level(logging.WARNING, logger="lib_gab"):
        assert await server.call_tool("math/add", {"a": 5, "b": 3, "c": 1}) == 8
    assert [record.getMessage() for record in caplog.records] == [
        "math/add: unknown argument 'c' ignored; known: a, b"
    ]
    strict = create_simple_server("Test App", "1.0.0")
    strict.register_tools_from(ParameterBindingTools())
    with pytest.raises(
        InvalidArguments, match=r"\$\.c: unknown argument \(this tool takes: a, b\)"
    ):
        await strict.call_tool("math/add", {"a": 5, "b": 3, "c": 1})


# -- ToolRegistryTests.RejectsNonCanonicalToolNames* -------------------------------------------

PATTERN = "^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$"  # Lib.GAB's ToolNameValidator.CanonicalPattern


@pytest.mark.parametrize(
    "name",
    [
        "rimbridge.core.ping",
        "rimbridge/core.ping",
        "rimbridge_core_ping",
        "RimBridge/core_ping",
        "rimbridge",
    ],
)
def test_each_name_lib_gab_refuses_is_refused_naming_its_pattern(name: str) -> None:
    server = create_simple_server("Test App", "1.0.0")
    with pytest.raises(ValueError) as registering:
        server.register_tool(name, lambda _: "ok")
    assert PATTERN in str(registering.value)
    with pytest.raises(ValueError) as marking:
        tool(name)
    assert PATTERN in str(marking.value)
    server.register_tool("rimbridge/core_ping", lambda _: "ok")
    assert server.has_tool("rimbridge/core_ping") and not server.has_tool(name)


# -- ToolRegistryTests: a parameter marked optional that has no default ------------------------


@pytest.mark.anyio
async def test_an_optional_parameter_without_a_default_is_advertised_by_its_own_type() -> None:
    server = GabpServer(
        app_name="Test App",
        app_version="1.0.0",
        agent_id="spec",
        token=TOKEN,
        options=ProtocolOptions(descriptor_extras=True),
    )
    server.register_tools_from(UndefaultedTools())
    async with server.running() as address, bridge_session(address, TOKEN) as bridge:
        with anyio.fail_after(5):
            (listed,) = (await bridge.request("tools/list"))["tools"]
            left_out = await bridge.request(
                "tools/call", {"name": "math/increment", "arguments": {}}
            )
            sent_null = await bridge.request(
                "tools/call", {"name": "math/increment", "arguments": {"value": None}}
            )
            given = await bridge.request(
                "tools/call", {"name": "math/increment", "arguments": {"value": 4}}
            )
    # as Lib.GAB writes [ToolParameter(Required = false)] int value: no default, not required
    assert listed["inputSchema"]["properties"] == {
        "value": {"type": "integer", "description": "Value"}
    }
    assert "required" not in listed["inputSchema"]
    (parameter,) = listed["parameters"]
    assert (parameter["type"], parameter["required"], parameter["defaultValue"]) == (
        "Int64",
        False,
        None,
    )
    # left out or sent as null alike (Lib.GAB passes 0 for both; lib_gab passes None)
    assert (left_out, sent_null, given) == (None, None, 5)
