"""A lib_gab game that supports attention but cannot always tell it: ``python blind_game.py``.

It advertises ``attention/current`` and ``attention/ack`` but none of the attention event
channels, so a bridge cannot subscribe and must ask ``attention/current`` before each gated
call. ``blind/break_attention`` makes every later ``attention/current`` fail, as a game whose
attention bookkeeping broke would. Tools: ``blind/act`` (counts its runs), ``blind/count``
(tag ``read-only``: how often ``blind/act`` ran) and ``blind/break_attention``.

Reads ``GABP_SERVER_PORT``, ``GABP_TOKEN`` and ``GABS_GAME_ID`` like the examples.
"""

from __future__ import annotations

from typing import Any

import anyio

from gabp import ErrorCode, ProtocolError
from lib_gab import GabpServer
from lib_gab._cli import build_server, serve_announced


class BlindServer(GabpServer):
    broken = False

    def channels(self) -> list[str]:
        return [name for name in super().channels() if not name.startswith("attention/")]

    async def _blind_attention_current(self, session: Any, request: Any) -> Any:
        if self.broken:
            raise ProtocolError(ErrorCode.INTERNAL_ERROR, "attention state is unavailable")
        return await GabpServer._attention_current(self, session, request)

    _handlers = {**GabpServer._handlers, "attention/current": _blind_attention_current}


def make_server(env: dict[str, str] | None = None, **options: Any) -> GabpServer:
    server = BlindServer.from_gabs_environment(
        app_name="blind", app_version="0.1.0", env=env, agent_id="blind", **options
    )
    assert isinstance(server, BlindServer)
    server.enable_attention()
    runs = {"act": 0}

    @server.tool("blind/act", description="Change the game (counted).")
    def act() -> dict[str, int]:
        runs["act"] += 1
        return {"runs": runs["act"]}

    @server.tool("blind/count", description="How often blind/act ran.", tags=["read-only"])
    def count() -> dict[str, int]:
        return {"runs": runs["act"]}

    @server.tool("blind/break_attention", description="Make attention/current fail from now on.")
    def break_attention() -> dict[str, bool]:
        server.broken = True
        return {"broken": True}

    return server


if __name__ == "__main__":
    anyio.run(serve_announced, build_server("blind game", None, make_server))
