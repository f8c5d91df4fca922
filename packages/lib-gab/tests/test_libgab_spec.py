"""Lib.GAB 1.0.3's own tests (Lib.GAB.Tests) read as the specification of lib_gab: what each
pins, run against the port. The differences kept on purpose are listed, with the reason, in
docs/ports/lib-gab.md ("Lib.GAB's own tests")."""

from __future__ import annotations

import json
from typing import Annotated, Any

import anyio
import pytest

from lib_gab import (
    ATTENTION_CHANNELS,
    GabpServer,
    ProtocolOptions,
    ToolParameter,
    create_gabs_aware_server,
    create_server,
    create_simple_server,
    is_running_under_gabs,
    tool,
)
from lib_gab.testing import bridge_session

TOKEN = "t" * 64


class TransportTools:
    @tool(
        "math/add",
        title="Add Numbers",
        description="Add two numbers",
        result_description="Returns the sum of the two inputs as an integer.",
        tags=["diagnostic", "read-only"],
    )
    def add(
        self,
        a: Annotated[int, ToolParameter(description="First number")],
        b: Annotated[int, ToolParameter(description="Second number")],
    ) -> int:
        return a + b


class OptionalTools:
    @tool("system/echo", description="Echo text")
    def echo(
        self,
        message: Annotated[str, ToolParameter(description="Base message")] = "fallback",
        limit: Annotated[int | None, ToolParameter(description="At most")] = None,
        words: Annotated[list[str] | None, ToolParameter(required=False)] = None,
    ) -> str:
        return message


async def frame(stream: Any, message: dict[str, Any], *, content_type: bool) -> None:
    body = json.dumps(message).encode()
    extra = "Content-Type: application/json\r\n" if content_type else ""
    await stream.send(f"Content-Length: {len(body)}\r\n{extra}\r\n".encode() + body)


async def read_frame(stream: Any) -> dict[str, Any]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive()
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    length = int(next(line for line in lines if line.lower().startswith("content-length:"))[15:])
    while len(body) < length:
        body += await stream.receive()
    result: dict[str, Any] = json.loads(body[:length])
    return result


# -- GabpServerTransportTests and GabsIntegrationTests: the port a bridge connects to ----------


@pytest.mark.anyio
async def test_a_server_asked_for_any_free_port_reports_the_port_it_listens_on() -> None:
    server = create_simple_server("Test App", "1.0.0")
    server.register_tools_from(TransportTools())
    assert server.port == 0  # nothing bound yet: the configured port
    async with server.running() as address:
        assert server.port == address.port != 0
        # a raw client reaches the server at server.port, as Lib.GAB's tests connect to Port
        stream = await anyio.connect_tcp("127.0.0.1", server.port)
        async with stream:
            hello = {"token": server.token, "bridgeVersion": "1.0.0", "platform": "linux"}
            hello["launchId"] = "550e8400-e29b-41d4-a716-446655440001"
            await frame(
                stream,
                {
                    "v": "gabp/1",
                    "id": "550e8400-e29b-41d4-a716-446655440000",
                    "type": "request",
                    "method": "session/hello",
                    "params": hello,
                },
                content_type=False,  # one Content-Length header alone is a whole frame
            )
            welcome = await read_frame(stream)
            assert welcome["result"]["schemaVersion"] == "1.0"
            capabilities = welcome["result"]["capabilities"]
            assert "tools" not in capabilities
            assert {"session/hello", "tools/list", "tools/call", "events/subscribe"} <= set(
                capabilities["methods"]
            )
            assert not {"math/add", "attention/current"} & set(capabilities["methods"])
            await frame(
                stream,
                {
                    "v": "gabp/1",
                    "id": "550e8400-e29b-41d4-a716-446655440010",
                    "type": "request",
                    "method": "tools/call",
                    "params": {"name": "math/add", "parameters": {"a": 5, "b": 3}},
                },
                content_type=True,
            )
            assert (await read_frame(stream))["result"] == 8


@pytest.mark.anyio
async def test_a_port_set_before_the_server_runs_is_the_one_it_listens_on() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    server = create_simple_server("Test App", "1.0.0")
    server.port = free
    assert server.port == free
    async with server.running() as address:
        assert address.port == server.port == free
    with pytest.raises(ValueError, match="port must be"):
        server.port = 70000


@pytest.mark.anyio
async def test_a_gabs_aware_server_reports_the_port_the_launch_gave_while_it_listens() -> None:
    probe = create_simple_server("Probe", "1")
    async with probe.running() as free:
        given = free.port
    assert given is not None
    env = {"GABS_GAME_ID": "test-game", "GABP_SERVER_PORT": str(given), "GABP_TOKEN": TOKEN}
    server = create_gabs_aware_server("Test App", "1.0.0", fallback_port=9999, env=env)
    async with server.running():
        assert (server.port, server.token, server.agent_id) == (given, TOKEN, "test-game")


@pytest.mark.anyio
async def test_stopping_closes_bridge_connections_and_forgets_their_subscriptions() -> None:
    server = create_simple_server("Test App", "1.0.0")
    server.channel("game/status")
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        await bridge.request("events/subscribe", {"channels": ["game/status"]})
        assert server.subscriber_count("game/status") == 1
        stream = await anyio.connect_tcp("127.0.0.1", server.port)
    assert server.subscriber_count("game/status") == 0
    with anyio.fail_after(2):
        with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
            await stream.receive()
    await stream.aclose()


# -- ToolRegistryTests and GabpServerTransportTests: what a tool's metadata says ---------------


def test_tool_metadata_reports_each_parameters_own_type_and_default() -> None:
    server = create_simple_server("Test App", "1.0.0")
    server.register_tools_from(OptionalTools())
    (info,) = server.tools.infos()
    params = {p.name: p for p in info.parameters}
    # the parameter's type, as Lib.GAB's ToolParameterInfo.Type is, not the marker around it
    assert params["message"].type is str
    assert (params["message"].required, params["message"].default_value) == (False, "fallback")
    assert params["limit"].type == int | None


@pytest.mark.anyio
async def test_lib_gabs_parameters_list_names_each_parameters_dotnet_type() -> None:
    server = GabpServer(
        app_name="Test App",
        app_version="1.0.0",
        agent_id="spec",
        token=TOKEN,
        options=ProtocolOptions(descriptor_extras=True),
    )
    server.register_tools_from(OptionalTools())
    async with server.running() as address, bridge_session(address, TOKEN) as bridge:
        with anyio.fail_after(5):
            (listed,) = (await bridge.request("tools/list"))["tools"]
    types = {p["name"]: p["type"] for p in listed["parameters"]}
    # Lib.GAB writes .NET type names in this list (string, int?, List<string>)
    assert types == {"message": "String", "limit": "Nullable`1", "words": "List`1"}
    assert listed["requiresAuth"] is True


@pytest.mark.anyio
async def test_the_tools_list_entry_carries_title_schemas_result_description_and_tags() -> None:
    server = create_simple_server("Test App", "1.0.0")
    server.register_tools_from(TransportTools())
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        with anyio.fail_after(5):
            (entry,) = (await bridge.request("tools/list", {}))["tools"]
    assert (entry["title"], entry["description"]) == ("Add Numbers", "Add two numbers")
    schema = entry["inputSchema"]
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert {name: p["type"] for name, p in schema["properties"].items()} == {
        "a": "integer",
        "b": "integer",
    }
    assert set(schema["required"]) == {"a", "b"}
    assert entry["outputSchema"]["description"] == (
        "Returns the sum of the two inputs as an integer."
    )
    assert entry["tags"] == ["diagnostic", "read-only"]


# -- GabsIntegrationTests: when a process runs under GABS -------------------------------------


@pytest.mark.parametrize(
    ("env", "under_gabs"),
    [
        ({}, False),
        ({"GABS_GAME_ID": "g", "GABP_SERVER_PORT": "12345", "GABP_TOKEN": "test-token"}, True),
        ({"GABS_GAME_ID": "g", "GABP_SERVER_PORT": "not-a-number", "GABP_TOKEN": "x"}, False),
        ({"GABS_GAME_ID": "g", "GABP_SERVER_PORT": "0", "GABP_TOKEN": "x"}, False),
        ({"GABS_GAME_ID": "g", "GABP_SERVER_PORT": "65536", "GABP_TOKEN": "x"}, False),
        ({"GABS_GAME_ID": "g", "GABS_BRIDGE_PATH": "/tmp/bridge.json"}, False),
    ],
)
def test_running_under_gabs_means_a_usable_port_and_a_token(
    env: dict[str, str], under_gabs: bool
) -> None:
    assert is_running_under_gabs(env) is under_gabs


def test_without_the_launch_variables_a_bridge_path_alone_leaves_the_server_standalone(
    tmp_path: Any,
) -> None:
    bridge = tmp_path / "bridge.json"
    bridge.write_text(json.dumps({"port": 40000, "token": "bridge-token", "gameId": "g"}))
    env = {"GABS_GAME_ID": "bridge-game", "GABS_BRIDGE_PATH": str(bridge)}
    server = create_gabs_aware_server("Test App", "1.0.0", fallback_port=9999, env=env)
    assert (server.port, server.agent_id) == (9999, "gabp-server")
    assert server.token != "bridge-token" and len(server.token) == 64


def test_a_short_token_from_the_launch_is_taken_only_with_lib_gabs_choices() -> None:
    env = {"GABS_GAME_ID": "test-game", "GABP_SERVER_PORT": "12345", "GABP_TOKEN": "test-token"}
    with pytest.raises(ValueError, match="at least 32 characters"):
        create_gabs_aware_server("Test App", "1.0.0", fallback_port=9999, env=env)
    server = (
        create_server()
        .use_app_info("Test App", "1.0.0")
        .use_lib_gab_protocol_choices()
        .use_gabs_environment_if_available(env)
        .use_port_if_not_set(9999)
        .build()
    )
    assert (server.port, server.token, server.agent_id) == (12345, "test-token", "test-game")


# -- GabpServerTransportTests: attention when enabled ------------------------------------------


@pytest.mark.anyio
async def test_an_item_published_before_the_server_listens_is_current_until_acknowledged() -> None:
    server = create_server().use_app_info("Test App", "1.0.0").enable_attention_support().build()
    assert server.attention is not None
    server.attention.publish(
        {"attentionId": "attn_42", "severity": "error", "blocking": True, "summary": "failed"}
    )
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        with anyio.fail_after(5):
            welcome_channels = server.capabilities().events
            assert set(ATTENTION_CHANNELS) <= set(welcome_channels)
            current = (await bridge.request("attention/current", {}))["attention"]
            assert (current["attentionId"], current["state"], current["blocking"]) == (
                "attn_42",
                "open",
                True,
            )
            ack = await bridge.request("attention/ack", {"attentionId": "attn_42"})
            assert ack == {"acknowledged": True, "attentionId": "attn_42", "currentAttention": None}
            assert (await bridge.request("attention/current", {}))["attention"] is None
