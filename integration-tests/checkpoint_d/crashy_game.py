"""A lib_gab game that can crash in the middle of a call: ``python crashy_game.py``.

Reads ``GABP_SERVER_PORT``, ``GABP_TOKEN`` and ``GABS_GAME_ID`` like the examples. Tools:
``crashy/echo {text}`` and ``crashy/crash {after}``, which exits the process (code 3) while
the call is still waiting for its answer.
"""

from __future__ import annotations

import os

import anyio

from lib_gab import GabpServer
from lib_gab._cli import build_server, serve_announced


def make_server(env: dict[str, str] | None = None, **options: object) -> GabpServer:
    server = GabpServer.from_gabs_environment(
        app_name="crashy", app_version="0.1.0", env=env, agent_id="crashy", **options
    )
    server.enable_attention()

    @server.tool("crashy/echo", description="Return the text.")
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    @server.tool("crashy/crash", description="Crash the whole game mid-call.")
    async def crash(after: float = 0.2) -> None:
        await anyio.sleep(after)
        os._exit(3)

    return server


if __name__ == "__main__":
    anyio.run(serve_announced, build_server("crashy game", None, make_server))
