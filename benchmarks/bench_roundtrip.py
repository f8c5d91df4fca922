"""Request/response round trips per second between two gabp.Connections over loopback TCP.

The game side runs in a subprocess (so each side has a core of its own, as a bridge and a game
would); the bridge side is a ``Connection`` in this process. Two game sides, measured
alternately in the same run:

* ours: a ``Connection`` server whose ``bench/echo`` handler returns its params. Every request
  is decoded, parsed, dispatched to the handler table in a task of its own, answered, encoded
  and framed.
* baseline: a raw asyncio protocol with the same framing that answers each request with a
  pre-encoded response frame (only the request id is spliced in): no JSON, no tasks, no
  timeouts. It is the floor of what any Python game side on asyncio can cost.

The ratio is ours / baseline: 1.0 would mean the game side's Connection costs nothing; 0.5
means a round trip through it takes twice as long as through the floor. Both are measured with
1 and with 64 requests in flight, for a fixed time each, in rounds that alternate ours and
baseline; the median rate over the rounds is reported.
Usage: ``uv run python benchmarks/bench_roundtrip.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, parse_args, record, report

TARGET = 0.5
BASELINE_NAME = "raw asyncio game side answering pre-encoded frames"
PARAMS = {"tool": "colony/get_status", "n": 1, "text": "Ärger im Lager"}
RESPONSE_TEMPLATE = json.dumps(
    {
        "v": "gabp/1",
        "id": "00000000-0000-0000-0000-000000000000",
        "type": "response",
        "result": PARAMS,
    },
    separators=(",", ":"),
    ensure_ascii=False,
).encode()
REQUEST_BODY = json.dumps(
    {
        "v": "gabp/1",
        "id": "11111111-2222-4333-8444-555555555555",
        "type": "request",
        "method": "bench/echo",
        "params": PARAMS,
    },
    separators=(",", ":"),
    ensure_ascii=False,
).encode()


def _frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n%s" % (len(body), body)


class _RawFrames:
    """Minimal Content-Length frame splitting, the same work for both raw peers."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        buffer = self.buffer
        buffer += data
        bodies = []
        start = 0
        while True:
            end = buffer.find(b"\r\n\r\n", start)
            if end < 0:
                break
            header = bytes(buffer[start:end])
            length = int(header.split(b"Content-Length:", 1)[1].split(b"\r\n", 1)[0])
            body_start = end + 4
            if len(buffer) < body_start + length:
                break
            bodies.append(bytes(buffer[body_start : body_start + length]))
            start = body_start + length
        del buffer[:start]
        return bodies


# --- the game side (subprocess) ---------------------------------------------------------------


class _RawServer(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.frames = _RawFrames()
        marker = RESPONSE_TEMPLATE.index(b"00000000-")
        self.head = (
            b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n" % len(RESPONSE_TEMPLATE)
            + RESPONSE_TEMPLATE[:marker]
        )
        self.tail = RESPONSE_TEMPLATE[marker + 36 :]

    def data_received(self, data: bytes) -> None:
        out = []
        for body in self.frames.feed(data):
            at = body.index(b'"id":"') + 6
            out.append(self.head + body[at : at + 36] + self.tail)
        self.transport.write(b"".join(out))  # type: ignore[attr-defined]


async def _serve_raw() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_RawServer, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


async def _serve_ours() -> None:
    import anyio

    from gabp import Connection, InboundRequest

    async def echo(request: InboundRequest) -> object:
        return request.params

    async def handle(stream: anyio.abc.SocketStream) -> None:
        async with Connection(stream, handlers={"bench/echo": echo}, name="game") as conn:
            await conn.wait_closed()

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    print(listener.extra(anyio.abc.SocketAttribute.local_port), flush=True)
    await listener.serve(handle)


# --- the bridge side ----------------------------------------------------------------------------


class _RawClient(asyncio.Protocol):
    """A raw client (for measuring the transport floor by hand; not part of the ratio)."""

    def __init__(self, in_flight: int, done: asyncio.Future[int], seconds: float) -> None:
        self.in_flight = in_flight
        self.done = done
        self.seconds = seconds
        self.frames = _RawFrames()
        self.count = 0
        self.request = _frame(REQUEST_BODY)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.deadline = time.perf_counter() + self.seconds
        self.transport.write(self.request * self.in_flight)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        answered = len(self.frames.feed(data))
        self.count += answered
        if time.perf_counter() < self.deadline:
            self.transport.write(self.request * answered)  # type: ignore[attr-defined]
        elif not self.done.done():
            self.done.set_result(self.count)


async def _measure_raw(port: int, in_flight: int, seconds: float) -> float:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()
    start = time.perf_counter()
    transport, _ = await loop.create_connection(
        lambda: _RawClient(in_flight, done, seconds), "127.0.0.1", port
    )
    count = await asyncio.wait_for(done, seconds + 30)
    elapsed = time.perf_counter() - start
    transport.close()
    return count / elapsed


async def _measure_ours(port: int, in_flight: int, seconds: float) -> float:
    import anyio

    from gabp import Connection

    stream = await anyio.connect_tcp("127.0.0.1", port)
    count = 0
    async with Connection(stream, name="bridge") as conn:
        start = time.perf_counter()
        deadline = start + seconds

        async def worker() -> None:
            nonlocal count
            while time.perf_counter() < deadline:
                await conn.request("bench/echo", PARAMS, timeout=30)
                count += 1

        async with anyio.create_task_group() as tg:
            for _ in range(in_flight):
                tg.start_soon(worker)
        elapsed = time.perf_counter() - start
    return count / elapsed


def _start_server(kind: str) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(_serve_raw() if sys.argv[2] == "raw" else _serve_ours())
        return
    args = parse_args(__doc__.splitlines()[0])
    rounds, seconds = (3, 0.8) if args.quick else (5, 2.0)
    ours_server, ours_port = _start_server("ours")
    raw_server, raw_port = _start_server("raw")
    records = []
    try:
        for in_flight in (1, 64):
            ours, raw = [], []
            asyncio.run(_measure_ours(ours_port, in_flight, 0.3))  # warm up
            asyncio.run(_measure_ours(raw_port, in_flight, 0.3))
            for _ in range(rounds):
                ours.append(asyncio.run(_measure_ours(ours_port, in_flight, seconds)))
                raw.append(asyncio.run(_measure_ours(raw_port, in_flight, seconds)))
            records.append(
                record(
                    benchmark="roundtrip",
                    metric=f"round trips/s, {in_flight} in flight",
                    ours=median(ours),
                    baseline=median(raw),
                    baseline_name=BASELINE_NAME,
                    target=TARGET,
                )
            )
    finally:
        for process in (ours_server, raw_server):
            process.kill()
            process.wait(timeout=10)
            if process.stdout is not None:
                process.stdout.close()
    report(records, args.json_path)


if __name__ == "__main__":
    main()
