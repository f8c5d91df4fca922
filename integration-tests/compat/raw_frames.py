"""Reading GABP frames by hand, for the compatibility games that copy another runtime's wire
behaviour on raw asyncio sockets (``libgab_wire_game.py``, ``interleaving_game.py``)."""

from __future__ import annotations

import asyncio
import json
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
