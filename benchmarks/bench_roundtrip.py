"""Request/response round trips per second between two gabp.Connections over loopback TCP.

The game side runs in a subprocess (so each side has a core of its own, as a bridge and a game
would); the bridge side is a ``Connection`` in this process. Two game sides, measured
alternately in the same run:

* ours: a ``Connection`` server whose ``bench/echo`` handler returns its params, over the
  streams of ``gabp.create_tcp_listener`` (what ``lib_gab`` serves with). Every request is
  decoded, parsed, dispatched to the handler table in a task of its own under the handler
  timeout, answered, encoded and framed.
* baseline: a raw asyncio protocol with the same framing that answers each request with a
  pre-encoded response frame (only the request id is spliced in): no JSON, no tasks, no
  timeouts. It is the floor of what any Python game side on asyncio can cost.

The bridge side is the same ``Connection`` over ``anyio.connect_tcp`` in both (as a bridge
connects today; see ``_loopback.py``). The ratio is ours / baseline: 1.0 would mean the game
side's Connection costs nothing; 0.5 means a round trip through it takes twice as long as
through the floor. Both are measured with 1 and with 64 requests in flight, for a fixed time
each, in rounds that alternate ours and baseline; the median rate over the rounds is reported.
Usage: ``uv run python benchmarks/bench_roundtrip.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import RAW_RESULT, compare, measure, serve_raw

from _common import parse_args, report

TARGET = 0.7


async def _serve_ours() -> None:
    import anyio

    from gabp import Connection, InboundRequest, SocketStream, create_tcp_listener

    async def echo(request: InboundRequest) -> object:
        return request.params

    async def handle(stream: SocketStream) -> None:
        async with Connection(stream, handlers={"bench/echo": echo}, name="game") as conn:
            await conn.wait_closed()

    listener = await create_tcp_listener("127.0.0.1", 0)
    print(listener.extra(anyio.abc.SocketAttribute.local_port), flush=True)
    await listener.serve(handle)


def _run(port: int, in_flight: int, seconds: float) -> float:
    return asyncio.run(measure(port, in_flight, seconds, "bench/echo", RAW_RESULT))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(serve_raw() if sys.argv[2] == "raw" else _serve_ours())
        return
    args = parse_args(__doc__.splitlines()[0])
    records = compare(
        script=__file__, benchmark="roundtrip", target=TARGET, quick=args.quick, run=_run
    )
    report(records, args.json_path)


if __name__ == "__main__":
    main()
