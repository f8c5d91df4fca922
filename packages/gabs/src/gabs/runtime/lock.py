"""The per-game transition lock: ``<config-dir>/<gameId>/transition.lock``.

An OS advisory lock (``flock`` on Unix, ``msvcrt.locking`` on Windows) on a file that is never
deleted, held only for the milliseconds a claim is read, decided on and written, never while a
process or hook runs. Bridges (ours and the Go bridge, which locks the same file) and CLI
commands on one config folder thereby see each other's claims whole and never both create one.
Acquiring waits at most :data:`LOCK_TIMEOUT` seconds.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Final

import anyio

from gabs.go_format import go_reason

__all__ = [
    "LOCK_FILE",
    "LOCK_TIMEOUT",
    "LockBusy",
    "LockUnavailable",
    "held_flock",
    "release_flock",
    "transition_lock",
    "try_flock",
]

LOCK_FILE: Final = "transition.lock"
LOCK_TIMEOUT: Final = 5.0


class LockBusy(TimeoutError):
    """Another process held the lock for longer than the timeout."""


class LockUnavailable(OSError):
    """The lock file could not be created or opened (not another holder's lock): its text is
    the Go bridge's, e.g. ``failed to acquire transition lock for g: open <path>: is a
    directory``."""

    def __init__(self, message: str, cause: OSError) -> None:
        super().__init__(message)
        self.errno = cause.errno


def try_flock(fd: int) -> bool:
    """Take an exclusive advisory lock on ``fd`` without waiting; False when another holds it."""
    if os.name == "nt":
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def release_flock(fd: int) -> None:
    """Release the lock :func:`try_flock` took."""
    with contextlib.suppress(OSError):
        if os.name == "nt":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def held_flock(path: Path, timeout: float, busy: Callable[[], Exception]) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created 0600, never deleted), blocking
    the thread while it waits, at most ``timeout`` seconds; then raise ``busy()``. For the
    short critical sections of synchronous code (``bridge.lock``, ``track-record.lock``)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while not try_flock(fd):
            if time.monotonic() >= deadline:
                raise busy()
            time.sleep(0.005)
        try:
            yield
        finally:
            release_flock(fd)
    finally:
        os.close(fd)


def _open_failed(game_dir: Path, game_id: str | None, path: str, reason: str) -> str:
    name = game_id if game_id is not None else os.path.basename(os.path.normpath(game_dir))
    return f"failed to acquire transition lock for {name}: open {path}: {reason}"


@contextlib.asynccontextmanager
async def transition_lock(
    game_dir: Path,
    timeout: float = LOCK_TIMEOUT,
    *,
    create: bool = True,
    game_id: str | None = None,
) -> AsyncIterator[None]:
    """Hold the game's transition lock; :class:`LockBusy` after ``timeout`` seconds,
    :class:`LockUnavailable` when the folder or the lock file cannot be made or opened
    (``game_id`` names the game there; the folder's name by default). Without ``create``, a
    missing game folder is :class:`FileNotFoundError` (a teardown step never brings back a
    folder that was removed)."""
    if create:
        try:
            os.makedirs(game_dir, mode=0o700, exist_ok=True)
        except OSError as exc:
            where = exc.filename or game_dir
            raise LockUnavailable(
                f"failed to create game dir for transition lock: mkdir {where}: {go_reason(exc)}",
                exc,
            ) from None
    path = os.path.join(game_dir, LOCK_FILE)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        if not create and isinstance(exc, FileNotFoundError):
            raise
        raise LockUnavailable(_open_failed(game_dir, game_id, path, go_reason(exc)), exc) from None
    try:
        deadline = time.monotonic() + timeout
        while not try_flock(fd):
            if time.monotonic() >= deadline:
                raise LockBusy(f"the transition lock in {game_dir} is held by another operation")
            await anyio.sleep(0.005)
        try:
            yield
        finally:
            release_flock(fd)
    finally:
        os.close(fd)
