"""Checkpoint F fuzzing (hypothesis): every input gets a defined answer, nothing crashes or hangs.

* **GABP into lib_gab**: arbitrary bytes, arbitrary JSON values and mutated valid messages on
  fresh loopback connections to one running ``GabpServer``. Each connection gets well-formed
  error responses or a clean close; a good bridge still works afterwards.
* **GABP into gabs**: a fake game (this file) speaks a correct handshake to a
  ``gabs.session.GameSession`` and then sends hostile events, responses and requests. Bad
  attention payloads are ignored, the session stays up, and the gate always agrees with the
  cache; a broken frame makes the session reconnect, never crash.
* **MCP into gabs**: generated argument dicts for each of the 13 bridge tools through the
  in-memory MCP client: every call returns a result (success, or ``isError`` with a message),
  never an exception, a hang or an internal error.

Servers start once per test; hypothesis examples only open connections or make calls.
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from gabp import MessageError
from gabp.framing import FrameDecoder, FramingError, encode_frame
from gabp.messages import (
    SCHEMA_VERSION,
    AppInfo,
    Attention,
    Capabilities,
    HelloResult,
    Limits,
    parse_payload,
)
from gabs.attention import Gate
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import BRIDGE_TOOLS, ToolListNotifier, build_server
from gabs.session import GameSession
from lib_gab import GabpServer, ToolError, UrgentEntry
from lib_gab.testing import bridge_session, hello_params

TOKEN = "f022" * 16
NIL = "00000000-0000-0000-0000-000000000000"
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=16),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def frame(message: Any) -> bytes:
    return encode_frame(json.dumps(message).encode())


def request(method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"v": "gabp/1", "id": str(uuid.uuid4()), "type": "request"}
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message


# ---------------------------------------------------------------------------------------------
# GABP into lib_gab

VALID_REQUESTS = [
    request("tools/list"),
    request("tools/call", {"name": "fuzz/echo", "arguments": {"text": "hi"}}),
    request("tools/call", {"name": "fuzz/raise", "arguments": {"message": "boom"}}),
    request("attention/current"),
    request("attention/ack", {"attentionId": "att-x-1"}),
    request("events/subscribe", {"channels": ["attention/opened"]}),
    request("resources/list"),
    request("session/hello", hello_params(TOKEN)),
]


@st.composite
def mutated_message(draw: st.DrawFn) -> dict[str, Any]:
    """A valid request with one to three keys deleted, replaced or added (params included)."""
    message = json.loads(json.dumps(draw(st.sampled_from(VALID_REQUESTS))))
    for _ in range(draw(st.integers(1, 3))):
        target = message
        if isinstance(message.get("params"), dict) and draw(st.booleans()):
            target = message["params"]
        keys = sorted(target)
        action = draw(st.sampled_from(["delete", "replace", "add"]))
        if action == "delete" and keys:
            del target[draw(st.sampled_from(keys))]
        elif action == "replace" and keys:
            target[draw(st.sampled_from(keys))] = draw(JSON)
        else:
            target[draw(st.text(max_size=8))] = draw(JSON)
    return message


@st.composite
def bad_framing(draw: st.DrawFn) -> bytes:
    body = json.dumps(draw(st.sampled_from(VALID_REQUESTS))).encode()
    kind = draw(st.sampled_from(["short", "long", "junk-header", "lf", "huge", "negative"]))
    if kind == "short":
        return b"Content-Length: %d\r\n\r\n" % (len(body) - draw(st.integers(1, 10))) + body
    if kind == "long":
        return b"Content-Length: %d\r\n\r\n" % (len(body) + draw(st.integers(1, 10))) + body
    if kind == "junk-header":
        return draw(st.binary(min_size=1, max_size=64)) + b"\r\n\r\n" + body
    if kind == "lf":
        return b"Content-Length: %d\n\n" % len(body) + body
    if kind == "huge":
        return b"Content-Length: 99999999999\r\n\r\n" + body
    return b"Content-Length: -5\r\n\r\n" + body


PAYLOADS = st.one_of(
    st.binary(max_size=512),
    JSON.map(frame),
    mutated_message().map(frame),
    bad_framing(),
    st.lists(st.one_of(JSON.map(frame), mutated_message().map(frame)), min_size=2, max_size=4).map(
        b"".join
    ),
)


def _exchange(port: int, payload: bytes, *, hello: bool) -> list[dict[str, Any]]:
    """Send (after a hello, maybe) then half-close; read to EOF. Returns the messages read."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.settimeout(10)
        decoder = FrameDecoder()
        messages: list[dict[str, Any]] = []
        if hello:
            sock.sendall(frame(request("session/hello", hello_params(TOKEN))))
            while not messages:
                chunk = sock.recv(65536)
                assert chunk, "closed before answering a good hello"
                messages += [json.loads(b) for b in decoder.feed(chunk)]
            assert "result" in messages[0], messages[0]
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            try:
                messages += [json.loads(b) for b in decoder.feed(chunk)]
            except FramingError:  # a truncated answer before a reset is still a close
                break
            if not chunk:
                break
        return messages[1 if hello else 0 :]


def _assert_well_formed_answers(messages: list[dict[str, Any]]) -> None:
    for message in messages:
        assert message["v"] == "gabp/1" and message["type"] == "response", message
        assert isinstance(message["id"], str)
        if "error" in message:
            error = message["error"]
            assert isinstance(error["code"], int) and isinstance(error["message"], str), message
            assert error["message"], message
            assert error["code"] != -32603, message  # no internal errors
        else:
            assert "result" in message, message


def _fuzz_game() -> GabpServer:
    server = GabpServer(app_name="Fuzz", app_version="1", agent_id="fuzz", token=TOKEN)
    attention = server.enable_attention()

    @server.tool("fuzz/echo", description="Echo.")
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    @server.tool("fuzz/raise", description="Open attention and fail in-band.")
    def fail(message: str) -> None:
        attention.report(UrgentEntry(level="error", message=message))
        # an in-band tool failure (-32000); -32603 is kept for real internal errors
        raise ToolError(message)

    return server


def test_lib_gab_answers_or_closes_cleanly_on_any_input_and_keeps_serving() -> None:
    server = _fuzz_game()
    with (
        start_blocking_portal("asyncio") as portal,
        portal.wrap_async_context_manager(server.running()) as address,
    ):
        assert address.port is not None
        port = address.port

        @SETTINGS
        @given(payload=PAYLOADS, hello=st.booleans())
        def check(payload: bytes, hello: bool) -> None:
            _assert_well_formed_answers(_exchange(port, payload, hello=hello))

        check()

        async def good_bridge() -> Any:
            async with bridge_session(address, TOKEN) as bridge:
                return await bridge.request(
                    "tools/call", {"name": "fuzz/echo", "arguments": {"text": "still here"}}
                )

        assert portal.call(good_bridge) == {"text": "still here"}

        async def all_closed() -> None:
            with anyio.fail_after(10):
                while server.connection_count:  # noqa: ASYNC110 (no event to wait on)
                    await anyio.sleep(0.01)

        portal.call(all_closed)  # no fuzzed connection lingers


# ---------------------------------------------------------------------------------------------
# GABP into gabs: a fake game that turns hostile after the handshake


def _attention(attention_id: str, sequence: int) -> dict[str, Any]:
    return Attention(
        attention_id=attention_id,
        state="open",
        severity="error",
        blocking=True,
        state_invalidated=False,
        summary="error: Boom",
        opened_at_sequence=sequence,
        latest_sequence=sequence,
        total_urgent_entries=1,
        sample=[],
    ).to_wire()


class FakeGame:
    """Answers the handshake correctly; everything else it sends is up to the test."""

    TOOLS = [
        {
            "name": "game/act",
            "title": "Act",
            "description": "Act.",
            "inputSchema": {"type": "object"},
        },
        {
            "name": "game/look",
            "title": "Look",
            "description": "Look.",
            "inputSchema": {"type": "object"},
            "tags": ["read-only"],
        },
    ]

    def __init__(self) -> None:
        self.stream: anyio.abc.ByteStream | None = None
        self.lock = anyio.Lock()
        self.current: dict[str, Any] | None = None
        self.seq = 0
        self.connections = 0
        self.port = 0

    def hello(self) -> dict[str, Any]:
        return HelloResult(
            agent_id="fake",
            app=AppInfo(name="Fake", version="1"),
            capabilities=Capabilities(
                methods=[
                    "session/hello",
                    "tools/list",
                    "tools/call",
                    "events/subscribe",
                    "attention/current",
                    "attention/ack",
                ],
                events=["attention/opened", "attention/updated", "attention/cleared"],
                resources=[],
                limits=Limits(max_message_size=1 << 20),
            ),
            schema_version=SCHEMA_VERSION,
        ).to_wire()

    def answer(self, message: dict[str, Any]) -> Any:
        method, params = message.get("method"), message.get("params") or {}
        if method == "session/hello":
            return self.hello()
        if method == "tools/list":
            return {"tools": self.TOOLS}
        if method == "events/subscribe":
            return {"subscribed": params.get("channels", [])}
        if method == "attention/current":
            return {"attention": self.current}
        if method == "tools/call":
            return {"ok": True}
        return {"attention": None}

    async def send(self, *frames: bytes) -> None:
        async with self.lock:
            assert self.stream is not None
            await self.stream.send(b"".join(frames))

    def event(self, channel: str, payload: Any, **override: Any) -> bytes:
        """An event frame; ``seq=...`` overrides the (otherwise increasing) sequence."""
        self.seq += 1
        return frame(
            {
                "v": "gabp/1",
                "id": str(uuid.uuid4()),
                "type": "event",
                "channel": channel,
                "seq": override.get("seq", self.seq),
                "payload": payload,
            }
        )

    async def handle(self, stream: anyio.abc.ByteStream) -> None:
        self.stream = stream
        self.connections += 1
        decoder = FrameDecoder()
        async with stream:
            while True:
                try:
                    data = await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    return
                for body in decoder.feed(data):
                    message = json.loads(body)
                    if message.get("type") != "request":
                        continue
                    response = {
                        "v": "gabp/1",
                        "id": message["id"],
                        "type": "response",
                        "result": self.answer(message),
                    }
                    await self.send(frame(response))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[FakeGame]:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        self.port = listener.extra(anyio.abc.SocketAttribute.local_port)
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, self.handle)
            try:
                yield self
            finally:
                tg.cancel_scope.cancel()


REQUIRED_KEYS = [
    "attentionId",
    "state",
    "severity",
    "blocking",
    "stateInvalidated",
    "summary",
    "latestSequence",
    "totalUrgentEntries",
]


@st.composite
def bad_attention_payload(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(JSON)
    payload = _attention(f"att-bad-{draw(st.integers(0, 9))}", 1)
    key = draw(st.sampled_from(REQUIRED_KEYS))
    if draw(st.booleans()):
        del payload[key]
    else:
        payload[key] = draw(st.sampled_from([None, [], {}, "x" * 3, -7, 1.5, True]))
    return payload


def _invalid(channel: str, payload: Any) -> bool:
    try:
        parse_payload(channel, payload)
    except (MessageError, ValueError):
        return True
    return False


CHANNELS = st.sampled_from(["attention/opened", "attention/updated", "attention/cleared"])


@st.composite
def hostile_frame(draw: st.DrawFn, game: FakeGame) -> bytes:
    kind = draw(st.sampled_from(["payload", "seq", "channel", "response", "request", "json"]))
    if kind == "payload":
        channel = draw(CHANNELS)
        payload = draw(bad_attention_payload().filter(lambda p: _invalid(channel, p)))
        return game.event(channel, payload)
    if kind == "seq":
        return game.event(
            draw(CHANNELS),
            _attention("att-seq", 1),
            seq=draw(
                JSON.filter(
                    lambda v: not (isinstance(v, int) and not isinstance(v, bool) and v >= 0)
                )
            ),
        )
    if kind == "channel":
        return game.event(draw(st.sampled_from(["", "attention/", "Attention/Opened"])), draw(JSON))
    if kind == "response":
        body: dict[str, Any] = {"v": "gabp/1", "id": str(uuid.uuid4()), "type": "response"}
        body[draw(st.sampled_from(["result", "error"]))] = draw(JSON)
        return frame(body)
    if kind == "request":
        return frame(
            request(draw(st.sampled_from(["tools/list", "x/y", "session/hello"])), draw(JSON))
        )
    return encode_frame(draw(st.binary(max_size=64)))


async def _expect_gate(session: GameSession, attention_id: str | None) -> None:
    act = await session.gate_check("game/act")
    look = await session.gate_check("game/look")
    snapshot = session.cache.snapshot()
    assert look.allowed, look
    if attention_id is None:
        assert snapshot is None and act.allowed, (snapshot, act)
    else:
        assert snapshot is not None and snapshot.attention_id == attention_id
        assert (act.allowed, act.reason) == (False, "blocked")
        assert act.attention is not None and act.attention.attention_id == attention_id


def test_gabs_session_ignores_hostile_game_messages_and_keeps_the_gate_consistent() -> None:
    game = FakeGame()
    counter = iter(range(1, 1_000_000))
    with start_blocking_portal("asyncio") as portal:
        stack = portal.wrap_async_context_manager(game.running())
        stack.__enter__()
        try:
            session = GameSession(
                "fake", port=game.port, token=TOKEN, gate=Gate(), liveness_interval=3600
            )
            running, _ = portal.start_task(session.run)

            async def scenario(frames: list[bytes]) -> None:
                number = next(counter)
                item = f"att-fuzz-{number}"
                # attention/current agrees with the events (a bridge may ask after a seq gap)
                game.current = _attention(item, number)
                await game.send(game.event("attention/opened", game.current))
                await game.send(*frames)
                await session.refresh_tools()  # answered after every frame above: a barrier
                assert session.connected and not running.done()
                await _expect_gate(session, item)
                cleared = {**_attention(item, number), "state": "cleared", "blocking": False}
                game.current = None
                await game.send(game.event("attention/cleared", cleared), *frames)
                await session.refresh_tools()
                await _expect_gate(session, None)
                outcome = await session.call_tool("game/act", {})
                assert (outcome.executed, outcome.status) == (True, "ok")

            @SETTINGS
            @given(data=st.data())
            def check(data: st.DataObject) -> None:
                frames = data.draw(st.lists(hostile_frame(game), max_size=6))
                portal.call(scenario, frames)

            check()
            assert game.connections == 1

            # a frame that breaks the framing closes the connection: the session reconnects
            async def break_and_recover() -> None:
                game.current = _attention("att-after", 1)
                await game.send(b"Content-Length: nope\r\n\r\n{}")
                with anyio.fail_after(10):
                    while game.connections < 2 or session.state != "connected":  # noqa: ASYNC110
                        await anyio.sleep(0.02)
                await _expect_gate(session, "att-after")

            portal.call(break_and_recover)
            assert not running.done() and session.reconnects == 1
            portal.call(session.close)
            running.result(timeout=10)
        finally:
            stack.__exit__(None, None, None)


# ---------------------------------------------------------------------------------------------
# MCP into gabs: generated arguments for every bridge tool

GAME_IDS = st.sampled_from(["sim", "other", "", "sim ", "../sim", "s" * 70, "sim\u0000"])
TOOL_NAMES = st.sampled_from(
    [
        "sim/echo",
        "sim/break",
        "sim/status",
        "echo",
        "nope/nothing",
        "",
        "games_list",
        "sim_sim_echo",
    ]
)


def _value_for(name: str) -> st.SearchStrategy[Any]:
    special: dict[str, st.SearchStrategy[Any]] = {
        "gameId": GAME_IDS | JSON,
        "tool": TOOL_NAMES | JSON,
        "attentionId": st.sampled_from(["att-x-1", ""]) | st.text(max_size=12) | JSON,
        "arguments": st.dictionaries(st.text(max_size=6), JSON, max_size=3) | JSON,
        "port": st.integers(-5, 70_000) | JSON,
        "token": st.text(max_size=40) | JSON,
        "timeout": st.floats(-1, 0.5) | JSON,
    }
    return special.get(name, JSON)


def _arguments(tool: str) -> st.SearchStrategy[dict[str, Any]]:
    names = sorted(BRIDGE_TOOLS[tool].input_schema["properties"])
    guided = (
        st.sets(st.sampled_from(names), max_size=len(names)).flatmap(
            lambda chosen: st.fixed_dictionaries({n: _value_for(n) for n in sorted(chosen)})
        )
        if names
        else st.just({})
    )
    noisy = st.dictionaries(
        st.sampled_from([*names, "extra", ""]) | st.text(max_size=6), JSON, max_size=4
    )
    return guided | noisy


def _check_result(tool: str, arguments: dict[str, Any], result: types.CallToolResult) -> None:
    text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
    passed_through = not result.is_error and "gabs/call" in (result.meta or {})
    # a game's own result passes through as it is (an empty text included)
    assert text.strip() or passed_through, (tool, arguments, result)
    data = result.structured_content
    assert isinstance(data, dict), (tool, arguments, result)
    assert data.get("status") != "internal_error", (tool, arguments, text)
    if result.is_error:
        assert data.get("status") or data.get("code") or data.get("executed") is False, data


@asynccontextmanager
async def _bridge(tmp_path: Path) -> AsyncIterator[tuple[Client, GabpServer]]:
    game = GabpServer(app_name="Sim", app_version="1", agent_id="sim", token=TOKEN)
    attention = game.enable_attention()

    @game.tool("sim/echo", description="Echo.")
    def echo(text: str = "") -> dict[str, str]:
        return {"text": text}

    @game.tool("sim/break", description="Open blocking attention.")
    def broken(why: str = "Map lost") -> dict[str, bool]:
        attention.report(UrgentEntry(level="error", message=why))
        return {"ok": True}

    @game.tool("sim/status", description="Status.", tags=["status"])
    def status() -> dict[str, str]:
        return {"status": "ok"}

    fast = {"connectSeconds": 1, "callSeconds": 2, "startSeconds": 1, "stopGraceSeconds": 0}
    entry = {
        "launchMode": "CustomCommand",
        "target": "not-a-real-game-executable",
        "timeouts": fast,
    }
    config = GabsConfig.from_json(
        {
            "version": "1.0",
            "games": {gid: {"id": gid, "name": gid, **entry} for gid in ("sim", "other")},
        },
        config_dir=tmp_path,
    )
    notifier = ToolListNotifier()
    async with AsyncExitStack() as stack:
        address = await stack.enter_async_context(game.running())
        assert address.port is not None
        manager = await stack.enter_async_context(
            GameManager(config, on_tools_changed=notifier, liveness_interval=3600)
        )
        await manager.connect("sim", port=address.port, token=TOKEN)
        client = await stack.enter_async_context(Client(build_server(manager, notifier=notifier)))
        yield client, game


@pytest.mark.parametrize("tool", sorted(BRIDGE_TOOLS))
def test_every_bridge_tool_answers_generated_arguments_with_a_defined_result(
    tool: str, tmp_path: Path
) -> None:
    with (
        start_blocking_portal("asyncio") as portal,
        portal.wrap_async_context_manager(_bridge(tmp_path)) as (client, _game),
    ):

        async def call(arguments: dict[str, Any]) -> types.CallToolResult:
            with anyio.fail_after(20):
                return await client.call_tool(tool, arguments)

        @settings(SETTINGS, max_examples=40)
        @given(arguments=_arguments(tool))
        def check(arguments: dict[str, Any]) -> None:
            _check_result(tool, arguments, portal.call(call, arguments))

        check()
        # the bridge still answers normally afterwards
        listed = portal.call(call, {}) if tool == "games_list" else None
        if listed is not None:
            assert not listed.is_error


async def test_a_failed_launch_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    with anyio.fail_after(20):
        async with _bridge(tmp_path) as (client, _game):
            result = await client.call_tool("games_start", {"gameId": "other"})
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["code"] == "launch_spec_unresolvable"
    assert result.structured_content["causeClass"] == "config"


async def test_connecting_to_a_closed_port_is_refused_not_an_internal_error(
    tmp_path: Path,
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    with anyio.fail_after(20):
        async with _bridge(tmp_path) as (client, _game):
            result = await client.call_tool(
                "games_connect", {"gameId": "other", "port": dead, "token": "0" * 64, "timeout": 2}
            )
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["code"] == "blocked_unknown_state"
