"""Frames and envelopes other peers may send, over a real loopback server, under the defaults
and under Lib.GAB's choices: what is taken, what is refused and how, and whether the
connection serves on (docs/ports/lib-gab.md, section 2, frames and envelopes)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import pytest

from gabp import FrameDecoder, encode_frame
from lib_gab import GabpServer, ProtocolOptions
from lib_gab.testing import hello_params

TOKEN = "f7" * 32
NIL = "00000000-0000-0000-0000-000000000000"
MODES = {"defaults": None, "lib_gab": ProtocolOptions.lib_gab()}


def make_server(options: ProtocolOptions | None) -> GabpServer:
    server = GabpServer(
        app_name="Frames", app_version="1", agent_id="frames", token=TOKEN, options=options
    )

    @server.tool("game/status", description="Say that the game is alive.")
    def status() -> dict[str, Any]:
        return {"text": "running"}

    return server


def request(method: str = "tools/call", **members: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "v": "gabp/1",
        "id": str(uuid.uuid4()),
        "type": "request",
        "method": method,
        "params": {"name": "game/status"},
    }
    message.update(members)
    return {name: value for name, value in message.items() if value is not ...}


def renamed(message: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    return {new if name == old else name: value for name, value in message.items()}


def body(message: Any) -> bytes:
    return json.dumps(message).encode()


class Raw:
    """A bridge that writes bytes as they are given and reads the server's frames."""

    def __init__(self, stream: anyio.abc.ByteStream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder()
        self.queue: list[dict[str, Any]] = []
        self.closed = False

    async def send(self, data: bytes) -> None:
        await self.stream.send(data)

    async def next(self, timeout: float = 3.0) -> dict[str, Any] | None:
        """The next message from the server; None when it closed or said nothing in time."""
        with anyio.move_on_after(timeout):
            while not self.queue and not self.closed:
                try:
                    data = await self.stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    self.closed = True
                    break
                self.queue += [json.loads(b) for b in self.decoder.feed(data)]
        return self.queue.pop(0) if self.queue else None

    async def call(self, message: dict[str, Any]) -> dict[str, Any] | None:
        await self.send(encode_frame(body(message)))
        return await self.next()

    async def serves_on(self) -> bool:
        """True when a valid request sent now is answered with its result."""
        probe = request()
        try:
            answer = await self.call(probe)
        except (anyio.BrokenResourceError, OSError):
            return False
        return answer is not None and answer["id"] == probe["id"] and "result" in answer


@asynccontextmanager
async def raw_session(options: ProtocolOptions | None) -> AsyncIterator[Raw]:
    server = make_server(options)
    async with server.running() as address:
        assert address.port is not None
        stream = await anyio.connect_tcp("127.0.0.1", address.port)
        async with stream:
            raw = Raw(stream)
            welcome = await raw.call(request("session/hello", params=hello_params(TOKEN)))
            assert welcome is not None and "result" in welcome
            yield raw


def with_header(header: bytes, payload: bytes) -> bytes:
    return header.replace(b"@", b"%d" % len(payload)) + payload


ACCEPTED_HEADERS = {
    "content-length in lower case": b"content-length: @\r\n\r\n",
    "CONTENT-LENGTH in upper case": b"CONTENT-LENGTH: @\r\n\r\n",
    "other headers first": (
        b"Content-Type: application/json\r\nX-Extra: 1\r\nContent-Length: @\r\n\r\n"
    ),
    "spaces around the value": b"Content-Length:    @   \r\n\r\n",
    "no space after the colon": b"Content-Length:@\r\n\r\n",
}

LENIENT_HEADERS = {
    "a line without a colon after": (b"Content-Length: @\r\nGarbage\r\n\r\n", "has no colon"),
    "a line without a colon before": (b"Garbage\r\nContent-Length: @\r\n\r\n", "has no colon"),
    "the same Content-Length twice": (
        b"Content-Length: @\r\nContent-Length: @\r\n\r\n",
        "more than one Content-Length",
    ),
    "a length with a plus sign": (b"Content-Length: +@\r\n\r\n", "not a non-negative decimal"),
}

REFUSED_HEADERS = {
    "LF line ends": (b"Content-Length: @\n\n", "bare LF"),
    "two different lengths, the real one first": (
        b"Content-Length: @\r\nContent-Length: 5\r\n\r\n",
        "more than one Content-Length",
    ),
    "two different lengths, the real one last": (
        b"Content-Length: 5\r\nContent-Length: @\r\n\r\n",
        "more than one Content-Length",
    ),
    "no Content-Length": (b"Content-Type: application/json\r\n\r\n", "no Content-Length"),
    "a negative length": (b"Content-Length: -5\r\n\r\n", "not a non-negative decimal"),
    "a length that is not a number": (b"Content-Length: abc\r\n\r\n", "not a non-negative"),
    "a huge length": (b"Content-Length: 99999999999\r\n\r\n", "exceeds"),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("header", ACCEPTED_HEADERS.values(), ids=ACCEPTED_HEADERS)
async def test_header_variants_both_runtimes_take(mode: str, header: bytes) -> None:
    async with raw_session(MODES[mode]) as raw:
        sent = request()
        await raw.send(with_header(header, body(sent)))
        answer = await raw.next()
        assert answer is not None and answer["id"] == sent["id"] and "result" in answer
        assert await raw.serves_on()


@pytest.mark.parametrize(("header", "problem"), LENIENT_HEADERS.values(), ids=LENIENT_HEADERS)
async def test_header_variants_lib_gab_takes_are_framing_errors_by_default(
    header: bytes, problem: str
) -> None:
    async with raw_session(None) as raw:
        await raw.send(with_header(header, body(request())))
        answer = await raw.next()
        assert answer is not None and answer["id"] == NIL
        assert answer["error"]["code"] == -32700 and problem in answer["error"]["message"]
        assert await raw.next() is None and raw.closed


@pytest.mark.parametrize(("header", "problem"), LENIENT_HEADERS.values(), ids=LENIENT_HEADERS)
async def test_header_variants_taken_with_lib_gab_choices(header: bytes, problem: str) -> None:
    async with raw_session(ProtocolOptions.lib_gab()) as raw:
        sent = request()
        await raw.send(with_header(header, body(sent)))
        answer = await raw.next()
        assert answer is not None and answer["id"] == sent["id"] and "result" in answer
        assert await raw.serves_on()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("header", "problem"), REFUSED_HEADERS.values(), ids=REFUSED_HEADERS)
async def test_unreadable_headers_are_answered_then_the_connection_closes(
    mode: str, header: bytes, problem: str
) -> None:
    # Lib.GAB stalls on most of these, or cuts the body at the first length it finds.
    async with raw_session(MODES[mode]) as raw:
        await raw.send(with_header(header, body(request())))
        answer = await raw.next()
        assert answer is not None and answer["id"] == NIL
        assert answer["error"]["code"] == -32700 and problem in answer["error"]["message"]
        assert await raw.next() is None and raw.closed


@pytest.mark.parametrize("mode", MODES)
async def test_split_and_joined_frames_are_all_served(mode: str) -> None:
    async with raw_session(MODES[mode]) as raw:
        first, second, third = request(), request(), request()
        for byte in encode_frame(body(first)):
            await raw.send(bytes([byte]))
        await raw.send(encode_frame(body(second)) + encode_frame(body(third)))
        answers = [await raw.next() for _ in range(3)]
        assert sorted(a["id"] for a in answers if a) == sorted(
            m["id"] for m in (first, second, third)
        )


def _member_variants() -> dict[str, tuple[dict[str, Any], str]]:
    base = request()
    return {
        '"Method"': (renamed(base, "method", "Method"), "'Method'"),
        '"ID"': (renamed(request(), "id", "ID"), "'ID'"),
        '"Params"': (renamed(request(), "params", "Params"), "'Params'"),
        '"V"': (renamed(request(), "v", "V"), "'V'"),
        'v "GABP/1"': (request(v="GABP/1"), "'GABP/1'"),
    }


MEMBER_VARIANTS = _member_variants()


@pytest.mark.parametrize(("message", "named"), MEMBER_VARIANTS.values(), ids=MEMBER_VARIANTS)
async def test_member_names_in_another_case_are_refused_by_name_by_default(
    message: dict[str, Any], named: str
) -> None:
    async with raw_session(None) as raw:
        answer = await raw.call(message)
        assert answer is not None and answer["error"]["code"] == -32600
        assert named in answer["error"]["message"]
        sent_id = message.get("id", message.get("ID"))
        assert answer["id"] == (sent_id if "id" in message else NIL)
        assert await raw.serves_on()


@pytest.mark.parametrize(("message", "named"), MEMBER_VARIANTS.values(), ids=MEMBER_VARIANTS)
async def test_member_names_in_another_case_are_taken_with_lib_gab_choices(
    message: dict[str, Any], named: str
) -> None:
    async with raw_session(ProtocolOptions.lib_gab()) as raw:
        answer = await raw.call(message)
        assert answer is not None and answer.get("result") == {"text": "running"}
        assert answer["id"] == message.get("id", message.get("ID"))
        assert await raw.serves_on()


async def test_two_members_for_one_name_refused_with_lib_gab_choices() -> None:
    # Lib.GAB takes the last one (here tools/list); which one is meant cannot be known.
    message = request() | {"Method": "tools/list"}
    async with raw_session(ProtocolOptions.lib_gab()) as raw:
        answer = await raw.call(message)
        assert answer is not None and answer["id"] == message["id"]
        assert answer["error"]["code"] == -32600
        assert "'method' and 'Method' differ only in letter case" in answer["error"]["message"]
        assert await raw.serves_on()
    async with raw_session(None) as raw:
        answer = await raw.call(message)
        assert answer is not None and answer.get("result") == {"text": "running"}


def _refused_envelopes() -> dict[str, tuple[bytes, int, str, bool]]:
    """Label: (body, code, part of the message, whether the answer carries the sent id)."""
    sent = request(id="11111111-2222-4333-8444-555555555555")
    return {
        "v missing": (body(request(v=...) | {"id": sent["id"]}), -32600, "v must be", True),
        'v "gabp/1.1"': (body(sent | {"v": "gabp/1.1"}), -32600, "'gabp/1.1'", True),
        "v a number": (body(sent | {"v": 1}), -32600, "got 1", True),
        "type missing": (body(request(type=...) | {"id": sent["id"]}), -32600, "None", True),
        'type "Request"': (body(sent | {"type": "Request"}), -32600, "'Request'", True),
        '"Type"': (body(renamed(sent, "type", "Type")), -32600, "'Type'", True),
        "id a number": (body(sent | {"id": 42}), -32600, "id must be a UUID", False),
        'id "abc"': (body(sent | {"id": "abc"}), -32600, "id must be a UUID", False),
        "id null": (body(sent | {"id": None}), -32600, "id must be a UUID", False),
        "id an object": (body(sent | {"id": {"a": 1}}), -32600, "id must be a UUID", False),
        "id missing": (body(request(id=...)), -32600, "id must be a UUID", False),
        "params an array": (body(sent | {"params": [1]}), -32600, "must be an object", True),
        "params null": (body(sent | {"params": None}), -32602, "name", True),
        "an empty object": (b"{}", -32600, "v must be", False),
        "an array": (b"[1, 2]", -32600, "JSON object", False),
        "a string": (b'"hello"', -32600, "JSON object", False),
        "an empty body": (b"", -32700, "not valid JSON", False),
        "not JSON": (b"{nope", -32700, "not valid JSON", False),
        "trailing garbage": (body(sent) + b"xyz", -32700, "Extra data", True),
        "two objects in one body": (body(sent) + body(request()), -32700, "Extra data", True),
        "a byte that is not UTF-8": (
            body(sent).replace(b"game/status", b"game/st\xe9tus"),
            -32700,
            "utf-8",
            True,
        ),
        "a lone surrogate escape": (
            body(sent).replace(b"game/status", b"game/st\\ud800tus"),
            -32700,
            "lone surrogate",
            True,
        ),
    }


REFUSED_ENVELOPES = _refused_envelopes()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("payload", "code", "part", "with_id"), REFUSED_ENVELOPES.values(), ids=REFUSED_ENVELOPES
)
async def test_envelopes_lib_gab_drops_or_misreads_are_answered_and_the_connection_serves_on(
    mode: str, payload: bytes, code: int, part: str, with_id: bool
) -> None:
    async with raw_session(MODES[mode]) as raw:
        await raw.send(encode_frame(payload))
        answer = await raw.next()
        assert answer is not None and answer["error"]["code"] == code
        assert part in answer["error"]["message"]
        assert answer["id"] == ("11111111-2222-4333-8444-555555555555" if with_id else NIL)
        assert await raw.serves_on()


TAKEN_ENVELOPES = {
    "a jsonrpc member": body(request(jsonrpc="2.0")),
    "an unknown member": body(request(extra={"x": 1})),
    "trailing white space": body(request()) + b" \r\n",
    "a byte order mark": b"\xef\xbb\xbf" + body(request()),
    "non-ASCII text": body(request(params={"name": "game/status", "arguments": {}, "n": "é"})),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("payload", TAKEN_ENVELOPES.values(), ids=TAKEN_ENVELOPES)
async def test_envelopes_both_runtimes_take(mode: str, payload: bytes) -> None:
    async with raw_session(MODES[mode]) as raw:
        await raw.send(encode_frame(payload))
        answer = await raw.next()
        assert answer is not None and answer.get("result") == {"text": "running"}
        assert await raw.serves_on()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["response", "event"])
async def test_a_response_or_event_from_the_bridge_gets_no_answer(mode: str, kind: str) -> None:
    message: dict[str, Any] = {"v": "gabp/1", "id": str(uuid.uuid4()), "type": kind}
    message |= {"result": {}} if kind == "response" else {"channel": "x/y", "seq": 0}
    async with raw_session(MODES[mode]) as raw:
        await raw.send(encode_frame(body(message)))
        probe = request()
        answer = await raw.call(probe)
        assert answer is not None and answer["id"] == probe["id"] and "result" in answer


@pytest.mark.parametrize("mode", MODES)
async def test_a_bridge_gone_before_its_answer_leaves_the_game_serving(mode: str) -> None:
    # Lib.GAB 1.0.3 under Mono ends the whole process here (section 3).
    server = make_server(MODES[mode])
    async with server.running() as address:
        assert address.port is not None
        for _ in range(3):
            stream = await anyio.connect_tcp("127.0.0.1", address.port)
            hello = request("session/hello", params=hello_params(TOKEN))
            await stream.send(encode_frame(body(hello)) + encode_frame(body(request())))
            await stream.aclose()
        stream = await anyio.connect_tcp("127.0.0.1", address.port)
        async with stream:
            raw = Raw(stream)
            welcome = await raw.call(request("session/hello", params=hello_params(TOKEN)))
            assert welcome is not None and "result" in welcome
            assert await raw.serves_on()
