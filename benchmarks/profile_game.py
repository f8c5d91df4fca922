"""A game process's own CPU per call, with nothing else bounding it: the sim against the echo game.

``bench_scale.py --only sim`` calls each game through ``gabp.Connection`` clients, and at 16 in
flight such a client is the bound of the echo game's rate (it spends about as much per call as
the game). This script takes the client out of the way: it starts each game on its own (no
bridge; ``benchmarks/e2e_game.py`` with the environment a bridge hands over) and calls it from
this process with pre-encoded GABP requests over a raw asyncio protocol (``e2e_client.py``'s
``RawClient``). It reports each game's rate and its CPU per call (user + system, from
``/proc/<pid>/stat``, Linux only), in rounds that alternate the games, and the ratio of the
echo game's CPU per call to the sim's: the share of the echo game's rate the sim would reach if
the game were the only bound. Reported for reference (no target): the sim does per call what
the mod does (its operation journal, the call's envelope, the summaries), which the echo game
does not.

Profiling one game (the window covers the measured rounds only, not the start-up):
``--cprofile PATH`` writes ``pstats`` of the sim (``e2e_game.py``'s hook, ``BENCH_CPROFILE_GAME``);
``--py-spy PATH`` records it with py-spy (a ``.txt`` path: raw collapsed stacks, else an SVG).

Usage: ``uv run python benchmarks/profile_game.py [--quick] [--in-flight 16] [--seconds 3]
[--rounds 3] [--sim-tool rimworld/get_game_info] [--cprofile PATH | --py-spy PATH] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from e2e_client import HELLO_BASE, RawClient, raw_template

from _common import median, record, report

HERE = Path(__file__).resolve().parent
GAME_SCRIPT = HERE / "e2e_game.py"
START_TIMEOUT = 20.0
CALL_TIMEOUT = 10.0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", dest="json_path", type=Path, metavar="PATH")
    parser.add_argument("--quick", action="store_true", help="one round of 1.5 s per game")
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=3.0, help="per game and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sim-tool", default="rimworld/get_game_info")
    profile = parser.add_mutually_exclusive_group()
    profile.add_argument("--cprofile", type=Path, metavar="PATH", help="pstats of the sim")
    profile.add_argument("--py-spy", type=Path, metavar="PATH", help="py-spy record the sim")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds = 1, 1.5
    if args.in_flight < 1 or args.rounds < 1 or args.seconds <= 0:
        parser.error("--in-flight and --rounds must be >= 1, --seconds > 0")
    if args.py_spy is not None and shutil.which("py-spy") is None:
        parser.error("--py-spy needs py-spy on PATH (it is in the workspace's dev dependencies)")
    return args


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Game:
    """One game process, served on a port of its own, and a raw client connected to it."""

    def __init__(self, kind: str, tool: str, cprofile: Path | None) -> None:
        self.kind = kind
        self.port = free_port()
        self.token = secrets.token_hex(16)
        env = dict(
            os.environ,
            GABP_SERVER_PORT=str(self.port),
            GABP_TOKEN=self.token,
            GABS_GAME_ID=kind,
            BENCH_WATCH_PID=str(os.getpid()),
        )
        if cprofile is not None:
            env["BENCH_CPROFILE_GAME"] = str(cprofile)
        command = [sys.executable, str(GAME_SCRIPT), kind]
        if kind == "sim":
            command += ["--", "--log-level", "WARNING"]
            arguments: dict[str, Any] = {}
        else:
            tool, arguments = "bench/echo", {"text": "hello", "n": 1}
        self.process = subprocess.Popen(command, env=env)
        self.template = raw_template("tools/call", {"name": tool, "arguments": arguments})
        self.client: RawClient | None = None

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + START_TIMEOUT
        while self.client is None:
            if self.process.poll() is not None:
                raise RuntimeError(f"the {self.kind} game exited with {self.process.returncode}")
            try:
                _, self.client = await loop.create_connection(RawClient, "127.0.0.1", self.port)
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the {self.kind} game did not listen within 20 s") from None
                await asyncio.sleep(0.05)
        hello = {**HELLO_BASE, "token": self.token, "launchId": str(uuid.uuid4())}
        answer = await self.request(raw_template("session/hello", hello))
        first = await self.request(self.template)
        for body, what in ((answer, "session/hello"), (first, "the tool call")):
            if b'"result"' not in body or b'"error":{' in body:
                raise RuntimeError(f"{self.kind}: {what} failed: {body[:300]!r}")

    async def request(self, template: tuple[bytes, bytes]) -> bytes:
        assert self.client is not None
        return await asyncio.wait_for(self.client.request(template), CALL_TIMEOUT)

    async def run(self, seconds: float, in_flight: int) -> int:
        """Calls answered within ``seconds``, ``in_flight`` at a time. One deadline bounds the
        whole run (``seconds`` plus a call's timeout): a timer per call would make this client
        slower, and the game would then get its requests in smaller batches."""
        client = self.client
        assert client is not None
        done = 0
        end = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < end:
                await client.request(self.template)
                done += 1

        async with asyncio.timeout(seconds + CALL_TIMEOUT):
            await asyncio.gather(*(worker() for _ in range(in_flight)))
        return done

    def close(self) -> None:
        if self.client is not None:
            self.client.transport.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def start_py_spy(path: Path, pid: int) -> subprocess.Popen[bytes]:
    kind = "raw" if path.suffix == ".txt" else "flamegraph"
    command = ["py-spy", "record", "-r", "500", "-f", kind, "-o", str(path), "-p", str(pid)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def stop_py_spy(spy: subprocess.Popen[bytes]) -> None:
    spy.send_signal(signal.SIGINT)  # py-spy writes what it has on SIGINT
    spy.wait(timeout=30)


Figures = dict[str, dict[str, list[float]]]


async def measure(games: dict[str, Game], args: argparse.Namespace) -> Figures:
    figures: Figures = {kind: {"rate": [], "cpu": []} for kind in games}
    for game in games.values():
        await game.run(min(1.0, args.seconds), args.in_flight)  # warm up
    sim = games["sim"]
    spy: subprocess.Popen[bytes] | None = None
    if args.cprofile is not None:
        os.kill(sim.process.pid, signal.SIGUSR1)
    if args.py_spy is not None:
        spy = start_py_spy(args.py_spy, sim.process.pid)
    for round_index in range(args.rounds):
        order = list(games) if round_index % 2 == 0 else list(reversed(games))
        for kind in order:
            game = games[kind]
            cpu_before, started = cpu_seconds(game.process.pid), time.perf_counter()
            calls = await game.run(args.seconds, args.in_flight)
            elapsed = time.perf_counter() - started
            cpu = cpu_seconds(game.process.pid) - cpu_before
            figures[kind]["rate"].append(calls / elapsed)
            figures[kind]["cpu"].append(cpu / calls * 1e6)
            print(
                f"round {round_index + 1} {kind}: {calls / elapsed:,.0f} calls/s, "
                f"game CPU {cpu / calls * 1e6:.1f} us per call",
                file=sys.stderr,
            )
    if args.cprofile is not None:
        os.kill(sim.process.pid, signal.SIGUSR2)
        await asyncio.sleep(0.5)  # the hook writes the stats
    if spy is not None:
        stop_py_spy(spy)
    return figures


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    games = {"sim": Game("sim", args.sim_tool, args.cprofile), "echo": Game("echo", "", None)}
    try:
        for game in games.values():
            await game.connect()
        figures = await measure(games, args)
    finally:
        for game in games.values():
            game.close()
    sim, echo = figures["sim"], figures["echo"]
    name = f"{args.sim_tool}, {args.in_flight} in flight, raw client"
    return [
        record(
            benchmark="game cpu",
            metric=f"sim calls/s vs echo game ({name})",
            ours=median(sim["rate"]),
            baseline=median(echo["rate"]),
            baseline_name="bare lib-gab echo game, the same client",
            target=None,
        ),
        record(
            benchmark="game cpu",
            metric=f"echo game CPU per call / sim's, us ({name})",
            ours=median(echo["cpu"]),
            baseline=median(sim["cpu"]),
            baseline_name="the sim's CPU per call (ours = the echo game's)",
            target=None,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    if not Path("/proc/self/stat").exists():
        print("profile_game.py reads a process's CPU from /proc: Linux only", file=sys.stderr)
        return 2
    args = parse(argv)
    records = asyncio.run(run(args))
    report(records, args.json_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
