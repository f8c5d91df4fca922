"""Rules of GABP 1.1.0's specification text that its schemas cannot express, over loopback TCP.

Each test names the rule it holds: the transport's "the JSON message MUST be valid UTF-8" and
the envelope's lists of members a request, a response and an event MUST NOT include.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import pytest

from gabp import NIL_ID, Connection, InboundRequest, encode_frame, new_id
from gabp.errors import MessageError
from gabp.framing import FrameDecoder
from gabp.messages import Event, parse_message
from gabp.wirejson import decode


class LoopbackPeer:
    """The far end of a real loopback TCP connection, writing and reading frames by hand."""

    def __init__(self, stream: anyio.abc.ByteStream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder()
        self.frames: list[dict[str, Any]] = []

    async def send_body(self, body: bytes) -> None:
        await self.stream.send(encode_frame(body))

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_body(json.dumps(message).encode())

    async def receive(self) -> dict[str, Any]:
        while not self.frames:
            data = await self.stream.receive()
            self.frames.extend(json.loads(body) for body in self.decoder.feed(data))
        return self.frames.pop(0)


@asynccontextmanager
async def loopback(
    handlers: dict[str, Any] | None = None, on_event: Any = None
) -> AsyncIterator[tuple[Connection, LoopbackPeer]]:
    """A Connection on one end of a 127.0.0.1 TCP connection, a raw peer on the other."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    async with listener:
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        client = await anyio.connect_tcp("127.0.0.1", port)
        accepted: list[anyio.abc.SocketStream] = []
        arrived = anyio.Event()

        async def take(stream: anyio.abc.SocketStream) -> None:
            accepted.append(stream)
            arrived.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, take)
            with anyio.fail_after(5):
                await arrived.wait()
            tg.cancel_scope.cancel()
    async with (
        client,
        Connection(accepted[0], handlers=handlers, on_event=on_event, name="near") as near,
    ):
        yield near, LoopbackPeer(client)


async def echo(request: InboundRequest) -> Any:
    return request.params


def request(**members: Any) -> dict[str, Any]:
    message = {"v": "gabp/1", "id": new_id(), "type": "request", "method": "test/echo"}
    message["params"] = {"text": "Zoë"}
    return message | members


async def served_on(peer: LoopbackPeer) -> bool:
    probe = request()
    await peer.send(probe)
    answer = await peer.receive()
    return answer["id"] == probe["id"] and answer.get("result") == {"text": "Zoë"}


UTF8_BODY = json.dumps(request(), ensure_ascii=False)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
async def test_a_body_in_utf_16_or_utf_32_is_refused_as_a_parse_error_and_serving_goes_on(
    encoding: str,
) -> None:
    async with loopback({"test/echo": echo}) as (_, peer):
        with anyio.fail_after(5):
            await peer.send_body(UTF8_BODY.encode(encoding))
            answer = await peer.receive()
            assert answer["error"]["code"] == -32700
            assert answer["id"] in (NIL_ID, json.loads(UTF8_BODY)["id"])
            assert await served_on(peer)


async def test_a_utf_8_body_after_a_byte_order_mark_is_still_served() -> None:
    async with loopback({"test/echo": echo}) as (_, peer):
        sent = json.loads(UTF8_BODY)
        with anyio.fail_after(5):
            await peer.send_body(UTF8_BODY.encode("utf-8-sig"))
            answer = await peer.receive()
    assert answer["id"] == sent["id"] and answer["result"] == {"text": "Zoë"}


def test_the_wire_decoder_reads_bytes_as_utf_8_only() -> None:
    assert decode(UTF8_BODY.encode("utf-8")) == json.loads(UTF8_BODY)
    for encoding in ("utf-16", "utf-16-le", "utf-32"):
        with pytest.raises(ValueError):  # UnicodeDecodeError is a ValueError
            decode(UTF8_BODY.encode(encoding))


@pytest.mark.parametrize("member", ["result", "error", "channel", "seq", "payload"])
async def test_a_request_carrying_a_member_of_another_message_type_is_refused_as_invalid(
    member: str,
) -> None:
    value = {"error": {"code": 1, "message": "x"}, "channel": "a/b", "seq": 0}.get(member, 1)
    async with loopback({"test/echo": echo}) as (_, peer):
        sent = request(**{member: value})
        with anyio.fail_after(5):
            await peer.send(sent)
            answer = await peer.receive()
            assert await served_on(peer)
    assert answer["id"] == sent["id"]
    assert answer["error"] == {
        "code": -32600,
        "message": f"invalid request: requests carry no {member} member",
    }


async def test_an_unknown_member_beside_a_request_s_own_is_still_ignored() -> None:
    async with loopback({"test/echo": echo}) as (_, peer):
        sent = request(jsonrpc="2.0")
        with anyio.fail_after(5):
            await peer.send(sent)
            answer = await peer.receive()
    assert answer["id"] == sent["id"] and answer["result"] == {"text": "Zoë"}


@pytest.mark.parametrize("member", ["method", "params", "channel", "seq", "payload"])
async def test_a_response_carrying_a_member_of_another_message_type_fails_its_request(
    member: str,
) -> None:
    value = {"method": "a/b", "channel": "a/b", "seq": 0}.get(member, {})
    async with loopback() as (near, peer), anyio.create_task_group() as tg:
        outcome: list[BaseException | Any] = []

        async def ask() -> None:
            try:
                outcome.append(await near.request("test/echo", {}, timeout=5))
            except MessageError as exc:
                outcome.append(exc)

        tg.start_soon(ask)
        with anyio.fail_after(5):
            asked = await peer.receive()
            answer = {"v": "gabp/1", "id": asked["id"], "type": "response", "result": {}}
            await peer.send(answer | {member: value})
    assert isinstance(outcome[0], MessageError)
    assert f"responses carry no {member} member" in str(outcome[0])


async def test_a_response_from_lib_gab_with_result_and_a_null_error_is_still_taken() -> None:
    async with loopback() as (near, peer), anyio.create_task_group() as tg:
        outcome: list[Any] = []

        async def ask() -> None:
            outcome.append(await near.request("test/echo", {}, timeout=5))

        tg.start_soon(ask)
        with anyio.fail_after(5):
            asked = await peer.receive()
            await peer.send(
                {"v": "gabp/1", "id": asked["id"], "type": "response", "result": 7, "error": None}
            )
    assert outcome == [7]


@pytest.mark.parametrize("member", ["method", "params", "result", "error"])
async def test_an_event_carrying_a_member_of_another_message_type_is_dropped(member: str) -> None:
    received: list[Event] = []
    arrived = anyio.Event()

    def on_event(event: Event) -> None:
        received.append(event)
        arrived.set()

    event = {"v": "gabp/1", "type": "event", "channel": "game/tick", "payload": {}}
    async with loopback(on_event=on_event) as (_, peer):
        with anyio.fail_after(5):
            await peer.send(event | {"id": new_id(), "seq": 0, member: None})
            await peer.send(event | {"id": new_id(), "seq": 1, "timestamp": "2026-01-02T03:04:05Z"})
            await arrived.wait()
    assert [e.seq for e in received] == [1]


@pytest.mark.parametrize(
    ("message", "member"),
    [
        ({"type": "request", "method": "a/b", "payload": 1}, "payload"),
        ({"type": "response", "result": 1, "params": {}}, "params"),
        ({"type": "event", "channel": "a/b", "seq": 0, "payload": 1, "method": "a/b"}, "method"),
    ],
)
def test_parsing_a_peer_s_message_refuses_a_member_of_another_message_type(
    message: dict[str, Any], member: str
) -> None:
    with pytest.raises(MessageError) as info:
        parse_message({"v": "gabp/1", "id": new_id(), **message})
    assert info.value.code == -32600
    assert f"carry no {member} member" in str(info.value)
