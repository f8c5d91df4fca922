"""What the compatibility games written on raw asyncio sockets share (``libgab_wire_game.py``,
``interleaving_game.py``, ``faulty_game.py``, ``handshake_game.py``): reading GABP frames by
hand, the launch environment, serving on loopback, and the pid file the tests find the game
by."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine
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


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def launch_environment(default_id: str) -> tuple[int, str, str]:
    """The port, token and game id a bridge launches the game with (``GABP_SERVER_PORT``,
    ``GABP_TOKEN``, ``GABS_GAME_ID``; ``default_id`` when no id is given)."""
    port = int(os.environ["GABP_SERVER_PORT"])
    return port, os.environ["GABP_TOKEN"], os.environ.get("GABS_GAME_ID", default_id)


async def serve_game(handler: Handler, port: int, game_id: str, label: str) -> None:
    """Listen on loopback ``port``, say so on stderr, write the pid file, serve for ever."""
    server = await asyncio.start_server(handler, "127.0.0.1", port)
    print(f"{label} listening on 127.0.0.1:{port}", file=sys.stderr)
    write_pid_file(game_id)
    async with server:
        await server.serve_forever()


def run_game(main: Callable[[], Coroutine[None, None, None]]) -> None:
    """Run a game's ``main`` until it is interrupted."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
