"""Finding every claim under the config folder (Go's ``ListRuntimeClaimIDs``).

A game id may nest (``team/a``), so the whole tree is walked for ``runtime.json``, never
through a symlinked folder. Only what names a claim of a game id counts: a ``runtime.json``
that is a regular file (not a symlink) in a folder whose path is a valid id, so a folder named
with a backslash or a drive prefix is passed over, as Go's resolver passes it over. A sub-folder
that cannot be read is skipped; a config folder that cannot be read is an error, so an
incomplete scan is never reported as a complete one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gabs.config import check_game_id
from gabs.go_format import go_reason

from .claim import CLAIM_FILE

__all__ = ["claimed_ids", "list_claims"]


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def list_claims(config_dir: Path) -> list[str]:
    """Every game id with a claim under ``config_dir``, sorted; :class:`OSError` (worded as
    the Go bridge words it, ``open <dir>: permission denied``) when the folder itself cannot
    be read. A folder that does not exist has no claims."""
    try:
        base = os.path.realpath(config_dir, strict=True)
    except FileNotFoundError:
        return []
    if not os.path.isdir(base):
        return []
    failure: list[OSError] = []

    def stop_at_root(exc: OSError) -> None:
        if exc.filename is not None and os.path.normpath(exc.filename) == base:
            failure.append(exc)

    ids = []
    for folder, dirs, files in os.walk(base, onerror=stop_at_root):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
        if folder == base or CLAIM_FILE not in files:
            continue
        game_id = Path(os.path.relpath(folder, base)).as_posix()
        if check_game_id(game_id) is None and _regular(os.path.join(folder, CLAIM_FILE)):
            ids.append(game_id)
    if failure:
        exc = failure[0]
        raise type(exc)(f"open {base}: {go_reason(exc)}")
    return sorted(ids)


def claimed_ids(config_dir: Path) -> list[str]:
    """:func:`list_claims`, with no claims when the config folder cannot be read (for callers
    that only ask whether a game still has a claim)."""
    try:
        return list_claims(config_dir)
    except OSError:
        return []
