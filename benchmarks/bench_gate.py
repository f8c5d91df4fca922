"""games_call_tool throughput with the attention gate on (no item open) against the gate off.

The gate should cost no round trip: with the attention channels subscribed, the bridge's cached
item is authoritative (ARCHITECTURE decision 8), so a gated call with nothing open does a local
check and nothing else. Two identical games, each a ``lib_gab.GabpServer`` with attention
enabled and a trivial tool ``bench/echo {text, n}``, run in subprocesses; one bridge
(``build_server(manager)`` in this process, one MCP ``Client`` over in-memory streams) has them
configured as ``gated`` (attention mode ``gate``: subscribed, gate checked on every call) and
``open`` (mode ``off``: no subscription, no check). Rounds alternate between the two games on
the same client, each round a fixed time of back-to-back ``games_call_tool`` calls with 1 and
with 16 in flight; the medians are compared.

Ratio = gate / off (target 0.97). Before measuring, the script checks the gated game really is
subscribed and gating (a blocking item refuses a call, the ack clears it).
Usage: ``uv run python benchmarks/bench_gate.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _loopback import start_server, stop

from _common import median, parse_args, record, report
from gabs.mcp.call_results import call_view

TARGET = 0.97
TOKEN = "9a7e" * 16
ARGUMENTS = {"text": "Ärger im Lager", "n": 1}
BASELINE_NAME = "the same games_call_tool with attention mode off"


async def _serve_game() -> None:
    from lib_gab import GabpServer, UrgentEntry

    server = GabpServer(app_name="bench", app_version="1", agent_id="bench", token=TOKEN)
    attention = server.enable_attention()

    @server.tool("bench/echo", description="Return the arguments.")
    async def echo(text: str, n: int) -> dict[str, object]:
        return {"text": text, "n": n}

    @server.tool("bench/break", description="Open a blocking attention item.")
    async def broken() -> dict[str, bool]:
        attention.report(UrgentEntry(level="error", message="bench: blocking item"))
        return {"ok": True}

    async with server.running() as address:
        print(address.port, flush=True)
        await asyncio.Event().wait()


async def _rate(client: Any, game_id: str, in_flight: int, seconds: float) -> float:
    import anyio

    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    arguments = {"gameId": game_id, "tool": "bench/echo", "arguments": ARGUMENTS}

    async def worker() -> None:
        nonlocal count
        while time.perf_counter() < deadline:
            result = await client.call_tool("games_call_tool", arguments)
            if result.is_error or call_view(result).get("executed") is not True:
                raise RuntimeError(f"call failed: {result.content}")
            count += 1

    async with anyio.create_task_group() as tg:
        for _ in range(in_flight):
            tg.start_soon(worker)
    return count / (time.perf_counter() - start)


async def _check_gating(client: Any, manager: Any) -> None:
    """The gated game is subscribed and refuses calls under a blocking item; off never does."""
    gated = manager.runtime("gated").session
    assert gated.subscribed and gated.gate.mode == "gate", "the gated game is not subscribed"
    assert manager.runtime("open").session.gate.mode == "off"
    await client.call_tool("games_call_tool", {"gameId": "gated", "tool": "bench/break"})
    blocked = await client.call_tool(
        "games_call_tool", {"gameId": "gated", "tool": "bench/echo", "arguments": ARGUMENTS}
    )
    assert call_view(blocked)["executed"] is False, "the gate did not block"
    attention_id = blocked.structured_content["attentionId"]
    acked = await client.call_tool(
        "games_ack_attention", {"gameId": "gated", "attentionId": attention_id}
    )
    assert acked.structured_content["acknowledged"] is True
    await client.call_tool("games_call_tool", {"gameId": "open", "tool": "bench/break"})
    passed = await client.call_tool(
        "games_call_tool", {"gameId": "open", "tool": "bench/echo", "arguments": ARGUMENTS}
    )
    assert call_view(passed)["executed"] is True, "mode off blocked a call"


async def _compare(ports: dict[str, int], *, rounds: int, seconds: float) -> list[dict[str, Any]]:
    from mcp import Client

    from gabs.config import GabsConfig
    from gabs.games import GameManager
    from gabs.mcp import ToolListNotifier, build_server

    def entry(game_id: str, mode: str) -> dict[str, Any]:
        return {
            "id": game_id,
            "name": game_id,
            "launchMode": "CustomCommand",
            "target": "unused",
            "attention": {"mode": mode},
        }

    records = []
    with tempfile.TemporaryDirectory() as config_dir:
        config = GabsConfig.from_json(
            {
                "version": "1.0",
                "games": {"gated": entry("gated", "gate"), "open": entry("open", "off")},
            },
            config_dir=config_dir,
        )
        notifier = ToolListNotifier()
        async with GameManager(
            config, on_tools_changed=notifier, liveness_interval=3600
        ) as manager:
            for game_id, port in ports.items():
                await manager.connect(game_id, port=port, token=TOKEN)
            server = build_server(manager, notifier=notifier)
            async with Client(server) as client:
                await client.list_tools()
                await _check_gating(client, manager)
                for in_flight in (1, 16):
                    gate: list[float] = []
                    off: list[float] = []
                    await _rate(client, "gated", in_flight, 0.3)  # warm up both
                    await _rate(client, "open", in_flight, 0.3)
                    for index in range(rounds):
                        # alternate which goes first, so drift favours neither
                        order = ("gated", "open") if index % 2 == 0 else ("open", "gated")
                        for game_id in order:
                            rate = await _rate(client, game_id, in_flight, seconds)
                            (gate if game_id == "gated" else off).append(rate)
                    records.append(
                        record(
                            benchmark="gate",
                            metric=f"calls/s, gate on, nothing open, {in_flight} in flight",
                            ours=median(gate),
                            baseline=median(off),
                            baseline_name=BASELINE_NAME,
                            target=TARGET,
                        )
                    )
    return records


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        asyncio.run(_serve_game())
        return
    args = parse_args(__doc__.splitlines()[0])
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    rounds, seconds = (4, 0.8) if args.quick else (8, 2.0)
    gated_game, gated_port = start_server(__file__, "game")
    open_game, open_port = start_server(__file__, "game")
    try:
        records = asyncio.run(
            _compare({"gated": gated_port, "open": open_port}, rounds=rounds, seconds=seconds)
        )
    finally:
        stop(gated_game)
        stop(open_game)
    report(records, args.json_path)


if __name__ == "__main__":
    main()
