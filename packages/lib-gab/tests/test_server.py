"""GabpServer over real loopback TCP: sessions, tools, events, resources, state."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from pydantic import BaseModel

from gabp import ConnectionClosed, RemoteError, encode_frame
from gabp.framing import FrameDecoder
from gabp.messages import Event, parse_result
from lib_gab import (
    GabpServer,
    ProtocolOptions,
    ServerConfigError,
    ServerLimits,
    ToolContext,
    ToolError,
    current_operation,
)
from lib_gab.testing import bridge_session
from lib_gab.testing import hello_params as _hello_params

TOKEN = "5f3c" * 16


def hello_params(token: str = TOKEN) -> dict[str, Any]:
    return _hello_params(token)


def make_server(**options: Any) -> GabpServer:
    return GabpServer(
        app_name="Test Game", app_version="1.0", agent_id="test-game", token=TOKEN, **options
    )


def bridge(address: Any, *, hello: bool = True, on_event: Any = None) -> Any:
    return bridge_session(address, TOKEN, hello=hello, on_event=on_event)


def echo_server(**options: Any) -> GabpServer:
    server = make_server(**options)

    @server.tool("test/echo", description="Echo the text.", tags=["read-only"])
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    return server


async def test_the_hello_reply_describes_the_server_and_has_no_tools_key() -> None:
    server = echo_server()
    server.channel("game/tick")
    server.resource("gabp://test/colony", name="Colony", content={"pawns": 3})
    async with server.running() as address, bridge(address, hello=False) as conn:
        with anyio.fail_after(5):
            reply = await conn.request("session/hello", hello_params())
    parsed = parse_result("session/hello", reply, strict=True)
    assert reply["agentId"] == "test-game"
    assert reply["app"] == {"name": "Test Game", "version": "1.0"}
    assert reply["schemaVersion"] == "1.0"
    assert reply["capabilities"] == {
        "methods": [
            "session/hello",
            "tools/list",
            "tools/call",
            "events/subscribe",
            "events/unsubscribe",
            "resources/list",
            "resources/read",
        ],
        "events": ["game/tick"],
        "resources": ["gabp://test/colony"],
        "extensions": {"concurrency": {"maxConcurrentRequests": 64}},
        "limits": {"maxMessageSize": 8388608, "maxConcurrentRequests": 64, "requestTimeout": 60},
    }
    assert parsed.capabilities.supports_attention is False
    assert parsed.capabilities.max_concurrent_requests == 64


async def test_the_concurrency_extension_declares_the_real_in_flight_limit() -> None:
    server = make_server(limits=ServerLimits(max_concurrent_requests=3))
    started: list[int] = []
    release = anyio.Event()

    @server.tool("test/hold", description="Wait until released.")
    async def hold(n: int) -> int:
        started.append(n)
        await release.wait()
        return n

    async with server.running() as address, bridge(address, hello=False) as conn:
        with anyio.fail_after(5):
            reply = await conn.request("session/hello", hello_params())
            declared = reply["capabilities"]["extensions"]["concurrency"]["maxConcurrentRequests"]
            results: list[int] = []

            async def call(n: int) -> None:
                results.append(
                    await conn.request("tools/call", {"name": "test/hold", "arguments": {"n": n}})
                )

            async with anyio.create_task_group() as tg:
                for n in range(declared + 1):
                    tg.start_soon(call, n)
                while len(started) < declared:
                    await anyio.wait_all_tasks_blocked()
                await anyio.wait_all_tasks_blocked()
                in_flight = len(started)
                release.set()
    assert (declared, in_flight) == (3, 3)
    assert sorted(results) == [0, 1, 2, 3]


async def test_a_wrong_token_is_refused_and_the_connection_closes() -> None:
    async with echo_server().running() as address, bridge(address, hello=False) as conn:
        with anyio.fail_after(5):
            with pytest.raises(RemoteError) as info:
                await conn.request("session/hello", hello_params("0" * 64))
            assert await conn.wait_closed(5)
    assert (info.value.code, info.value.message) == (-31000, "authentication failed")


async def test_any_method_before_hello_is_refused_as_session_not_established() -> None:
    async with echo_server().running() as address, bridge(address, hello=False) as conn:
        with anyio.fail_after(5):
            for method in ("tools/list", "tools/call", "attention/current", "nothing/here"):
                with pytest.raises(RemoteError) as info:
                    await conn.request(method, {})
                assert info.value.code == -31001
            # the connection is still usable for a proper hello
            await conn.request("session/hello", hello_params())
            assert (await conn.request("tools/list"))["tools"][0]["name"] == "test/echo"


async def test_a_malformed_hello_names_the_bad_fields() -> None:
    async with echo_server().running() as address, bridge(address, hello=False) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("session/hello", {"token": TOKEN, "platform": "amiga"})
    assert info.value.code == -32602
    for field in ("bridgeVersion", "platform", "launchId"):
        assert field in info.value.message


async def test_failed_hellos_are_slowed_down_once_they_come_too_fast() -> None:
    limits = ServerLimits(auth_failures_before_delay=2, auth_failure_delay=0.3)
    async with echo_server(limits=limits).running() as address:
        timings = []
        for _ in range(4):
            async with bridge(address, hello=False) as conn:
                started = anyio.current_time()
                with anyio.fail_after(5), pytest.raises(RemoteError) as info:
                    await conn.request("session/hello", hello_params("e" * 64))
                timings.append(anyio.current_time() - started)
                assert info.value.code == -31000
        async with bridge(address) as conn:  # the right token is never slowed down
            started = anyio.current_time()
            with anyio.fail_after(5):
                await conn.request("tools/list")
    assert all(t < 0.3 for t in timings[:2])
    assert all(t >= 0.3 for t in timings[2:])


async def test_a_missing_or_short_token_fails_authentication_too() -> None:
    async with echo_server().running() as address:
        for params in ({"bridgeVersion": "1"}, hello_params("abc")):
            async with bridge(address, hello=False) as conn:
                with anyio.fail_after(5), pytest.raises(RemoteError) as info:
                    await conn.request("session/hello", params)
                assert info.value.code == -31000
                assert await conn.wait_closed(5)


async def test_a_second_hello_is_answered_with_the_welcome_again_as_lib_gab_does() -> None:
    async with echo_server().running() as address, bridge(address, hello=False) as conn:
        with anyio.fail_after(5):
            first = await conn.request("session/hello", hello_params())
            second = await conn.request("session/hello", hello_params())
            echoed = await conn.request(
                "tools/call", {"name": "test/echo", "arguments": {"text": "x"}}
            )
    assert second == first
    assert echoed == {"text": "x"}


async def test_a_second_hello_can_be_refused_as_not_allowed() -> None:
    server = echo_server(options=ProtocolOptions(repeated_hello="refuse"))
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("session/hello", hello_params())
    assert info.value.code == -31005


async def test_a_second_hello_with_a_wrong_token_is_refused_and_closes_the_connection() -> None:
    async with echo_server().running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            with pytest.raises(RemoteError) as info:
                await conn.request("session/hello", hello_params("0" * 64))
            assert await conn.wait_closed(5)
    assert info.value.code == -31000


async def test_echo_keeps_non_ascii_text_and_accepts_parameters_or_arguments() -> None:
    async with echo_server().running() as address, bridge(address) as conn:
        text = "Ärger im Lager 🐛 — 日本語"
        with anyio.fail_after(5):
            by_arguments = await conn.request(
                "tools/call", {"name": "test/echo", "arguments": {"text": text}}
            )
            by_parameters = await conn.request(
                "tools/call", {"name": "test/echo", "parameters": {"text": text}}
            )
    assert by_arguments == by_parameters == {"text": text}


async def test_arguments_are_validated_against_the_schema_before_the_tool_runs() -> None:
    server = make_server()
    calls: list[Any] = []

    @server.tool("test/move", description="Move a pawn.")
    def move(pawn: str, x: int, y: int = 0) -> None:
        calls.append((pawn, x, y))

    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request(
                "tools/call",
                {"name": "test/move", "arguments": {"x": "3", "speed": 2}},
            )
    error = info.value
    assert error.code == -32602
    assert {(p["path"], p["message"]) for p in error.data["errors"]} == {
        ("$.pawn", "required argument is missing"),
        ("$.x", "Input should be a valid integer"),
        ("$.speed", "unknown argument (this tool takes: pawn, x, y)"),
    }
    assert calls == []


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"name": "test/missing", "arguments": {}}, -31002),
        # not found whatever the name looks like, as Lib.GAB answers
        ({"name": "inventory.get"}, -31002),
        ({"name": "Test/Echo", "arguments": {}}, -31002),
        ({"name": "test/missing", "arguments": [1, 2]}, -31002),
        # no name at all is a params error
        ({"name": "  "}, -32602),
        ({"name": 7}, -32602),
        ({"arguments": {}}, -32602),
    ],
)
async def test_an_unknown_tool_is_answered_with_tool_not_found(
    params: dict[str, Any], code: int
) -> None:
    async with echo_server().running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("tools/call", params)
    assert info.value.code == code
    if code == -31002:
        assert info.value.message == f"tool not found: {params['name']}"


async def test_tool_failures_are_sanitized_unless_the_tool_raises_tool_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = make_server()

    @server.tool("test/crash", description="Crash.")
    def crash() -> None:
        raise KeyError("internal detail C:/Users/secret")

    @server.tool("test/refuse", description="Refuse.")
    async def refuse() -> None:
        raise ToolError("the pawn is downed", {"pawn": "Ari"})

    caplog.set_level(logging.ERROR)
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            with pytest.raises(RemoteError) as crashed:
                await conn.request("tools/call", {"name": "test/crash"})
            with pytest.raises(RemoteError) as refused:
                await conn.request("tools/call", {"name": "test/refuse"})
    assert crashed.value.code == -32603
    assert "secret" not in json.dumps([crashed.value.message, crashed.value.data])
    assert crashed.value.data["errorId"] in caplog.text
    assert (refused.value.code, refused.value.message, refused.value.data) == (
        -32000,
        "the pawn is downed",
        {"pawn": "Ari"},
    )


class Status(BaseModel):
    pawns: int
    mood: float


async def test_tools_list_describes_inputs_outputs_and_filters() -> None:
    server = make_server()

    @server.tool(
        "colony/get_status",
        description="Summarize the colony.",
        tags=["read-only", "status"],
        result_description="Pawn count and average mood.",
        parameter_descriptions={"detail": "Include per-pawn detail."},
    )
    def get_status(detail: bool = False) -> Status:
        return Status(pawns=3, mood=0.5)

    @server.tool("colony/draft_pawn", description="Draft a pawn.")
    def draft(pawn: str) -> bool:
        return True

    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            everything = await conn.request("tools/list")
            status_only = await conn.request("tools/list", {"filter": {"tags": ["status"]}})
            by_name = await conn.request("tools/list", {"filter": {"namePattern": "*/draft_*"}})
            result = await conn.request("tools/call", {"name": "colony/get_status"})
    parse_result("tools/list", everything, strict=True)
    status = everything["tools"][0]
    assert status["inputSchema"] == {
        "additionalProperties": False,
        "properties": {
            "detail": {
                "default": False,
                "description": "Include per-pawn detail.",
                "type": "boolean",
            }
        },
        "type": "object",
    }
    assert status["outputSchema"]["description"] == "Pawn count and average mood."
    assert status["outputSchema"]["required"] == ["pawns", "mood"]
    assert status["tags"] == ["read-only", "status"]
    assert [t["name"] for t in status_only["tools"]] == ["colony/get_status"]
    assert [t["name"] for t in by_name["tools"]] == ["colony/draft_pawn"]
    assert by_name["tools"][0]["inputSchema"]["required"] == ["pawn"]
    assert result == {"pawns": 3, "mood": 0.5}


def test_tool_names_and_metadata_are_checked_at_registration() -> None:
    server = make_server()
    for bad in ("echo", "test.echo", "Test/echo", "test/"):
        with pytest.raises(ValueError, match="must match"):
            server.add_tool(lambda: None, name=bad, description="x")
    with pytest.raises(ValueError, match="description"):
        server.add_tool(lambda: None, name="test/x", description=" ")
    with pytest.raises(ValueError, match="type hint"):
        server.add_tool(lambda a: None, name="test/y", description="y")
    server.add_tool(lambda: None, name="test/z", description="z")
    with pytest.raises(ValueError, match="already registered"):
        server.add_tool(lambda: None, name="test/z", description="z")


async def test_the_operation_is_the_request_id_in_sync_async_and_spawned_code() -> None:
    server = make_server()
    seen: dict[str, Any] = {}

    @server.tool("test/sync_op", description="Report the operation from a worker thread.")
    def sync_op() -> str:
        op = current_operation()
        assert op is not None
        return f"{op.id} {op.method}"

    @server.tool("test/async_op", description="Report the operation from a spawned task.")
    async def async_op(ctx: ToolContext) -> str:
        async with anyio.create_task_group() as tg:

            async def child() -> None:
                seen["child"] = current_operation()

            tg.start_soon(child)
        assert seen["child"] == ctx.operation
        return f"{ctx.operation.id} {ctx.operation.method}"

    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            sync_result = await conn.request("tools/call", {"name": "test/sync_op"})
            async_result = await conn.request("tools/call", {"name": "test/async_op"})
    sync_id, sync_method = sync_result.split()
    async_id, async_method = async_result.split()
    assert (sync_method, async_method) == ("test/sync_op", "test/async_op")
    assert sync_id != async_id
    assert current_operation() is None


async def test_events_reach_only_subscribers_with_seq_from_zero_per_connection() -> None:
    server = make_server()
    server.channel("game/tick")
    first: list[Event] = []
    second: list[Event] = []
    async with (
        server.running() as address,
        bridge(address, on_event=first.append) as one,
        bridge(address, on_event=second.append) as two,
    ):
        with anyio.fail_after(5):
            assert await one.request("events/subscribe", {"channels": ["game/tick"]}) == {
                "subscribed": ["game/tick"]
            }
            assert await server.emit("game/tick", {"n": 1}) == 1
            await two.request("events/subscribe", {"channels": ["game/tick"]})
            assert await server.emit("game/tick", {"n": 2}) == 2
            assert await one.request("events/unsubscribe", {"channels": ["game/tick"]}) == {
                "unsubscribed": ["game/tick"]
            }
            assert await server.emit("game/tick", {"n": 3}) == 1
            await one.request("tools/list")  # a round trip: every event sent so far has arrived
            await two.request("tools/list")
    assert [(e.seq, e.payload) for e in first] == [(0, {"n": 1}), (1, {"n": 2})]
    assert [(e.seq, e.payload) for e in second] == [(0, {"n": 2}), (1, {"n": 3})]


async def test_a_channel_can_be_withdrawn_and_its_subscribers_counted_as_in_lib_gab() -> None:
    server = make_server()
    server.channel("game/tick")
    server.channel("game/raid")
    assert server.subscriber_count("game/tick") == 0
    async with (
        server.running() as address,
        bridge(address) as one,
        bridge(address) as two,
    ):
        with anyio.fail_after(5):
            await one.request("events/subscribe", {"channels": ["game/tick", "game/raid"]})
            await two.request("events/subscribe", {"channels": ["game/tick"]})
            assert [server.subscriber_count(c) for c in ("game/tick", "game/raid")] == [2, 1]
            assert server.subscriber_count("game/nope") == 0
            assert server.unregister_channel("game/tick") is True
            assert server.unregister_channel("game/tick") is False
            assert server.subscriber_count("game/tick") == 0
            assert server.subscriber_count("game/raid") == 1
            with pytest.raises(RemoteError) as info:
                await two.request("events/subscribe", {"channels": ["game/tick"]})
            assert info.value.code == -31003
            assert info.value.data["available"] == ["game/raid"]


async def test_subscribing_to_an_unknown_channel_is_refused_clearly() -> None:
    server = make_server()
    server.channel("game/tick")
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("events/subscribe", {"channels": ["game/tick", "game/nope"]})
    assert info.value.code == -31003
    assert info.value.data == {"channels": ["game/nope"], "available": ["game/tick"]}
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("events/unsubscribe", {"channels": ["game/nope"]})
    assert info.value.code == -31003


async def test_resources_are_listed_by_pattern_and_read_by_uri() -> None:
    server = make_server()
    server.resource("gabp://colony/pawns", name="Pawns", content=["Ari", "Bo"])
    server.resource("gabp://colony/map", name="Map", provider=lambda: {"size": [250, 250]})
    server.resource("gabp://world/factions", name="Factions", content=[])
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            listed = await conn.request("resources/list", {"pattern": "gabp://colony/*"})
            by_namespace = await conn.request("resources/list", {"namespace": "world"})
            read = await conn.request("resources/read", {"uri": "gabp://colony/map"})
            with pytest.raises(RemoteError) as info:
                await conn.request("resources/read", {"uri": "gabp://colony/nothing"})
    assert [r["uri"] for r in listed["resources"]] == ["gabp://colony/pawns", "gabp://colony/map"]
    assert [r["name"] for r in by_namespace["resources"]] == ["Factions"]
    assert read == {"content": {"size": [250, 250]}, "mimeType": "application/json"}
    assert info.value.code == -31004


async def test_state_get_and_set_are_served_only_with_providers() -> None:
    server = make_server()
    state = {"speed": 1}

    def get(components: list[str] | None, player: str | None) -> dict[str, Any]:
        return {k: v for k, v in state.items() if components is None or k in components}

    def put(updates: dict[str, Any], player: str | None, validate: bool) -> dict[str, Any]:
        state.update(updates)
        return {"applied": True}

    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("state/get")
        assert info.value.code == -32601
    server.state_provider(get=get, set=put)
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            assert await conn.request("state/set", {"updates": {"speed": 3}}) == {"applied": True}
            got = await conn.request("state/get", {"components": ["speed"]})
    assert got["state"] == {"speed": 3}
    assert isinstance(got["timestamp"], int) and got["timestamp"] > 1_700_000_000


async def test_attention_methods_are_method_not_found_without_enable_attention() -> None:
    async with echo_server().running() as address, bridge(address) as conn:
        for method, params in (
            ("attention/current", None),
            ("attention/ack", {"attentionId": "a"}),
        ):
            with anyio.fail_after(5), pytest.raises(RemoteError) as info:
                await conn.request(method, params)
            assert (info.value.code, info.value.message) == (-32601, f"method not found: {method}")
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("events/subscribe", {"channels": ["attention/opened"]})
        assert info.value.code == -31003


@pytest.mark.parametrize("attention_id", ["  ", "\t"])
async def test_acknowledging_a_blank_attention_id_is_refused_as_in_lib_gab(
    attention_id: str,
) -> None:
    server = make_server()
    server.enable_attention()
    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("attention/ack", {"attentionId": attention_id})
        assert (info.value.code, info.value.message) == (-32602, "attentionId must not be blank")
        with anyio.fail_after(5):
            answer = await conn.request("attention/ack", {"attentionId": "a"})
        assert answer["acknowledged"] is False


async def test_a_thousand_concurrent_calls_are_all_answered() -> None:
    server = make_server()

    @server.tool("test/double", description="Double n.")
    async def double(n: int) -> int:
        await anyio.lowlevel.checkpoint()
        return 2 * n

    results: dict[int, int] = {}
    async with server.running() as address, bridge(address) as conn:

        async def call(n: int) -> None:
            results[n] = await conn.request(
                "tools/call", {"name": "test/double", "arguments": {"n": n}}
            )

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                for n in range(1000):
                    tg.start_soon(call, n)
    assert results == {n: 2 * n for n in range(1000)}


async def test_ten_bridges_connect_at_once_each_authenticated_on_its_own() -> None:
    async with echo_server().running() as address:
        async with anyio.create_task_group() as tg:
            answers: list[Any] = []

            async def one_bridge(i: int) -> None:
                async with bridge(address) as conn:
                    answers.append(
                        await conn.request(
                            "tools/call", {"name": "test/echo", "arguments": {"text": str(i)}}
                        )
                    )

            for i in range(10):
                tg.start_soon(one_bridge, i)
        # an eleventh bridge with a wrong token is refused while the others were fine
        async with bridge(address, hello=False) as intruder:
            with anyio.fail_after(5), pytest.raises(RemoteError):
                await intruder.request("session/hello", hello_params("f" * 64))
    assert sorted(a["text"] for a in answers) == [str(i) for i in range(10)]


async def test_connections_beyond_the_limit_are_closed_at_once() -> None:
    server = echo_server(limits=ServerLimits(max_connections=2))
    async with server.running() as address, bridge(address), bridge(address):
        with anyio.fail_after(5):
            async with bridge(address, hello=False) as third:
                with pytest.raises(ConnectionClosed):
                    await third.request("session/hello", hello_params())


async def test_a_bridge_dropping_mid_call_leaves_the_server_serving_and_clean() -> None:
    server = make_server()
    started = anyio.Event()
    release = anyio.Event()

    @server.tool("test/slow", description="Wait until released.")
    async def slow() -> str:
        started.set()
        await release.wait()
        return "done"

    async with server.running() as address, bridge(address) as survivor:
        async with bridge(address) as doomed, anyio.create_task_group() as tg:

            async def call() -> None:
                with pytest.raises(ConnectionClosed):
                    await doomed.request("tools/call", {"name": "test/slow"})

            tg.start_soon(call)
            with anyio.fail_after(5):
                await started.wait()
            await doomed.aclose()
        with anyio.fail_after(5):
            while server.connection_count != 1:  # noqa: ASYNC110 - the server has no hook for this
                await anyio.sleep(0.01)
            release.set()
            assert await survivor.request("tools/list") is not None


async def _raw_exchange(port: int, payload: bytes) -> tuple[list[dict[str, Any]], bool]:
    """Send raw bytes, collect what the server answers until it closes (or 2 s pass)."""
    stream = await anyio.connect_tcp("127.0.0.1", port)
    decoder = FrameDecoder()
    answers: list[dict[str, Any]] = []
    closed = False
    async with stream:
        await stream.send(payload)
        with anyio.move_on_after(2):
            while True:
                try:
                    data = await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    closed = True
                    break
                answers += [json.loads(body) for body in decoder.feed(data)]
    return answers, closed


def _frame(message: dict[str, Any]) -> bytes:
    return encode_frame(json.dumps(message).encode())


@pytest.mark.parametrize(
    ("payload", "code", "closes"),
    [
        (encode_frame(b'{"v":"gabp/1","id":'), -32700, False),
        (b"Content-Type: application/json\r\n\r\n{}", -32700, True),
        (b"Content-Length: 99999999\r\n\r\n{}", -32700, True),
        (b"Content-Length: 12\r\nContent-Length: 12\r\n\r\n{}", -32700, True),
        (
            _frame({"v": "gabp/1", "id": "not-a-uuid", "type": "request", "method": "a/b"}),
            -32600,
            False,
        ),
        (encode_frame(b"[1, 2, 3]"), -32600, False),
    ],
    ids=[
        "bad-json",
        "no-content-length",
        "over-size-cap",
        "two-content-lengths",
        "bad-id",
        "not-an-object",
    ],
)
async def test_bad_input_gets_a_defined_answer_and_never_hangs_the_server(
    payload: bytes, code: int, closes: bool
) -> None:
    async with echo_server(limits=ServerLimits(max_message_bytes=1 << 20)).running() as address:
        assert address.port is not None
        with anyio.fail_after(10):
            answers, closed = await _raw_exchange(address.port, payload)
            assert answers[0]["error"]["code"] == code
            assert closed is closes
            async with bridge(address) as conn:  # and it still serves others
                assert await conn.request(
                    "tools/call", {"name": "test/echo", "arguments": {"text": "ok"}}
                ) == {"text": "ok"}


async def test_a_connection_without_hello_is_closed_after_the_hello_timeout() -> None:
    async with echo_server(limits=ServerLimits(hello_timeout=0.2)).running() as address:
        assert address.port is not None
        with anyio.fail_after(5):
            answers, closed = await _raw_exchange(address.port, b"")
    assert (answers, closed) == ([], True)


def test_the_server_binds_loopback_only_and_checks_its_token() -> None:
    for host in ("0.0.0.0", "192.168.1.2", "localhost", "::"):
        with pytest.raises(ServerConfigError, match="loopback only"):
            make_server(host=host)
    with pytest.raises(ServerConfigError, match="at least 32 characters"):
        GabpServer(app_name="g", app_version="1", agent_id="g", token="short")


def test_from_gabs_environment_reads_the_bridge_handoff_and_names_bad_variables() -> None:
    env = {"GABP_SERVER_PORT": "38917", "GABP_TOKEN": TOKEN, "GABS_GAME_ID": "rimworld"}
    server = GabpServer.from_gabs_environment(app_name="RimWorld", app_version="1.5", env=env)
    assert (server.port, server.agent_id, server.host) == (38917, "rimworld", "127.0.0.1")
    with pytest.raises(ServerConfigError, match="GABP_SERVER_PORT"):
        GabpServer.from_gabs_environment(
            app_name="g", app_version="1", env={**env, "GABP_SERVER_PORT": "x"}
        )
    with pytest.raises(ServerConfigError, match="GABP_TOKEN"):
        GabpServer.from_gabs_environment(
            app_name="g", app_version="1", env={k: v for k, v in env.items() if k != "GABP_TOKEN"}
        )
    with pytest.raises(ServerConfigError, match="GABS_GAME_ID"):
        GabpServer.from_gabs_environment(
            app_name="g", app_version="1", env={k: v for k, v in env.items() if k != "GABS_GAME_ID"}
        )
    assert TOKEN not in repr(server)


async def test_a_unix_socket_server_is_private_to_its_user(tmp_path: Any) -> None:
    path = tmp_path / "game.sock"
    server = echo_server(transport="unix", unix_path=path)
    async with server.running() as address:
        assert address.path == str(path)
        assert path.stat().st_mode & 0o777 == 0o600
        from gabp import Connection

        stream = await anyio.connect_unix(path)
        async with Connection(stream) as conn:
            with anyio.fail_after(5):
                await conn.request("session/hello", hello_params())
                assert await conn.request(
                    "tools/call", {"name": "test/echo", "arguments": {"text": "ü"}}
                ) == {"text": "ü"}


async def test_descriptors_leave_out_unset_optional_fields_and_match_the_schema() -> None:
    from gabp import new_id
    from gabp_schemas import validate

    server = make_server()

    @server.tool("test/plain", description="No tags, no version.")
    def plain() -> None:
        return None

    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            listed = await conn.request("tools/list")
    assert set(listed["tools"][0]) == {
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
    }
    validate(
        {"v": "gabp/1", "id": new_id(), "type": "response", "result": listed}, method="tools/list"
    )


async def test_a_tool_can_close_the_bridge_connection_after_its_answer() -> None:
    server = make_server()

    @server.tool("test/bye", description="Answer, then hang up.")
    def bye(ctx: ToolContext) -> str:
        ctx.close_after_response("the tool asked to disconnect")
        return "bye"

    async with server.running() as address, bridge(address) as conn:
        with anyio.fail_after(5):
            assert await conn.request("tools/call", {"name": "test/bye"}) == "bye"
            assert await conn.wait_closed(5)
