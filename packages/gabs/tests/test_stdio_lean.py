"""The stdio transport in-process, over real pipes: game calls the transport answers itself (the
lean path) against the same calls through the SDK's dispatch, cancellation, progress, the gate,
stdin's end, and ``Content-Length`` framing."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import BridgeServer, ToolListNotifier, build_server, initialization_options
from gabs.transports.stdio import framed_stdio
from gabs.transports.stdio_calls import LeanCalls, plain_call
from gabs.transports.stdio_wire import open_wire
from lib_gab import GabpServer, UrgentEntry

TOKEN = "cd34" * 16
#: Fields that differ from one run to the next by design: ids, times, and the hash and token
#: estimate of a context that quotes an id.
VOLATILE = frozenset(
    {"operationId", "causalOperationId", "durationMs", "attentionId", "contextHash", "tokens"}
)


class Game:
    """A lib_gab game: a quick tool, one that raises attention, a read-only one, a slow one."""

    def __init__(self) -> None:
        self.server = GabpServer(app_name="Sim", app_version="1", agent_id="sim", token=TOKEN)
        self.slow_started = anyio.Event()
        self.slow_release = anyio.Event()
        self.drafted = 0
        attention = self.server.enable_attention()

        @self.server.tool("colony/draft", description="Draft a pawn.")
        def draft(pawn: str) -> dict[str, Any]:
            self.drafted += 1
            return {"drafted": pawn, "text": f"{pawn} drafted"}

        @self.server.tool("colony/break_map", description="Succeed, then lose the map.")
        def break_map(why: str = "Map lost") -> dict[str, bool]:
            attention.report(UrgentEntry(level="error", message=why, state_invalidated=True))
            return {"ok": True}

        @self.server.tool("rimbridge/list_logs", description="Logs.", tags=["diagnostic"])
        def list_logs() -> list[str]:
            return ["Map lost"]

        @self.server.tool("colony/slow", description="Take a while.")
        async def slow(seconds: float = 30.0) -> dict[str, bool]:
            self.slow_started.set()
            with anyio.move_on_after(seconds):
                await self.slow_release.wait()
            return {"slept": True}


class CountingLean(LeanCalls):
    """The lean path, counting the calls it ran (and whether each started in a task)."""

    def __init__(self, server: BridgeServer) -> None:
        super().__init__(server)
        self.ran = 0
        self.started_in_task: list[bool] = []

    def start(self, message: types.JSONRPCRequest, answer: Callable[..., None]) -> None:
        self.started_in_task.append(asyncio.current_task() is not None)
        super().start(message, answer)

    async def run(self, message: types.JSONRPCRequest, answer: Callable[..., None]) -> None:
        self.ran += 1
        if message.params and message.params.get("arguments", {}).get("tool") == "colony/bug":
            raise RuntimeError("a bug in the lean path")
        await super().run(message, answer)


class Pipes:
    """The client's ends of the server's stdin and stdout."""

    def __init__(self, to_server: int, from_server: int, headers: bool) -> None:
        self.to_server = to_server
        self.from_server = from_server
        self.headers = headers
        self._buffer = bytearray()
        self.lean: CountingLean | None = None
        self.done = anyio.Event()
        self.serving = anyio.CancelScope()
        """Cancelled: the server stops as on SIGTERM."""

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body if self.headers else body + b"\n"
        os.write(self.to_server, data)

    async def slow_call_running(self, game: Game, request_id: int) -> None:
        """Ask for ``colony/slow`` (see :meth:`send_slow_call`) and wait until the game runs it."""
        self.send_slow_call(request_id)
        await game.slow_started.wait()

    def send_slow_call(self, request_id: int) -> None:
        """Ask for ``colony/slow`` through ``games_call_tool``, without waiting."""
        params = {"name": "games_call_tool", "arguments": {"tool": "colony/slow"}}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})

    def close_input(self) -> None:
        os.close(self.to_server)
        self.to_server = -1

    def _frame(self) -> dict[str, Any] | None:
        if self.headers:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                return None
            header = bytes(self._buffer[:end]).decode()
            assert header.startswith("Content-Length: "), header
            length = int(header.split(":", 1)[1])
            if len(self._buffer) < end + 4 + length:
                return None
            body = bytes(self._buffer[end + 4 : end + 4 + length])
            del self._buffer[: end + 4 + length]
        else:
            end = self._buffer.find(b"\n")
            if end < 0:
                return None
            body = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
        message: dict[str, Any] = json.loads(body)
        return message

    async def receive(self) -> dict[str, Any] | None:
        """The next message from the server (None once its stdout ends)."""
        while (message := self._frame()) is None:
            chunk = await anyio.to_thread.run_sync(
                os.read, self.from_server, 65536, abandon_on_cancel=True
            )
            if not chunk:
                return None
            self._buffer += chunk
        return message

    async def answer(self, request_id: int) -> dict[str, Any]:
        """The answer to ``request_id`` (notifications before it are skipped)."""
        while True:
            message = await self.receive()
            assert message is not None, f"stdout ended before the answer to {request_id}"
            if "method" in message:
                continue
            assert message.get("id") == request_id, message
            return message

    async def request(self, request_id: int, method: str, params: dict[str, Any]) -> Any:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await self.answer(request_id)

    async def open(self) -> None:
        initialized = await self.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        )
        assert initialized["result"]["serverInfo"]["name"] == "gabs"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        # the first request after the handshake makes the connection known to the tool-list
        # notifier; game calls take the lean path from then on
        listed = await self.request(2, "tools/list", {})
        assert listed["result"]["tools"]


def _config(tmp_path: Path, games: dict[str, dict[str, Any]]) -> GabsConfig:
    entries = {
        game_id: {"id": game_id, "name": game_id, "launchMode": "CustomCommand", **entry}
        for game_id, entry in games.items()
    }
    return GabsConfig.from_json({"version": "1.0", "games": entries}, config_dir=tmp_path)


@asynccontextmanager
async def stdio_bridge(
    tmp_path: Path,
    game: Game | None,
    *,
    lean: bool,
    headers: bool = False,
    eof_grace: float = 30.0,
    games: dict[str, dict[str, Any]] | None = None,
) -> AsyncIterator[tuple[Pipes, GameManager]]:
    """A bridge serving MCP over a pair of pipes; the game (if any) connected as ``sim``."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    pipes = Pipes(in_write, out_read, headers)
    notifier = ToolListNotifier()
    async with AsyncExitStack() as stack:
        stack.callback(lambda: [os.close(fd) for fd in (in_read, out_read, out_write)])
        stack.callback(lambda: pipes.to_server >= 0 and os.close(pipes.to_server))
        port = None
        if game is not None:
            address = await stack.enter_async_context(game.server.running())
            port = address.port
        config = _config(tmp_path, games or {"sim": {"target": "unused-here"}})
        manager = await stack.enter_async_context(
            GameManager(config, on_tools_changed=notifier, liveness_interval=60)
        )
        if game is not None:
            await manager.connect("sim", port=port, token=TOKEN)
        server = build_server(manager, notifier=notifier)
        pipes.lean = CountingLean(server) if lean else None

        async def serve() -> None:
            with pipes.serving:
                async with framed_stdio(
                    in_read, out_write, eof_grace=eof_grace, lean=pipes.lean
                ) as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, initialization_options(server))
            pipes.done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            await pipes.open()
            yield pipes, manager
            tg.cancel_scope.cancel()


def _normalized(value: Any) -> Any:
    """``value`` with run-specific ids and times replaced by a marker."""
    if isinstance(value, dict):
        return {k: "<varies>" if k in VOLATILE else _normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(item) for item in value]
    if isinstance(value, str) and "att-" in value:
        return "<mentions an attention id>"
    return value


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


SCRIPT: list[dict[str, Any]] = [
    _call("games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": "Ärger 龍"}}),
    _call("games_call_tool", {"gameId": "sim", "tool": "colony/draft", "arguments": {"pawn": "B"}}),
    _call("sim.colony.draft", {"pawn": "by alias"}),
    _call("sim/colony/draft", {"pawn": "by path"}),
    _call("games_call_tool", {"gameId": "sim", "tool": "x", "zeta": 1, "extra": 2}),
    _call("games_call_tool", {"gameId": "nope", "tool": "colony/draft"}),
    _call("games_call_tool", {"tool": "colony/absent"}),
    _call("games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": 7}}),
    _call("games_call_tool", {"tool": "colony/break_map", "arguments": {"why": "Karte weg"}}),
    _call("games_call_tool", {"tool": "colony/draft", "arguments": {"pawn": "blocked"}}),
    _call("sim.colony.draft", {"pawn": "blocked by alias"}),
    _call("games_call_tool", {"tool": "rimbridge/list_logs"}),
]


async def _run_script(tmp_path: Path, *, lean: bool, headers: bool) -> list[dict[str, Any]]:
    game = Game()
    answers = []
    async with stdio_bridge(tmp_path, game, lean=lean, headers=headers) as (pipes, _):
        with anyio.fail_after(30):
            for n, params in enumerate(SCRIPT):
                answers.append(await pipes.request(100 + n, "tools/call", params))
            ack = await pipes.request(
                200, "tools/call", _call("games_get_attention", {"gameId": "sim"})
            )
            attention_id = ack["result"]["structuredContent"]["attention"]["attentionId"]
            acked = await pipes.request(
                201, "tools/call", _call("games_ack_attention", {"attentionId": attention_id})
            )
            assert acked["result"]["structuredContent"]["acknowledged"] is True
            answers.append(
                await pipes.request(
                    202, "tools/call", _call("sim.colony.draft", {"pawn": "after the ack"})
                )
            )
        assert pipes.lean is None or (pipes.lean.ran == len(SCRIPT) + 1 and pipes.lean.text_only)
    assert game.drafted == 5  # the two blocked calls never reached the game
    return answers


@pytest.mark.parametrize("headers", [False, True], ids=["lines", "content-length"])
async def test_a_call_in_a_line_of_its_own_starts_where_it_arrives(
    tmp_path: Path, headers: bool
) -> None:
    async with stdio_bridge(tmp_path, Game(), lean=True, headers=headers) as (pipes, _):
        with anyio.fail_after(30):
            for n in range(3):  # one at a time: each arrives while the read loop waits
                params = _call("sim.colony.draft", {"pawn": f"p{n}"})
                answer = await pipes.request(300 + n, "tools/call", params)
                assert answer["result"]["structuredContent"]["drafted"] == f"p{n}"
        assert pipes.lean is not None
        # lines: in the pipe's data callback, no task; Content-Length frames: the read loop
        assert pipes.lean.started_in_task == [headers] * 3


@pytest.mark.parametrize("headers", [False, True], ids=["lines", "content-length"])
async def test_the_lean_path_answers_exactly_as_the_sdk_does(tmp_path: Path, headers: bool) -> None:
    lean = await _run_script(tmp_path / "lean", lean=True, headers=headers)
    sdk = await _run_script(tmp_path / "sdk", lean=False, headers=headers)
    assert [_normalized(a) for a in lean] == [_normalized(a) for a in sdk]
    codes = [a["result"]["structuredContent"].get("code") for a in lean]
    assert codes[4] == "unknown_argument"
    assert lean[4]["result"]["structuredContent"]["unknown"] == ["extra", "zeta"]
    assert codes[9] == codes[10] == "blocked_by_attention"
    assert lean[11]["result"]["structuredContent"] == {"value": ["Map lost"]}
    assert lean[-1]["result"]["structuredContent"] == {
        "drafted": "after the ack",
        "text": "after the ack drafted",
    }


async def test_a_cancelled_lean_call_is_never_answered_and_stops_waiting(tmp_path: Path) -> None:
    game = Game()
    async with stdio_bridge(tmp_path, game, lean=True) as (pipes, _):
        assert pipes.lean is not None
        with anyio.fail_after(15):
            await pipes.slow_call_running(game, 5)
            assert pipes.lean.in_flight == 1
            pipes.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 5, "reason": "changed my mind"},
                }
            )
            status = await pipes.request(6, "tools/call", _call("games_status", {"gameId": "sim"}))
            assert status["result"]["structuredContent"]["status"] == "connected"
            assert pipes.lean.in_flight == 0  # the cancellation was read before games_status
            game.slow_release.set()
            after = await pipes.request(7, "tools/call", _call("sim.colony.draft", {"pawn": "A"}))
            assert after["result"]["structuredContent"]["drafted"] == "A"
    assert pipes.lean.ran == 2


async def test_stdin_ending_lets_calls_in_flight_finish_first(tmp_path: Path) -> None:
    game = Game()
    async with stdio_bridge(tmp_path, game, lean=True) as (pipes, _):
        with anyio.fail_after(15):
            for request_id in (5, 6):
                pipes.send_slow_call(request_id)
            await game.slow_started.wait()
            pipes.close_input()
            game.slow_release.set()
            answers = [await pipes.receive(), await pipes.receive()]
            await pipes.done.wait()
    assert sorted(a["id"] for a in answers if a) == [5, 6]
    assert all(a and a["result"]["structuredContent"] == {"slept": True} for a in answers)


async def test_stdin_ending_waits_for_unanswered_calls_only_for_the_grace(tmp_path: Path) -> None:
    game = Game()
    async with stdio_bridge(tmp_path, game, lean=True, eof_grace=0.2) as (pipes, _):
        with anyio.fail_after(15):
            await pipes.slow_call_running(game, 5)
            pipes.close_input()
            answer = await pipes.receive()
            await pipes.done.wait()  # the server ended although the game never answered
    assert answer is not None and answer["id"] == 5
    assert answer["error"]["code"] == types.CONNECTION_CLOSED


async def test_games_start_reports_progress_over_stdio(tmp_path: Path) -> None:
    games = {
        "sim": {
            "target": sys.executable,
            "args": ["-m", "lib_gab.example"],
            "timeouts": {"startSeconds": 20, "stopGraceSeconds": 3},
        }
    }
    async with stdio_bridge(tmp_path, None, lean=True, games=games) as (pipes, _):
        assert pipes.lean is not None
        with anyio.fail_after(30):
            pipes.send(
                {
                    "jsonrpc": "2.0",
                    "id": 5,
                    "method": "tools/call",
                    "params": {
                        **_call("games_start", {"gameId": "sim"}),
                        "_meta": {"progressToken": "p"},
                    },
                }
            )
            progress = []
            while (message := await pipes.receive()) is not None and "id" not in message:
                progress.append(message)
            assert message is not None and message["result"]["structuredContent"]["code"] == (
                "started_connected"
            )
            echo = await pipes.request(6, "tools/call", _call("example/echo", {"text": "ß"}))
            assert echo["result"]["structuredContent"] == {"text": "ß"}
            stopped = await pipes.request(7, "tools/call", _call("games_stop", {"gameId": "sim"}))
            assert stopped["result"]["structuredContent"]["code"] == "terminated"
    progress = [m for m in progress if m["method"] == "notifications/progress"]
    assert progress and all(m["params"]["progressToken"] == "p" for m in progress)
    assert pipes.lean.ran == 1  # the game call; games_start went through the SDK


async def test_a_lean_call_running_when_the_server_stops_is_answered_connection_closed(
    tmp_path: Path,
) -> None:
    game = Game()
    async with stdio_bridge(tmp_path, game, lean=True) as (pipes, _):
        assert pipes.lean is not None
        with anyio.fail_after(15):
            await pipes.slow_call_running(game, 5)
            pipes.serving.cancel()
            await pipes.done.wait()
            answer = await pipes.answer(5)
    assert answer["error"] == {"code": types.CONNECTION_CLOSED, "message": "Connection closed"}
    assert pipes.lean.in_flight == 0


PLAIN = b'{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}'


@pytest.mark.parametrize(
    "body",
    [
        PLAIN % b"7",
        PLAIN % b'"r-7"',
        PLAIN % b"-1",
        PLAIN % b"123456789012345678901234567890",  # past 64 bits, as the SDK reads it
        PLAIN.replace(b'{"a":1}', b'{"a":"\\u0000\\u00e4","b":[1.5,null,true]}') % b"1",
        b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}',
    ],
)
def test_a_plain_tools_call_is_read_as_the_sdk_reads_it(body: bytes) -> None:
    plain = plain_call(body)
    assert plain is not None
    assert plain == types.jsonrpc_message_adapter.validate_json(body, by_name=False)


@pytest.mark.parametrize(
    "body",
    [
        PLAIN % b"true",  # a bool is no id
        PLAIN % b"1.5",
        PLAIN % b"null",
        PLAIN.replace(b'{"a":1}', b'{"a":1e400}') % b"1",  # msgspec refuses what jiter takes
        PLAIN.replace(b'{"a":1}', b'{"a":"\\ud800"}') % b"1",  # a lone surrogate
        b"\xef\xbb\xbf" + PLAIN % b"1",  # a byte order mark
        PLAIN.replace(b'"2.0"', b'"1.0"'),
        PLAIN.replace(b"tools/call", b"tools/list"),
        PLAIN.replace(b'{"jsonrpc"', b'{"extra":1,"jsonrpc"') % b"1",
        PLAIN.replace(b'"arguments":{"a":1}', b'"arguments":NaN') % b"1",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}]',
        b'{"jsonrpc":"2.0","id":1,',
    ],
)
def test_anything_but_a_plain_tools_call_is_left_to_the_sdk(body: bytes) -> None:
    assert plain_call(body) is None


async def test_a_write_now_leaves_at_once_and_a_plain_write_at_the_end_of_the_turn() -> None:
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    try:
        wire = await open_wire(in_read, out_write)
        os.set_blocking(out_read, False)
        wire.write(b"soon ")
        with pytest.raises(BlockingIOError):
            os.read(out_read, 100)  # nothing yet: writes of one turn share a system call
        wire.write(b"now", now=True)
        assert os.read(out_read, 100) == b"soon now"  # in order, without waiting for the loop
        wire.write(b"!")
        await anyio.sleep(0.01)
        assert os.read(out_read, 100) == b"!"
        await wire.aclose()
    finally:
        for fd in (in_read, in_write, out_read, out_write):
            os.close(fd)


async def test_a_bug_in_a_lean_call_is_answered_as_an_internal_error(tmp_path: Path) -> None:
    game = Game()
    async with stdio_bridge(tmp_path, game, lean=True) as (pipes, _):
        with anyio.fail_after(15):
            params = _call("games_call_tool", {"tool": "colony/bug"})
            failed = await pipes.request(5, "tools/call", params)
            after = await pipes.request(6, "tools/call", _call("sim.colony.draft", {"pawn": "A"}))
    assert failed["error"] == {
        "code": types.INTERNAL_ERROR,
        "message": "RuntimeError: a bug in the lean path",
    }
    assert after["result"]["structuredContent"]["drafted"] == "A"  # the server lives on
