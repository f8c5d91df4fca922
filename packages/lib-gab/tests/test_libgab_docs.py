"""Lib.GAB 1.0.3's README and release notes read as the specification of lib_gab: each sample,
translated as docs/ports/lib-gab.md maps the names, runs with lib_gab and answers as the Mono
build of Lib.GAB answered the same sample (section 6 of that page)."""

from __future__ import annotations

import datetime
import re
import sys
from typing import Annotated, Any

import anyio
import pytest

from gabp.messages import Event
from lib_gab import (
    GabpServer,
    ToolInfo,
    ToolParameter,
    create_gabs_aware_server,
    create_server,
    create_server_with_external_config,
    create_server_with_instance,
    create_simple_server,
    tool,
    tool_response,
)
from lib_gab.testing import bridge_session

pytestmark = pytest.mark.anyio

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


class HelloWorldTools:
    """``Lib.GAB.Example/Program.cs``'s tools."""

    @tool(
        "hello/ping",
        description="Confirm that the host is alive.",
        result_description="A status line and the host's UTC time.",
    )
    @tool_response("message", type="string", description="Status from the host")
    @tool_response("timestampUtc", type="string", description="The host's UTC time")
    def ping(self):  # type: ignore[no-untyped-def]  # untyped, as the sample's `object`
        now = datetime.datetime.now(datetime.UTC)
        return {"message": "Hello from Lib.GAB", "timestampUtc": now}

    @tool("hello/echo", description="Echo a message back.", result_description="The message.")
    @tool_response("message", type="string", description="The echoed message")
    def echo(
        self,
        message: Annotated[
            str, ToolParameter(description="What to echo", required=False, default="Hello GABS")
        ] = "Hello GABS",
    ) -> dict[str, str]:
        return {"message": message}


class HostTools:
    """The README's attribute-based tools."""

    @tool("data/get", description="Get application data", result_description="Id and value.")
    @tool_response("dataId", type="string", description="Requested data identifier")
    @tool_response("value", type="string", description="Resolved value")
    def get_data(self, dataId: Annotated[str, ToolParameter(description="Data ID")]):  # type: ignore[no-untyped-def]
        return {"dataId": dataId, "value": f"v-{dataId}"}

    @tool("action/execute", description="Execute an action", result_description="Outcome.")
    @tool_response("success", type="boolean", description="True when it completed")
    @tool_response("actionType", type="string", description="Action that was executed")
    async def execute_action(  # type: ignore[no-untyped-def]
        self,
        actionType: Annotated[str, ToolParameter(description="Action type")],
        parameters: Annotated[str, ToolParameter(description="Parameters")],
    ):
        return {"success": True, "actionType": actionType}

    @tool("screen/capture", description="Capture the screen", result_description="Capture.")
    @tool_response("success", type="boolean", description="Whether capture succeeded")
    @tool_response("message", type="string", description="Detail", always=False, nullable=True)
    def capture_screen(self):  # type: ignore[no-untyped-def]
        return {"success": True, "message": None}


class EmbeddedBridgeHost:
    """The README's practical example: a host that is its own tool instance."""

    def __init__(self) -> None:
        self.server = create_gabs_aware_server("My Embedded Bridge", "1.0.0", instance=self, env={})
        self.server.channel("player/move", "Player movement events")
        self.server.channel("game/status", "Game status updates")

    @tool("player/teleport", description="Teleport player to coordinates")
    async def teleport_player(  # type: ignore[no-untyped-def]
        self,
        player: Annotated[str, ToolParameter(description="Player name")],
        x: Annotated[float, ToolParameter(description="X coordinate")],
        y: Annotated[float, ToolParameter(description="Y coordinate")],
        z: Annotated[float, ToolParameter(description="Z coordinate")],
    ):
        position = {"x": x, "y": y, "z": z}
        await self.server.emit(
            "player/move", {"player": player, "position": position, "reason": "teleport"}
        )
        return {"success": True, "player": player, "position": position}


async def listed(server: GabpServer) -> dict[str, dict[str, Any]]:
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        with anyio.fail_after(5):
            result = await bridge.request("tools/list", {})
    return {entry["name"]: entry for entry in result["tools"]}


# -- fixed: what lib_gab refused before ----------------------------------------------------------


async def test_a_handler_result_holding_a_datetime_is_sent_as_iso_8601_text() -> None:
    # the Quick Start: RegisterTool("host/status", _ => new { status, timestamp = DateTime.UtcNow })
    server = create_simple_server("My Host Product", "1.0.0")
    server.register_tool(
        "host/status",
        lambda _: {"status": "running", "timestamp": datetime.datetime.now(datetime.UTC)},
    )
    in_process = await server.call_tool("host/status", {})
    assert in_process["status"] == "running" and ISO_UTC.match(in_process["timestamp"])
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        with anyio.fail_after(5):
            result = await bridge.request("tools/call", {"name": "host/status", "arguments": {}})
    assert result["status"] == "running" and ISO_UTC.match(result["timestamp"])


async def test_an_untyped_tool_result_holding_a_datetime_is_sent_as_iso_8601_text() -> None:
    server = create_server_with_instance("Hello", "1.0.0", HelloWorldTools())
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        with anyio.fail_after(5):
            result = await bridge.request("tools/call", {"name": "hello/ping", "arguments": {}})
    assert result["message"] == "Hello from Lib.GAB"
    assert ISO_UTC.match(result["timestampUtc"])


async def test_an_event_payload_holding_a_datetime_reaches_subscribers_as_iso_8601_text() -> None:
    # Event Broadcasting: EmitEventAsync("host/status_change", new { status, timestamp = UtcNow })
    server = create_simple_server("My Host Product", "1.0.0")
    server.channel("host/status_change", description="Host status events")
    events: list[Event] = []
    arrived = anyio.Event()

    def on_event(event: Event) -> None:
        events.append(event)
        arrived.set()

    async with (
        server.running() as address,
        bridge_session(address, server.token, on_event=on_event) as bridge,
    ):
        with anyio.fail_after(5):
            await bridge.request("events/subscribe", {"channels": ["host/status_change"]})
            moment = datetime.datetime(2026, 11, 28, 4, 37, 31, 240911, tzinfo=datetime.UTC)
            sent = await server.emit("host/status_change", {"status": "ready", "timestamp": moment})
            await arrived.wait()
    assert sent == 1
    assert events[0].payload == {"status": "ready", "timestamp": "2026-11-28T04:37:31.240911Z"}


async def test_a_channel_takes_its_description_as_the_second_argument() -> None:
    # RegisterChannel("host/lifecycle", "Lifecycle events ...") is positional in every sample
    server = create_simple_server("HelloWorldHost", "1.0.0")
    server.channel("host/lifecycle", "Lifecycle events from the host")
    server.channel("data/update", description="Data update events")
    assert server.channels() == ["host/lifecycle", "data/update"]


# -- the samples, run as they are written ------------------------------------------------------


async def test_the_hello_world_sample_lists_and_answers_its_tools_as_lib_gab_does() -> None:
    server = create_gabs_aware_server("HelloWorldHost", "1.0.0", instance=HelloWorldTools(), env={})
    server.channel("host/lifecycle", "Lifecycle events from the hello world bridge host")
    assert await server.emit("host/lifecycle", {"state": "started"}) == 0  # nobody listens yet
    tools = await listed(server)
    assert tools["hello/echo"]["inputSchema"] == {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "What to echo", "default": "Hello GABS"}
        },
        "additionalProperties": False,
    }
    assert tools["hello/ping"]["title"] == "Hello Ping"
    assert tools["hello/ping"]["outputSchema"] == {
        "description": "A status line and the host's UTC time.",
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "Status from the host"},
            "timestampUtc": {"type": "string", "description": "The host's UTC time"},
        },
        "required": ["message", "timestampUtc"],
    }
    assert await server.call_tool("hello/echo", {}) == {"message": "Hello GABS"}
    assert await server.call_tool("hello/echo", {"message": "hi"}) == {"message": "hi"}


async def test_the_attribute_based_samples_describe_their_results_as_lib_gab_does() -> None:
    server = create_server_with_instance("My Host Product", "1.0.0", HostTools())
    tools = await listed(server)
    assert tools["data/get"]["inputSchema"]["required"] == ["dataId"]
    assert tools["data/get"]["outputSchema"]["required"] == ["dataId", "value"]
    assert tools["screen/capture"]["outputSchema"]["required"] == ["success"]
    # kept: Lib.GAB writes {"type": "string", "nullable": true}
    assert tools["screen/capture"]["outputSchema"]["properties"]["message"]["type"] == [
        "string",
        "null",
    ]
    assert await server.call_tool(
        "action/execute", {"actionType": "jump", "parameters": "high"}
    ) == {"success": True, "actionType": "jump"}


async def test_a_tool_with_only_a_result_description_has_only_that_as_its_output_schema() -> None:
    server = create_simple_server("My Host Product", "1.0.0")
    server.register_tool("host/ping", lambda _: None, ToolInfo(result_description="Liveness."))
    server.register_tool("host/noop", lambda _: None)
    tools = await listed(server)
    assert tools["host/ping"]["outputSchema"] == {"description": "Liveness."}
    assert tools["host/noop"]["outputSchema"] == {}


async def test_the_practical_sample_sends_its_move_event_before_the_reply() -> None:
    host = EmbeddedBridgeHost()
    order: list[str] = []
    async with (
        host.server.running() as address,
        bridge_session(
            address, host.server.token, on_event=lambda event: order.append(event.channel)
        ) as bridge,
    ):
        with anyio.fail_after(5):
            await bridge.request("events/subscribe", {"channels": ["player/move"]})
            result = await bridge.request(
                "tools/call",
                {"name": "player/teleport", "arguments": {"player": "p", "x": 1, "y": 2.5, "z": 3}},
            )
            order.append("reply")
    assert result == {"success": True, "player": "p", "position": {"x": 1.0, "y": 2.5, "z": 3.0}}
    assert order == ["player/move", "reply"]


async def test_the_attention_sample_item_published_before_start_is_current() -> None:
    server = (
        create_server()
        .use_app_info("My Host Product", "1.0.0")
        .use_gabs_environment_if_available({})
        .enable_attention_support()
        .build()
    )
    item = {
        "attentionId": "attn_42",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": True,
        "summary": "Selection action failed.",
        "causalMethod": "rimworld/select_pawn",
        "openedAtSequence": 1201,
        "latestSequence": 1237,
        "diagnosticsCursor": 1237,
        "totalUrgentEntries": 37,
    }
    await server.publish_attention(item)
    async with server.running() as address, bridge_session(address, server.token) as bridge:
        with anyio.fail_after(5):
            current = await bridge.request("attention/current", {})
    # as the Mono build answered, less its empty `sample` (kept, section 1)
    assert current == {"attention": {**item, "state": "open"}}


async def test_a_launch_without_a_game_id_keeps_the_default_agent_id() -> None:
    # kept: Lib.GAB's CreateServerWithExternalConfig(..., gameId: null) welcomes with agentId null
    server = create_server_with_external_config("My Host Product", "1.0.0", 0, "k" * 32, None)
    assert server.agent_id == "gabp-server"


def test_assembly_scanning_is_module_scanning() -> None:
    # RegisterToolsFromAssembly(Assembly.GetExecutingAssembly()): this module's marked tools
    server = create_simple_server("My Host Product", "1.0.0")
    found = server.register_tools_from(sys.modules[__name__])
    assert found == []  # only static tools are scanned; these samples mark instance methods
