"""Publishing a new claim where there is none, never over one.

The Go bridge publishes a start's claim without its transition lock: the whole claim goes to a
temporary file beside it and is hard-linked into place, which fails when a claim exists. A
claim written by check-then-rename, even under the lock, could replace one the Go bridge
linked in between. So a new claim is published the same way here.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path

from gabs.config import ensure_game_dir

from .claim import RuntimeState, claim_path, utcnow

__all__ = ["publish_claim"]


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_BINARY", 0), 0o600)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # exact, whatever the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def publish_claim(game_dir: Path, state: RuntimeState) -> bool:
    """Write ``state`` as the game's claim, mode 0600, whole or not at all; False (nothing
    written) when a claim exists. On a file system without hard links, the claim file is
    created exclusively and the content renamed over it; the caller holds the transition
    lock, as the Go bridge's fallback does."""
    ensure_game_dir(game_dir)
    state.updated_at = utcnow()
    data = (json.dumps(state.to_json(), indent=2) + "\n").encode("utf-8")
    path = claim_path(game_dir)
    temporary = game_dir / f".runtime-{secrets.token_hex(8)}.tmp"
    try:
        _write_new(temporary, data)
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError:
            try:
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                return False
            os.replace(temporary, path)
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
