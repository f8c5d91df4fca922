"""Where a game's runtime folder is, proven to stay inside the config folder (the Go rule).

A game id names ``<config-dir>/<gameId>/``, where its claim, endpoint and track record live.
Before anything is read, written or removed there, the id must be canonical, and the folder
must not lead out of the config folder through a symlink, nor reach another game's folder
through a symlink, a file or a differently spelled name (a case-insensitive disk).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..go_format import go_quote
from ._rules import check_game_id

__all__ = ["game_dir_problem"]


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
