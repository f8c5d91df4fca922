"""The bridge at scale: many games, many tools, memory, and the sim's own speed.

Everything runs as real processes (see ``_e2e.py``): an MCP SDK client process drives ``gabs``
over stdio; every game is an ``e2e_game.py`` process the bridge launched with ``games_start``.

* ``games``: one bridge per N in (1, 16, 64) (quick: 1, 4, 16) with N echo games connected,
  ``games_call_tool`` with ``--in-flight`` calls in flight (default 16) spread over all games
  (worker i starts at game i and moves on by one game per call). Rounds alternate the bridges.
  Ratio: calls/s with N games / calls/s with one game (target 0.8).
* ``discovery``: one bridge with two games, one with 2,000 tools and one with 20;
  ``games_tool_names {gameId, query}`` back to back, a selective query (one match) and a broad
  one (a full page). Cost ratio: time per call on the 2,000-tool game / on the 20-tool game
  (target at most 10).
* ``memory``: a bridge with 1 + K games of 100 tools each (K = 16; quick: 4); the bridge's RSS
  with the first game connected and after the other K are connected too; reported per game.
* ``sim``: direct ``gabp.Connection`` clients calling the sim's read-only tool (``--sim-tool``,
  default ``rimworld/get_game_info``) and the bare echo game's ``bench/echo``, 1 and 16 in
  flight, alternating. Ratio: sim / echo (target 0.8).

Usage: ``uv run python benchmarks/bench_scale.py [--quick] [--json PATH] [--only games,...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _e2e import (
    ClientProcess,
    GameSpec,
    Harness,
    echo_call,
    gabp_call,
    ours,
    rss_bytes,
)

from _common import record as common_record
from _common import run_meta, write_document

PARTS = ("games", "discovery", "memory", "sim")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", dest="json_path", type=Path, metavar="PATH")
    parser.add_argument("--quick", action="store_true", help="fewer games, shorter rounds")
    parser.add_argument("--only", default=",".join(PARTS), help=f"parts to run, of {PARTS}")
    parser.add_argument("--games", help="game counts, comma-separated (default 1,16,64)")
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--bridge", help="our bridge's stdio command template")
    parser.add_argument("--sim-tool", default="rimworld/get_game_info")
    parser.add_argument("--sim-arguments", type=json.loads, default={})
    parser.add_argument("--sim-args", default="--log-level WARNING")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    args.only = [part for part in args.only.split(",") if part]
    unknown = set(args.only) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; choose from {PARTS}")
    default_games = "1,4,16" if args.quick else "1,16,64"
    args.games = [int(n) for n in (args.games or default_games).split(",")]
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.seconds = args.seconds or (0.8 if args.quick else 2.0)
    args.memory_games = 4 if args.quick else 16
    return args


def rate(answer: dict[str, Any]) -> float:
    return float(answer["calls"] / answer["elapsed"])


def spread(values: list[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "values": [round(v, 1) for v in values],
    }


def record(
    metric: str, ours: float, baseline: float, baseline_name: str, target: float, **extra: Any
) -> dict[str, Any]:
    """A :func:`_common.record` of this benchmark, with extra keys (spreads, raw figures)."""
    entry = common_record(
        benchmark="scale",
        metric=metric,
        ours=ours,
        baseline=baseline,
        baseline_name=baseline_name,
        target=target,
    )
    return {**entry, **extra}


async def part_games(harness: Harness, args: argparse.Namespace) -> list[dict[str, Any]]:
    clients: dict[int, ClientProcess] = {}
    calls: dict[int, list[dict[str, Any]]] = {}
    for count in args.games:
        games = [GameSpec(f"g{index:03d}") for index in range(count)]
        name = f"games-{count}"
        config_dir = harness.setup_bridge(name, games)
        started = time.monotonic()
        clients[count] = await harness.mcp_stdio(
            name,
            ours(args.bridge, ""),
            config_dir,
            games,
            echo_call(games[0].game_id),
            start_concurrency=4,
        )
        calls[count] = [echo_call(game.game_id) for game in games]
        print(f"{count} games started in {time.monotonic() - started:.1f} s", file=sys.stderr)
    rates: dict[int, list[float]] = {count: [] for count in args.games}
    for count in args.games:
        await clients[count].run(args.in_flight, 0.3, calls[count])  # warm-up
    for round_index in range(args.rounds):
        order = (
            args.games[round_index % len(args.games) :]
            + args.games[: round_index % len(args.games)]
        )
        for count in order:
            rates[count].append(
                rate(await clients[count].run(args.in_flight, args.seconds, calls[count]))
            )
    for client in clients.values():
        await client.quit(120)
    one = statistics.median(rates[args.games[0]])
    return [
        record(
            f"games_call_tool calls/s, {count} games, {args.in_flight} in flight",
            statistics.median(rates[count]),
            one,
            f"the same with {args.games[0]} game",
            0.8,
            spread=spread(rates[count]),
            baseline_spread=spread(rates[args.games[0]]),
        )
        for count in args.games[1:]
    ]


async def part_discovery(harness: Harness, args: argparse.Namespace) -> list[dict[str, Any]]:
    games = [GameSpec("many", tools=1999), GameSpec("few", tools=19)]
    config_dir = harness.setup_bridge("discovery", games)
    client = await harness.mcp_stdio(
        "discovery",
        ours(args.bridge, ""),
        config_dir,
        games,
        echo_call("many"),
        start_concurrency=2,
    )
    queries = {"selective (1 match)": "tool_0013", "broad (a page of 50)": "colony"}
    records = []
    for label, query in queries.items():
        specs = {
            game: [
                {
                    "tool": "games_tool_names",
                    "arguments": {"gameId": game, "query": query, "limit": 50},
                }
            ]
            for game in ("many", "few")
        }
        times: dict[str, list[float]] = {"many": [], "few": []}
        for game in times:
            await client.run(1, 0.3, specs[game])
        for _ in range(args.rounds):
            for game in times:
                answer = await client.run(1, args.seconds, specs[game])
                times[game].append(1e3 / rate(answer))  # ms per call
        many, few = statistics.median(times["many"]), statistics.median(times["few"])
        records.append(
            record(
                f"games_tool_names {label}: cost with 2,000 tools within 10x of 20 tools",
                10 * few,
                many,
                "ours: 10 x ms per call with 20 tools; baseline: ms per call with 2,000",
                1.0,
                cost_ratio=round(many / few, 2),
                ms_per_call={"tools_2000": round(many, 3), "tools_20": round(few, 3)},
            )
        )
    await client.quit(60)
    return records


async def part_memory(harness: Harness, args: argparse.Namespace) -> list[dict[str, Any]]:
    count = args.memory_games
    games = [GameSpec(f"m{index:03d}", tools=99) for index in range(count + 1)]
    config_dir = harness.setup_bridge("memory", games)
    # the first game is connected before the first reading: what one connection imports or
    # allocates once is not a cost per game
    client = await harness.mcp_stdio(
        "memory", ours(args.bridge, ""), config_dir, games[:1], echo_call(games[0].game_id)
    )
    assert client.bridge_pid is not None
    before = rss_bytes(client.bridge_pid)
    starts = [{"tool": "games_start", "arguments": {"gameId": g.game_id}} for g in games[1:]]
    await client.once(starts, concurrency=4)
    listing = [{"tool": "games_tool_names", "arguments": {"gameId": g.game_id}} for g in games]
    await client.once(listing)  # every mirrored tool has been read once
    after = rss_bytes(client.bridge_pid)
    stops = [{"tool": "games_stop", "arguments": {"gameId": g.game_id}} for g in games[1:]]
    await client.once(stops, 8)
    await client.quit(60)
    per_game = (after - before) / count / 2**20
    return [
        {
            "benchmark": "scale",
            "metric": f"bridge RSS per connected game with 100 tools (MiB, {count} games)",
            "ours": round(per_game, 3),
            "baseline": round(before / 2**20, 1),
            "baseline_name": "bridge RSS with one game connected (MiB)",
            "ratio": None,
            "target": None,
            "rss_mib": {"before": round(before / 2**20, 1), "after": round(after / 2**20, 1)},
        }
    ]


async def part_sim(harness: Harness, args: argparse.Namespace) -> list[dict[str, Any]]:
    sim = GameSpec("sim", kind="sim", sim_args=tuple(args.sim_args.split()))
    echo = GameSpec("echo")
    config_dir = harness.setup_bridge("sim", [sim, echo])
    holder = await harness.mcp_stdio(
        "sim", ours(args.bridge, ""), config_dir, [sim, echo], None, start_concurrency=2
    )
    clients = {
        name: await harness.direct("gabp", f"direct-{name}", harness.info_path(config_dir, name))
        for name in ("sim", "echo")
    }
    specs = {
        "sim": [gabp_call(args.sim_tool, args.sim_arguments)],
        "echo": [gabp_call()],
    }
    records = []
    for in_flight in (1, 16):
        rates: dict[str, list[float]] = {"sim": [], "echo": []}
        for name in rates:
            await clients[name].run(in_flight, 0.3, specs[name])
        for round_index in range(args.rounds):
            order = ["sim", "echo"] if round_index % 2 == 0 else ["echo", "sim"]
            for name in order:
                rates[name].append(
                    rate(await clients[name].run(in_flight, args.seconds, specs[name]))
                )
        records.append(
            record(
                f"sim {args.sim_tool} calls/s vs bare lib-gab echo, {in_flight} in flight",
                statistics.median(rates["sim"]),
                statistics.median(rates["echo"]),
                "a bare lib_gab echo game, same client",
                0.8,
                spread=spread(rates["sim"]),
                baseline_spread=spread(rates["echo"]),
            )
        )
    for client in clients.values():
        await client.quit(30)
    await holder.quit(60)
    return records


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    parts = {
        "games": part_games,
        "discovery": part_discovery,
        "memory": part_memory,
        "sim": part_sim,
    }
    records: list[dict[str, Any]] = []
    for name in args.only:
        async with Harness(keep=args.keep) as harness:
            if args.keep:
                print(f"{name}: work dir {harness.root}", file=sys.stderr)
            records += await parts[name](harness, args)
        print(f"{name} done", file=sys.stderr)
    return records


def print_table(records: list[dict[str, Any]]) -> None:
    width = max(len(r["metric"]) for r in records)
    print(f"{'metric':<{width}}  {'ours':>10}  {'baseline':>10}  {'ratio':>6}  target  status")
    for r in records:
        ratio, target = r["ratio"], r["target"]
        status = "-" if target is None else ("ok" if ratio >= target else "BELOW TARGET")
        shown = "" if ratio is None else f"{ratio:.2f}"
        print(
            f"{r['metric']:<{width}}  {r['ours']:>10,.2f}  {r['baseline']:>10,.2f}  "
            f"{shown:>6}  {'' if target is None else target:>6}  {status}"
        )
        if "cost_ratio" in r:
            print(f"{'':<{width}}  cost ratio {r['cost_ratio']}x, ms per call {r['ms_per_call']}")


def main() -> None:
    args = parse_args()
    started = time.time()
    load_before = os.getloadavg()
    records = anyio.run(run, args)
    print_table(records)
    if args.json_path is not None:
        meta = run_meta(
            started,
            load_before,
            rounds=args.rounds,
            seconds=args.seconds,
            in_flight=args.in_flight,
        )
        write_document(args.json_path, {"meta": meta, "records": records})


if __name__ == "__main__":
    main()
