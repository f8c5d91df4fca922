"""Where a games_call_tool round trip spends its time: py-spy on the bridge and the game.

Starts the ``gabs-stdio`` path of ``bench_e2e.py`` (an MCP SDK client process, ``gabs serve``
over stdio, the ``lib_gab`` echo game launched by the bridge; or ``--transport http``: the
``gabs-http`` path), drives ``games_call_tool`` with
``--in-flight`` calls in flight, and meanwhile samples the bridge and the game processes with
``py-spy record`` (attached by pid, ``--nonblocking``; blocking waits left out, so the shares are
shares of the CPU time each process spends). ``_stacks.py`` sorts the samples into the
components of a call and lists the functions with the most samples, by self and inclusive time.

Writes, into ``--out`` (default ``bench-results/profile``): ``bridge.txt`` and ``game.txt`` (the
raw collapsed stacks), ``profile.json`` and ``profile.md`` (the breakdown).
Usage: ``uv run python benchmarks/profile_e2e.py [--seconds 20] [--in-flight 16]``.
Needs ptrace permission for py-spy (root, or ``CAP_SYS_PTRACE``); where it is refused, use
``--cprofile``: it profiles inside the processes (the bridge through ``gabs_cprofile.py``, the
game through ``BENCH_CPROFILE_GAME``) and needs no permission.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _e2e import GameSpec, Harness, echo_call, ours, wait_for_file
from _stacks import BRIDGE, GAME, breakdown, call_counts, counts_markdown, markdown

ROOT = Path(__file__).resolve().parent.parent
WRAPPER = Path(__file__).resolve().parent / "gabs_cprofile.py"


async def profile(args: argparse.Namespace) -> dict[str, Any]:
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    game = GameSpec("bench", kind=args.game, sim_args=tuple(args.sim_args.split()))
    probe = echo_call("bench", args.tool, args.tool_arguments)
    name = f"gabs-{args.transport}"
    env: dict[str, str] = {}
    bridge = ours(args.bridge, args.bridge_http)
    if args.cprofile:
        env = {
            "BENCH_CPROFILE_BRIDGE": str(args.out / "bridge.pstats"),
            "BENCH_CPROFILE_GAME": str(args.out / "game.pstats"),
        }
        wrapper = f"{{python}} {WRAPPER}"
        bridge = ours(
            f"{wrapper} serve --config-dir {{config_dir}}",
            f"{wrapper} serve --transport http --host 127.0.0.1 --port {{port}} "
            "--config-dir {config_dir}",
        )
    async with Harness(keep=args.keep) as harness:
        config_dir = harness.setup_bridge(name, [game])
        if args.transport == "stdio":
            client = await harness.mcp_stdio(
                name, bridge, config_dir, [game], probe, mcp_mode=args.mcp_mode, env=env
            )
        else:
            url, pid = await harness.http_bridge(name, bridge, config_dir, env=env)
            client = await harness.mcp_http(
                name, url, pid, config_dir, [game], probe, mcp_mode=args.mcp_mode
            )
        await client.run(args.in_flight, 1.0, [probe])  # warm up
        if client.bridge_pid is None:
            raise SystemExit("the bridge process was not found under the MCP client")
        targets: dict[str, int] = {"bridge": client.bridge_pid, "game": client.game_pids["game"]}
        if args.cprofile:
            return await _cprofiled(args, client, targets, probe, env)
        spies = []
        if not args.no_spy:
            for role, pid in targets.items():
                output = args.out / f"{role}.txt"
                command = [spy, "record", "--pid", str(pid), "--duration", str(round(args.seconds))]
                command += ["--rate", str(args.rate), "--format", "raw", "--output", str(output)]
                command += ["--full-filenames", "--function", "--threads", "--nonblocking"]
                command += args.spy_args
                log = (args.out / f"{role}.py-spy.log").open("wb")
                spies.append((await anyio.open_process(command, stdout=log, stderr=log), log))
        answer = await client.run(args.in_flight, args.seconds + 1.5, [probe])
        for process, log in spies:
            with anyio.move_on_after(60):
                await process.wait()
            log.close()
            if process.returncode is None:
                process.kill()
            if process.returncode != 0:
                raise SystemExit(f"py-spy failed ({process.returncode}); see {log.name}")
    return {
        "rate": answer["calls"] / answer["elapsed"],
        "cpu": answer["cpu"],
        "calls": answer["calls"],
        "elapsed": answer["elapsed"],
    }


async def _cprofiled(
    args: argparse.Namespace,
    client: Any,
    targets: dict[str, int],
    probe: dict[str, Any],
    env: dict[str, str],
) -> dict[str, Any]:
    """One measured run between SIGUSR1 and SIGUSR2 to the bridge and the game."""
    for pid in targets.values():
        os.kill(pid, signal.SIGUSR1)
    answer = await client.run(args.in_flight, args.seconds, [probe])
    for pid in targets.values():
        os.kill(pid, signal.SIGUSR2)
    for path in env.values():
        await wait_for_file(Path(path), 60)
    return {
        "rate": answer["calls"] / answer["elapsed"],
        "cpu": answer["cpu"],
        "calls": answer["calls"],
        "elapsed": answer["elapsed"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "profile")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--game", choices=("echo", "sim"), default="echo")
    parser.add_argument("--tool", help="the game tool (default bench/echo; sim: get_game_info)")
    parser.add_argument("--tool-arguments", type=json.loads, help="its arguments (JSON)")
    parser.add_argument("--sim-args", default="--log-level WARNING", help="with --game sim")
    parser.add_argument("--bridge", help="our bridge's stdio command template")
    parser.add_argument("--bridge-http", help="our bridge's HTTP command template")
    parser.add_argument("--mcp-mode", default="legacy")
    parser.add_argument("--no-spy", action="store_true", help="run the load only")
    parser.add_argument(
        "--cprofile",
        action="store_true",
        help="instead of py-spy: cProfile inside the bridge and the game (exact calls per call)",
    )
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--spy-args", default="", help="more py-spy record options (e.g. '--gil')")
    args = parser.parse_args()
    args.spy_args = args.spy_args.split()
    if args.game == "sim":
        args.tool = args.tool or "rimworld/get_game_info"
        args.tool_arguments = {} if args.tool_arguments is None else args.tool_arguments
    else:
        args.tool = args.tool or "bench/echo"
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in ("bridge.pstats", "game.pstats"):
        (args.out / stale).unlink(missing_ok=True)
    started = time.time()
    load = anyio.run(profile, args)
    result: dict[str, Any] = {
        "command": "uv run python benchmarks/profile_e2e.py " + " ".join(sys.argv[1:]),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "transport": args.transport,
        "game": args.game,
        "tool": args.tool,
        "in_flight": args.in_flight,
        "seconds": args.seconds,
        "rate_hz": args.rate,
        "rate": load["rate"],
        "cpu_us_per_call": {k: round(v / load["calls"] * 1e6, 1) for k, v in load["cpu"].items()},
        "cpu_share": {k: v / load["elapsed"] for k, v in load["cpu"].items()},
    }
    if args.cprofile:
        text = ""
        for role in ("bridge", "game"):
            rows = call_counts(args.out / f"{role}.pstats", load["calls"])
            result[f"{role}_cprofile"] = rows
            text += counts_markdown(role, rows) + "\n"
        (args.out / "cprofile.md").write_text(text, encoding="utf-8")
        print(text)
    elif not args.no_spy:
        result["bridge"] = breakdown(args.out / "bridge.txt", BRIDGE)
        result["game"] = breakdown(args.out / "game.txt", GAME)
        (args.out / "profile.md").write_text(markdown(result), encoding="utf-8")
        print(markdown(result))
    name = "cprofile.json" if args.cprofile else "profile.json"
    (args.out / name).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
