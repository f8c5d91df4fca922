"""``gabs games start|stop|status``: manage game processes from the command line.

The MCP server owns the games it starts and stops them when it ends. These commands are for
the other case: a game started from a shell that outlives the command, to be attached to
later (``games_connect`` reads the ``bridge.json`` the launch wrote) or stopped by a later
command.

* ``start ID``: launch the game (:class:`~gabs.launcher.GameProcess`: a fresh loopback port
  and token, ``bridge.json`` with mode 0600, output in ``game.log``), wait for its GABP server,
  say hello once to verify it (a :class:`~gabs.session.GameSession` that observes only), record
  the pid in ``<config-dir>/<id>/pid`` and exit, leaving the game running in its own session
  (process group), so neither this command's exit nor a Ctrl+C in its terminal reaches it.
* ``stop ID [--force]``: SIGTERM to the recorded pid (its process group), wait the game's stop
  grace period, then SIGKILL. ``--force``: SIGKILL at once.
* ``status [ID]``: the configured games, whether the recorded pid is alive, and for a live one,
  what a hello with the recorded token says: tool count and the current attention item.

A recorded pid is only trusted while it still looks like the game that was started (the pid
in ``bridge.json`` matches and, where ``/proc`` exists, the command line names the game's
target), so a stale pid file never makes ``stop`` signal an unrelated process.

Results go to stdout (``--json`` for machine output), progress to stderr. Exit codes: 0 ok, 1 the
operation failed (launch, hello, stop, or a running game that cannot be asked), 2 usage or
config errors.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import anyio

from gabp import GabpError, HandoffError, read_bridge_config
from gabs.attention import Gate
from gabs.config import ConfigError, GabsConfig, GameConfig
from gabs.launcher import BRIDGE_FILE_NAME, GameProcess, LaunchError
from gabs.session import GameSession

__all__ = [
    "PID_FILE_NAME",
    "ProbeError",
    "add_games_lifecycle_commands",
    "add_games_start_command",
    "add_games_status_command",
    "add_games_stop_command",
    "pid_alive",
    "probe_game",
    "run",
]

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2

PID_FILE_NAME: Final = "pid"
_POLL: Final = 0.05
_KILL_WAIT: Final = 5.0
_PROBE_TIMEOUT_CAP: Final = 10.0

AddCommand = Callable[..., argparse.ArgumentParser]


class ProbeError(Exception):
    """A running game could not be asked (connection refused, hello refused, no answer)."""


def _progress(message: str) -> None:
    print(f"gabs: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Processes


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists and has not ended (a zombie counts as ended)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return False
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    fields = stat.rsplit(")", 1)[-1].split()
    return not (fields and fields[0] in ("Z", "X"))


def _cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def _looks_like(pid: int, game: GameConfig, runtime_dir: Path) -> bool:
    """Whether ``pid`` is still the process the last launch of ``game`` started."""
    with contextlib.suppress(OSError, HandoffError, ValueError):
        recorded = read_bridge_config(runtime_dir / BRIDGE_FILE_NAME).metadata or {}
        if recorded.get("pid") not in (None, pid):
            return False
    argv = _cmdline(pid)
    if argv is None:
        return True  # no /proc: trust the pid file
    target = Path(game.target).name
    return any(arg == game.target or Path(arg).name == target for arg in argv)


def _signal(pid: int, signum: int) -> None:
    """Signal the game and, when it leads its own process group, its helpers too."""
    with contextlib.suppress(ProcessLookupError):
        if hasattr(os, "killpg") and hasattr(os, "getpgid"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signum)
                    return
        os.kill(pid, signum)


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL)
    return True


class _PidFile:
    """``<config-dir>/<id>/pid``: the pid of the game a ``gabs games start`` left running."""

    def __init__(self, config: GabsConfig, game: GameConfig) -> None:
        self.game = game
        self.runtime_dir = config.game_dir(game.id)
        self.path = self.runtime_dir / PID_FILE_NAME

    def read(self) -> int | None:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def write(self, pid: int) -> None:
        self.runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = self.path.with_name(PID_FILE_NAME + ".tmp")
        partial.write_text(f"{pid}\n", encoding="utf-8")
        os.replace(partial, self.path)

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def live_pid(self) -> int | None:
        """The recorded pid if that process still runs and still looks like the game."""
        pid = self.read()
        if pid is None or not pid_alive(pid) or not _looks_like(pid, self.game, self.runtime_dir):
            return None
        return pid


# ---------------------------------------------------------------------------------------------
# Asking a game


async def probe_game(game_id: str, port: int, token: str, *, timeout: float) -> dict[str, Any]:
    """Say hello with ``token``, read the tools and the attention item, disconnect.

    Raises :class:`ProbeError` when the game cannot be asked.
    """
    session = GameSession(
        game_id,
        port=port,
        token=token,
        gate=Gate(mode="observe"),
        call_timeout=timeout,
        connect_timeout=timeout,
        liveness_interval=3600,
    )
    found: dict[str, Any] = {}
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(session.run)
            try:
                hello = session.hello or {}
                item = session.attention
                attention: dict[str, Any] = {"supported": session.supports_attention}
                if session.supports_attention:
                    attention.update(
                        open=item is not None,
                        blocking=bool(item and item.blocking),
                        attentionId=item.attention_id if item else None,
                        severity=item.severity if item else None,
                        stateInvalidated=bool(item and item.state_invalidated),
                        summary=item.summary if item else None,
                    )
                found = {
                    "agentId": hello.get("agentId"),
                    "app": hello.get("app"),
                    "tools": len(session.tools),
                    "attention": attention,
                }
            finally:
                await session.close()
                tg.cancel_scope.cancel()
    except (GabpError, OSError, TimeoutError) as exc:
        raise ProbeError(f"cannot ask {game_id} on 127.0.0.1:{port}: {exc}") from None
    except BaseExceptionGroup as group:
        first = group.exceptions[0]
        if isinstance(first, GabpError | OSError | TimeoutError):
            raise ProbeError(f"cannot ask {game_id} on 127.0.0.1:{port}: {first}") from None
        raise
    return found


def _attention_line(attention: dict[str, Any], mode: str) -> str:
    if not attention.get("supported"):
        return "attention: not supported"
    if not attention.get("open"):
        return f"attention: none open (mode {mode})"
    kind = "BLOCKING" if attention.get("blocking") else "advisory"
    return (
        f"attention {attention.get('attentionId')} open ({kind}, {attention.get('severity')}, "
        f"mode {mode}): {attention.get('summary')}"
    )


def _status_line(entry: dict[str, Any]) -> str:
    if not entry["running"]:
        note = f" ({entry['note']})" if entry.get("note") else ""
        return f"{entry['gameId']}: stopped{note}"
    parts = [f"{entry['gameId']}: running (pid {entry['pid']}, port {entry.get('port')})"]
    if entry.get("error"):
        parts.append(f"not answering: {entry['error']}")
    else:
        parts.append(f"{entry['tools']} tools")
        parts.append(_attention_line(entry["attention"], entry["attentionMode"]))
    return "; ".join(parts)


def _probe_timeout(game: GameConfig) -> float:
    return min(game.timeouts.connect_seconds, _PROBE_TIMEOUT_CAP)


def _game_status(config: GabsConfig, game: GameConfig) -> dict[str, Any]:
    pid_file = _PidFile(config, game)
    recorded = pid_file.read()
    pid = pid_file.live_pid()
    entry: dict[str, Any] = {
        "gameId": game.id,
        "name": game.name,
        "attentionMode": game.attention.mode,
        "pid": pid,
        "running": pid is not None,
        "port": None,
        "tools": None,
        "attention": None,
        "error": None,
    }
    if pid is None:
        if recorded is not None:
            entry["note"] = f"stale pid file: {recorded} is not the game any more"
        return entry
    try:
        bridge = read_bridge_config(pid_file.runtime_dir / BRIDGE_FILE_NAME)
        entry["port"] = int(bridge.address)
        found = anyio.run(
            lambda: probe_game(
                game.id, int(bridge.address), bridge.token, timeout=_probe_timeout(game)
            )
        )
    except (HandoffError, ValueError, OSError) as exc:
        entry["error"] = f"no usable {BRIDGE_FILE_NAME}: {exc}"
        return entry
    except ProbeError as exc:
        entry["error"] = str(exc)
        return entry
    entry["tools"] = found["tools"]
    entry["attention"] = found["attention"]
    entry["agentId"] = found["agentId"]
    return entry


# ---------------------------------------------------------------------------------------------
# The commands


def _config(args: argparse.Namespace) -> GabsConfig:
    return GabsConfig.load(getattr(args, "config_dir", None))


def _print(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(text)


def games_start(args: argparse.Namespace) -> int:
    config = _config(args)
    game = config.game(args.game_id)
    if not game.launchable:
        print(
            f"gabs: game {game.id!r} uses launch mode {game.launch_mode}, which gabs cannot "
            "start; use DirectPath or CustomCommand",
            file=sys.stderr,
        )
        return EXIT_USAGE
    pid_file = _PidFile(config, game)
    running = pid_file.live_pid()
    if running is not None:
        entry = _game_status(config, game)
        _print(
            args,
            {**entry, "status": "already_running"},
            f"already running: {_status_line(entry)}",
        )
        return EXIT_FAILURE if entry.get("error") else EXIT_OK

    async def launch() -> tuple[GameProcess, dict[str, Any]]:
        process = GameProcess(game, config_dir=config.config_dir)
        info = await process.start(progress=_progress)
        try:
            await process.wait_for_port(game.timeouts.start_seconds, progress=_progress)
            found = await probe_game(game.id, info.port, info.token, timeout=_probe_timeout(game))
        except BaseException:
            if process.running:
                await process.kill()
            raise
        pid_file.write(info.pid)
        process.detach()
        return process, found

    try:
        process, found = anyio.run(launch)
    except LaunchError as exc:
        print(f"gabs: {exc}", file=sys.stderr)
        return EXIT_USAGE if exc.kind in ("unsupported", "not_found") else EXIT_FAILURE
    except ProbeError as exc:
        print(f"gabs: the game started but did not accept the bridge: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    info = process.info
    assert info is not None
    entry = {
        "status": "started",
        "gameId": game.id,
        "name": game.name,
        "attentionMode": game.attention.mode,
        "pid": info.pid,
        "running": True,
        "port": info.port,
        "logPath": str(info.log_path),
        "bridgeFile": str(process.bridge_file),
        "pidFile": str(pid_file.path),
        **found,
    }
    _print(args, entry, f"started {_status_line(entry)}; log {info.log_path}")
    return EXIT_OK


def games_stop(args: argparse.Namespace) -> int:
    config = _config(args)
    game = config.game(args.game_id)
    pid_file = _PidFile(config, game)
    recorded = pid_file.read()
    pid = pid_file.live_pid()
    if pid is None:
        pid_file.remove()
        note = "no pid file" if recorded is None else f"stale pid file for {recorded} removed"
        _print(
            args,
            {"gameId": game.id, "status": "not_running", "pid": recorded},
            f"{game.id} is not running ({note})",
        )
        return EXIT_OK
    started = time.monotonic()
    forced = bool(args.force)
    if not forced:
        _progress(f"stopping {game.id} (pid {pid}): SIGTERM")
        _signal(pid, signal.SIGTERM)
        grace = game.timeouts.stop_grace_seconds
        if not _wait_gone(pid, grace):
            _progress(f"{game.id} still runs after the {grace:g} s grace period: SIGKILL")
            forced = True
    if forced:
        _signal(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        if not _wait_gone(pid, _KILL_WAIT):
            print(f"gabs: {game.id} (pid {pid}) did not end after SIGKILL", file=sys.stderr)
            return EXIT_FAILURE
    pid_file.remove()
    took = time.monotonic() - started
    how = "killed (SIGKILL)" if forced else "exited after SIGTERM"
    _print(
        args,
        {
            "gameId": game.id,
            "status": "killed" if forced else "stopped",
            "pid": pid,
            "seconds": round(took, 2),
        },
        f"stopped {game.id} (pid {pid}): {how} in {took:.2f} s",
    )
    return EXIT_OK


def games_status(args: argparse.Namespace) -> int:
    config = _config(args)
    if args.game_id:
        games = [config.game(args.game_id)]
    else:
        games = sorted(config.games.values(), key=lambda game: game.id)
    entries = [_game_status(config, game) for game in games]
    if args.json:
        print(json.dumps(entries if not args.game_id else entries[0], indent=2, ensure_ascii=False))
    elif not entries:
        print(f"no games configured in {config.path}")
    else:
        for entry in entries:
            print(_status_line(entry))
    return EXIT_FAILURE if any(entry.get("error") for entry in entries) else EXIT_OK


# ---------------------------------------------------------------------------------------------
# Registration (gabs.cli)


def _json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def add_games_start_command(subparsers: Any, add_command: AddCommand) -> None:
    parser = add_command(
        subparsers,
        "start",
        games_start,
        "start a game and leave it running",
        "Launch the game with a fresh loopback port and token, wait for its GABP server, say "
        "hello once to verify it, record its pid in <config-dir>/<id>/pid and exit, leaving "
        "the game running (attach with games_connect; stop with 'gabs games stop').",
    )
    parser.add_argument("game_id", metavar="ID")
    _json_option(parser)


def add_games_stop_command(subparsers: Any, add_command: AddCommand) -> None:
    parser = add_command(
        subparsers,
        "stop",
        games_stop,
        "stop a game started with 'gabs games start'",
        "SIGTERM the recorded pid, wait the game's stop grace period, then SIGKILL.",
    )
    parser.add_argument("game_id", metavar="ID")
    parser.add_argument("--force", action="store_true", help="SIGKILL at once")
    _json_option(parser)


def add_games_status_command(subparsers: Any, add_command: AddCommand) -> None:
    parser = add_command(
        subparsers,
        "status",
        games_status,
        "show whether games run, their tools and attention",
        "For each configured game (or ID): whether the recorded pid is alive and, if so, what "
        "a hello with the recorded token says (tool count, the open attention item). Exit 1 "
        "when a running game cannot be asked.",
    )
    parser.add_argument("game_id", metavar="ID", nargs="?")
    _json_option(parser)


def add_games_lifecycle_commands(subparsers: Any, add_command: AddCommand) -> None:
    """Add ``start``, ``stop`` and ``status`` under ``gabs games``."""
    add_games_start_command(subparsers, add_command)
    add_games_stop_command(subparsers, add_command)
    add_games_status_command(subparsers, add_command)


# ---------------------------------------------------------------------------------------------
# Standalone (python -m gabs.games_cli), the same commands without the rest of the CLI


def _standalone_add_command(
    subparsers: Any,
    name: str,
    handler: Callable[[argparse.Namespace], int],
    help: str,
    description: str | None = None,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=description or help
    )
    parser.add_argument("--config-dir", type=Path, metavar="DIR")
    parser.set_defaults(handler=handler)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """``gabs games start|stop|status`` on their own; return the exit code."""
    parser = argparse.ArgumentParser(prog="gabs games")
    subparsers = parser.add_subparsers(metavar="COMMAND", required=True)
    add_games_lifecycle_commands(subparsers, _standalone_add_command)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except ConfigError as exc:
        print(f"gabs: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(run())
