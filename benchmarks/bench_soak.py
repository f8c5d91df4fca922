"""A long agent session: does the memory of the bridge and the game stay flat?

Real processes: this process is the MCP client (the ``mcp`` SDK's ``Client`` over stdio), it
launches ``gabs serve``, and the bridge launches two simulated RimWorlds (``rimbridge-sim
--enable-test-tools``, attention gate on, ``maxConcurrentRequests`` 16, as ``gabs demo``
configures it) through ``games_start``: ``rimworld``, which lives for the whole session and is
measured, and ``scratch``, which is stopped and started again now and then (a reconnect of the
bridge's per-game state).

``--calls`` calls (default 100,000; ``--quick`` 10,000), ``--in-flight`` at a time (default 8),
in a fixed mix: reads (``rimworld/get_game_info``, ``list_colonists``); reads with arguments
that never repeat (``search_debug_actions`` with a new query string, ``get_cell_info`` over a 97
by 97 square, on and off the 50 by 50 map), so per-argument caches would show;
``games_tool_names`` with a new query each time; log spam (``sim/inject_log`` at info, a new
line each time); refusals (an unknown tool, invalid arguments); every 50th call an attention
round (``sim/inject_log`` of a new warning or, every other round, an error, which opens a
blocking item and closes the gate, so the calls in flight meanwhile are held back; then
``games_get_attention`` and ``games_ack_attention``); and every ``--restart-every`` calls
(default a twentieth of the run, at least 1,000) ``games_stop`` + ``games_start`` of
``scratch``.

The RSS (``VmRSS`` of ``/proc/<pid>/status``) of the bridge and of ``rimworld`` is sampled
every fortieth of the run. Reported per process: the growth after warm-up, RSS at the end / RSS
after the first tenth of the calls (target at most 1.10), and the peak. ``--tracemalloc
bridge,game`` (or one of them) traces that process's allocations from the middle of the run to
its end (``BENCH_TRACEMALLOC``, see ``_tracemalloc_hook.py``) and writes the allocation sites
still holding memory at the end, and the object types that grew, into the work directory
(slower; for finding what grows, not for the figures); with ``--objects-only`` it counts the
live objects by type only, at nearly full speed.

Usage: ``uv run python benchmarks/bench_soak.py [--quick] [--json PATH] [--calls N]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _e2e import GAME_SCRIPT, gabs_executable, wait_for_file

from _common import run_meta, write_document

HERE = Path(__file__).resolve().parent
TARGET = 1.10
MAIN, SCRATCH = "rimworld", "scratch"
ATTENTION_EVERY = 50
SAMPLES = 40
CALL_TIMEOUT = 60.0
#: the sim as ``gabs demo`` runs it, quieter on stderr
SIM_ARGS = ("--enable-test-tools", "--seed", "7", "--log-level", "WARNING")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", dest="json_path", type=Path, metavar="PATH")
    parser.add_argument("--quick", action="store_true", help="10,000 calls")
    parser.add_argument("--calls", type=int, help="calls in all (default 100,000)")
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--restart-every", type=int, help="calls between restarts of scratch")
    parser.add_argument(
        "--tracemalloc",
        default="",
        metavar="ROLES",
        help="find what grows in bridge, game or bridge,game (slower)",
    )
    parser.add_argument(
        "--objects-only", action="store_true", help="with --tracemalloc: count objects only"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    args.calls = args.calls or (10_000 if args.quick else 100_000)
    args.restart_every = args.restart_every or max(1000, args.calls // 20)
    args.tracemalloc = {role for role in args.tracemalloc.split(",") if role}
    if args.tracemalloc - {"bridge", "game"}:
        parser.error("--tracemalloc takes bridge, game or bridge,game")
    return args


def write_config(config_dir: Path, info_dir: Path, tracemalloc_game: Path | None) -> None:
    """``rimworld`` and ``scratch``: the sim as ``gabs demo`` configures it, run through
    ``e2e_game.py`` (which reports its pid and exits with this process)."""
    games = {}
    for game_id in (MAIN, SCRATCH):
        env = {
            "BENCH_GAME_INFO": str(info_dir / f"{game_id}.json"),
            "BENCH_WATCH_PID": str(os.getpid()),
        }
        if tracemalloc_game is not None and game_id == MAIN:
            env["BENCH_TRACEMALLOC"] = str(tracemalloc_game)
        games[game_id] = {
            "id": game_id,
            "name": f"Soak {game_id}",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": [str(GAME_SCRIPT), "sim", "--", *SIM_ARGS],
            "env": env,
            "attention": {"mode": "gate"},
            "timeouts": {"startSeconds": 30, "callSeconds": 20, "stopGraceSeconds": 3},
            "maxConcurrentRequests": 16,
        }
    config_dir.mkdir(parents=True, exist_ok=True)
    document = {"version": "1.0", "games": games}
    (config_dir / "config.json").write_text(json.dumps(document, indent=2), encoding="utf-8")


def vm_rss(pid: int) -> int:
    """``VmRSS`` of ``pid`` in bytes."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def call(game: str, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "games_call_tool", {"gameId": game, "tool": tool, "arguments": arguments}


def mix(index: int) -> tuple[str, str, dict[str, Any]]:
    """The ``index``-th call of the session: (kind, MCP tool, its arguments)."""
    slot = index % 20
    if slot in (0, 1, 2, 3, 4, 5):
        return ("read", *call(MAIN, "rimworld/get_game_info", {}))
    if slot == 6:
        return ("read", *call(MAIN, "rimworld/list_colonists", {}))
    if slot in (7, 8):
        query = f"spawn {index} thing"
        return ("distinct", *call(MAIN, "rimworld/search_debug_actions", {"query": query}))
    if slot == 9:
        cell = {"x": index % 97, "z": (index // 97) % 97}
        return ("distinct", *call(MAIN, "rimworld/get_cell_info", cell))
    if slot in (10, 11):
        return ("names", "games_tool_names", {"gameId": MAIN, "query": f"pawn {index}"})
    if slot == 12:
        line = {"level": "info", "message": f"soak line {index}", "count": 5}
        return ("spam", *call(MAIN, "sim/inject_log", line))
    if slot == 13:
        return ("unknown", *call(MAIN, f"rimworld/no_such_tool_{index}", {}))
    if slot == 14:
        return ("invalid", *call(MAIN, "rimworld/get_cell_info", {"x": f"x{index}", "z": 1}))
    if slot == 15:
        return ("scratch", *call(SCRATCH, "rimworld/get_game_info", {}))
    if slot == 16:
        return ("scratch", *call(SCRATCH, "rimworld/search_debug_actions", {"query": f"q{index}"}))
    return ("read", *call(MAIN, "rimworld/get_game_info", {}))


class Soak:
    """The session: workers taking call indexes from one counter, samples, outcome counts."""

    def __init__(self, client: Any, args: argparse.Namespace, pids: dict[str, int]) -> None:
        self.client = client
        self.args = args
        self.pids = pids
        self.counter = itertools.count()
        self.outcomes: Counter[str] = Counter()
        self.first_problem: dict[str, str] = {}
        self.samples: list[dict[str, Any]] = []
        self.step = max(1, args.calls // SAMPLES)
        self.restart_lock = anyio.Lock()
        self.started = time.monotonic()
        self.on_half: Any = None

    async def tool(self, name: str, arguments: dict[str, Any], kind: str) -> Any:
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                result = await self.client.call_tool(name, arguments)
        except Exception as exc:  # counted, the session goes on
            self.outcomes[f"{kind}:exception"] += 1
            self.first_problem.setdefault(f"{kind}:exception", repr(exc)[:300])
            return None
        outcome = "error" if result.is_error else "ok"
        self.outcomes[f"{kind}:{outcome}"] += 1
        if result.is_error:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            if "block" in text.lower() and kind != "unknown":
                self.outcomes[f"{kind}:error:blocked"] += 1
            self.first_problem.setdefault(f"{kind}:error", text[:300])
        return result

    async def attention_round(self, index: int) -> None:
        level = "error" if (index // ATTENTION_EVERY) % 2 else "warning"
        line = {"level": level, "message": f"soak {level} {index}: something broke", "count": 2}
        await self.tool("games_call_tool", call(MAIN, "sim/inject_log", line)[1], "attention")
        # a tool the gate holds back while an error is open (get_game_info, a diagnostics
        # read, passes the gate)
        await self.tool("games_call_tool", call(MAIN, "rimworld/list_colonists", {})[1], "gated")
        await self.ack_open("attention")

    async def ack_open(self, kind: str) -> None:
        got = await self.tool("games_get_attention", {"gameId": MAIN}, kind)
        item = (got.structured_content or {}).get("attention") if got is not None else None
        if isinstance(item, dict) and item.get("attentionId"):
            ack = {"gameId": MAIN, "attentionId": item["attentionId"]}
            await self.tool("games_ack_attention", ack, kind)

    async def restart(self) -> None:
        async with self.restart_lock:
            await self.tool("games_stop", {"gameId": SCRATCH}, "restart")
            await self.tool("games_start", {"gameId": SCRATCH}, "restart")

    def sample(self, done: int) -> None:
        entry: dict[str, Any] = {"calls": done, "s": round(time.monotonic() - self.started, 1)}
        for role, pid in self.pids.items():
            entry[role] = vm_rss(pid)
        self.samples.append(entry)

    async def worker(self) -> None:
        while (index := next(self.counter)) < self.args.calls:
            if index and index % self.args.restart_every == 0:
                await self.restart()
            elif index % ATTENTION_EVERY == ATTENTION_EVERY - 1:
                await self.attention_round(index)
            else:
                kind, name, arguments = mix(index)
                await self.tool(name, arguments, kind)
            if (index + 1) % self.step == 0:
                self.sample(index + 1)
                if index + 1 == self.step * (SAMPLES // 2) and self.on_half is not None:
                    self.on_half()
                if (index + 1) % (self.step * 4) == 0:
                    print(f"{index + 1} calls, {self.samples[-1]}", file=sys.stderr)

    async def run(self) -> None:
        async with anyio.create_task_group() as group:
            for _ in range(self.args.in_flight):
                group.start_soon(self.worker)
        await self.ack_open("final")


def children_named(marker: str) -> int:
    for child in psutil.Process().children(recursive=True):
        try:
            if any(marker in part for part in child.cmdline()):
                return child.pid
        except psutil.Error:
            continue
    raise RuntimeError(f"no child process running {marker}")


async def session(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config_dir, info_dir = root / "config", root / "info"
    info_dir.mkdir(parents=True)
    trace_dir = root / "tracemalloc" if args.tracemalloc else None
    if trace_dir is not None:
        trace_dir.mkdir()
    traced_game = trace_dir / "game" if trace_dir and "game" in args.tracemalloc else None
    write_config(config_dir, info_dir, traced_game)
    env = dict(os.environ)
    if args.objects_only:
        env["BENCH_TRACEMALLOC_FRAMES"] = "0"  # the games inherit the bridge's environment
    command = [gabs_executable(), "serve", "--config-dir", str(config_dir)]
    if trace_dir is not None and "bridge" in args.tracemalloc:
        env["BENCH_TRACEMALLOC"] = str(trace_dir / "bridge")
        command = [sys.executable, str(HERE / "gabs_tracemalloc.py"), *command[1:]]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    with open(root / "bridge.log", "a", encoding="utf-8") as log:  # noqa: ASYNC230 (once)
        transport = stdio_client(params, errlog=log)
        async with Client(transport, mode="legacy", read_timeout_seconds=CALL_TIMEOUT) as client:
            for game in (MAIN, SCRATCH):
                started = await client.call_tool("games_start", {"gameId": game})
                if started.is_error:
                    raise RuntimeError(f"games_start {game}: {started.content}")
            await wait_for_file(info_dir / f"{MAIN}.json", 30)
            game_pid = json.loads((info_dir / f"{MAIN}.json").read_text("utf-8"))["pid"]
            bridge = "gabs_tracemalloc.py" if "bridge" in args.tracemalloc else command[0]
            pids = {"bridge": children_named(Path(bridge).name), "game": int(game_pid)}
            soak = Soak(client, args, pids)

            def snapshot(tag: str) -> None:
                for role in args.tracemalloc:
                    os.kill(pids[role], signal.SIGUSR1 if tag == "first" else signal.SIGUSR2)

            if trace_dir is not None:
                soak.on_half = lambda: snapshot("first")
            soak.sample(0)
            await soak.run()
            if trace_dir is not None:
                snapshot("last")
                for role in args.tracemalloc:
                    await wait_for_file(trace_dir / f"{role}.txt", 300)
            for game in (SCRATCH, MAIN):
                await client.call_tool("games_stop", {"gameId": game})
    return {
        "samples": soak.samples,
        "outcomes": dict(sorted(soak.outcomes.items())),
        "first_problem": soak.first_problem,
        "elapsed_s": round(time.monotonic() - soak.started, 1),
        "tracemalloc_dir": str(trace_dir) if trace_dir else None,
    }


def growth_records(result: dict[str, Any], calls: int) -> list[dict[str, Any]]:
    samples = result["samples"]
    tenth = next(s for s in samples if s["calls"] >= calls // 10)
    last = samples[-1]
    records = []
    for role in ("bridge", "game"):
        growth = last[role] / tenth[role]
        peak = max(s[role] for s in samples)
        records.append(
            {
                "benchmark": "soak",
                "metric": f"{role} RSS growth after warm-up over {calls:,} calls "
                "(end / first tenth)",
                "ours": round(growth, 3),
                "baseline": TARGET,
                "baseline_name": "the bound: at most 1.10",
                # higher is better: how far under the bound (>= 1.0 met)
                "ratio": round(TARGET / growth, 3),
                "target": 1.0,
                "rss_mib": {
                    "start": round(samples[0][role] / 2**20, 1),
                    "first_tenth": round(tenth[role] / 2**20, 1),
                    "end": round(last[role] / 2**20, 1),
                    "peak": round(peak / 2**20, 1),
                },
            }
        )
    return records


def main() -> None:
    args = parse_args()
    started = time.time()
    load_before = os.getloadavg()
    root = Path(tempfile.mkdtemp(prefix="gabs-soak-"))
    try:
        result = anyio.run(session, args, root)
    finally:
        if not args.keep and not args.tracemalloc:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"work dir {root}", file=sys.stderr)
    records = growth_records(result, args.calls)
    rate = args.calls / result["elapsed_s"]
    print(f"{args.calls:,} calls in {result['elapsed_s']} s ({rate:,.0f} calls/s)")
    print("outcomes:", json.dumps(result["outcomes"]))
    for r in records:
        status = "ok" if r["ratio"] >= 1.0 else "BELOW TARGET"
        growth = f"{r['ours']:.3f} (target <= {TARGET})"
        print(f"{r['metric']}: {growth}, RSS MiB {r['rss_mib']}  {status}")
        if status != "ok":
            print(f"BELOW TARGET: {r['metric']} {r['ours']} > {TARGET}", file=sys.stderr)
    if args.json_path is not None:
        meta = run_meta(
            started,
            load_before,
            calls=args.calls,
            in_flight=args.in_flight,
            restart_every=args.restart_every,
            outcomes=result["outcomes"],
            first_problem=result["first_problem"],
            samples=result["samples"],
        )
        write_document(args.json_path, {"meta": meta, "records": records})


if __name__ == "__main__":
    main()
