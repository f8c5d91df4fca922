"""The game process of the end-to-end benchmarks: a small ``lib_gab`` echo game, or the sim.

A bridge launches it the way it launches any game (``GABP_SERVER_PORT``, ``GABP_TOKEN``,
``GABS_GAME_ID`` in the environment). Before it serves, the game writes where it listens to the
file named by ``BENCH_GAME_INFO`` (``{"port", "token", "pid"}``, mode 0600, atomically), so the
benchmark's direct GABP clients can call the very same game the bridge calls.

* ``echo`` (default): a ``lib_gab.GabpServer`` with attention enabled and the tool
  ``bench/echo {text: str, n: int}`` that returns its arguments; ``--tools N`` registers N more
  tools (``bench/tool_0000`` ...) with descriptions, tags and three parameters each, for the
  discovery and memory measurements.
* ``sim``: the simulated RimWorld (``rimbridge_sim.cli.main``) in this process, with the
  arguments after ``--``.

``BENCH_CPROFILE_GAME`` turns on the benchmark's cProfile hook (``_cprofile_hook.py``),
``BENCH_TRACEMALLOC`` its tracemalloc hook (``_tracemalloc_hook.py``).
``BENCH_WATCH_PID`` names the benchmark's own process: when it is gone, the game exits (a bridge
may leave its games running, as the real one does, and a benchmark killed half way must not
leave games behind).
Usage (by a bridge): ``python e2e_game.py [echo [--tools N] | sim [-- SIM_ARGS...]]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from typing import Any

INFO_ENV = "BENCH_GAME_INFO"
WATCH_ENV = "BENCH_WATCH_PID"
CPROFILE_ENV = "BENCH_CPROFILE_GAME"
TRACEMALLOC_ENV = "BENCH_TRACEMALLOC"
ECHO_TOOL = "bench/echo"


def write_info(port: int) -> None:
    """Tell the benchmark where this game listens (only when it asked, through the env)."""
    path = os.environ.get(INFO_ENV)
    if not path:
        return
    from gabp import write_secret_file

    info = {"port": port, "token": os.environ.get("GABP_TOKEN", ""), "pid": os.getpid()}
    write_secret_file(path, json.dumps(info).encode())


def watch_parent() -> None:
    """Exit the whole process when the benchmark process is gone (checked every second)."""
    raw = os.environ.get(WATCH_ENV)
    if not raw:
        return
    pid = int(raw)

    def watch() -> None:
        stop = threading.Event()
        while not stop.wait(1.0):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass

    threading.Thread(target=watch, name="bench-watch", daemon=True).start()


def add_tools(server: Any, count: int) -> None:
    """``count`` realistic-looking tools: a description, tags, three typed parameters."""

    def tool(target: str, amount: int = 1, note: str = "") -> dict[str, Any]:
        return {"target": target, "amount": amount, "note": note}

    areas = ("colony", "pawns", "map", "items", "research", "trade", "jobs", "weather")
    for index in range(count):
        area = areas[index % len(areas)]
        server.add_tool(
            tool,
            name=f"bench/tool_{index:04d}",
            description=f"Adjust {area} entry {index}: applies an amount to a target in the "
            f"{area} table and returns what changed.",
            tags=[area, "read-only" if index % 3 == 0 else "write"],
        )


async def serve_echo(extra_tools: int, serial: bool) -> None:
    import anyio

    from lib_gab import GabpServer, ServerLimits

    limits = ServerLimits(max_concurrent_requests=1) if serial else ServerLimits()
    server = GabpServer.from_gabs_environment(
        app_name="bench-echo", app_version="1.0", limits=limits
    )
    server.enable_attention()

    @server.tool(ECHO_TOOL, description="Return the arguments.", tags=["read-only"])
    async def echo(text: str, n: int) -> dict[str, Any]:
        return {"text": text, "n": n}

    add_tools(server, extra_tools)
    async with server.running() as address:
        assert address.port is not None  # TCP, the default transport
        write_info(address.port)
        await anyio.sleep_forever()


def run_sim(sim_args: list[str]) -> int:
    from rimbridge_sim.cli import main as sim_main

    port = int(os.environ.get("GABP_SERVER_PORT", "0"))
    if port:
        # the sim listens on the handed-off port; the info is written before it binds, and the
        # benchmark only uses it after the bridge has connected
        write_info(port)
    sim_main(sim_args)  # exits the process when the sim stops
    return 0


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    sim_args: list[str] = []
    if "--" in args_list:
        at = args_list.index("--")
        args_list, sim_args = args_list[:at], args_list[at + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", nargs="?", choices=("echo", "sim"), default="echo")
    parser.add_argument("--tools", type=int, default=0, help="extra tools of the echo game")
    parser.add_argument(
        "--serial", action="store_true", help="the echo game takes one request at a time"
    )
    args = parser.parse_args(args_list)
    watch_parent()
    if os.environ.get(CPROFILE_ENV):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from _cprofile_hook import install

        install(os.environ[CPROFILE_ENV])
    if os.environ.get(TRACEMALLOC_ENV):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from _tracemalloc_hook import install as install_tracemalloc

        install_tracemalloc(os.environ[TRACEMALLOC_ENV])
    if args.kind == "sim":
        return run_sim(sim_args)
    import anyio

    anyio.run(serve_echo, args.tools, args.serial)
    return 0


if __name__ == "__main__":
    sys.exit(main())
