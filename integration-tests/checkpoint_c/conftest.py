"""Checkpoint C fixtures: the real ``rimbridge-sim`` process and a recording bridge connection.

``launch(policy, *flags)`` starts the installed ``rimbridge-sim`` executable on port 0 with a
fresh token, ``--enable-test-tools`` and ``--seed 7``, waits for ``listening on
127.0.0.1:<port>`` on stderr, and yields a :class:`Sim`. ``sim.bridge`` is a
:class:`gabp.Connection` that said hello and subscribed to the three attention channels, as a
bridge does. The byte stream under it is tapped: every message the bridge receives is recorded
in arrival order (events and responses alike, before the connection acts on them) and checked
against the JSON Schemas (events by channel, responses by the method of their request). At the
end the process gets SIGTERM and must exit 0, and no received message may have broken a
schema.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
from mcp import StdioServerParameters

from gabp import Connection, RemoteError, generate_token, new_id
from gabp.framing import FrameDecoder
from gabp_schemas import METHODS, SchemaValidationError, validate

EXECUTABLE = Path(sys.executable).parent / "rimbridge-sim"
ATTENTION_CHANNELS = ["attention/opened", "attention/updated", "attention/cleared"]
LISTENING = re.compile(rb"listening on 127\.0\.0\.1:(\d+)")
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0
GABS = Path(sys.executable).parent / "gabs"
OTHER_BRIDGE = os.environ.get("GABS_FLOW_BRIDGE", "")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# -- the bridge a documented flow runs through --------------------------------------------------


@dataclass(frozen=True)
class FlowBridge:
    """The real ``gabs`` executable, or (``other``) another GABS build such as the Go bridge
    1.1.0, named by ``GABS_FLOW_BRIDGE``."""

    other: str = ""

    def params(self, config_dir: Path, config: dict[str, Any]) -> StdioServerParameters:
        """Write ``config`` as ``config_dir/config.json`` and say how to start the bridge on
        it over stdio (another build gets its own flags, a ``HOME`` of its own and no
        ``timeouts``, which Go 1.1.0 does not read)."""
        if self.other:
            for game in config.get("games", {}).values():
                game.pop("timeouts", None)
            home = config_dir / "home"
            home.mkdir()
            environment = {
                k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))
            }
            params = StdioServerParameters(
                command=self.other,
                args=["server", "stdio", "--configDir", str(config_dir), "--log-level", "warn"],
                env={**environment, "HOME": str(home)},
            )
        else:
            params = StdioServerParameters(
                command=str(GABS),
                args=["serve", "--config-dir", str(config_dir), "--log-level", "WARNING"],
                env={"GABS_CONFIG_DIR": str(config_dir)},
            )
        (config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
        return params


@pytest.fixture(
    params=[
        pytest.param("", id="gabs"),
        pytest.param(
            OTHER_BRIDGE,
            id="other-bridge",
            marks=pytest.mark.skipif(not OTHER_BRIDGE, reason="GABS_FLOW_BRIDGE is not set"),
        ),
    ]
)
def flow_bridge(request: pytest.FixtureRequest) -> FlowBridge:
    """Each documented flow through ``gabs``, and through ``GABS_FLOW_BRIDGE`` when set."""
    return FlowBridge(str(request.param))


# -- what the bridge receives -------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One message the bridge received, in arrival order."""

    index: int
    message: dict[str, Any]
    method: str | None
    """For a response: the method of the request it answers (None if unknown)."""

    @property
    def kind(self) -> str:
        return str(self.message.get("type"))

    @property
    def channel(self) -> str | None:
        return self.message.get("channel")

    @property
    def payload(self) -> Any:
        return self.message.get("payload")

    @property
    def id(self) -> str:
        return str(self.message.get("id"))


class Recorder:
    """Every message received on one connection, validated, in arrival order, awaitable."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.received: list[Received] = []
        self.invalid: list[str] = []
        self._methods: dict[str, str] = {}
        self._decoder = FrameDecoder()
        self._changed = anyio.Event()

    def expect(self, request_id: str, method: str) -> None:
        """Remember the method of a request about to be sent (responses do not name it)."""
        self._methods[request_id] = method

    def feed(self, data: bytes) -> None:
        for body in self._decoder.feed(data):
            self._record(json.loads(body))

    def _record(self, message: dict[str, Any]) -> None:
        method = None
        if message.get("type") == "response":
            method = self._methods.get(str(message.get("id")))
        try:
            validate(message, method=method if method in METHODS else None)
        except SchemaValidationError as error:
            self.invalid.append(f"{self.name}: {message!r}: {error}")
        self.received.append(Received(len(self.received), message, method))
        self._changed.set()
        self._changed = anyio.Event()

    # -- reading the record

    def events(self, channel: str | None = None) -> list[Received]:
        return [
            r
            for r in self.received
            if r.kind == "event" and (channel is None or r.channel == channel)
        ]

    def attention_events(self) -> list[tuple[str, dict[str, Any]]]:
        """``(channel, payload)`` of every attention event, in arrival order."""
        return [
            (str(r.channel), r.payload)
            for r in self.received
            if r.kind == "event" and str(r.channel).startswith("attention/")
        ]

    def response_to(self, request_id: str) -> Received:
        found = [r for r in self.received if r.kind == "response" and r.id == request_id]
        assert len(found) == 1, (request_id, found)
        return found[0]

    def timeline(self, start: int = 0) -> list[str]:
        """``event:<channel>`` / ``response:<method>`` from message ``start`` on."""
        return [
            f"event:{r.channel}" if r.kind == "event" else f"{r.kind}:{r.method}"
            for r in self.received[start:]
        ]

    def mark(self) -> int:
        """The index the next received message will get."""
        return len(self.received)

    async def wait_for(
        self, predicate: Callable[[Received], bool], *, start: int = 0, timeout: float = 10.0
    ) -> Received:
        """The first message from ``start`` on that matches, waiting for it if need be."""
        with anyio.fail_after(timeout):
            while True:
                changed = self._changed
                for received in self.received[start:]:
                    if predicate(received):
                        return received
                await changed.wait()


class TappedStream(anyio.abc.ByteStream):
    """A byte stream that shows every received chunk to a :class:`Recorder` first."""

    def __init__(self, inner: anyio.abc.ByteStream, recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._inner.receive(max_bytes)
        self._recorder.feed(data)
        return data

    async def send(self, item: bytes) -> None:
        await self._inner.send(item)

    async def send_eof(self) -> None:
        await self._inner.send_eof()

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        return self._inner.extra_attributes


# -- one bridge connection ------------------------------------------------------------------------


@dataclass
class Bridge:
    """A bridge-side connection to the sim (hello said, attention channels subscribed)."""

    conn: Connection
    recorder: Recorder
    hello: dict[str, Any]

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float = 10.0,
        request_id: str | None = None,
    ) -> Any:
        request_id = request_id or new_id()
        self.recorder.expect(request_id, method)
        return await self.conn.request(method, params, timeout=timeout, request_id=request_id)

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float = 10.0,
        request_id: str | None = None,
        field: str = "arguments",
    ) -> tuple[str, Any]:
        """``tools/call``; returns ``(operation id, result)`` (the operation id is the request
        id). ``field="parameters"`` sends the arguments the way the Go bridge does."""
        request_id = request_id or new_id()
        params: dict[str, Any] = {"name": tool}
        if arguments is not None:
            params[field] = dict(arguments)
        result = await self.request("tools/call", params, timeout=timeout, request_id=request_id)
        return request_id, result

    async def call_error(
        self, tool: str, arguments: Mapping[str, Any] | None = None, *, timeout: float = 10.0
    ) -> tuple[str, RemoteError]:
        """A ``tools/call`` expected to fail in-band; returns ``(operation id, error)``."""
        request_id = new_id()
        try:
            await self.call(tool, arguments, timeout=timeout, request_id=request_id)
        except RemoteError as error:
            return request_id, error
        raise AssertionError(f"{tool} {arguments} did not fail")

    async def attention(self) -> dict[str, Any] | None:
        """``attention/current``: the open item or None."""
        result = await self.request("attention/current", {})
        assert set(result) == {"attention"}
        item: dict[str, Any] | None = result["attention"]
        return item

    async def ack(self, attention_id: str) -> dict[str, Any]:
        """``attention/ack``: the whole answer."""
        answer: dict[str, Any] = await self.request("attention/ack", {"attentionId": attention_id})
        return answer


@asynccontextmanager
async def bridge_connection(port: int, token: str, name: str = "bridge") -> AsyncIterator[Bridge]:
    """Connect, say hello, subscribe to the attention channels; close on exit."""
    recorder = Recorder(name)
    stream = await anyio.connect_tcp("127.0.0.1", port)
    refused: RemoteError | None = None
    async with Connection(TappedStream(stream, recorder), name=name, on_event=_ignore) as conn:
        bridge = Bridge(conn, recorder, {})
        try:
            bridge.hello = await bridge.request(
                "session/hello",
                {
                    "token": token,
                    "bridgeVersion": "1.1.0",
                    "platform": "linux",
                    "launchId": new_id(),
                },
            )
        except RemoteError as error:
            refused = error  # raised below, outside the connection's task group
        else:
            subscribed = await bridge.request("events/subscribe", {"channels": ATTENTION_CHANNELS})
            assert subscribed == {"subscribed": ATTENTION_CHANNELS}
            try:
                yield bridge
            finally:
                assert recorder.invalid == []
    if refused is not None:
        assert recorder.invalid == []
        raise refused


def _ignore(_event: Any) -> None:
    """Events are recorded by the tap; the connection only has to accept them."""


# -- the process ----------------------------------------------------------------------------------


@dataclass
class Sim:
    """A running ``rimbridge-sim`` process and the bridge connected to it."""

    process: anyio.abc.Process
    port: int
    token: str
    policy: str
    bridge: Bridge
    stderr: bytearray
    _stack: AsyncExitStack = field(repr=False)

    env: dict[str, str] = field(default_factory=dict)
    """The GABS handoff variables the process was started with (none: flags)."""

    async def connect(self, name: str = "second", *, token: str | None = None) -> Bridge:
        """Another bridge connection (closed with the sim); ``token`` overrides the right one."""
        connection = bridge_connection(self.port, token or self.token, name)
        return await self._stack.enter_async_context(connection)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _drain(stream: anyio.abc.ByteReceiveStream, into: bytearray) -> None:
    # keep reading stderr so the process never blocks on a full pipe
    async for chunk in stream:
        into.extend(chunk)


@asynccontextmanager
async def run_sim(
    policy: str | None,
    *flags: str,
    gabs_env: bool = False,
    data_dir: Path,
) -> AsyncIterator[Sim]:
    """Start ``rimbridge-sim``. ``gabs_env``: hand port, token and game id over the way GABS
    does (``GABP_SERVER_PORT`` = a free port, ``GABP_TOKEN``, ``GABS_GAME_ID``) instead of
    ``--port 0 --token``. ``policy=None`` leaves the process its default policy."""
    token = generate_token()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GABP_", "GABS_"))}
    args = [str(EXECUTABLE)]
    env: dict[str, str] = {}
    if gabs_env:
        env = {
            "GABP_SERVER_PORT": str(free_port()),
            "GABP_TOKEN": token,
            "GABS_GAME_ID": "rimworld",
        }
    else:
        args += ["--port", "0", "--token", token]
    if policy is not None:
        args += ["--policy", policy]
    args += ["--enable-test-tools", "--seed", "7", "--log-level", "WARNING"]
    args += ["--data-dir", str(data_dir), *flags]
    process = await anyio.open_process(args, env={**clean, **env}, stdin=None, stdout=None)
    stderr = bytearray()
    try:
        assert process.stderr is not None
        with anyio.fail_after(START_TIMEOUT):
            while (found := LISTENING.search(stderr)) is None:
                try:
                    stderr.extend(await process.stderr.receive())
                except anyio.EndOfStream:
                    raise AssertionError(f"rimbridge-sim exited: {stderr.decode()}") from None
        port = int(found.group(1))
        async with anyio.create_task_group() as tg:
            tg.start_soon(_drain, process.stderr, stderr)
            async with AsyncExitStack() as stack:
                bridge = await stack.enter_async_context(bridge_connection(port, token, "bridge"))
                yield Sim(process, port, token, policy or "recommended", bridge, stderr, stack, env)
            # every connection is closed: stop the process as a launcher does
            process.send_signal(signal.SIGTERM)
            with anyio.fail_after(STOP_TIMEOUT):
                code = await process.wait()
            assert code == 0, stderr.decode(errors="replace")
    finally:
        if process.returncode is None:
            process.kill()
            with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_TIMEOUT):
                await process.wait()


@pytest.fixture
def launch(tmp_path: Path) -> Callable[..., Any]:
    """``async with launch("faithful", "--tick-rate", "0") as sim: ...``"""

    def launch_(policy: str | None = "recommended", *flags: str, **options: Any) -> Any:
        return run_sim(policy, *flags, data_dir=tmp_path, **options)

    return launch_
