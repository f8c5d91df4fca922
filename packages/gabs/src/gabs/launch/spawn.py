"""Starting a game's process so that it outlives the bridge.

The game runs in a session (process group) of its own, with stdin closed and stdout and
stderr in ``<config-dir>/<gameId>/launch.log`` (truncated at each launch, mode 0600), so
neither the bridge's exit, a Ctrl+C in its terminal nor a closed pipe reaches it. The bridge
keeps a :class:`SpawnedGame` handle while it runs, reaps the process when it ends, and after
that only the runtime claim (pid and start-time fingerprint) remains.

The store modes (``SteamAppId``, ``EpicAppId``) start the platform's opener with the store's
URI: ``xdg-open`` on Linux, ``open`` on macOS, ``cmd /c start`` on Windows.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import anyio

__all__ = [
    "LAUNCH_LOG",
    "SpawnError",
    "SpawnedGame",
    "describe_exit",
    "opener_command",
    "read_tail",
    "reap_finished",
    "spawn",
    "start_error_hint",
    "store_uri",
]

LAUNCH_LOG: Final = "launch.log"
TAIL_BYTES: Final = 16 * 1024


#: Every game this process started and has not yet seen end. Kept so that a handle dropped
#: while its game runs (the game is meant to outlive it) is never finalised as "still
#: running", and so that :func:`reap_finished` can collect the ones that ended.
_LIVE: set[SpawnedGame] = set()


def reap_finished() -> None:
    """Collect the exit status of every game this process started that has ended."""
    for game in list(_LIVE):
        game.poll()


class SpawnError(OSError):
    """The operating system refused to create the process (``spawn_failed``)."""


#: Windows' ERROR_ELEVATION_REQUIRED: the target asks for elevation, which the bridge never gives.
ELEVATION_REQUIRED: Final = 740


def start_error_hint(exc: OSError, platform: str = sys.platform) -> str:
    """What to do about a refused start, when the error says more than its text (the Go
    bridge's hint for a target that requires elevation on Windows), else ""."""
    if platform == "win32" and getattr(exc, "winerror", None) == ELEVATION_REQUIRED:
        return (
            "the target requires elevation; GABS does not elevate \u2014 remove the elevation "
            "requirement or launch it outside GABS"
        )
    return ""


def store_uri(launch_mode: str, target: str) -> str:
    """The URI a store mode hands to the opener."""
    if launch_mode == "SteamAppId":
        return f"steam://rungameid/{target}"
    return f"com.epicgames.launcher://apps/{target}?action=launch&silent=true"


def opener_command(uri: str) -> list[str]:
    """The platform's command that opens ``uri`` with its registered handler."""
    if sys.platform == "win32":
        return ["cmd", "/c", "start", "", uri]
    if sys.platform == "darwin":
        return ["open", uri]
    return ["xdg-open", uri]


@dataclass(eq=False)
class SpawnedGame:
    """A process the bridge started (its direct child)."""

    popen: subprocess.Popen[bytes]
    argv: tuple[str, ...]
    log_path: Path
    started_at: float

    @property
    def pid(self) -> int:
        return self.popen.pid

    def poll(self) -> int | None:
        """The exit code once it ended (negative: killed by that signal), reaping it."""
        code = self.popen.poll()
        if code is not None:
            _LIVE.discard(self)
        return code

    @property
    def exited(self) -> bool:
        return self.poll() is not None

    @property
    def returncode(self) -> int | None:
        return self.poll()

    async def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the process to end; its exit code, or None."""
        deadline = time.monotonic() + timeout
        delay = 0.02
        while (code := self.poll()) is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            await anyio.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.25)
        return code

    def kill_direct_child(self) -> None:
        """Kill the process this handle started, if it still runs (never its group)."""
        if self.poll() is None:
            with contextlib.suppress(OSError):
                self.popen.kill()

    def tail(self, limit: int = TAIL_BYTES) -> str:
        """The last ``limit`` bytes of this launch's output."""
        return read_tail(self.log_path, limit)


def read_tail(path: Path, limit: int = TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as log:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(0, size - limit))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""


def spawn(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    log_path: Path,
    program: str | None = None,
) -> SpawnedGame:
    """Start ``argv`` in its own session with its output in ``log_path``; :class:`SpawnError`.

    ``program`` is the file to run when it is not ``argv[0]`` (a name found on ``PATH``, which
    the process still sees as its ``argv[0]``)."""
    log_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    try:
        log_fd = os.open(log_path, flags, 0o600)
    except OSError as exc:
        raise SpawnError(
            exc.errno, f"cannot open the launch log {log_path}: {exc.strerror}"
        ) from None
    if hasattr(os, "fchmod"):
        os.fchmod(log_fd, 0o600)  # a log left by an older launch may be readable by others
    try:
        popen = subprocess.Popen(
            list(argv),
            executable=program,
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=subprocess.STDOUT,
            cwd=cwd or None,
            env=dict(env),
            close_fds=True,
            start_new_session=os.name == "posix",
            creationflags=(
                getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
                | getattr(subprocess, "DETACHED_PROCESS", 0)
            )
            if os.name == "nt"
            else 0,
        )
    except OSError as exc:
        message = f"cannot start {argv[0]!r}: {exc.strerror or exc}"
        hint = start_error_hint(exc)
        if hint:
            message += f"; {hint}"
        os.write(log_fd, f"--- {message}\n".encode("utf-8", "replace"))
        raise SpawnError(exc.errno, message) from None
    finally:
        os.close(log_fd)
    game = SpawnedGame(popen=popen, argv=tuple(argv), log_path=log_path, started_at=time.time())
    _LIVE.add(game)
    return game


def describe_exit(code: int) -> str:
    """``exited with code 3`` or ``was killed by signal SIGKILL``."""
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"
