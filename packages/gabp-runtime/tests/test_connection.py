"""Behaviour of gabp.Connection over in-memory byte streams."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from gabp import (
    NIL_ID,
    Connection,
    ConnectionClosed,
    ConnectionLimits,
    ErrorCode,
    InboundRequest,
    MessageError,
    MessageTooLarge,
    ProtocolError,
    RemoteError,
    RequestTimeout,
    encode_frame,
    memory_pipe,
    new_id,
)
from gabp.framing import FrameDecoder
from gabp.messages import Event
from gabp.streams import MemoryByteStream
from gabp.wirejson import EncodedJson


class RawPeer:
    """The far end of a pipe, speaking frames by hand."""

    def __init__(self, stream: MemoryByteStream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder()
        self.frames: list[dict[str, Any]] = []

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send(data)

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send(encode_frame(json.dumps(message).encode()))

    async def receive(self) -> dict[str, Any]:
        while not self.frames:
            data = await self.stream.receive()
            self.frames.extend(json.loads(body) for body in self.decoder.feed(data))
        return self.frames.pop(0)

    async def receive_eof(self) -> bool:
        try:
            while True:
                data = await self.stream.receive()
                self.frames.extend(json.loads(body) for body in self.decoder.feed(data))
        except anyio.EndOfStream:
            return True


def request(method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"v": "gabp/1", "id": new_id(), "type": "request", "method": method}
    if params is not None:
        message["params"] = params
    message.update(extra)
    return message


@asynccontextmanager
async def pair(
    handlers: dict[str, Any] | None = None,
    *,
    on_event: Any = None,
    server_limits: ConnectionLimits | None = None,
    client_limits: ConnectionLimits | None = None,
) -> AsyncIterator[tuple[Connection, Connection]]:
    a, b = memory_pipe()
    async with (
        Connection(a, handlers=handlers, limits=server_limits, name="server") as server,
        Connection(b, on_event=on_event, limits=client_limits, name="client") as client,
    ):
        yield server, client


@asynccontextmanager
async def served_by_raw_peer(
    handlers: dict[str, Any] | None = None, limits: ConnectionLimits | None = None
) -> AsyncIterator[tuple[Connection, RawPeer]]:
    a, b = memory_pipe()
    async with b, Connection(a, handlers=handlers, limits=limits, name="server") as server:
        yield server, RawPeer(b)


async def echo(req: InboundRequest) -> Any:
    return req.params


async def test_a_request_returns_the_handlers_result_with_non_ascii_text_intact() -> None:
    async with pair({"test/echo": echo}) as (_, client):
        with anyio.fail_after(5):
            result = await client.request("test/echo", {"text": "Ärger 🐛 日本語"})
    assert result == {"text": "Ärger 🐛 日本語"}


async def test_a_result_already_encoded_goes_out_byte_for_byte_eagerly_or_later() -> None:
    encoded = '{"z":1,"a":[1e16,"Ärger"],"n":null}'.encode()

    async def at_once(_: InboundRequest) -> EncodedJson:
        return EncodedJson(encoded)

    async def later(_: InboundRequest) -> EncodedJson:
        await anyio.lowlevel.checkpoint()
        return EncodedJson(encoded)

    async with served_by_raw_peer({"test/now": at_once, "test/later": later}) as (_, peer):
        for method in ("test/now", "test/later"):
            sent = request(method)
            await peer.send(sent)
            with anyio.fail_after(5):
                data = await peer.stream.receive()
            (body,) = peer.decoder.feed(data)
            head = b'{"v":"gabp/1","id":"' + sent["id"].encode() + b'","type":"response"'
            assert bytes(body) == head + b',"result":' + encoded + b"}"


async def test_a_result_of_null_or_false_is_returned_as_such() -> None:
    async def none(_: InboundRequest) -> None:
        return None

    async def false(_: InboundRequest) -> bool:
        return False

    async with pair({"test/none": none, "test/false": false}) as (_, client):
        with anyio.fail_after(5):
            assert await client.request("test/none") is None
            assert await client.request("test/false") is False


async def test_an_unknown_method_is_answered_with_method_not_found() -> None:
    async with pair({}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await client.request("test/missing")
    assert (info.value.code, info.value.message) == (-32601, "method not found: test/missing")


async def test_a_protocol_error_raised_by_a_handler_is_sent_as_is() -> None:
    async def refuse(_: InboundRequest) -> None:
        raise ProtocolError(ErrorCode.TOOL_NOT_FOUND, "tool not found: a/b", {"tool": "a/b"})

    async with pair({"test/refuse": refuse}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await client.request("test/refuse")
    assert (info.value.code, info.value.message, info.value.data) == (
        -31002,
        "tool not found: a/b",
        {"tool": "a/b"},
    )


def test_a_peer_s_error_with_an_empty_message_is_kept_as_sent() -> None:
    # Ours never sends one, but a live peer may: its code and data must not be lost.
    error = RemoteError(1002, "", {"retryIn": 5}, method="tools/call")
    assert (error.code, error.message, error.data) == (1002, "", {"retryIn": 5})
    assert error.to_wire() == {"code": 1002, "message": "", "data": {"retryIn": 5}}
    with pytest.raises(ValueError, match="must not be empty"):
        ProtocolError(1002, "")


async def test_a_handler_crash_becomes_a_sanitized_internal_error_with_a_logged_error_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def crash(_: InboundRequest) -> None:
        raise RuntimeError("password=hunter2 in a stack frame")

    caplog.set_level(logging.ERROR, logger="gabp.connection")
    async with pair({"test/crash": crash, "test/echo": echo}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await client.request("test/crash")
        # the connection survives and keeps serving
        with anyio.fail_after(5):
            assert await client.request("test/echo", {"still": "up"}) == {"still": "up"}
    error = info.value
    assert error.code == -32603
    assert error.message == "internal error while serving test/crash"
    assert "hunter2" not in json.dumps(error.data)
    assert error.data["errorId"] in caplog.text


async def test_a_result_that_is_not_json_becomes_an_internal_error() -> None:
    async def unencodable(_: InboundRequest) -> object:
        return {"when": object()}

    async with pair({"test/bad": unencodable}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await client.request("test/bad")
    assert info.value.code == -32603


async def test_a_handler_that_runs_too_long_is_answered_with_a_timeout_error() -> None:
    async def slow(_: InboundRequest) -> None:
        await anyio.sleep_forever()

    limits = ConnectionLimits(handler_timeout=0.05)
    async with pair({"test/slow": slow}, server_limits=limits) as (_, client):
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await client.request("test/slow")
    assert info.value.code == -32000
    assert info.value.data == {"timeoutSeconds": 0.05}


async def test_a_request_without_an_answer_times_out_and_leaves_nothing_pending() -> None:
    async def slow(_: InboundRequest) -> None:
        await anyio.sleep(0.5)

    async with pair({"test/slow": slow}) as (_, client):
        with anyio.fail_after(5), pytest.raises(RequestTimeout) as info:
            await client.request("test/slow", timeout=0.05)
        assert client.pending_requests == 0
        assert str(info.value) == "no answer to test/slow within 0.05 s"
        # the late answer is ignored and the connection still works
        await anyio.sleep(0.6)
        with anyio.fail_after(5):
            assert await client.request("test/slow", timeout=2) is None


async def test_every_waiter_gets_connection_closed_when_the_peer_goes_away() -> None:
    a, b = memory_pipe()
    raw = RawPeer(a)
    outcomes: list[BaseException] = []
    async with Connection(b, name="client") as client:

        async def call() -> None:
            try:
                await client.request("test/never", timeout=10)
            except ConnectionClosed as exc:
                outcomes.append(exc)

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(call)
                for _ in range(5):
                    await raw.receive()
                await a.aclose()
    assert len(outcomes) == 5
    assert all(exc.reason == "the peer closed the connection" for exc in outcomes)
    with pytest.raises(ConnectionClosed):
        await client.request("test/after")


async def test_events_emitted_while_serving_arrive_before_the_response() -> None:
    seen: list[str] = []

    async def act(req: InboundRequest) -> str:
        await req.connection.emit("attention/opened", {"attentionId": "a1"})
        return "done"

    def on_event(event: Event) -> None:
        seen.append(f"event {event.channel} {event.seq}")

    async with pair({"test/act": act}, on_event=on_event) as (_, client):
        with anyio.fail_after(5):
            result = await client.request("test/act")
            seen.append(f"result {result}")
    assert seen == ["event attention/opened 0", "result done"]


async def test_event_seq_counts_from_zero_per_channel() -> None:
    events: list[tuple[str, int]] = []
    all_seen = anyio.Event()

    def on_event(event: Event) -> None:
        events.append((event.channel, event.seq))
        if len(events) == 5:
            all_seen.set()

    async with pair({}, on_event=on_event) as (server, _):
        for channel in ["a/x", "b/y", "a/x", "a/x", "b/y"]:
            await server.emit(channel, None)
        with anyio.fail_after(5):
            await all_seen.wait()
    assert events == [("a/x", 0), ("b/y", 0), ("a/x", 1), ("a/x", 2), ("b/y", 1)]


async def test_an_already_encoded_payload_is_sent_as_its_bytes() -> None:
    events: list[Event] = []
    arrived = anyio.Event()

    def on_event(event: Event) -> None:
        events.append(event)
        arrived.set()

    async with pair({}, on_event=on_event) as (server, _):
        await server.emit("a/x", EncodedJson(b'{"at":"2026-11-28T17:46:58.166Z","n":1.0}'))
        with anyio.fail_after(5):
            await arrived.wait()
    assert (events[0].channel, events[0].seq) == ("a/x", 0)
    assert events[0].payload == {"at": "2026-11-28T17:46:58.166Z", "n": 1.0}


async def test_events_reach_the_one_consumer_in_arrival_order() -> None:
    async with pair({}) as (server, client):
        with client.events() as stream:
            with pytest.raises(RuntimeError, match="one consumer"):
                client.events()
            for i in range(200):
                await server.emit("game/tick", {"i": i})
            received = []
            with anyio.fail_after(5):
                for _ in range(200):
                    received.append((await stream.receive()).payload["i"])
    assert received == list(range(200))


async def test_at_most_the_configured_number_of_requests_is_served_at_once() -> None:
    running = 0
    peak = 0

    async def busy(_: InboundRequest) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.01)
        running -= 1

    limits = ConnectionLimits(max_concurrent_requests=3)
    async with pair({"test/busy": busy}, server_limits=limits) as (_, client):
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                for _ in range(30):
                    tg.start_soon(client.request, "test/busy")
    assert peak == 3


async def test_invalid_json_is_answered_with_a_parse_error_carrying_the_recovered_id() -> None:
    async with served_by_raw_peer({"test/echo": echo}) as (_, raw):
        request_id = new_id()
        body = b'{"v":"gabp/1","id":"' + request_id.encode() + b'","type":"request",'
        with anyio.fail_after(5):
            await raw.send_raw(encode_frame(body))
            answer = await raw.receive()
            assert answer["id"] == request_id
            assert answer["error"]["code"] == -32700
            await raw.send_raw(encode_frame(b"\xff\xfe not json"))
            answer = await raw.receive()
            assert answer["id"] == NIL_ID
            assert answer["error"]["code"] == -32700
            # still serving
            message = request("test/echo", {"x": 1})
            await raw.send(message)
            assert await raw.receive() == {
                "v": "gabp/1",
                "id": message["id"],
                "type": "response",
                "result": {"x": 1},
            }


async def test_a_message_nested_too_deeply_is_refused_and_the_connection_keeps_serving() -> None:
    async with served_by_raw_peer({"test/echo": echo}) as (_, raw):
        request_id = new_id()
        body = (
            b'{"v":"gabp/1","id":"' + request_id.encode() + b'","type":"request",'
            b'"method":"test/echo","params":{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
        )
        with anyio.fail_after(5):
            await raw.send_raw(encode_frame(body))
            answer = await raw.receive()
            message = request("test/echo", {"ok": 1})
            await raw.send(message)
            assert (await raw.receive())["result"] == {"ok": 1}
    assert answer["id"] == request_id
    assert answer["error"] == {
        "code": -32600,
        "message": "invalid request: message nested too deeply",
    }


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ({"v": "gabp/2"}, "v must be 'gabp/1', got 'gabp/2'"),
        ({"type": "notification"}, "type must be request, response or event"),
        ({"method": "Bad.Method"}, "method must match"),
        ({"params": [1, 2]}, "params must be an object"),
    ],
)
async def test_an_invalid_request_is_answered_with_invalid_request(
    message: dict[str, Any], problem: str
) -> None:
    async with served_by_raw_peer({"test/echo": echo}) as (_, raw):
        sent = request("test/echo", {}) | message
        with anyio.fail_after(5):
            await raw.send(sent)
            answer = await raw.receive()
    assert answer["id"] == sent["id"]
    assert answer["error"]["code"] == -32600
    assert problem in answer["error"]["message"]


async def test_a_request_whose_id_is_not_a_uuid_is_answered_with_the_nil_id() -> None:
    async with served_by_raw_peer({"test/echo": echo}) as (_, raw):
        with anyio.fail_after(5):
            await raw.send(request("test/echo", {}) | {"id": "42"})
            answer = await raw.receive()
    assert answer == {
        "v": "gabp/1",
        "id": NIL_ID,
        "type": "response",
        "error": {"code": -32600, "message": "invalid request: id must be a UUID string"},
    }


async def test_a_frame_without_content_length_is_answered_and_the_connection_closes() -> None:
    async with served_by_raw_peer({"test/echo": echo}) as (server, raw):
        with anyio.fail_after(5):
            await raw.send_raw(b"Content-Type: application/json\r\n\r\n{}")
            answer = await raw.receive()
            assert await raw.receive_eof()
            assert await server.wait_closed(5)
    assert answer["id"] == NIL_ID
    assert answer["error"]["code"] == -32700
    assert "Content-Length" in answer["error"]["message"]
    assert server.close_reason.startswith("framing error:")


async def test_a_frame_over_the_size_cap_is_refused_before_its_body_is_read() -> None:
    limits = ConnectionLimits(max_message_bytes=4096)
    async with served_by_raw_peer({"test/echo": echo}, limits) as (server, raw):
        with anyio.fail_after(5):
            await raw.send_raw(b"Content-Length: 1000000\r\n\r\n" + b"x" * 100)
            answer = await raw.receive()
            assert await server.wait_closed(5)
    assert answer["error"]["code"] == -32700
    assert "1000000" in answer["error"]["message"]


async def test_a_response_to_an_unknown_id_is_logged_and_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="gabp.connection")
    async with served_by_raw_peer({"test/echo": echo}) as (_, raw):
        with anyio.fail_after(5):
            await raw.send({"v": "gabp/1", "id": new_id(), "type": "response", "result": 1})
            message = request("test/echo", {"ok": True})
            await raw.send(message)
            assert (await raw.receive())["result"] == {"ok": True}
    assert "response to an unknown or expired request" in caplog.text


async def test_request_refuses_a_method_name_it_must_not_send() -> None:
    async with pair({}) as (_, client):
        with pytest.raises(ValueError, match="does not match"):
            await client.request("tools/call_v2")


async def test_a_peer_that_stops_reading_fails_writes_after_the_write_timeout() -> None:
    a, b = memory_pipe(max_chunks=1)
    limits = ConnectionLimits(write_timeout=0.1, max_write_buffer_bytes=1024)
    async with Connection(a, limits=limits, name="server") as server:
        with anyio.fail_after(5), pytest.raises(ConnectionClosed):
            for _ in range(1000):
                await server.emit("game/tick", "x" * 512)
        assert await server.wait_closed(5)
    assert server.close_reason == "the peer read too slowly: a write waited 0.1 s"
    await b.aclose()


async def test_a_slow_handler_times_out_while_quick_ones_before_and_after_it_are_answered() -> None:
    release = anyio.Event()
    answered = {"slow": anyio.Event()}

    async def slow(_: InboundRequest) -> None:
        await anyio.sleep_forever()

    async def quick(req: InboundRequest) -> Any:
        return req.params

    async def stubborn(_: InboundRequest) -> str:
        try:
            await anyio.sleep_forever()
        except BaseException:
            await release.wait()  # swallows the timeout's cancellation and answers anyway
        return "late"

    limits = ConnectionLimits(handler_timeout=0.2)
    handlers = {"test/slow": slow, "test/quick": quick, "test/stubborn": stubborn}
    async with pair(handlers, server_limits=limits) as (server, client):
        results: dict[str, Any] = {}

        async def call(key: str, method: str, params: Any = None) -> None:
            try:
                results[key] = await client.request(method, params)
            except RemoteError as exc:
                results[key] = exc.code
            if key in answered:
                answered[key].set()

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, "first", "test/quick", {"n": 1})
                tg.start_soon(call, "slow", "test/slow")
                tg.start_soon(call, "stubborn", "test/stubborn")
                await answered["slow"].wait()
                tg.start_soon(call, "after", "test/quick", {"n": 2})
                release.set()
            assert await client.request("test/quick", {"n": 3}) == {"n": 3}
        assert results == {"first": {"n": 1}, "slow": -32000, "stubborn": "late", "after": {"n": 2}}
        assert not server.closed


async def test_a_request_whose_method_is_not_a_string_is_answered_with_invalid_request() -> None:
    async with served_by_raw_peer({"test/echo": echo}) as (_, raw):
        with anyio.fail_after(5):
            for method in (["test/echo"], {"a": 1}, 5):
                message = request("test/echo")
                message["method"] = method
                await raw.send(message)
                answer = await raw.receive()
                assert answer["id"] == message["id"]
                assert answer["error"]["code"] == ErrorCode.INVALID_REQUEST
            await raw.send(request("test/echo", {"still": "serving"}))
            assert (await raw.receive())["result"] == {"still": "serving"}


async def test_requests_beyond_the_outstanding_limit_wait_for_a_slot_and_all_complete() -> None:
    gate = anyio.Event()
    arrived = anyio.Event()
    served: list[int] = []

    async def held(req: InboundRequest) -> Any:
        served.append(req.params["i"])
        if len(served) == 2:
            arrived.set()
        await gate.wait()
        return req.params

    limits = ConnectionLimits(max_outstanding_requests=2)
    async with pair({"test/held": held}, client_limits=limits) as (_, client):
        results: list[Any] = []

        async def call(index: int) -> None:
            results.append(await client.request("test/held", {"i": index}))

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for index in range(5):
                    tg.start_soon(call, index)
                await arrived.wait()
                assert client.pending_requests == 2 and len(served) == 2
                with pytest.raises(RequestTimeout):  # waits for a slot, in vain
                    await client.request("test/held", {"i": 9}, timeout=0.1)
                gate.set()
        assert sorted(r["i"] for r in results) == [0, 1, 2, 3, 4]
        assert client.pending_requests == 0


async def test_request_ids_are_unique_version_4_uuids() -> None:
    seen: list[str] = []

    async def record(req: InboundRequest) -> None:
        seen.append(req.id)

    async with pair({"test/record": record}) as (_, client):
        with anyio.fail_after(5):
            for _ in range(50):
                await client.request("test/record")
    assert len(set(seen)) == 50
    assert all(uuid.UUID(each).version == 4 for each in seen)


async def test_an_answer_over_the_message_limit_is_an_error_the_peer_can_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # a peer with the same limit would close the connection on the header of such an answer,
    # failing every other call in flight on it; the error goes out instead, and the
    # connection serves on
    async def big(req: InboundRequest) -> Any:
        return "x" * req.params["n"]

    limits = ConnectionLimits(max_message_bytes=4096)
    caplog.set_level(logging.WARNING, logger="gabp.connection")
    async with pair({"test/big": big}, server_limits=limits, client_limits=limits) as (_, client):
        with anyio.fail_after(5):
            assert await client.request("test/big", {"n": 4000}) == "x" * 4000
            with pytest.raises(RemoteError) as refused:
                await client.request("test/big", {"n": 5000})
            assert await client.request("test/big", {"n": 10}) == "x" * 10
    error = refused.value
    assert error.code == -32603
    size = error.data["size"]
    assert size > 5000 and error.data["limit"] == 4096
    assert error.message == (
        f"the answer to test/big is {size} bytes, more than the 4096-byte message limit"
    )
    assert "answered with an error instead" in caplog.text


async def test_a_request_or_event_over_the_message_limit_is_refused_before_it_is_sent() -> None:
    events: list[Event] = []
    arrived = anyio.Event()

    def on_event(event: Event) -> None:
        events.append(event)
        arrived.set()

    limits = ConnectionLimits(max_message_bytes=4096)
    async with pair({"test/echo": echo}, on_event=on_event, server_limits=limits) as (
        server,
        client,
    ):
        with anyio.fail_after(5):
            with pytest.raises(MessageTooLarge) as refused:
                await server.emit("test/big", "x" * 5000)
            assert refused.value.limit == 4096 and refused.value.size > 5000
            assert str(refused.value).startswith("the event on test/big is ")
            # the refused event took no seq: the next one on the channel is still 0
            assert await server.emit("test/big", "small") == 0
            await arrived.wait()
    assert [(event.channel, event.seq, event.payload) for event in events] == [
        ("test/big", 0, "small")
    ]
    small = ConnectionLimits(max_message_bytes=4096)
    async with pair({"test/echo": echo}, client_limits=small) as (_, client):
        with anyio.fail_after(5):
            with pytest.raises(MessageTooLarge, match="the test/echo request is"):
                await client.request("test/echo", {"x": "y" * 5000})
            assert await client.request("test/echo", {"x": 1}) == {"x": 1}


async def test_nothing_larger_than_the_peer_says_it_reads_is_sent() -> None:
    # GABP's capabilities.limits.maxMessageSize: a request over it would make such a peer close
    # the connection, so it is refused here, below this side's own limit
    async with pair({"test/echo": echo}) as (_, client):
        client.peer_max_message_bytes = 2048
        with anyio.fail_after(5):
            with pytest.raises(MessageTooLarge) as refused:
                await client.request("test/echo", {"x": "y" * 3000})
            assert refused.value.limit == 2048
            assert await client.request("test/echo", {"x": "y" * 1000}) == {"x": "y" * 1000}


@pytest.mark.parametrize(
    "result", [b"[" * 5000 + b"]" * 5000, b"nope"], ids=["nested too deep", "not JSON"]
)
async def test_an_unreadable_answer_fails_its_request_at_once_not_at_its_timeout(
    result: bytes,
) -> None:
    outcome: dict[str, BaseException] = {}
    async with served_by_raw_peer({"test/echo": echo}) as (connection, raw):

        async def ask() -> None:
            try:
                await connection.request("test/slow", timeout=30)
            except MessageError as exc:
                outcome["error"] = exc

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(ask)
                asked = await raw.receive()
                head = b'{"v":"gabp/1","id":"' + asked["id"].encode() + b'","type":"response",'
                await raw.send_raw(encode_frame(head + b'"result":' + result + b"}"))
            # the unreadable answer was not answered back as a bad request: the next frame
            # the peer gets is the answer to its own request
            await raw.send(request("test/echo", {"n": 1}))
            answer = await raw.receive()
    assert str(outcome["error"]).startswith("invalid response: ")
    assert answer["result"] == {"n": 1}


@pytest.mark.parametrize(
    ("result", "read"),
    [
        (b'{"t": "caf\xe9"}', {"t": "caf\ufffd"}),
        (b'{"t": "a\\ud800b", "\\udc00": ["\\ud83d\\ude00"]}', {"t": "a\ufffdb", "\ufffd": ["😀"]}),
    ],
    ids=["a byte that is not UTF-8", "lone surrogates"],
)
async def test_an_answer_that_is_not_utf8_text_is_read_with_the_replacement_character(
    result: bytes, read: dict[str, Any]
) -> None:
    # the call ran: its answer was lost (an unreadable answer) where Go's and .NET's readers
    # read it with U+FFFD; a request or event so written is still refused (-32700, its id)
    async with served_by_raw_peer({"test/echo": echo}) as (connection, raw):
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                answered: dict[str, Any] = {}

                async def ask() -> None:
                    answered["result"] = await connection.request("test/slow", timeout=30)

                tg.start_soon(ask)
                asked = await raw.receive()
                head = b'{"v":"gabp/1","id":"' + asked["id"].encode() + b'","type":"response",'
                await raw.send_raw(encode_frame(head + b'"result":' + result + b"}"))
            sent = request("test/echo", {"n": 1})
            written = json.dumps(sent).encode().replace(b'{"n": 1}', b'{"n": ' + result + b"}")
            await raw.send_raw(encode_frame(written))
            refused = await raw.receive()
    assert answered["result"] == read
    assert refused["id"] == sent["id"] and refused["error"]["code"] == ErrorCode.PARSE_ERROR


async def test_an_event_that_is_not_utf8_text_is_read_with_the_replacement_character() -> None:
    # what it says happened: a changed character loses less than the event (it was answered
    # as a bad request and dropped)
    seen: list[Event] = []
    arrived = anyio.Event()

    def on_event(event: Event) -> None:
        seen.append(event)
        arrived.set()

    a, b = memory_pipe()
    async with b, Connection(a, on_event=on_event, name="bridge"):
        raw = RawPeer(b)
        head = b'{"v":"gabp/1","id":"' + str(uuid.uuid4()).encode() + b'","type":"event",'
        payload = b'"payload":{"text":"caf\xe9 \\ud800"}}'
        with anyio.fail_after(5):
            await raw.send_raw(encode_frame(head + b'"channel":"log/error","seq":0,' + payload))
            await arrived.wait()
    assert seen[0].channel == "log/error" and seen[0].payload == {"text": "caf\ufffd \ufffd"}
