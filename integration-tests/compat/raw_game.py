"""What the compatibility games written on raw asyncio sockets share (``libgab_wire_game.py``,
``interleaving_game.py``, which copy another runtime's wire behaviour): reading GABP frames by
hand, and the pid file the tests find the game by."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or ``None`` when the peer closed the stream or sent a frame without a
    ``Content-Length`` header. A malformed length or body raises ``ValueError``."""
    length = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        text = line.decode("ascii", "replace").strip()
        if not text:
            break
        name, _, value = text.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return None
    message = json.loads(await reader.readexactly(length))
    if not isinstance(message, dict):
        raise ValueError("a GABP message is a JSON object")
    return message


def write_pid_file(game_id: str) -> None:
    """With ``COMPAT_GAME_DIR`` set, write this process's id to ``<dir>/<gameId>.pid``."""
    folder = os.environ.get("COMPAT_GAME_DIR")
    if folder:
        (Path(folder) / f"{game_id.replace('/', '_')}.pid").write_text(
            str(os.getpid()), encoding="utf-8"
        )
