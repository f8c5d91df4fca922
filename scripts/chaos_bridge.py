"""Drive one GABS bridge over stdio through random lifecycle trouble and check it stays whole.

Side check, not a test: it takes a minute or more, and a seed makes the sequence of actions
repeatable, not their timing::

    python scripts/chaos_bridge.py --steps 300 --seed 7 [--bridge CMD] [--mono EXE]
        [--config-chaos] > report.json

Games: two ``rimbridge-sim`` processes (``maxConcurrentRequests`` 16), the compatibility suite's
faulty and compat games, and with ``--mono`` the Lib.GAB 1.0.3 console game on Mono (see
``docs/ports/lib-gab.md``). Actions, at random and overlapping (at most 10 requests in flight):
``games_start``, ``games_stop``, ``games_kill``, ``games_status``, ``games_connect``, calls of
the games' tools (the sim's and the faulty game's fault tools among them), attention reads and
acks, MCP cancellations of requests in flight, SIGKILL and SIGSTOP (then SIGCONT) of game
processes, and with ``--config-chaos`` ``config.json`` rewritten under the bridge (an entry
removed or broken, the file cut short or garbage, then restored).

Invariants, each broken one a line of the report's ``problems`` and exit status 1: every request
not cancelled is answered within its deadline; no JSON-RPC error; no ``internal_error``; no
traceback on the bridge's stderr; no live game process while ``games_status`` calls its game
stopped (with no lifecycle request for it in flight); none left after the final stops; the
bridge ends at the end of its input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT / "integration-tests" / "compat"
GAMES = ["sim1", "sim2", "faulty", "compat"]
TIMEOUTS = {"startSeconds": 20, "callSeconds": 8, "stopGraceSeconds": 3}
LIFECYCLE = ("games_start", "games_stop", "games_kill", "games_connect")
DEADLINE = 70.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bridge", default=str(Path(sys.executable).parent / "gabs"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mono", help="the Lib.GAB 1.0.3 console game (MonoGame.exe)")
    parser.add_argument("--config-chaos", action="store_true")
    return parser.parse_args()


def write_config(folder: Path, mono: str | None) -> str:
    games: dict[str, dict[str, Any]] = {}
    sim = str(Path(sys.executable).parent / "rimbridge-sim")
    for game_id in ("sim1", "sim2"):
        games[game_id] = {"target": sim, "args": ["--enable-test-tools"]}
        games[game_id]["maxConcurrentRequests"] = 16
    for game_id, script in (("faulty", "faulty_game.py"), ("compat", "compat_game.py")):
        games[game_id] = {"target": sys.executable, "args": [str(COMPAT / script)]}
        games[game_id]["env"] = {"COMPAT_GAME_DIR": str(folder.parent)}
    if mono:
        games["mono"] = {"target": "/usr/bin/mono", "args": [mono]}
    for game_id, entry in games.items():
        entry.update(id=game_id, name=game_id, launchMode="CustomCommand", timeouts=TIMEOUTS)
    folder.mkdir(parents=True)
    text = json.dumps({"version": "1.0", "games": games}, indent=2)
    (folder / "config.json").write_text(text, encoding="utf-8")
    return text


class Bridge:
    """The bridge process and the requests sent to it, answered or not."""

    def __init__(self, command: list[str], config: Path, home: Path, log: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
        self.process = subprocess.Popen(
            [*command, "server", "stdio", "--configDir", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log.open("wb"),
            env={**env, "HOME": str(home)},
        )
        self.lock = threading.Lock()
        self.writing = threading.Lock()
        self.sent: dict[int, tuple[float, str, dict[str, Any]]] = {}
        self.answers: dict[int, tuple[float, dict[str, Any]]] = {}
        self.cancelled: set[int] = set()
        self.problems: list[str] = []
        self.next_id = 100
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                self.problems.append(f"unreadable line from the bridge: {line[:120]!r}")
                continue
            if "id" in message and ("result" in message or "error" in message):
                with self.lock:
                    if message["id"] in self.answers:
                        self.problems.append(f"two answers for request {message['id']}")
                    self.answers[message["id"]] = (time.monotonic(), message)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        with self.writing:  # timers cancel from their own threads
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            self.process.stdin.flush()

    def call(self, name: str, arguments: dict[str, Any]) -> int:
        self.next_id += 1
        with self.lock:
            self.sent[self.next_id] = (time.monotonic(), name, arguments)
        params = {"name": name, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params})
        return self.next_id

    def wait(self, request_id: int, seconds: float = DEADLINE) -> dict[str, Any] | None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            with self.lock:
                if request_id in self.answers:
                    return self.answers[request_id][1]
            time.sleep(0.02)
        return None

    def open_requests(self) -> list[int]:
        with self.lock:
            return [i for i in self.sent if i not in self.answers and i not in self.cancelled]


def structured(answer: dict[str, Any] | None) -> dict[str, Any]:
    result = (answer or {}).get("result") or {}
    data = result.get("structuredContent")
    return data if isinstance(data, dict) else {}


def game_processes(marker: str) -> dict[int, str]:
    """The live game processes of this run (their environment holds ``marker``): pid to game."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() not in environ or state in ("Z", "T"):
            continue
        for item in environ.split(b"\0"):
            if item.startswith(b"GABS_GAME_ID="):
                found[int(entry.name)] = item[13:].decode()
    return found


class Chaos:
    """The random actions and the checks made on the way."""

    def __init__(self, bridge: Bridge, seed: int, marker: str, config: Path, good: str) -> None:
        self.bridge, self.rnd, self.marker = bridge, random.Random(seed), marker
        self.config, self.good = config, good
        self.games = GAMES + (["mono"] if "mono" in json.loads(good)["games"] else [])

    def step(self, config_chaos: bool) -> None:
        rnd, game = self.rnd, self.rnd.choice(self.games)
        roll = rnd.random()
        if config_chaos and roll < 0.06:
            self.rewrite_config()
        elif roll < 0.14:
            self.bridge.call("games_start", {"gameId": game})
        elif roll < 0.18:  # a start the client gives up on (its own timeout, a stop button)
            start = self.bridge.call("games_start", {"gameId": game})
            threading.Timer(rnd.uniform(0.05, 1.5), self.cancel, (start,)).start()
        elif roll < 0.23:
            self.bridge.call(
                rnd.choice(["games_stop", "games_stop", "games_kill"]), {"gameId": game}
            )
        elif roll < 0.29:
            self.check_status(game)
        elif roll < 0.32:
            self.bridge.call("games_connect", {"gameId": game})
        elif roll < 0.37:
            self.attention(game)
        elif roll < 0.41:
            self.signal_a_game()
        elif roll < 0.44:
            self.cancel_one()
        else:
            tool, arguments = self.game_call(game)
            self.bridge.call(
                "games_call_tool", {"gameId": game, "tool": tool, "arguments": arguments}
            )

    def game_call(self, game: str) -> tuple[str, dict[str, Any]]:
        rnd = self.rnd
        calls: list[tuple[str, dict[str, Any]]]
        if game.startswith("sim"):
            calls = [
                ("rimworld/get_game_info", {}),
                ("rimbridge/ping", {}),
                ("sim/inject_log", {"level": "error", "message": "chaos"}),
                ("sim/schedule_error", {"message": "later", "afterTicks": 2}),
                ("sim/stall", {"ms": rnd.choice([50, 500, 3000, 12000])}),
                ("sim/drop_connection", {}),
                ("sim/unload_map", {}),
            ]
            return rnd.choice(calls)
        if game == "faulty":
            calls = [
                ("fault/echo", {"text": "hi"}),
                ("fault/act", {"mode": "close", "pause": rnd.choice([0, 1, 3])}),
                ("fault/act", {"mode": "exit", "status": 3}),
                ("fault/act", {"mode": "kill"}),
                ("fault/act", {"mode": "twice"}),
                ("fault/act", {"mode": "stray", "then": True}),
                ("fault/act", {"mode": "frame", "frame": "Content-Length: 5\r\n\r\n{bad}"}),
                ("fault/act", {"mode": "sized", "bytes": rnd.choice([100, 3_000_000])}),
            ]
            return rnd.choice(calls)
        if game == "mono":
            calls = [("game/status", {}), ("game/world", {}), ("game/fail", {})]
            calls.append(("game/repeat", {"count": 3, "word": "hi"}))
            return rnd.choice(calls)
        return "compat/echo", {"text": "x"}

    def check_status(self, game: str) -> None:
        status = structured(self.bridge.wait(self.bridge.call("games_status", {"gameId": game})))
        busy = [
            i
            for i in self.bridge.open_requests()
            if self.bridge.sent[i][1] in LIFECYCLE and self.bridge.sent[i][2].get("gameId") == game
        ]
        if status.get("status") in ("stopped", "stale-runtime-cleaned") and not busy:
            live = [pid for pid, g in game_processes(self.marker).items() if g == game]
            if live:
                self.bridge.problems.append(f"{game} said {status['status']} while {live} ran")

    def attention(self, game: str) -> None:
        look = self.bridge.call("games_get_attention", {"gameId": game, "refresh": True})
        item = structured(self.bridge.wait(look, 30)).get("attention")
        if isinstance(item, dict) and self.rnd.random() < 0.7:
            self.bridge.call(
                "games_ack_attention", {"gameId": game, "attentionId": item["attentionId"]}
            )

    def signal_a_game(self) -> None:
        processes = list(game_processes(self.marker))
        if not processes:
            return
        pid = self.rnd.choice(processes)
        try:
            if self.rnd.random() < 0.5:
                os.kill(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGSTOP)
                threading.Timer(self.rnd.uniform(0.5, 4), _resume, (pid,)).start()
        except ProcessLookupError:
            pass

    def cancel_one(self) -> None:
        open_requests = self.bridge.open_requests()
        if open_requests:
            self.cancel(self.rnd.choice(open_requests))

    def cancel(self, victim: int) -> None:
        with self.bridge.lock:
            if victim in self.bridge.answers:
                return
            self.bridge.cancelled.add(victim)
        params = {"requestId": victim, "reason": "chaos"}
        self.bridge.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})

    def rewrite_config(self) -> None:
        document = json.loads(self.good)
        victim, roll = self.rnd.choice(list(document["games"])), self.rnd.random()
        if roll < 0.3:
            del document["games"][victim]
            text = json.dumps(document)
        elif roll < 0.45:
            text = self.good[: self.rnd.randrange(len(self.good))]
        elif roll < 0.55:
            text = "{ not json"
        elif roll < 0.7:
            document["games"][victim]["launchMode"] = "Bogus"
            text = json.dumps(document)
        else:
            text = self.good
        temporary = self.config / ".chaos.tmp"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, self.config / "config.json")


def _resume(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGCONT)


def check_answers(bridge: Bridge) -> dict[str, int]:
    """The invariants over every answer; returns how each tool's requests ended."""
    ends: dict[str, int] = {}
    with bridge.lock:
        for request_id, (sent_at, name, arguments) in sorted(bridge.sent.items()):
            if request_id not in bridge.answers:
                if request_id not in bridge.cancelled:
                    bridge.problems.append(f"no answer to {request_id} {name} {arguments}")
                continue
            answered_at, answer = bridge.answers[request_id]
            if answered_at - sent_at > DEADLINE:
                bridge.problems.append(f"{request_id} {name} took {answered_at - sent_at:.0f} s")
            if "error" in answer:
                bridge.problems.append(f"JSON-RPC error for {request_id} {name}: {answer['error']}")
            data = structured(answer)
            if data.get("code") == "internal_error" or data.get("status") == "internal_error":
                bridge.problems.append(f"internal error for {request_id} {name}: {data}")
            key = f"{name}: {data.get('code') or data.get('status') or '-'}"
            ends[key] = ends.get(key, 0) + 1
    return ends


def main() -> int:
    args = parse_args()
    work = Path(tempfile.mkdtemp(prefix="chaos-bridge-"))
    config, home = work / "config", work / "home"
    good = write_config(config, args.mono)
    home.mkdir()
    bridge = Bridge(shlex.split(args.bridge), config, home, work / "bridge.log")
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
    hello["clientInfo"] = {"name": "chaos", "version": "1"}
    bridge.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    if bridge.wait(1, 30) is None:
        print("the bridge did not answer initialize", file=sys.stderr)
        return 1
    bridge.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    chaos = Chaos(bridge, args.seed, str(work), config, good)
    started = time.monotonic()
    for _ in range(args.steps):
        chaos.step(args.config_chaos)
        time.sleep(chaos.rnd.choice([0, 0, 0.01, 0.05, 0.2, 0.5]))
        while len(bridge.open_requests()) > 10 and bridge.process.poll() is None:
            time.sleep(0.05)
        if bridge.process.poll() is not None:
            bridge.problems.append(f"the bridge ended with {bridge.process.returncode}")
            break
    end = time.monotonic() + DEADLINE + 30
    while bridge.open_requests() and time.monotonic() < end:
        time.sleep(0.2)
    ends = check_answers(bridge)
    (config / "config.json").write_text(good, encoding="utf-8")
    time.sleep(1.5)
    final = {
        g: structured(bridge.wait(bridge.call("games_stop", {"gameId": g}), 40)).get("code")
        for g in chaos.games
    }
    left = game_processes(str(work))
    if left:
        bridge.problems.append(f"game processes left after the final stops: {left}")
        for pid in left:
            _resume(pid)
            os.kill(pid, signal.SIGKILL)
    assert bridge.process.stdin is not None
    bridge.process.stdin.close()
    try:
        bridge.process.wait(15)
    except subprocess.TimeoutExpired:
        bridge.problems.append("the bridge did not end at the end of its input")
        bridge.process.kill()
    log = (work / "bridge.log").read_text(encoding="utf-8", errors="replace")
    if "Traceback" in log:
        bridge.problems.append("a traceback on the bridge's stderr (see its log)")
    report = {
        "bridge": args.bridge,
        "seed": args.seed,
        "steps": args.steps,
        "seconds": round(time.monotonic() - started, 1),
        "requests": len(bridge.sent),
        "cancelled": len(bridge.cancelled),
        "ends": dict(sorted(ends.items(), key=lambda kv: -kv[1])),
        "finalStops": final,
        "log": str(work / "bridge.log"),
        "problems": bridge.problems,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 1 if bridge.problems else 0


if __name__ == "__main__":
    sys.exit(main())
