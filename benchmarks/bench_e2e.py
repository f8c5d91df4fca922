"""games_call_tool end to end: an MCP client process, the bridge process, the game process.

Paths, all in one run, each its own set of processes (see ``_e2e.py``):

* ``gabs-stdio``: the official MCP SDK ``Client`` in a client process launches ``gabs serve``
  over stdio; the bridge launches the game with ``games_start``; the client calls
  ``games_call_tool {gameId, tool, arguments}``;
* ``gabs-http``: the same over Streamable HTTP (``gabs serve --transport http``, bearer token),
  with a game of its own;
* ``direct-gabp``: the baseline: a ``gabp.Connection`` in a client process calling the same tool
  with ``tools/call`` on the very game ``gabs-stdio`` uses (port and token from the game);
* ``direct-raw``: a bare asyncio socket client calling the same (pre-encoded frames): the floor;
* ``go-stdio`` / ``go-http``: another bridge build through the same MCP client, when one is given
  (``--go-bridge PATH`` or ``$GABS_GO_BRIDGE``: the Go bridge's ``server stdio|http`` command
  forms; or any build with ``--compare-stdio/--compare-http`` templates).

The game is ``e2e_game.py``: a ``lib_gab`` server with attention on and ``bench/echo {text, n}``,
or (``--game sim``) the simulated RimWorld with a read-only tool named by ``--tool``.

Each path is measured with 1, 4, 16 and 64 calls in flight, in rounds that alternate the paths
(the order rotates every round), a fixed time each; the median rate of the rounds is reported
with its spread (min-max), p50 and p99 latency over all the rounds' calls, and the CPU time each
process spent per call. Ratios: gabs / direct-gabp, gabs / the other bridge (same transport),
and the other bridge's CPU time per call / ours (above 1: ours spends less).

Usage: ``uv run python benchmarks/bench_e2e.py [--quick] [--json PATH] [--go-bridge PATH]``;
the plot goes beside the JSON (``.png``), or to ``--plot PATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _e2e import (
    BridgeCommand,
    ClientProcess,
    GameSpec,
    Harness,
    echo_call,
    ensure_ts_client,
    gabp_call,
    go_bridge,
    ours,
    percentile,
)

from _common import run_meta, write_document

IN_FLIGHT = (1, 4, 16, 64)
# (ours, baseline) -> {in flight: target ratio}; from issue 15's table (for the Go bridge)
TARGETS: dict[tuple[str, str], dict[int, float]] = {
    ("gabs-stdio", "direct-gabp"): {1: 0.6, 16: 0.6},
    ("gabs-stdio", "go-stdio"): {1: 2.0, 16: 3.0},
}
#: The MCP clients, and the suffix of their paths' names.
CLIENT_SUFFIX = {"python": "", "ts": "-ts"}


def ratio_pairs(suffix: str) -> tuple[tuple[str, str], ...]:
    """(ours, baseline) path pairs of the MCP paths of one client."""
    return (
        (f"gabs-stdio{suffix}", "direct-gabp"),
        (f"gabs-http{suffix}", "direct-gabp"),
        (f"gabs-stdio{suffix}", "direct-raw"),
    )


def other_ratios(other: str | None, suffix: str = "") -> tuple[tuple[str, str], ...]:
    """gabs against the other bridge (``go`` by default), transport by transport."""
    if other is None:
        return ()
    return (
        (f"gabs-stdio{suffix}", f"{other}-stdio{suffix}"),
        (f"gabs-http{suffix}", f"{other}-http{suffix}"),
    )


def target_for(ours_name: str, base: str, in_flight: int) -> float | None:
    """Issue 15's target for a pair, whichever client ran the MCP paths."""
    for suffix in filter(None, CLIENT_SUFFIX.values()):
        ours_name, base = ours_name.removesuffix(suffix), base.removesuffix(suffix)
    return TARGETS.get((ours_name, base), {}).get(in_flight)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", dest="json_path", type=Path, metavar="PATH")
    parser.add_argument("--plot", type=Path, metavar="PATH", help="default: the JSON path, .png")
    parser.add_argument("--quick", action="store_true", help="2 short rounds (about a minute)")
    parser.add_argument("--rounds", type=int, help="rounds per in-flight level (default 5)")
    parser.add_argument("--seconds", type=float, help="seconds per round (default 2)")
    parser.add_argument(
        "--in-flight", type=lambda s: tuple(int(x) for x in s.split(",")), default=IN_FLIGHT
    )
    parser.add_argument("--bridge", help="our bridge's stdio command template")
    parser.add_argument("--bridge-http", help="our bridge's HTTP command template ('' = none)")
    parser.add_argument(
        "--go-bridge",
        default=os.environ.get("GABS_GO_BRIDGE"),
        help="the Go bridge executable (default $GABS_GO_BRIDGE)",
    )
    parser.add_argument("--compare-name", default="go")
    parser.add_argument("--compare-stdio", help="another bridge's stdio command template")
    parser.add_argument("--compare-http", help="another bridge's HTTP command template")
    parser.add_argument("--no-http", action="store_true", help="stdio paths only")
    parser.add_argument("--game", choices=("echo", "sim"), default="echo")
    parser.add_argument(
        "--serial-game",
        action="store_true",
        help="the echo game declares one request at a time (as a game without the "
        "concurrency capability, the real Lib.GAB's, is served)",
    )
    parser.add_argument("--tool", help="the game tool (default bench/echo; sim: get_game_info)")
    parser.add_argument("--tool-arguments", type=json.loads, help="its arguments (JSON)")
    parser.add_argument(
        "--sim-args", default="--log-level WARNING", help="rimbridge-sim arguments (--game sim)"
    )
    parser.add_argument("--mcp-mode", default="legacy", help="the MCP client's mode")
    parser.add_argument(
        "--clients",
        default=os.environ.get("GABS_BENCH_CLIENTS", "python"),
        help="the MCP clients, comma-separated: python (the mcp SDK), ts (the TypeScript SDK, "
        "on Node.js; its paths are named ...-ts); default $GABS_BENCH_CLIENTS or python",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work dir and its logs")
    args = parser.parse_args(argv)
    args.clients = [name.strip() for name in args.clients.split(",") if name.strip()]
    unknown = sorted(set(args.clients) - set(CLIENT_SUFFIX))
    if unknown or not args.clients:
        parser.error(f"--clients: python and/or ts, not {args.clients!r}")
    args.rounds = args.rounds or (2 if args.quick else 5)
    args.seconds = args.seconds or (0.6 if args.quick else 2.0)
    if args.game == "sim":
        args.tool = args.tool or "rimworld/get_game_info"
        args.tool_arguments = {} if args.tool_arguments is None else args.tool_arguments
    else:
        args.tool = args.tool or "bench/echo"
    return args


def bridges(args: argparse.Namespace) -> list[tuple[str, BridgeCommand]]:
    """(path prefix, command) of every bridge to measure; ours first."""
    found = [("gabs", ours(args.bridge, "" if args.no_http else args.bridge_http))]
    other: BridgeCommand | None = None
    if args.compare_stdio or args.compare_http:
        other = BridgeCommand(args.compare_name, args.compare_stdio, args.compare_http)
    elif args.go_bridge:
        other = go_bridge(args.go_bridge)
    if other is not None:
        if args.no_http:
            other = BridgeCommand(other.name, other.stdio, None)
        found.append((other.name, other))
    return found


async def start_paths(harness: Harness, args: argparse.Namespace) -> dict[str, ClientProcess]:
    sim_args = tuple(args.sim_args.split())
    game = GameSpec("bench", kind=args.game, sim_args=sim_args, serial=args.serial_game)
    probe = echo_call("bench", args.tool, args.tool_arguments)
    paths: dict[str, ClientProcess] = {}
    if "ts" in args.clients:
        ensure_ts_client()
    for client in args.clients:
        suffix = CLIENT_SUFFIX[client]
        options = {"mcp_mode": args.mcp_mode, "runtime": client}
        for prefix, bridge in bridges(args):
            if bridge.stdio:
                name = f"{prefix}-stdio{suffix}"
                config_dir = harness.setup_bridge(name, [game])
                paths[name] = await harness.mcp_stdio(
                    name, bridge, config_dir, [game], probe, **options
                )
                print(f"started {name}", file=sys.stderr)
                if prefix == "gabs" and "direct-gabp" not in paths:
                    info = harness.info_path(config_dir, "bench")
                    paths["direct-gabp"] = await harness.direct("gabp", "direct-gabp", info)
                    paths["direct-raw"] = await harness.direct("raw", "direct-raw", info)
            if bridge.http:
                name = f"{prefix}-http{suffix}"
                config_dir = harness.setup_bridge(name, [game])
                url, pid = await harness.http_bridge(name, bridge, config_dir)
                paths[name] = await harness.mcp_http(
                    name, url, pid, config_dir, [game], probe, **options
                )
                print(f"started {name}", file=sys.stderr)
    return paths


async def measure(args: argparse.Namespace) -> dict[str, dict[int, list[dict[str, Any]]]]:
    """Every path's rounds: ``{path: {in_flight: [round answer, ...]}}``."""
    results: dict[str, dict[int, list[dict[str, Any]]]] = {}
    async with Harness(keep=args.keep) as harness:
        if args.keep:
            print(f"work dir: {harness.root}", file=sys.stderr)
        paths = await start_paths(harness, args)
        mcp_calls = [echo_call("bench", args.tool, args.tool_arguments)]
        gabp_calls = [gabp_call(args.tool, args.tool_arguments)]
        names = list(paths)
        for in_flight in args.in_flight:
            for name in names:  # warm-up, not recorded
                calls = gabp_calls if name.startswith("direct") else mcp_calls
                await paths[name].run(in_flight, min(0.3, args.seconds), calls)
            for round_index in range(args.rounds):
                shift = round_index % len(names)
                for name in names[shift:] + names[:shift]:
                    calls = gabp_calls if name.startswith("direct") else mcp_calls
                    answer = await paths[name].run(in_flight, args.seconds, calls)
                    results.setdefault(name, {}).setdefault(in_flight, []).append(answer)
                print(f"{in_flight} in flight: round {round_index + 1} done", file=sys.stderr)
    return results


def summarize(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    rates = [r["calls"] / r["elapsed"] for r in rounds]
    latencies = sorted(v for r in rounds for v in r["lat_us"])
    calls = sum(r["calls"] for r in rounds)
    roles = sorted({role for r in rounds for role in r["cpu"]})
    cpu = {role: sum(r["cpu"].get(role, 0.0) for r in rounds) / calls * 1e6 for role in roles}
    bridge_rounds = [r["cpu"].get("bridge", 0.0) / r["calls"] * 1e6 for r in rounds if r["calls"]]
    return {
        "rate_median": statistics.median(rates),
        "rate_min": min(rates),
        "rate_max": max(rates),
        "rates": [round(rate, 1) for rate in rates],
        "p50_ms": percentile(latencies, 0.50) / 1000,
        "p99_ms": percentile(latencies, 0.99) / 1000,
        "calls": calls,
        "cpu_us_per_call": {role: round(value, 1) for role, value in cpu.items()},
        "bridge_cpu_us_per_call_rounds": [round(value, 1) for value in bridge_rounds],
    }


def ratio_records(
    summary: dict[str, dict[int, dict[str, Any]]],
    other: str | None = "go",
    clients: Sequence[str] = ("python",),
) -> list[dict[str, Any]]:
    suffixes = [CLIENT_SUFFIX[client] for client in clients]
    pairs = [pair for suffix in suffixes for pair in ratio_pairs(suffix)]
    pairs.append(("direct-gabp", "direct-raw"))
    pairs += [pair for suffix in suffixes for pair in other_ratios(other, suffix)]
    records = []
    for ours_name, base in pairs:
        if ours_name not in summary or base not in summary:
            continue
        for in_flight, stats in summary[ours_name].items():
            baseline = summary[base][in_flight]
            spread_low = stats["rate_min"] / baseline["rate_max"]
            spread_high = stats["rate_max"] / baseline["rate_min"]
            records.append(
                {
                    "benchmark": "e2e",
                    "metric": f"{ours_name} / {base}, {in_flight} in flight",
                    "ours": round(stats["rate_median"], 1),
                    "baseline": round(baseline["rate_median"], 1),
                    "baseline_name": base,
                    "ratio": round(stats["rate_median"] / baseline["rate_median"], 3),
                    "ratio_spread": [round(spread_low, 3), round(spread_high, 3)],
                    "target": target_for(ours_name, base, in_flight),
                }
            )
    # the bridge's CPU time per call (psutil, the bridge process only): other / ours, so above 1
    # means ours spends less; steadier than the rates on a loaded machine
    for ours_name, other_name in [pair for s in suffixes for pair in other_ratios(other, s)]:
        if ours_name not in summary or other_name not in summary:
            continue
        for in_flight, stats in summary[ours_name].items():
            mine = stats["cpu_us_per_call"].get("bridge")
            theirs = summary[other_name][in_flight]["cpu_us_per_call"].get("bridge")
            if not mine or not theirs:
                continue
            key = "bridge_cpu_us_per_call_rounds"
            mine_rounds = stats.get(key) or [mine]
            their_rounds = summary[other_name][in_flight].get(key) or [theirs]
            records.append(
                {
                    "benchmark": "e2e-cpu",
                    "metric": f"bridge CPU/call {other_name} / {ours_name}, {in_flight} in flight",
                    "ours": round(mine, 1),
                    "baseline": round(theirs, 1),
                    "baseline_name": f"{other_name} bridge CPU us per call",
                    "ratio": round(theirs / mine, 3),
                    "ratio_spread": [
                        round(min(their_rounds) / max(mine_rounds), 3),
                        round(max(their_rounds) / min(mine_rounds), 3),
                    ],
                    "target": None,
                }
            )
    return records


def print_tables(
    summary: dict[str, dict[int, dict[str, Any]]], records: list[dict[str, Any]]
) -> None:
    print(
        f"{'path':<12} {'in flight':>9} {'calls/s':>9} {'spread':>15} {'p50 ms':>8} "
        f"{'p99 ms':>8}  CPU us/call (client, bridge, game)"
    )
    for name, levels in summary.items():
        for in_flight, s in levels.items():
            cpu = s["cpu_us_per_call"]
            parts = [f"{role} {cpu[role]:.0f}" for role in ("client", "bridge") if role in cpu]
            parts += [f"{role} {v:.0f}" for role, v in cpu.items() if role.startswith("game")]
            print(
                f"{name:<12} {in_flight:>9} {s['rate_median']:>9,.0f} "
                f"{s['rate_min']:>7,.0f}-{s['rate_max']:<7,.0f} {s['p50_ms']:>8.2f} "
                f"{s['p99_ms']:>8.2f}  {', '.join(parts)}"
            )
    print()
    print(f"{'ratio':<52} {'median':>7} {'spread':>13} {'target':>7}  status")
    for r in records:
        target = r["target"]
        status = "-" if target is None else ("ok" if r["ratio"] >= target else "BELOW TARGET")
        low, high = r["ratio_spread"]
        print(
            f"{r['metric']:<52} {r['ratio']:>7.2f} {low:>6.2f}-{high:<6.2f} "
            f"{'' if target is None else target:>7}  {status}"
        )


def write_plot(summary: dict[str, dict[int, dict[str, Any]]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for name, levels in summary.items():
        xs = list(levels)
        style = "--" if name.startswith("direct") else "-"
        rates = [levels[x]["rate_median"] for x in xs]
        low = [levels[x]["rate_median"] - levels[x]["rate_min"] for x in xs]
        high = [levels[x]["rate_max"] - levels[x]["rate_median"] for x in xs]
        left.errorbar(xs, rates, yerr=[low, high], fmt=style + "o", capsize=3, label=name)
        (line,) = right.plot(
            xs, [levels[x]["p50_ms"] for x in xs], style + "o", label=f"{name} p50"
        )
        right.plot(
            xs,
            [levels[x]["p99_ms"] for x in xs],
            ":",
            marker="x",
            color=line.get_color(),
            label=f"{name} p99",
        )
    for axis in (left, right):
        axis.set_xscale("log", base=2)
        axis.set_xticks(list(IN_FLIGHT), [str(x) for x in IN_FLIGHT])
        axis.set_xlabel("calls in flight")
        axis.grid(True, alpha=0.3)
    left.set_yscale("log")
    left.set_ylabel("calls/s (median of rounds, bars: min-max)")
    left.set_title("throughput")
    right.set_yscale("log")
    right.set_ylabel("latency, ms")
    right.set_title("latency (p50 solid/dashed, p99 dotted)")
    left.legend(fontsize=8)
    right.legend(fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main() -> None:
    args = parse_args()
    started = time.time()
    load_before = os.getloadavg()
    results = anyio.run(measure, args)
    summary = {
        name: {n: summarize(rounds) for n, rounds in levels.items()}
        for name, levels in results.items()
    }
    measured = bridges(args)
    records = ratio_records(summary, measured[1][0] if len(measured) > 1 else None, args.clients)
    print_tables(summary, records)
    meta = run_meta(
        started,
        load_before,
        machine={"cpus": os.cpu_count(), "python": platform.python_version()},
        game=args.game,
        serial_game=args.serial_game,
        tool=args.tool,
        rounds=args.rounds,
        seconds=args.seconds,
        bridges={name: vars(cmd) for name, cmd in bridges(args)},
        mcp_mode=args.mcp_mode,
        clients=args.clients,
    )
    if args.json_path is not None:
        write_document(args.json_path, {"meta": meta, "paths": summary, "records": records})
    plot = args.plot or (args.json_path.with_suffix(".png") if args.json_path else None)
    if plot is not None:
        title = (
            f"games_call_tool end to end ({args.game}{', serial' if args.serial_game else ''}: "
            f"{args.tool}); {args.rounds} rounds x "
            f"{args.seconds:g} s; load {load_before[0]:.1f} before, {os.cpu_count()} CPUs"
        )
        write_plot(summary, plot, title)
        print(f"wrote {plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
