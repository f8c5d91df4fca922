"""Shared plumbing of the loopback round-trip benchmarks.

* a raw asyncio game side that answers every request frame with a pre-encoded response frame
  (only the request id spliced in): no JSON, no tasks, no timeouts, the floor of what any
  Python peer on asyncio can cost;
* starting a game side in a subprocess (so bridge and game each have a core, as in real use);
* measuring round trips per second from a ``gabp.Connection`` bridge side, with N in flight,
  over ``anyio.connect_tcp`` (as a bridge connects today), or over ``gabp.connect_tcp`` with
  ``BENCH_CLIENT_STREAM=gabp`` (a cheaper bridge side, which makes every ratio harder: the
  baseline's rate is bounded by the bridge side alone);
* comparing ours with the raw game side in alternating rounds.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import median, record

RAW_RESULT: Any = {"text": "Ärger im Lager", "n": 1}
NIL = "00000000-0000-0000-0000-000000000000"
BASELINE_NAME = "raw asyncio game side answering pre-encoded frames"


class RawFrames:
    """Minimal Content-Length frame splitting."""

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


class RawServer(asyncio.Protocol):
    def __init__(self, result: Any) -> None:
        template = json.dumps(
            {
                "v": "gabp/1",
                "id": "00000000-0000-0000-0000-000000000000",
                "type": "response",
                "result": result,
            },
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode()
        marker = template.index(b"00000000-")
        self.head = (
            b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n" % len(template)
            + template[:marker]
        )
        self.tail = template[marker + 36 :]
        self.frames = RawFrames()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        out = []
        for body in self.frames.feed(data):
            at = body.index(b'"id":"') + 6
            out.append(self.head + body[at : at + 36] + self.tail)
        self.transport.write(b"".join(out))  # type: ignore[attr-defined]


async def serve_raw(result: Any = RAW_RESULT) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: RawServer(result), "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


def start_server(script: str, kind: str) -> tuple[subprocess.Popen[str], int]:
    """Run ``script --serve kind`` in a subprocess; it prints its port first."""
    process = subprocess.Popen(
        [sys.executable, script, "--serve", kind], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait(timeout=10)
    if process.stdout is not None:
        process.stdout.close()


async def measure(
    port: int,
    in_flight: int,
    seconds: float,
    method: str,
    params: dict[str, Any],
    hello: dict[str, Any] | None = None,
) -> float:
    """Round trips per second of ``method`` from a Connection, ``in_flight`` at a time."""
    import anyio

    from gabp import Connection

    if os.environ.get("BENCH_CLIENT_STREAM") == "gabp":
        from gabp import connect_tcp

        stream: Any = await connect_tcp("127.0.0.1", port)
    else:
        stream = await anyio.connect_tcp("127.0.0.1", port)
    count = 0
    async with Connection(stream, name="bridge") as conn:
        if hello is not None:
            await conn.request("session/hello", hello, timeout=30)
        start = time.perf_counter()
        deadline = start + seconds

        async def worker() -> None:
            nonlocal count
            while time.perf_counter() < deadline:
                await conn.request(method, params, timeout=30)
                count += 1

        async with anyio.create_task_group() as tg:
            for _ in range(in_flight):
                tg.start_soon(worker)
        elapsed = time.perf_counter() - start
    return count / elapsed


def compare(
    *,
    script: str,
    benchmark: str,
    target: float,
    quick: bool,
    run: Callable[[int, int, float], float],
) -> list[dict[str, Any]]:
    """Alternate ours and the raw game side, with 1 and 64 in flight; one record each."""
    rounds, seconds = (3, 0.8) if quick else (5, 2.0)
    ours_server, ours_port = start_server(script, "ours")
    raw_server, raw_port = start_server(script, "raw")
    records = []
    try:
        for in_flight in (1, 64):
            ours, raw = [], []
            run(ours_port, in_flight, 0.3)  # warm up both
            run(raw_port, in_flight, 0.3)
            for _ in range(rounds):
                ours.append(run(ours_port, in_flight, seconds))
                raw.append(run(raw_port, in_flight, seconds))
            records.append(
                record(
                    benchmark=benchmark,
                    metric=f"round trips/s, {in_flight} in flight",
                    ours=median(ours),
                    baseline=median(raw),
                    baseline_name=BASELINE_NAME,
                    target=target,
                )
            )
    finally:
        stop(ours_server)
        stop(raw_server)
    return records


HERE = Path(__file__).resolve().parent
