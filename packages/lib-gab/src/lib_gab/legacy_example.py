"""A GABP server without attention, as a legacy mod would be: ``python -m lib_gab.legacy_example``.

Same environment and options as :mod:`lib_gab.example`. It offers ``example/echo`` and a
``example/counter`` event channel; ``attention/current`` and ``attention/ack`` are answered
``-32601`` (method not found), exactly as by servers that predate attention.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from lib_gab import GabpServer, ToolContext
from lib_gab._cli import build_server, serve_announced


def make_server(env: Mapping[str, str] | None = None, **options: Any) -> GabpServer:
    server = GabpServer.from_gabs_environment(
        app_name="lib-gab legacy example",
        app_version="0.1.0",
        env=env,
        agent_id="legacy",
        **options,
    )
    server.channel("example/counter", description="One event per example/count call.")

    @server.tool("example/echo", description="Return the given text unchanged.")
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    @server.tool("example/count", description="Emit `times` events on example/counter.")
    async def count(times: int, ctx: ToolContext) -> int:
        for i in range(times):
            await ctx.emit("example/counter", {"i": i})
        return times

    return server


def main(argv: Sequence[str] | None = None) -> None:
    server = build_server(__doc__.splitlines()[0], argv, make_server)
    anyio.run(serve_announced, server)


if __name__ == "__main__":
    main()
