"""games_call_tool round trips per second through gabs, against calling the game directly.

The game side is a ``lib_gab.GabpServer`` with attention on and a trivial validated tool
``bench/echo {text, n}``, in a subprocess (two of them, one per path, so neither path shares a
game connection). Measured alternately in the same run:

* ours: an MCP client (the SDK's ``Client``, handshake era, over in-memory JSON-RPC streams)
  calling ``games_call_tool {gameId, tool: bench/echo, arguments}`` on ``build_server(manager)``
  in this process; the bridge validates the arguments, checks the gate against its
  event-fed attention cache, calls the game over loopback GABP, attaches attention and renders
  the text and structured result; the client parses and validates the result;
* baseline: a ``gabp.Connection`` in this process calling ``tools/call bench/echo`` on the
  other game directly (what the bridge itself has to do per call).

Ratio = ours / baseline with 1 and with 16 calls in flight (target 0.6 each).

A third figure, for reference (no target): the same ``Client`` calling a server of the SDK's
own that answers ``games_call_tool`` at once with a result of the bridge's shape, no game
behind it, against the same direct baseline. It is what the SDK's client and dispatch cost
on their own in this process, the ceiling of any bridge measured this way: at 16 in flight it
sits far below 0.6, whatever the bridge does.
Usage: ``uv run python benchmarks/bench_bridge_call.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import measure, start_server, stop

from _common import median, parse_args, record, report

TARGET = 0.6
TOKEN = "b4" * 32
ARGUMENTS = {"text": "Ärger im Lager", "n": 1}
HELLO = {
    "token": TOKEN,
    "bridgeVersion": "1.1.0",
    "platform": "linux",
    "launchId": "5b0f5c1e-7b7a-4c61-9d3a-0e6c1f7b2a10",
}
BASELINE_NAME = "gabp.Connection calling the game tool directly"


async def _serve_game() -> None:
    from lib_gab import GabpServer

    server = GabpServer(app_name="bench", app_version="1", agent_id="bench", token=TOKEN)
    server.enable_attention()

    @server.tool("bench/echo", description="Return the arguments.")
    async def echo(text: str, n: int) -> dict[str, object]:
        return {"text": text, "n": n}

    async with server.running() as address:
        print(address.port, flush=True)
        await asyncio.Event().wait()


async def _through_bridge(client: Any, in_flight: int, seconds: float) -> float:
    import time

    import anyio

    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    arguments = {"gameId": "bench", "tool": "bench/echo", "arguments": ARGUMENTS}

    async def worker() -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            result = await client.call_tool("games_call_tool", arguments)
            if result.is_error:
                raise RuntimeError(f"bridge call failed: {result.content}")
            count += 1

    async with anyio.create_task_group() as tg:
        for _ in range(in_flight):
            tg.start_soon(worker)
    return count / (time.perf_counter() - start)


def _sdk_alone() -> Any:
    """A server of the SDK's that answers ``games_call_tool`` at once (see the module doc)."""
    import json

    from mcp import types
    from mcp.server.lowlevel import Server

    text = json.dumps(ARGUMENTS, ensure_ascii=False)
    schema = {
        "type": "object",
        "properties": {
            "gameId": {"type": "string"},
            "tool": {"type": "string"},
            "arguments": {"type": "object"},
        },
        "required": ["gameId", "tool"],
    }

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name="games_call_tool", input_schema=schema)]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=dict(ARGUMENTS),
        )

    server = Server("sdk-alone", on_list_tools=list_tools, on_call_tool=call_tool)
    # as the bridge does (gabs.mcp.BridgeServer): no OpenTelemetry middleware
    server.middleware[:] = [
        m for m in server.middleware if type(m).__name__ != "OpenTelemetryMiddleware"
    ]
    return server


async def _compare(
    bridge_port: int, direct_port: int, *, rounds: int, seconds: float
) -> list[dict[str, Any]]:
    from mcp import Client

    from gabs.config import GabsConfig
    from gabs.games import GameManager
    from gabs.mcp import ToolListNotifier, build_server

    records = []
    params = {"name": "bench/echo", "arguments": ARGUMENTS}
    with tempfile.TemporaryDirectory() as config_dir:
        config = GabsConfig.from_json(
            {
                "version": "1.0",
                "games": {
                    "bench": {
                        "id": "bench",
                        "name": "Bench",
                        "launchMode": "CustomCommand",
                        "target": "unused",
                    }
                },
            },
            config_dir=config_dir,
        )
        notifier = ToolListNotifier()
        async with GameManager(config, on_tools_changed=notifier, liveness_interval=60) as manager:
            await manager.connect("bench", port=bridge_port, token=TOKEN)
            server = build_server(manager, notifier=notifier)
            async with Client(server) as client, Client(_sdk_alone()) as alone:
                await client.list_tools()
                await alone.list_tools()
                for in_flight in (1, 16):
                    ours, direct, sdk = [], [], []
                    await _through_bridge(client, in_flight, 0.3)  # warm up all three
                    await _through_bridge(alone, in_flight, 0.3)
                    await measure(direct_port, in_flight, 0.3, "tools/call", params, hello=HELLO)
                    for _ in range(rounds):
                        ours.append(await _through_bridge(client, in_flight, seconds))
                        direct.append(
                            await measure(
                                direct_port, in_flight, seconds, "tools/call", params, hello=HELLO
                            )
                        )
                        sdk.append(await _through_bridge(alone, in_flight, seconds))
                    records.append(
                        record(
                            benchmark="bridge_call",
                            metric=f"round trips/s, {in_flight} in flight",
                            ours=median(ours),
                            baseline=median(direct),
                            baseline_name=BASELINE_NAME,
                            target=TARGET,
                        )
                    )
                    records.append(
                        record(
                            benchmark="bridge_call",
                            metric=(
                                f"the SDK alone (a server answering at once), {in_flight} in flight"
                            ),
                            ours=median(sdk),
                            baseline=median(direct),
                            baseline_name=BASELINE_NAME,
                            target=None,
                        )
                    )
    return records


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(_serve_game())
        return
    args = parse_args(__doc__.splitlines()[0])
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    rounds, seconds = (3, 0.8) if args.quick else (5, 2.0)
    bridge_game, bridge_port = start_server(__file__, "game")
    direct_game, direct_port = start_server(__file__, "game")
    try:
        records = asyncio.run(_compare(bridge_port, direct_port, rounds=rounds, seconds=seconds))
    finally:
        stop(bridge_game)
        stop(direct_game)
    report(records, args.json_path)


if __name__ == "__main__":
    main()
