"""Launching a game as a process and handing it the GABP port and token.

:class:`GameProcess` starts a configured game (``DirectPath``: ``target`` is the executable;
``CustomCommand``: ``target`` is one executable and ``args`` its argument list; never a shell)
with the environment GABS gives every game:

* ``GABP_SERVER_PORT``: the loopback port the game's GABP server listens on (configured, or a
  free one found by binding ``127.0.0.1:0``),
* ``GABP_TOKEN``: 64 hex characters, new for every launch,
* ``GABS_GAME_ID`` and ``GABS_BRIDGE_PATH`` (the ``gabs`` executable, when known).

The game's stdout and stderr are appended to ``<config-dir>/<gameId>/game.log`` (one header
line per launch), never to the bridge's own stdout, which belongs to MCP on stdio. The token
and port are also written to ``<config-dir>/<gameId>/bridge.json`` (mode 0600) for
diagnostics only; the game must read them from its environment.

Every wait is bounded: :meth:`GameProcess.wait_for_port` by its timeout,
:meth:`GameProcess.stop` by its grace period plus a bounded forced kill.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

import anyio
from anyio.abc import Process

from gabp.handoff import BridgeConfig, generate_token, write_bridge_config

from ._version import __version__
from .config import GameConfig, game_runtime_dir

__all__ = [
    "LOOPBACK",
    "GameProcess",
    "LaunchError",
    "LaunchErrorKind",
    "LaunchInfo",
    "Progress",
    "free_loopback_port",
]

LOOPBACK: Final = "127.0.0.1"
LOG_FILE_NAME: Final = "game.log"
BRIDGE_FILE_NAME: Final = "bridge.json"
#: A log bigger than this at launch is moved to ``game.log.1`` (replacing an older one).
LOG_ROTATE_BYTES: Final = 10 * 1024 * 1024
_FIRST_RETRY: Final = 0.05
_MAX_RETRY: Final = 1.0
_KILL_WAIT: Final = 5.0
_TAIL_BYTES: Final = 64 * 1024

Progress = Callable[[str], None]
LaunchErrorKind = Literal[
    "unsupported",
    "not_found",
    "already_running",
    "spawn_failed",
    "exited",
    "timeout",
    "not_started",
]


class LaunchError(RuntimeError):
    """A game could not be started, or its GABP server never became reachable.

    ``kind`` says what happened (``exited``: the process ended early, with ``exit_code``;
    ``timeout``: nothing accepted a connection in time; ``unsupported``: a launch mode this
    bridge cannot start; ``not_found``: no such executable; ``spawn_failed``: the OS refused;
    ``already_running``; ``not_started``). ``log_tail`` holds the last lines of the game's
    output when they help.
    """

    def __init__(
        self,
        message: str,
        *,
        game_id: str,
        kind: LaunchErrorKind,
        exit_code: int | None = None,
        log_tail: str = "",
    ) -> None:
        super().__init__(message)
        self.game_id = game_id
        self.kind: LaunchErrorKind = kind
        self.exit_code = exit_code
        self.log_tail = log_tail


@dataclass(frozen=True)
class LaunchInfo:
    """What one launch produced. The token is left out of ``repr``."""

    pid: int
    port: int
    token: str = field(repr=False)
    command: tuple[str, ...]
    log_path: Path
    started_at: datetime


def free_loopback_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def default_bridge_path() -> str | None:
    """The ``gabs`` executable: this process if it is ``gabs``, else ``gabs`` on ``PATH``."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.stem == "gabs" and argv0.is_file():
        return str(argv0.resolve())
    return shutil.which("gabs")


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


@dataclass(frozen=True)
class _LaunchPlan:
    command: tuple[str, ...]
    working_dir: Path
    env: dict[str, str] = field(repr=False)
    port: int
    token: str = field(repr=False)
    started_at: datetime


class GameProcess:
    """One configured game's process: start it, wait for its GABP server, stop it.

    Owned by one event loop. It starts at most one process at a time; after that process ends
    it can be started again (with a new token).
    """

    def __init__(
        self, game: GameConfig, *, config_dir: Path, bridge_path: str | None = None
    ) -> None:
        self.game = game
        self.config_dir = Path(config_dir)
        self.runtime_dir = game_runtime_dir(self.config_dir, game.id)
        self.log_path = self.runtime_dir / LOG_FILE_NAME
        self.bridge_file = self.runtime_dir / BRIDGE_FILE_NAME
        self._bridge_path = bridge_path
        self._process: Process | None = None
        self._info: LaunchInfo | None = None
        self._log_offset = 0
        self._returncode: int | None = None

    def __repr__(self) -> str:
        state = "running" if self.running else f"returncode={self.returncode}"
        return f"GameProcess(game_id={self.game.id!r}, pid={self.pid}, {state})"

    # -- state --

    @property
    def info(self) -> LaunchInfo | None:
        """The current or last launch."""
        return self._info

    @property
    def pid(self) -> int | None:
        return self._info.pid if self._info is not None else None

    @property
    def port(self) -> int | None:
        return self._info.port if self._info is not None else None

    @property
    def returncode(self) -> int | None:
        """The exit code of the last launch once it ended (negative: killed by that signal)."""
        if self._process is not None and self._process.returncode is not None:
            self._returncode = self._process.returncode
        return self._returncode

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    # -- starting --

    def _command(self, working_dir: Path, env: Mapping[str, str]) -> tuple[str, ...]:
        game = self.game
        if not game.target:
            raise LaunchError(
                f"game {game.id!r} has an empty target: set it to the executable to run",
                game_id=game.id,
                kind="not_found",
            )
        return (self._resolve_executable(game.target, working_dir, env), *game.args)

    def _resolve_executable(self, target: str, working_dir: Path, env: Mapping[str, str]) -> str:
        has_separator = os.sep in target or (os.altsep is not None and os.altsep in target)
        if has_separator or Path(target).is_absolute():
            candidate = Path(target).expanduser()
            if not candidate.is_absolute():
                candidate = working_dir / candidate
            if not candidate.is_file():
                raise LaunchError(
                    f"game {self.game.id!r}: the executable {str(candidate)!r} does not exist"
                    + (
                        f" (relative to {str(working_dir)!r})"
                        if not Path(target).is_absolute()
                        else ""
                    ),
                    game_id=self.game.id,
                    kind="not_found",
                )
            if not os.access(candidate, os.X_OK):
                raise LaunchError(
                    f"game {self.game.id!r}: {str(candidate)!r} is not executable",
                    game_id=self.game.id,
                    kind="not_found",
                )
            return str(candidate)
        found = shutil.which(target, path=env.get("PATH", os.defpath))
        if found is None:
            raise LaunchError(
                f"game {self.game.id!r}: no executable named {target!r} on PATH",
                game_id=self.game.id,
                kind="not_found",
            )
        return found

    def _environment(self, port: int, token: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.game.env)
        for name in self.game.unset_env:
            env.pop(name, None)
        env["GABP_SERVER_PORT"] = str(port)
        env["GABP_TOKEN"] = token
        env["GABS_GAME_ID"] = self.game.id
        bridge_path = self._bridge_path or default_bridge_path()
        if bridge_path:
            env["GABS_BRIDGE_PATH"] = bridge_path
        else:
            env.pop("GABS_BRIDGE_PATH", None)
        return env

    async def start(
        self,
        *,
        port: int | None = None,
        token: str | None = None,
        progress: Progress | None = None,
    ) -> LaunchInfo:
        """Launch the game; return at once (see :meth:`wait_for_port`).

        ``port`` defaults to the game's ``gabpPort``, else a free loopback port; ``token`` to a
        new :func:`~gabp.handoff.generate_token`. Raises :class:`LaunchError`.
        """
        game = self.game
        if self.running:
            raise LaunchError(
                f"game {game.id!r} is already running (pid {self.pid})",
                game_id=game.id,
                kind="already_running",
            )
        if self._process is not None:
            await self._reap()
        plan = self._plan(port, token)
        if progress is not None:
            progress(f"starting {game.id}: {shlex.join(plan.command)}")
        log_fd = self._open_log(plan)
        try:
            try:
                process = await anyio.open_process(
                    list(plan.command),
                    stdin=subprocess.DEVNULL,
                    stdout=log_fd,
                    stderr=subprocess.STDOUT,
                    cwd=plan.working_dir,
                    env=plan.env,
                    start_new_session=_USE_PROCESS_GROUP,
                    creationflags=_CREATION_FLAGS,
                )
            except OSError as exc:
                message = (
                    f"game {game.id!r}: cannot start {plan.command[0]!r}: {exc.strerror or exc}"
                )
                os.write(log_fd, f"--- {message}\n".encode("utf-8", "replace"))
                raise LaunchError(message, game_id=game.id, kind="spawn_failed") from exc
            os.write(log_fd, f"--- pid {process.pid}\n".encode())
        finally:
            os.close(log_fd)

        self._process = process
        self._returncode = None
        self._info = info = LaunchInfo(
            pid=process.pid,
            port=plan.port,
            token=plan.token,
            command=plan.command,
            log_path=self.log_path,
            started_at=plan.started_at,
        )
        try:
            self._write_bridge_file(info)
        except (OSError, ValueError) as exc:
            # Diagnostics only: the game has its handoff in its environment.
            if progress is not None:
                progress(f"could not write {self.bridge_file}: {exc}")
        if progress is not None:
            progress(f"started {game.id} (pid {process.pid}); GABP port {plan.port}")
        return info

    def _plan(self, port: int | None, token: str | None) -> _LaunchPlan:
        game = self.game
        if not game.launchable:
            raise LaunchError(
                f"game {game.id!r} uses launch mode {game.launch_mode}, which this bridge cannot "
                f"start; use DirectPath (target: the game's executable) or CustomCommand "
                f"(target: one executable, args: its arguments)",
                game_id=game.id,
                kind="unsupported",
            )
        working_dir = Path(game.working_dir).expanduser() if game.working_dir else self.config_dir
        if not working_dir.is_dir():
            raise LaunchError(
                f"game {game.id!r}: the working directory {str(working_dir)!r} does not exist",
                game_id=game.id,
                kind="not_found",
            )
        if port is None:
            port = game.gabp_port if game.gabp_port is not None else free_loopback_port()
        if token is None:
            token = generate_token()
        env = self._environment(port, token)
        command = self._command(working_dir, env)
        return _LaunchPlan(
            command=command,
            working_dir=working_dir,
            env=env,
            port=port,
            token=token,
            started_at=datetime.now(UTC),
        )

    def _open_log(self, plan: _LaunchPlan) -> int:
        """Open ``game.log`` for appending (rotating a big one) and write the launch header."""
        self.runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > LOG_ROTATE_BYTES:
                os.replace(self.log_path, self.log_path.with_name(LOG_FILE_NAME + ".1"))
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
        log_fd = os.open(self.log_path, flags, 0o600)
        try:
            self._log_offset = os.lseek(log_fd, 0, os.SEEK_END)
            header = (
                f"--- gabs {__version__}: launching {self.game.id} at "
                f"{plan.started_at.isoformat()} in {plan.working_dir}: {shlex.join(plan.command)}\n"
            )
            os.write(log_fd, header.encode("utf-8", "replace"))
        except BaseException:
            os.close(log_fd)
            raise
        return log_fd

    def _write_bridge_file(self, info: LaunchInfo) -> None:
        metadata = {
            "gameId": self.game.id,
            "pid": info.pid,
            "startedAt": info.started_at.isoformat(),
            "logPath": str(info.log_path),
            "bridgeVersion": __version__,
        }
        config = BridgeConfig(
            token=info.token, transport_type="tcp", address=str(info.port), metadata=metadata
        )
        write_bridge_config(config, self.bridge_file)

    # -- waiting --

    async def wait_for_port(self, timeout: float, *, progress: Progress | None = None) -> None:
        """Wait until something accepts a TCP connection on 127.0.0.1:<port>.

        Tries with exponential backoff (50 ms doubling to 1 s). Raises :class:`LaunchError`
        (``exited`` with the exit code, or ``timeout``; both with the tail of ``game.log``).
        The process is left running on timeout: stop it if it should not be.
        """
        process, info = self._process, self._info
        game_id = self.game.id
        if process is None or info is None:
            raise LaunchError(
                f"game {game_id!r} was not started", game_id=game_id, kind="not_started"
            )
        target = f"{LOOPBACK}:{info.port}"
        started = time.monotonic()
        deadline = started + timeout
        delay = _FIRST_RETRY
        attempt = 0
        last_error = "no attempt made"
        while True:
            if process.returncode is not None:
                raise await self._exited_early(process.returncode, target)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            attempt += 1
            try:
                with anyio.fail_after(min(remaining, _MAX_RETRY)):
                    stream = await anyio.connect_tcp(LOOPBACK, info.port)
            except TimeoutError:
                last_error = "connection attempt timed out"
            except OSError as exc:
                last_error = exc.strerror or str(exc)
            else:
                await stream.aclose()
                if progress is not None:
                    progress(f"{game_id}: GABP server accepts connections on {target}")
                return
            elapsed = time.monotonic() - started
            if progress is not None and (attempt == 1 or elapsed >= 1.0):
                progress(
                    f"{game_id}: waiting for the GABP server on {target} "
                    f"({elapsed:.1f} s of {timeout:g} s)"
                )
            pause = min(delay, deadline - time.monotonic())
            delay = min(delay * 2, _MAX_RETRY)
            if pause > 0:
                # Wake early if the process ends.
                with anyio.move_on_after(pause):
                    await process.wait()
        if process.returncode is not None:
            raise await self._exited_early(process.returncode, target)
        tail = self.tail()
        raise LaunchError(
            f"game {game_id!r} (pid {info.pid}) did not accept a GABP connection on {target} "
            f"within {timeout:g} s ({attempt} attempts, last: {last_error}); the process is "
            f"still running.{_tail_text(tail, self.log_path)}",
            game_id=game_id,
            kind="timeout",
            log_tail=tail,
        )

    async def _exited_early(self, code: int, target: str) -> LaunchError:
        await self._reap()
        tail = self.tail()
        return LaunchError(
            f"game {self.game.id!r} {_describe_exit(code)} before its GABP server accepted a "
            f"connection on {target}.{_tail_text(tail, self.log_path)}",
            game_id=self.game.id,
            kind="exited",
            exit_code=code,
            log_tail=tail,
        )

    # -- stopping --

    async def stop(self, grace: float) -> int | None:
        """Ask the game to exit (SIGTERM), wait up to ``grace`` seconds, then kill it.

        Returns the exit code (negative: ended by that signal), or None if it never started
        or could not be reaped.
        """
        process = self._process
        if process is None:
            return self._returncode
        if process.returncode is None:
            self._signal(process, signal.SIGTERM)
            with anyio.move_on_after(max(grace, 0.0)):
                await process.wait()
        if process.returncode is None:
            return await self.kill()
        return await self._reap()

    async def kill(self) -> int | None:
        """Kill the game at once (SIGKILL) and wait, bounded, for it to end."""
        process = self._process
        if process is None:
            return self._returncode
        if process.returncode is None:
            self._signal(process, _SIGKILL)
        return await self._reap()

    def _signal(self, process: Process, signum: int) -> None:
        if process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if _USE_PROCESS_GROUP and os.getpgid(process.pid) == process.pid:
                # The game still leads the process group it was started in: reach its
                # helpers too. (A game that left it is signalled alone, below.)
                os.killpg(process.pid, signum)
            elif _USE_PROCESS_GROUP:
                os.kill(process.pid, signum)
            elif signum == _SIGKILL:
                process.kill()
            else:
                process.terminate()

    async def _reap(self) -> int | None:
        """Wait (bounded, shielded) for the process to end and release it."""
        process = self._process
        if process is None:
            return self._returncode
        with anyio.CancelScope(shield=True), anyio.move_on_after(_KILL_WAIT):
            if process.returncode is None:
                await process.wait()
            await process.aclose()
            self._returncode = process.returncode
        return self.returncode

    # -- the log --

    def detach(self) -> None:
        """Let the game outlive this object and this process (``gabs games start``).

        The game already runs in a session of its own, so no terminal signal reaches it; what
        remains is asyncio, which kills a child whose subprocess transport is closed or
        collected while the child runs. Marking the transport closed hands the process to the
        operating system as it is. After this, only its pid (and the runtime files) remain.
        """
        inner = getattr(self._process, "_process", None)  # the asyncio.subprocess.Process
        transport = getattr(inner, "_transport", None)
        if transport is not None and hasattr(transport, "_closed"):
            transport._closed = True
        self._process = None

    def tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines the current (or last) launch wrote to ``game.log``."""
        try:
            with open(self.log_path, "rb") as log:
                size = log.seek(0, os.SEEK_END)
                start = max(self._log_offset if self._info is not None else 0, size - _TAIL_BYTES)
                log.seek(start)
                data = log.read()
        except OSError:
            return ""
        text = data.decode("utf-8", "replace")
        kept = text.splitlines()[-lines:] if lines > 0 else []
        return "\n".join(kept)


def _tail_text(tail: str, log_path: Path) -> str:
    if not tail:
        return f" The game wrote nothing to {log_path}."
    return f" Last lines of {log_path}:\n{tail}"


_USE_PROCESS_GROUP: Final = os.name == "posix" and hasattr(os, "killpg")
_SIGKILL: Final[int] = getattr(signal, "SIGKILL", signal.SIGTERM)
# Elsewhere (Windows): a new process group, so a console Ctrl+C reaches the bridge only.
_CREATION_FLAGS: Final[int] = (
    0 if _USE_PROCESS_GROUP else getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
)
