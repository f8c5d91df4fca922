"""Where a game's runtime folder is, proven to stay inside the config folder (the Go rule).

A game id names ``<config-dir>/<gameId>/``, where its claim, endpoint and track record live.
Before anything is read, written or removed there, the id must be canonical, and the folder
must not lead out of the config folder through a symlink, nor reach another game's folder
through a symlink, a file or a differently spelled name (a case-insensitive disk). The folder
holds per-launch credentials, so it is private: :func:`ensure_game_dir` makes it 0700 and
tightens one others may read, and a folder it cannot tighten is not written to.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..go_format import go_quote, go_reason
from ._rules import check_game_id

__all__ = ["LooseGameDir", "ensure_game_dir", "game_dir_problem"]


def _deepest_existing(path: Path) -> Path | None:
    """``path`` with its symlinks resolved, through its deepest ancestor that exists."""
    while True:
        try:
            return path.resolve(strict=True)
        except (OSError, RuntimeError):
            if path.parent == path:
                return None
            path = path.parent


def _within(base: Path, target: Path) -> bool:
    return target == base or base in target.parents


def _alias_problem(base: Path, game_id: str) -> str | None:
    """Why an existing part of the folder's path is not the plain folder the id names."""
    try:
        current = base.resolve(strict=True)
    except (OSError, RuntimeError):
        return None  # nothing exists yet, so nothing can be aliased
    for part in game_id.split("/"):
        try:
            names = set(os.listdir(current))
        except FileNotFoundError:
            return None
        except OSError as exc:
            return str(exc)
        current = current / part
        try:
            current.lstat()
        except FileNotFoundError:
            return None  # the rest of the path does not exist yet
        except OSError as exc:
            return str(exc)
        if part not in names:
            return (
                f"game ID {go_quote(game_id)} aliases an existing directory entry under the "
                "config base: file does not exist"
            )
        if current.is_symlink():
            return f"game directory component {current} is a symlink"
        if not current.is_dir():
            return f"game directory component {current} is not a directory"
    return None


def game_dir_problem(config_dir: str | os.PathLike[str], game_id: str) -> str | None:
    """Why ``game_id`` cannot name a runtime folder under ``config_dir`` (the Go bridge's
    message), or None when it can."""
    problem = check_game_id(game_id)
    if problem is not None:
        return problem
    base = Path(os.path.abspath(config_dir))
    folder = base / game_id
    resolved_base = _deepest_existing(base) or base
    resolved = _deepest_existing(folder)
    if resolved is not None and not _within(resolved_base, resolved):
        return f"game ID {go_quote(game_id)} resolves through a symlink outside the config base"
    return _alias_problem(base, game_id)


class LooseGameDir(OSError):
    """A game folder others may read, which could not be made private."""


def _go_mode(mode: int) -> str:
    """Permission bits as Go prints a ``FileMode``: ``-rwxr-xr-x``."""
    return "-" + "".join(
        letter if mode & (1 << (8 - index)) else "-" for index, letter in enumerate("rwx" * 3)
    )


def ensure_game_dir(folder: Path) -> None:
    """Create the game's runtime folder with mode 0700, and tighten an existing one that others
    may read; :class:`LooseGameDir` (the Go bridge's words) when that fails, so no credential
    is written where others can read it."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name != "posix":
        return
    mode = folder.stat().st_mode & 0o777
    if not mode & 0o077:
        return
    try:
        os.chmod(folder, 0o700)
    except OSError as exc:
        raise LooseGameDir(
            f"game dir {folder} has loose permissions ({_go_mode(mode)}) that cannot be "
            f"tightened: chmod {folder}: {go_reason(exc)}"
        ) from None
