"""A client process of the end-to-end benchmarks, driven over its stdin and stdout.

One process per path, kept alive for the whole run so that rounds of different paths can
alternate. Kinds:

* ``mcp-stdio``: the official ``mcp`` SDK ``Client``, launching the bridge command as its stdio
  subprocess (so the bridge is a child of this process);
* ``mcp-http``: the same ``Client`` over Streamable HTTP to a bridge the benchmark started
  (``Authorization: Bearer $BENCH_HTTP_TOKEN``);
* ``gabp``: a ``gabp.Connection`` straight to a game (port and token from its info file);
* ``raw``: a bare asyncio socket client to a game: pre-encoded request frames with only the id
  spliced in, responses split by ``Content-Length`` and matched by id; the floor of what a
  Python client on asyncio can cost.

The MCP kinds call ``games_start`` for each ``--start`` game, then check one call goes through.
Every line on stdin is a JSON command, every answer one JSON line on stdout:

* ``{"op": "run", "in_flight": N, "seconds": S, "calls": [CALL, ...]}``: N workers call for S
  seconds, worker i starting at ``calls[i % len(calls)]`` and moving on by one each call; CALL
  is ``{"tool", "arguments"}`` (MCP) or ``{"method", "params"}`` (GABP). Answer: ``{"calls",
  "elapsed", "errors", "first_error", "lat_us": [...]}``;
* ``{"op": "once", "calls": [CALL, ...], "concurrency": K}``: each call once, K at a time;
  answer ``{"calls", "elapsed", "errors", "first_error"}``;
* ``{"op": "quit"}``: stop the started games, close, exit.

The first line out is ``{"ready": true, ...}`` (or ``{"ready": false, "error": ...}``).
Every call has a timeout (``--call-timeout``, default 60 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import RawFrames

CallFn = Callable[[dict[str, Any]], Awaitable[str | None]]
"""Makes one call; returns an error description, or None when the call succeeded."""

FRAME_HEAD = b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n"
HELLO_BASE = {"bridgeVersion": "1.1.0", "platform": "linux", "clientInfo": {"name": "bench"}}


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def read_command() -> dict[str, Any] | None:
    line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    if not line:
        return None
    command: dict[str, Any] = json.loads(line)
    return command


async def run_load(call: CallFn, command: dict[str, Any]) -> dict[str, Any]:
    calls: list[dict[str, Any]] = command["calls"]
    in_flight = int(command["in_flight"])
    seconds = float(command["seconds"])
    latencies: list[int] = []
    errors = 0
    first_error: str | None = None
    start = time.perf_counter()
    deadline = start + seconds

    async def worker(index: int) -> None:
        nonlocal errors, first_error
        position = index % len(calls)
        clock = time.perf_counter_ns
        while time.perf_counter() < deadline:
            begin = clock()
            problem = await call(calls[position])
            latencies.append((clock() - begin) // 1000)
            if problem is not None:
                errors += 1
                first_error = first_error or problem
            position = (position + 1) % len(calls)

    async with anyio.create_task_group() as tg:
        for index in range(in_flight):
            tg.start_soon(worker, index)
    elapsed = time.perf_counter() - start
    return {
        "calls": len(latencies),
        "elapsed": elapsed,
        "errors": errors,
        "first_error": first_error,
        "lat_us": latencies,
    }


async def run_once(call: CallFn, calls: list[dict[str, Any]], concurrency: int) -> dict[str, Any]:
    """Each call once, ``concurrency`` at a time."""
    errors: list[str] = []
    limiter = anyio.Semaphore(max(1, concurrency))
    start = time.perf_counter()

    async def one(spec: dict[str, Any]) -> None:
        async with limiter:
            problem = await call(spec)
        if problem is not None:
            errors.append(f"{spec}: {problem}"[:1000])

    async with anyio.create_task_group() as tg:
        for spec in calls:
            tg.start_soon(one, spec)
    return {
        "calls": len(calls),
        "elapsed": time.perf_counter() - start,
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
    }


async def serve_commands(call: CallFn) -> None:
    while True:
        command = await read_command()
        if command is None or command.get("op") == "quit":
            return
        if command.get("op") == "run":
            emit(await run_load(call, command))
        elif command.get("op") == "once":
            emit(await run_once(call, command["calls"], int(command.get("concurrency", 1))))
        else:
            emit({"error": f"unknown op {command.get('op')!r}"})


# ---------------------------------------------------------------------------------------------
# MCP


def _mcp_error(result: Any) -> str | None:
    if not result.is_error:
        return None
    texts = [getattr(block, "text", "") for block in result.content]
    return " ".join(texts)[:500] or "isError without text"


async def mcp_main(args: argparse.Namespace) -> None:
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    timeout = args.call_timeout
    log = sys.stderr
    if args.bridge_log:
        log = open(args.bridge_log, "a", encoding="utf-8")  # noqa: ASYNC230, SIM115
    try:
        if args.kind == "mcp-stdio":
            command = json.loads(args.command)
            params = StdioServerParameters(
                command=command[0], args=command[1:], env=dict(os.environ)
            )
            transport: Any = stdio_client(params, errlog=log)
            http_client = None
        else:
            token = os.environ.get("BENCH_HTTP_TOKEN", "")
            headers = {"Authorization": f"Bearer {token}"} if token else None
            http_client = httpx2.AsyncClient(
                headers=headers, timeout=httpx2.Timeout(timeout, read=max(timeout, 300.0))
            )
            transport = streamable_http_client(args.url, http_client=http_client)
        async with Client(transport, mode=args.mcp_mode, read_timeout_seconds=timeout) as client:
            await client.list_tools()

            async def call(spec: dict[str, Any], within: float = timeout) -> str | None:
                try:
                    with anyio.fail_after(within):
                        result = await client.call_tool(
                            spec["tool"], spec.get("arguments"), read_timeout_seconds=within
                        )
                except TimeoutError:
                    return f"no answer within {within} s"
                return _mcp_error(result)

            async def start(spec: dict[str, Any]) -> str | None:
                return await call(spec, args.start_timeout)

            starts = [{"tool": "games_start", "arguments": {"gameId": g}} for g in args.start]
            started = await run_once(start, starts, args.start_concurrency)
            if started["errors"]:
                emit({"ready": False, "error": f"games_start: {started['first_error']}"})
                return

            if args.probe:
                probe = json.loads(args.probe)
                problem = await _first_success(call, probe, args.start_timeout)
                if problem is not None:
                    emit({"ready": False, "error": f"probe call failed: {problem}"})
                    return
            emit({"ready": True, "pid": os.getpid(), "protocol": client.protocol_version})
            await serve_commands(call)
            stops = [{"tool": "games_stop", "arguments": {"gameId": g}} for g in args.start]
            with anyio.move_on_after(60):
                await run_once(call, stops, 8)
        if http_client is not None:
            await http_client.aclose()
    finally:
        if log is not sys.stderr:
            log.close()


async def _first_success(call: CallFn, spec: dict[str, Any], within: float) -> str | None:
    """Retry ``spec`` until it succeeds (a bridge may still be mirroring the game's tools)."""
    deadline = time.monotonic() + within
    while True:
        problem = await call(spec)
        if problem is None or time.monotonic() > deadline:
            return problem
        await anyio.sleep(0.2)


# ---------------------------------------------------------------------------------------------
# GABP: a gabp.Connection, and a raw socket


async def read_info(path: str, within: float) -> dict[str, Any]:
    """The game's info file, once it is there (checked every 50 ms for ``within`` seconds)."""
    for _ in range(int(within / 0.05) + 1):
        try:
            text = await anyio.Path(path).read_text(encoding="utf-8")
            info: dict[str, Any] = json.loads(text)
            return info
        except (FileNotFoundError, json.JSONDecodeError):
            await anyio.sleep(0.05)
    raise TimeoutError(f"no game info in {path} within {within} s")


async def gabp_main(args: argparse.Namespace) -> None:
    from gabp import Connection

    info = await read_info(args.info, args.start_timeout)
    timeout = args.call_timeout
    with anyio.fail_after(args.start_timeout):
        stream = await anyio.connect_tcp("127.0.0.1", info["port"])
    async with Connection(stream, name="bench-client") as conn:
        hello = {**HELLO_BASE, "token": info["token"], "launchId": str(uuid.uuid4())}
        await conn.request("session/hello", hello, timeout=timeout)

        async def call(spec: dict[str, Any]) -> str | None:
            try:
                await conn.request(spec["method"], spec.get("params"), timeout=timeout)
            except Exception as exc:
                return f"{type(exc).__name__}: {exc}"[:500]
            return None

        emit({"ready": True, "pid": os.getpid(), "game_pid": info["pid"]})
        await serve_commands(call)


class RawClient(asyncio.Protocol):
    """Pre-encoded requests, Content-Length splitting, responses matched by id."""

    def __init__(self) -> None:
        self.frames = RawFrames()
        self.waiting: dict[bytes, asyncio.Future[bytes]] = {}
        self.counter = 0
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the game closed the connection"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            at = body.find(b'"id":"')
            if at >= 0:
                future = self.waiting.pop(body[at + 6 : at + 42], None)
                if future is not None and not future.done():
                    future.set_result(body)

    def request(self, template: tuple[bytes, bytes]) -> asyncio.Future[bytes]:
        self.counter += 1
        request_id = f"00000000-0000-4000-8000-{self.counter:012x}".encode()
        body = template[0] + request_id + template[1]
        future = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        self.transport.write(FRAME_HEAD % len(body) + body)
        return future


def raw_template(method: str, params: Any) -> tuple[bytes, bytes]:
    marker = "11111111-1111-4111-8111-111111111111"
    body = json.dumps(
        {"v": "gabp/1", "id": marker, "type": "request", "method": method, "params": params},
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()
    at = body.index(marker.encode())
    return body[:at], body[at + len(marker) :]


async def raw_main(args: argparse.Namespace) -> None:
    info = await read_info(args.info, args.start_timeout)
    timeout = args.call_timeout
    loop = asyncio.get_running_loop()
    _, client = await asyncio.wait_for(
        loop.create_connection(RawClient, "127.0.0.1", info["port"]), args.start_timeout
    )
    hello = {**HELLO_BASE, "token": info["token"], "launchId": str(uuid.uuid4())}
    answer = await asyncio.wait_for(client.request(raw_template("session/hello", hello)), timeout)
    if b'"error"' in answer and b'"result"' not in answer:
        emit({"ready": False, "error": answer.decode()[:500]})
        return
    templates: dict[str, tuple[bytes, bytes]] = {}

    async def call(spec: dict[str, Any]) -> str | None:
        key = json.dumps(spec, sort_keys=True)
        template = templates.get(key)
        if template is None:
            template = templates[key] = raw_template(spec["method"], spec.get("params"))
        try:
            body = await asyncio.wait_for(client.request(template), timeout)
        except (TimeoutError, ConnectionError) as exc:
            return f"{type(exc).__name__}: {exc}"
        if b'"result"' not in body or b'"error":{' in body:
            return body.decode(errors="replace")[:500]
        return None

    emit({"ready": True, "pid": os.getpid(), "game_pid": info["pid"]})
    await serve_commands(call)
    client.transport.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("mcp-stdio", "mcp-http", "gabp", "raw"))
    parser.add_argument("--command", help="mcp-stdio: the bridge command, a JSON list")
    parser.add_argument("--url", help="mcp-http: the bridge's MCP endpoint")
    parser.add_argument("--mcp-mode", default="legacy", help="the SDK Client's mode")
    parser.add_argument("--start", action="append", default=[], help="games_start this game")
    parser.add_argument("--start-concurrency", type=int, default=1, help="games_start at once")
    parser.add_argument("--probe", help="a call (JSON) that must succeed before 'ready'")
    parser.add_argument("--info", help="gabp/raw: the game's info file")
    parser.add_argument("--bridge-log", help="mcp-stdio: append the bridge's stderr here")
    parser.add_argument("--call-timeout", type=float, default=60.0)
    parser.add_argument("--start-timeout", type=float, default=120.0)
    args = parser.parse_args()
    try:
        if args.kind.startswith("mcp-"):
            anyio.run(mcp_main, args)
        elif args.kind == "gabp":
            anyio.run(gabp_main, args)
        else:
            asyncio.run(raw_main(args))
    except Exception as exc:  # the harness reads the reason from stdout
        emit({"ready": False, "error": f"{type(exc).__name__}: {exc}"[:2000]})
        raise


if __name__ == "__main__":
    main()
