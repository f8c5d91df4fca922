"""Plumbing of the end-to-end benchmarks: bridge configs, bridge and client processes, rounds.

Everything measured here runs in processes of its own: the client (``e2e_client.py``, the
official MCP SDK client or a GABP client), the bridge (``gabs``, or any other bridge command) and
the game (``e2e_game.py``, launched by the bridge through ``games_start``, as a user's game is).
This process only orchestrates: it starts them, sends each client a command per round, reads
the answer, and samples the CPU time each process spent in the round (``psutil``).

Every wait has a timeout; :class:`Harness` kills whatever is left when it closes (the clients,
the HTTP bridges, and the games by the pid in their info files).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import psutil
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

HERE = Path(__file__).resolve().parent
GAME_SCRIPT = HERE / "e2e_game.py"
CLIENT_SCRIPT = HERE / "e2e_client.py"
TS_CLIENT_SCRIPT = HERE / "e2e_client_ts.cjs"
#: The pinned TypeScript SDK the host tests install (``npm ci``), used by ``--client ts``.
TS_MODULES = HERE.parent / "integration-tests" / "hosts" / "node_modules"
ECHO_TOOL = "bench/echo"
ECHO_ARGUMENTS: dict[str, Any] = {"text": "Ärger im Lager", "n": 1}
HTTP_TOKEN = "e2e" + "5f" * 20
MAX_LINE = 256 * 1024 * 1024
START_TIMEOUT = 180.0


def ensure_ts_client() -> None:
    """Make the TypeScript SDK client runnable: Node.js on PATH and the host tests' pinned
    packages installed (``npm ci`` once, as the host tests do); SystemExit says what is
    missing."""
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("_host_node", TS_MODULES.parent / "node.py")
    assert spec is not None and spec.loader is not None
    node = module_from_spec(spec)
    spec.loader.exec_module(node)
    try:
        node.ensure_installed()
    except node.NodeSetupError as exc:
        raise SystemExit(f"--client ts: {exc}") from None


def gabs_executable() -> str:
    """The ``gabs`` console script of this environment."""
    beside = Path(sys.executable).parent / "gabs"
    found = str(beside) if beside.exists() else shutil.which("gabs")
    if not found:
        raise SystemExit("no 'gabs' executable beside this Python or on PATH")
    return found


@dataclass(frozen=True)
class BridgeCommand:
    """How to run one bridge build: command templates for stdio and HTTP (or None).

    Templates are shell-style strings (split, never run by a shell); ``{config_dir}``,
    ``{port}``, ``{python}`` (this interpreter) and ``{gabs}`` (this environment's ``gabs``) are
    filled in per launch (``{port}`` is a free loopback port picked just before the launch).
    """

    name: str
    stdio: str | None
    http: str | None = None

    def argv(self, template: str, **values: Any) -> list[str]:
        values.setdefault("python", sys.executable)
        if "{gabs}" in template:
            values.setdefault("gabs", gabs_executable())
        return [part.format(**values) for part in shlex.split(template)]


def ours(stdio: str | None = None, http: str | None = None) -> BridgeCommand:
    gabs = shlex.quote(gabs_executable())
    return BridgeCommand(
        name="gabs",
        stdio=stdio or f"{gabs} serve --config-dir {{config_dir}}",
        http=http
        if http is not None
        else f"{gabs} serve --transport http --host 127.0.0.1 --port {{port}} "
        "--config-dir {config_dir}",
    )


def go_bridge(executable: str) -> BridgeCommand:
    exe = shlex.quote(executable)
    return BridgeCommand(
        name="go",
        stdio=f"{exe} server stdio --configDir {{config_dir}}",
        http=f"{exe} server http --addr 127.0.0.1:{{port}} --configDir {{config_dir}}",
    )


@dataclass(frozen=True)
class GameSpec:
    """A game entry of a bridge config, launched by the bridge with ``games_start``."""

    game_id: str
    kind: str = "echo"  # "echo" or "sim"
    tools: int = 0
    sim_args: tuple[str, ...] = ()
    serial: bool = False
    """The echo game declares that it takes one request at a time (``concurrency`` 1)."""

    def args(self) -> list[str]:
        if self.kind == "sim":
            return [str(GAME_SCRIPT), "sim", "--", *self.sim_args]
        serial = ["--serial"] if self.serial else []
        return [str(GAME_SCRIPT), "echo", "--tools", str(self.tools), *serial]


def write_config(config_dir: Path, games: Sequence[GameSpec], info_dir: Path) -> None:
    """``config.json`` in the format both bridges read, one CustomCommand entry per game."""
    entries = {
        game.game_id: {
            "id": game.game_id,
            "name": f"Bench {game.game_id}",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": game.args(),
            "env": {
                "BENCH_GAME_INFO": str(info_dir / f"{game.game_id}.json"),
                "BENCH_WATCH_PID": str(os.getpid()),
            },
        }
        for game in games
    }
    config = {"version": "1.0", "apiKey": HTTP_TOKEN, "games": entries}
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")


def free_port() -> int:
    """A free loopback port (for bridges that cannot be told port 0 and report it back)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cpu_seconds(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return 0.0
    return float(times.user + times.system)


def rss_bytes(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss)


class ClientProcess:
    """One ``e2e_client.py`` process, spoken to with JSON lines."""

    def __init__(self, name: str, process: Process) -> None:
        self.name = name
        self.process = process
        self.reader = BufferedByteReceiveStream(process.stdout)  # type: ignore[arg-type]
        self.ready: dict[str, Any] = {}
        self.bridge_pid: int | None = None
        self.game_pids: dict[str, int] = {}

    @property
    def pid(self) -> int:
        return self.process.pid

    async def receive(self, within: float) -> dict[str, Any]:
        with anyio.fail_after(within):
            line = await self.reader.receive_until(b"\n", MAX_LINE)
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def send(self, command: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(json.dumps(command).encode() + b"\n")

    async def run(
        self, in_flight: int, seconds: float, calls: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        """One round; adds the CPU seconds each process of the path spent in it."""
        pids = {"client": self.pid, "bridge": self.bridge_pid, **self.game_pids}
        before = {role: cpu_seconds(pid) for role, pid in pids.items()}
        await self.send(
            {"op": "run", "in_flight": in_flight, "seconds": seconds, "calls": list(calls)}
        )
        answer = await self.receive(seconds + 300)
        answer["cpu"] = {role: cpu_seconds(pid) - before[role] for role, pid in pids.items()}
        if answer.get("errors"):
            raise RuntimeError(
                f"{self.name}: {answer['errors']} of {answer['calls']} calls failed, first: "
                f"{answer['first_error']}"
            )
        return answer

    async def once(
        self, calls: Sequence[dict[str, Any]], concurrency: int = 1, within: float = 600
    ) -> dict[str, Any]:
        """Each call once (``concurrency`` at a time); raises if any failed."""
        await self.send({"op": "once", "calls": list(calls), "concurrency": concurrency})
        answer = await self.receive(within)
        if answer.get("errors"):
            raise RuntimeError(f"{self.name}: {answer['errors']} failed: {answer['first_error']}")
        return answer

    async def quit(self, within: float = 60) -> None:
        if self.process.returncode is not None:
            return
        with anyio.move_on_after(within):
            await self.send({"op": "quit"})
            await self.process.wait()


@dataclass
class Harness:
    """Starts bridges and clients in a temporary directory; ``aclose`` stops everything."""

    keep: bool = False
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gabs-e2e-")))
    clients: list[ClientProcess] = field(default_factory=list)
    bridges: list[Process] = field(default_factory=list)
    logs: list[Any] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    async def __aenter__(self) -> Harness:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    def _log(self, name: str) -> Any:
        handle = open(self.root / f"{name}.log", "ab")  # noqa: SIM115 (closed in aclose)
        self.logs.append(handle)
        return handle

    def setup_bridge(self, name: str, games: Sequence[GameSpec]) -> Path:
        """A config dir with ``games`` for the bridge run ``name``; info files beside it."""
        config_dir = self.root / name / "config"
        info_dir = self.root / name / "info"
        info_dir.mkdir(parents=True, exist_ok=True)
        write_config(config_dir, games, info_dir)
        return config_dir

    def info_path(self, config_dir: Path, game_id: str) -> Path:
        return config_dir.parent / "info" / f"{game_id}.json"

    async def _client(
        self, name: str, argv: list[str], env: dict[str, str], runtime: str = "python"
    ) -> ClientProcess:
        command = [sys.executable, str(CLIENT_SCRIPT), *argv]
        if runtime == "ts":
            command = ["node", str(TS_CLIENT_SCRIPT), "--modules", str(TS_MODULES), *argv]
        process = await anyio.open_process(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log(f"client-{name}"),
            env=env,
        )
        client = ClientProcess(name, process)
        self.clients.append(client)
        ready = await client.receive(START_TIMEOUT + 60)
        if not ready.get("ready"):
            raise RuntimeError(f"client {name} did not start: {ready.get('error')}")
        client.ready = ready
        return client

    async def mcp_stdio(
        self,
        name: str,
        bridge: BridgeCommand,
        config_dir: Path,
        games: Sequence[GameSpec],
        probe: dict[str, Any] | None,
        *,
        mcp_mode: str = "legacy",
        env: dict[str, str] | None = None,
        start_concurrency: int = 1,
        runtime: str = "python",
    ) -> ClientProcess:
        """An MCP client launching ``bridge`` over stdio, with ``games`` started.

        ``probe`` (a call that must succeed before the client reports ready) may be None; the
        games' pids are read from their info files (when started here). ``runtime``: the
        client on the ``mcp`` SDK ("python") or on the TypeScript SDK ("ts", see
        :func:`ensure_ts_client`).
        """
        assert bridge.stdio is not None
        command = bridge.argv(bridge.stdio, config_dir=config_dir)
        argv = ["mcp-stdio", "--command", json.dumps(command), "--mcp-mode", mcp_mode]
        argv += ["--bridge-log", str(self.root / f"{name}.log")]
        argv += ["--start-concurrency", str(start_concurrency)]
        if probe is not None:
            argv += ["--probe", json.dumps(probe)]
        argv += [arg for game in games for arg in ("--start", game.game_id)]
        client = await self._client(name, argv, {**os.environ, **(env or {})}, runtime)
        children = psutil.Process(client.pid).children()
        client.bridge_pid = children[0].pid if children else None
        client.game_pids = self._game_pids(config_dir, games)
        return client

    async def http_bridge(
        self, name: str, bridge: BridgeCommand, config_dir: Path, env: dict[str, str] | None = None
    ) -> tuple[str, int]:
        """Start ``bridge`` over HTTP; return its MCP URL and pid once it accepts connections."""
        assert bridge.http is not None
        port = free_port()
        argv = bridge.argv(bridge.http, config_dir=config_dir, port=port)
        process = await anyio.open_process(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._log(f"{name}-stdout"),
            stderr=self._log(name),
            env={**os.environ, "GABS_HTTP_TOKEN": HTTP_TOKEN, **(env or {})},
        )
        self.bridges.append(process)
        deadline = time.monotonic() + 60
        while True:
            if process.returncode is not None:
                raise RuntimeError(f"bridge {name} exited with {process.returncode}; see its log")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"bridge {name} did not listen on {port} in 60 s") from None
                await anyio.sleep(0.05)
        return f"http://127.0.0.1:{port}/mcp", process.pid

    async def mcp_http(
        self,
        name: str,
        url: str,
        bridge_pid: int,
        config_dir: Path,
        games: Sequence[GameSpec],
        probe: dict[str, Any],
        *,
        mcp_mode: str = "legacy",
        runtime: str = "python",
    ) -> ClientProcess:
        argv = ["mcp-http", "--url", url, "--mcp-mode", mcp_mode, "--probe", json.dumps(probe)]
        argv += [arg for game in games for arg in ("--start", game.game_id)]
        env = {**os.environ, "BENCH_HTTP_TOKEN": HTTP_TOKEN}
        client = await self._client(name, argv, env, runtime)
        client.bridge_pid = bridge_pid
        client.game_pids = self._game_pids(config_dir, games)
        return client

    async def direct(self, kind: str, name: str, info: Path) -> ClientProcess:
        """A ``gabp`` or ``raw`` client to the game whose info file is ``info``."""
        client = await self._client(name, [kind, "--info", str(info)], dict(os.environ))
        client.game_pids = {"game": int(client.ready["game_pid"])}
        return client

    def _game_pids(self, config_dir: Path, games: Sequence[GameSpec]) -> dict[str, int]:
        pids = {}
        for game in games:
            path = self.info_path(config_dir, game.game_id)
            role = "game" if len(games) == 1 else f"game:{game.game_id}"
            pids[role] = int(json.loads(path.read_text(encoding="utf-8"))["pid"])
        return pids

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            for client in reversed(self.clients):
                await client.quit(30)
            for process in [*(c.process for c in self.clients), *self.bridges]:
                if process.returncode is None:
                    process.terminate()
                    with anyio.move_on_after(10):
                        await process.wait()
                if process.returncode is None:
                    process.kill()
                    with anyio.move_on_after(10):
                        await process.wait()
            for info in self.root.glob("*/info/*.json"):
                with contextlib.suppress(ValueError, KeyError, OSError, psutil.Error):
                    pid = int(json.loads(info.read_text(encoding="utf-8"))["pid"])
                    if _is_our_game(pid, info, self.started):
                        os.kill(pid, signal.SIGKILL)
            for handle in self.logs:
                handle.close()
            if not self.keep:
                shutil.rmtree(self.root, ignore_errors=True)


def _is_our_game(pid: int, info: Path, since: float) -> bool:
    """Whether ``pid`` is still the game that wrote ``info`` (a pid can be reused)."""
    process = psutil.Process(pid)
    if process.create_time() < since - 1:
        return False
    return str(GAME_SCRIPT) in process.cmdline() and process.environ().get(
        "BENCH_GAME_INFO"
    ) == str(info)


async def wait_for_file(path: Path, within: float) -> None:
    """Until ``path`` exists; TimeoutError after ``within`` seconds."""
    with anyio.fail_after(within):
        for _ in range(int(within / 0.05) + 1):
            if await anyio.Path(path).exists():
                return
            await anyio.sleep(0.05)
    raise TimeoutError(f"{path} did not appear within {within} s")


def echo_call(
    game_id: str = "bench", tool: str = ECHO_TOOL, arguments: Any = None
) -> dict[str, Any]:
    """A ``games_call_tool`` call of ``tool`` on ``game_id``."""
    return {
        "tool": "games_call_tool",
        "arguments": {
            "gameId": game_id,
            "tool": tool,
            "arguments": ECHO_ARGUMENTS if arguments is None else arguments,
        },
    }


def gabp_call(tool: str = ECHO_TOOL, arguments: Any = None) -> dict[str, Any]:
    """The same call, as the GABP ``tools/call`` a direct client sends."""
    return {
        "method": "tools/call",
        "params": {"name": tool, "arguments": ECHO_ARGUMENTS if arguments is None else arguments},
    }


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, round(fraction * (len(sorted_values) - 1)))
    return float(sorted_values[index])
