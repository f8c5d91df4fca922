"""Lib.GAB's public surface in lib_gab: handler tools with ToolInfo, marked tools, unregister,
in-process calls, titles and output schemas, lenient receive, the protocol options."""

from __future__ import annotations

import datetime
import enum
import types
import uuid
from decimal import Decimal
from typing import Annotated, Any

import anyio
import pytest
from pydantic import BaseModel, Field

from gabp import ErrorCode, RemoteError
from gabp.messages import new_id
from gabp_schemas import validate
from lib_gab import (
    GabpServer,
    InvalidArguments,
    ProtocolOptions,
    ToolInfo,
    ToolNotFound,
    ToolParameter,
    ToolParameterInfo,
    ToolResponseFieldInfo,
    UrgentEntry,
    current_operation,
    tool,
    tool_response,
    tool_title,
)
from lib_gab.testing import bridge_session, hello_params
from lib_gab.tool_info import lib_gab_type_name

TOKEN = "c" * 64


def make_server(**options: Any) -> GabpServer:
    return GabpServer(app_name="Port", app_version="1", agent_id="port", token=TOKEN, **options)


async def tools_list(server: GabpServer) -> list[dict[str, Any]]:
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            listed = await conn.request("tools/list")
    validate(
        {"v": "gabp/1", "id": new_id(), "type": "response", "result": listed}, method="tools/list"
    )
    return list(listed["tools"])


async def call(server: GabpServer, params: dict[str, Any]) -> Any:
    """The result of one tools/call, or the RemoteError it was answered with (returned)."""
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            try:
                return await conn.request("tools/call", params)
            except RemoteError as exc:
                return exc


# -- titles and schemas ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("inventory/get", "Inventory Get"),
        ("rimworld/pause_game", "Rimworld Pause Game"),
        ("game-v2/world/set_chunk", "Game V2 World Set Chunk"),
        ("rimbridge/list_logs2", "Rimbridge List Logs2"),
        # .NET's title case: digits belong to their word, an all-capitals word is kept, a
        # word starts at its first letter
        ("map/get_v2view", "Map Get V2view"),
        ("unit/hp2x_set", "Unit Hp2x Set"),
        ("ui/2d_view", "Ui 2D View"),
        ("Game/USA_map", "Game USA Map"),
        ("Game/MiXed_case", "Game Mixed Case"),
        ("game/don't_stop", "Game Don't Stop"),
        ("game/a.b c", "Game A.B C"),
        ("game/straße", "Game Straße"),
    ],
)
def test_titles_are_derived_from_every_segment_as_lib_gab_does(name: str, title: str) -> None:
    assert tool_title(name) == title


async def test_a_function_tool_schema_has_no_made_up_titles_or_empty_required_list() -> None:
    server = make_server()

    @server.tool("map/find_cell", description="Find a cell.")
    def find_cell(
        terrain: str, max_steps: int = 10, zone: Annotated[str, Field(title="Zone label")] = ""
    ) -> int:
        return 0

    @server.tool("map/count_cells", description="Count cells.")
    def count_cells(limit: int = 5) -> int:
        return limit

    entries = {entry["name"]: entry for entry in await tools_list(server)}
    schema = entries["map/find_cell"]["inputSchema"]
    assert schema["required"] == ["terrain"]
    # no parameter required: Lib.GAB writes no "required" at all
    assert "required" not in entries["map/count_cells"]["inputSchema"]
    # pydantic names the model (MapFindCellArguments) and titles each field (Terrain,
    # Max Steps); Lib.GAB's schemas carry neither, and a model reading them pays for both
    assert "title" not in schema
    assert schema["properties"]["terrain"] == {"type": "string"}
    assert schema["properties"]["max_steps"] == {"default": 10, "type": "integer"}
    # a title the tool gives on purpose is kept
    assert schema["properties"]["zone"]["title"] == "Zone label"


async def test_an_optional_parameter_is_described_by_its_own_type_as_lib_gab_does() -> None:
    server = make_server()

    @server.tool("map/count_things", description="Count things.")
    def count_things(kind: str, limit: int | None = None, near: str | None = "base") -> int:
        return 0 if limit is None else limit

    (entry,) = await tools_list(server)
    properties = entry["inputSchema"]["properties"]
    # Lib.GAB writes a nullable parameter as its underlying type; no null default
    assert properties["limit"] == {"type": "integer"}
    # a non-null default keeps the choice of null, as the parameter takes it
    assert properties["near"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert entry["inputSchema"]["required"] == ["kind"]
    # a null sent for it is still taken
    called = await call(
        server, {"name": "map/count_things", "arguments": {"kind": "x", "limit": None}}
    )
    assert called == 0
    called = await call(
        server, {"name": "map/count_things", "arguments": {"kind": "x", "limit": 3}}
    )
    assert called == 3


async def test_a_handler_tool_is_described_from_its_tool_info_as_lib_gab_builds_it() -> None:
    server = make_server()
    info = ToolInfo(
        description="Find a thing on the map.",
        result_description="Where the thing is.",
        tags=("map", "read-only"),
        parameters=(
            ToolParameterInfo("def", str, "Thing definition, e.g. Steel"),
            ToolParameterInfo("limit", int, "At most this many", required=False, default_value=5),
            ToolParameterInfo("exact", "boolean", required=False),
        ),
        response_fields=(
            ToolResponseFieldInfo("cells", "array", "Cells holding it"),
            ToolResponseFieldInfo("note", "string", always=False, nullable=True),
        ),
    )
    server.register_tool("map/find_thing", lambda arguments: {"cells": []}, info)
    (entry,) = await tools_list(server)
    assert entry == {
        "name": "map/find_thing",
        "title": "Map Find Thing",
        "description": "Find a thing on the map.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "def": {"type": "string", "description": "Thing definition, e.g. Steel"},
                "limit": {"type": "integer", "description": "At most this many", "default": 5},
                "exact": {"type": "boolean"},
            },
            "additionalProperties": False,
            "required": ["def"],
        },
        "outputSchema": {
            "description": "Where the thing is.",
            "type": "object",
            "properties": {
                "cells": {"type": "array", "description": "Cells holding it"},
                "note": {"type": ["string", "null"]},
            },
            "required": ["cells"],
        },
        "tags": ["map", "read-only"],
    }


async def test_a_result_that_is_not_an_object_is_described_as_an_objects_value() -> None:
    server = make_server()

    @server.tool("game/name", description="The colony's name.", result_description="The name.")
    def name() -> str:
        return "New Hope"

    @server.tool("game/anything", description="Untyped.")
    def anything():  # type: ignore[no-untyped-def]
        return 7

    entries = {entry["name"]: entry for entry in await tools_list(server)}
    assert entries["game/name"]["outputSchema"] == {
        "description": "The name.",
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"],
    }
    assert entries["game/anything"]["outputSchema"] == {}
    assert await call(server, {"name": "game/name", "arguments": {}}) == "New Hope"


class _Speed(enum.Enum):
    FAST = "fast"


async def test_a_result_goes_on_the_wire_as_its_schema_serializes_it_in_process() -> None:
    server = make_server()
    moment = datetime.datetime(2026, 11, 27, 12, 0, 0, 500, tzinfo=datetime.UTC)

    @server.tool("game/mixed", description="Values JSON has no type for.")
    def mixed() -> dict[str, Any]:
        return {
            "when": moment,
            "pair": (1, 2.5),
            "speed": _Speed.FAST,
            "id": uuid.UUID(int=7),
            "huge": 2**70,
            "tiny": 1e-7,
            "limitless": float("inf"),
            "text": "Čapek ✓",
            "nested": {"inner": [None, True, {"deep": moment.date()}]},
        }

    @server.tool("game/broken", description="A result no JSON can hold.")
    def broken() -> dict[str, Any]:
        return {"text": "\ud800"}

    in_process = await server.call_tool("game/mixed")
    # the fraction cut after its last digit, as Lib.GAB's serializer writes DateTime.UtcNow
    assert in_process["when"] == "2026-11-27T12:00:00.0005Z"
    assert in_process["limitless"] is None
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            assert await conn.request("tools/call", {"name": "game/mixed"}) == in_process
            with pytest.raises(RemoteError) as refused:
                await conn.request("tools/call", {"name": "game/broken"})
            assert refused.value.code == ErrorCode.INTERNAL_ERROR
            # the session goes on
            assert await conn.request("tools/call", {"name": "game/mixed"}) == in_process


async def test_descriptor_extras_add_lib_gabs_parameters_and_requires_auth_on_request() -> None:
    server = make_server(options=ProtocolOptions(descriptor_extras=True))
    server.register_tool(
        "game/speed",
        lambda arguments: arguments,
        ToolInfo(
            description="Set the speed.",
            parameters=(ToolParameterInfo("speed", int, required=False, default_value=1),),
            requires_auth=False,
        ),
    )
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            (entry,) = (await conn.request("tools/list"))["tools"]
    assert entry["parameters"] == [
        {
            "name": "speed",
            "type": "Int64",
            "description": None,
            "required": False,
            "defaultValue": 1,
        }
    ]
    assert entry["requiresAuth"] is False


class _Pace(enum.Enum):
    SLOW = "Slow"


class _Point(BaseModel):
    x: int = 0


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        (str, "String"),
        (bool, "Boolean"),
        (int, "Int64"),
        (float, "Double"),
        (Decimal, "Decimal"),
        (int | None, "Nullable`1"),
        (_Pace | None, "Nullable`1"),
        (str | None, "String"),
        (_Point | None, "_Point"),
        (_Pace, "_Pace"),
        (_Point, "_Point"),
        (list[int], "List`1"),
        (tuple[str, ...], "List`1"),
        (dict[str, Any], "Dictionary`2"),
        (Annotated[int | None, "meta"], "Nullable`1"),
        (int | str, "Object"),
        (Any, "Object"),
        ("integer", "Int64"),
        ("boolean", "Boolean"),
        ("object", "Object"),
    ],
)
def test_the_parameters_list_carries_dotnet_type_names_as_lib_gab_writes_them(
    kind: Any, name: str
) -> None:
    # Lib.GAB writes ParameterType.Name there: Int32, Int64, Double, String, Nullable`1, List`1
    assert lib_gab_type_name(kind) == name


# -- registration --------------------------------------------------------------------------------


async def test_a_handler_gets_the_checked_arguments_with_defaults_and_may_be_async() -> None:
    server = make_server()
    seen: list[dict[str, Any]] = []

    async def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append(arguments)
        return {"ok": True}

    server.register_tool(
        "game/dig",
        handler,
        ToolInfo(
            description="Dig.",
            parameters=(
                ToolParameterInfo("x", int),
                ToolParameterInfo("depth", int, required=False, default_value=2),
            ),
        ),
    )
    assert await call(server, {"name": "game/dig", "arguments": {"x": 4.0}}) == {"ok": True}
    assert seen == [{"x": 4, "depth": 2}]


def test_registering_a_handler_again_replaces_it_and_unregister_removes_it() -> None:
    server = make_server()
    server.register_tool("game/a", lambda a: 1, ToolInfo(description="One."))
    server.register_tool("game/a", lambda a: 2, ToolInfo(description="Two."))
    assert server.tools.get("game/a").description == "Two."  # type: ignore[union-attr]
    assert server.unregister_tool("game/a") is True
    assert server.unregister_tool("game/a") is False
    assert not server.has_tool("game/a")
    with pytest.raises(ValueError, match=r"dotted names"):
        server.register_tool("game.a", lambda a: 1)


class Colony:
    def __init__(self) -> None:
        self.speed = 1

    @tool("colony/set_speed", description="Set the game speed.", tags=["control", " control "])
    @tool_response("speed", type="integer", description="The speed now")
    @tool_response("paused", type="boolean")
    def set_speed(
        self,
        speed: Annotated[int, ToolParameter(description="0 paused, 1 to 4")],
        reason: Annotated[str, ToolParameter(description="Why", default="asked")] = "asked",
    ) -> dict[str, Any]:
        self.speed = speed
        return {"speed": speed, "paused": speed == 0, "reason": reason}

    @tool("colony/version")
    @staticmethod
    def version() -> str:
        """The colony format version."""
        return "3"

    def not_a_tool(self) -> None:
        raise AssertionError("never registered")


async def test_marked_methods_of_an_instance_are_registered_with_their_metadata() -> None:
    server = make_server()
    colony = Colony()
    found = server.register_tools_from(colony)
    assert [t.name for t in found] == ["colony/set_speed"]
    (entry,) = await tools_list(server)
    assert entry["title"] == "Colony Set Speed"
    assert entry["tags"] == ["control"]
    assert entry["inputSchema"]["properties"]["speed"]["description"] == "0 paused, 1 to 4"
    assert entry["inputSchema"]["required"] == ["speed"]
    assert entry["outputSchema"] == {
        "type": "object",
        "properties": {
            "speed": {"type": "integer", "description": "The speed now"},
            "paused": {"type": "boolean"},
        },
        "required": ["speed", "paused"],
    }
    info = found[0].info
    assert [(p.name, p.required, p.default_value) for p in info.parameters] == [
        ("speed", True, None),
        ("reason", False, "asked"),
    ]
    assert await call(server, {"name": "colony/set_speed", "arguments": {"speed": 0}}) == {
        "speed": 0,
        "paused": True,
        "reason": "asked",
    }
    assert colony.speed == 0


def test_static_methods_are_registered_from_the_class_and_functions_from_a_module() -> None:
    server = make_server()
    (version,) = server.register_tools_from(Colony)
    assert (version.name, version.description) == ("colony/version", "The colony format version.")
    module = types.ModuleType("colony_tools")

    @tool("colony/ping", description="Ping.")
    def ping() -> dict[str, bool]:
        return {"pong": True}

    module.ping = ping  # type: ignore[attr-defined]
    assert [t.name for t in server.register_tools_from(module)] == ["colony/ping"]


async def test_a_tool_runs_in_process_as_a_bridge_call_would() -> None:
    server = make_server()
    manager = server.enable_attention(update_interval=0)
    seen: list[str | None] = []

    @server.tool("colony/fail", description="Fail loudly.")
    def fail(times: int) -> dict[str, int]:
        operation = current_operation()
        seen.append(operation.method if operation else None)
        manager.report(UrgentEntry("error", "it failed"))
        return {"times": times}

    assert await server.call_tool("colony/fail", {"times": 2.0}) == {"times": 2}
    item = manager.current()
    assert item is not None and item.causal_method == "colony/fail"
    assert item.causal_operation_id is not None and uuid.UUID(item.causal_operation_id)
    assert seen == ["colony/fail"]
    with pytest.raises(ToolNotFound):
        await server.call_tool("colony/missing")
    with pytest.raises(InvalidArguments):
        await server.call_tool("colony/fail", {"times": "two"})


# -- lenient receive -----------------------------------------------------------------------------


def echo_server(**options: Any) -> GabpServer:
    server = make_server(**options)

    @server.tool("game/repeat", description="Repeat a word.")
    def repeat(word: str = "hi", count: int = 1) -> dict[str, Any]:
        return {"text": " ".join([word] * count), "countType": type(count).__name__}

    return server


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"parameters": None}, "hi"),
        ({"arguments": None}, "hi"),
        ({"parameters": {"count": 2.0}}, "hi hi"),
        ({"parameters": {"word": "yo"}, "arguments": {"word": "no"}}, "yo"),
        ({"parameters": None, "arguments": {"word": "ok"}}, "ok"),
    ],
)
async def test_what_the_go_bridge_sends_is_served_as_lib_gab_serves_it(
    params: dict[str, Any], expected: str
) -> None:
    result = await call(echo_server(), {"name": "game/repeat", **params})
    assert result == {"text": expected, "countType": "int"}


async def test_a_fractional_number_for_an_integer_is_refused() -> None:
    refused = await call(echo_server(), {"name": "game/repeat", "arguments": {"count": 2.5}})
    assert isinstance(refused, RemoteError) and refused.code == -32602
    assert refused.data["errors"][0]["path"] == "$.count"


async def test_an_unknown_argument_is_refused_naming_the_known_ones() -> None:
    refused = await call(
        echo_server(), {"name": "game/repeat", "arguments": {"Word": "x", "times": 3}}
    )
    assert isinstance(refused, RemoteError) and refused.code == -32602
    assert {(p["path"], p["message"]) for p in refused.data["errors"]} == {
        ("$.Word", "unknown argument (this tool takes: word, count)"),
        ("$.times", "unknown argument (this tool takes: word, count)"),
    }


async def test_with_lib_gabs_choice_unknown_arguments_are_ignored_and_case_is_forgiven(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = echo_server(options=ProtocolOptions(unknown_arguments="ignore"))
    result = await call(server, {"name": "game/repeat", "arguments": {"Word": "x", "times": 3}})
    assert result == {"text": "x", "countType": "int"}
    assert "unknown argument 'times' ignored" in caplog.text


# -- channels ------------------------------------------------------------------------------------


async def test_unknown_channels_are_refused_or_skipped_as_the_server_chooses() -> None:
    strict = make_server()
    strict.channel("colony/raid")
    lenient = make_server(options=ProtocolOptions.lib_gab())
    lenient.channel("colony/raid")
    channels = {"channels": ["colony/raid", "colony/nothing"]}
    async with strict.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("events/subscribe", channels)
    assert info.value.code == -31003
    assert info.value.data == {"channels": ["colony/nothing"], "available": ["colony/raid"]}
    async with lenient.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            assert await conn.request("events/subscribe", channels) == {
                "subscribed": ["colony/raid"]
            }
            assert await conn.request("events/unsubscribe", channels) == {
                "unsubscribed": ["colony/raid"]
            }


@pytest.mark.parametrize("options", [None, ProtocolOptions.lib_gab()], ids=["defaults", "lib_gab"])
async def test_a_channel_named_twice_is_unsubscribed_and_listed_once(
    options: ProtocolOptions | None,
) -> None:
    server = make_server(options=options)
    server.channel("colony/raid")
    server.channel("colony/trade")
    twice = {"channels": ["colony/raid", "colony/trade", "colony/raid"]}
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            await conn.request("events/subscribe", {"channels": ["colony/raid"]})
            assert await conn.request("events/unsubscribe", twice) == {
                "unsubscribed": ["colony/raid"]
            }
            assert await conn.request("events/unsubscribe", twice) == {"unsubscribed": []}


def test_lib_gabs_choices_are_one_preset() -> None:
    assert ProtocolOptions.lib_gab() == ProtocolOptions(
        unknown_arguments="ignore",
        argument_values="convert",
        repeated_hello="welcome",
        unknown_channels="skip",
        descriptor_extras=True,
        hello_params="token_only",
        frame_headers="lenient",
        envelope_names="any_case",
        param_names="any_case",
        short_token="accept",
    )
    assert ProtocolOptions() == ProtocolOptions(
        unknown_arguments="refuse",
        argument_values="exact",
        repeated_hello="welcome",
        unknown_channels="refuse",
        descriptor_extras=False,
        hello_params="check",
        frame_headers="strict",
        envelope_names="exact",
        param_names="exact",
        short_token="refuse",
    )


async def test_the_hello_is_answered_for_a_bridge_on_macos_that_says_darwin() -> None:
    server = make_server()
    async with server.running() as address, bridge_session(address, TOKEN, hello=False) as conn:
        with anyio.fail_after(5):
            reply = await conn.request("session/hello", hello_params(TOKEN, platform="darwin"))
    assert reply["agentId"] == "port"


async def test_with_lib_gabs_choice_a_handler_tool_gets_the_arguments_it_does_not_declare() -> None:
    # Lib.GAB hands a RegisterTool handler the arguments as they came; declared ones are
    # still checked (and a name in another letter case is taken as the parameter)
    seen: list[dict[str, Any]] = []

    def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append(dict(arguments))
        return {"ok": True}

    info = ToolInfo(parameters=(ToolParameterInfo(name="count", type="integer", required=True),))
    server = make_server(options=ProtocolOptions.lib_gab())
    server.register_tool("game/bare", handler)
    server.register_tool("game/counted", handler, info)
    raw = {"x": 1, "where": {"cell": [3, 4]}, "Y": "a"}
    assert await call(server, {"name": "game/bare", "arguments": raw}) == {"ok": True}
    counted = {"Count": 2, "mode": "fast"}
    assert await call(server, {"name": "game/counted", "arguments": counted}) == {"ok": True}
    refused = await call(server, {"name": "game/counted", "arguments": {"count": "two", "z": 0}})
    assert isinstance(refused, RemoteError) and refused.code == -32602
    assert seen == [raw, {"count": 2, "mode": "fast"}]
    strict = make_server()
    strict.register_tool("game/bare", handler)
    refused = await call(strict, {"name": "game/bare", "arguments": {"x": 1}})
    assert isinstance(refused, RemoteError) and refused.code == -32602
    assert len(seen) == 2


@pytest.mark.parametrize(
    "odd",
    [
        {"launchId": "test-launch-id"},
        {"platform": "freebsd"},
        {"bridgeVersion": ""},
        {"clientInfo": "gabs"},
    ],
)
async def test_with_lib_gabs_choice_a_hello_with_the_right_token_is_welcomed(
    odd: dict[str, Any],
) -> None:
    strict = make_server()
    lenient = make_server(options=ProtocolOptions.lib_gab())
    hello = hello_params(TOKEN) | odd
    async with strict.running() as address, bridge_session(address, TOKEN, hello=False) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("session/hello", hello)
        assert info.value.code == -32602
    async with lenient.running() as address, bridge_session(address, TOKEN, hello=False) as conn:
        with anyio.fail_after(5):
            welcome = await conn.request("session/hello", hello)
            assert welcome["agentId"] == "port"
            assert "tools" in await conn.request("tools/list")
        # the token is still checked
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("session/hello", hello | {"token": "d" * 64})
        assert info.value.code == -31000


@pytest.mark.parametrize("params", [{}, {"other": 1}, None], ids=["empty", "other", "no-params"])
@pytest.mark.parametrize("method", ["events/subscribe", "events/unsubscribe"])
async def test_without_a_channels_member_the_request_is_refused_with_either_choice(
    params: Any, method: str
) -> None:
    """Lib.GAB answers ``-32602`` (``Missing 'channels' parameter``) when there is no
    ``channels`` member, though it takes ``channels: null`` as naming none."""
    for options in (None, ProtocolOptions.lib_gab()):
        server = make_server(options=options)
        server.channel("colony/raid")
        async with server.running() as address, bridge_session(address, TOKEN) as conn:
            with anyio.fail_after(5), pytest.raises(RemoteError) as info:
                await conn.request(method, params)
        assert info.value.code == -32602, options
        assert "channels" in info.value.message


@pytest.mark.parametrize("channels", [[], None])
async def test_with_lib_gabs_choice_an_empty_channel_list_names_none(channels: Any) -> None:
    strict = make_server()
    strict.channel("colony/raid")
    lenient = make_server(options=ProtocolOptions.lib_gab())
    lenient.channel("colony/raid")
    params = {"channels": channels}
    async with strict.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("events/subscribe", params)
        assert info.value.code == -32602
    async with lenient.running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            assert await conn.request("events/subscribe", params) == {"subscribed": []}
            assert await conn.request("events/unsubscribe", params) == {"unsubscribed": []}
