"""tools/call round trips per second against a lib_gab server with a trivial validated tool.

The game side runs in a subprocess; the bridge side is a ``gabp.Connection`` in this process
that says hello, then calls ``bench/echo {text, n}`` as fast as it is answered. Two game sides,
measured alternately in the same run:

* ours: a ``lib_gab.GabpServer`` whose ``bench/echo`` tool takes ``text: str, n: int`` and
  returns them: the session check, params parsing, argument validation against the tool's
  schema, the operation context, the attention flush and result encoding all run per call.
* baseline: the raw asyncio game side that answers every frame with a pre-encoded response
  (see ``_loopback.py``).

Ratio = ours / baseline with 1 and with 64 calls in flight (target 0.5 each; issue 15 asks
0.5 at 64 in flight).
Usage: ``uv run python benchmarks/bench_server_call.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import compare, measure, serve_raw

from _common import parse_args, report

TARGET = 0.5
TOKEN = "b3" * 32
ARGUMENTS = {"text": "Ärger im Lager", "n": 1}
HELLO = {
    "token": TOKEN,
    "bridgeVersion": "1.1.0",
    "platform": "linux",
    "launchId": "5b0f5c1e-7b7a-4c61-9d3a-0e6c1f7b2a10",
}


async def _serve_ours() -> None:
    from lib_gab import GabpServer

    server = GabpServer(app_name="bench", app_version="1", agent_id="bench", token=TOKEN)
    server.enable_attention()

    @server.tool("bench/echo", description="Return the arguments.")
    async def echo(text: str, n: int) -> dict[str, object]:
        return {"text": text, "n": n}

    async with server.running() as address:
        print(address.port, flush=True)
        await asyncio.Event().wait()


def _run(port: int, in_flight: int, seconds: float) -> float:
    params = {"name": "bench/echo", "arguments": ARGUMENTS}
    return asyncio.run(measure(port, in_flight, seconds, "tools/call", params, hello=HELLO))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(serve_raw(ARGUMENTS) if sys.argv[2] == "raw" else _serve_ours())
        return
    args = parse_args(__doc__.splitlines()[0])
    records = compare(
        script=__file__, benchmark="server_call", target=TARGET, quick=args.quick, run=_run
    )
    report(records, args.json_path)


if __name__ == "__main__":
    main()
