"""A small GABP server with attention enabled: ``python -m lib_gab.example``.

It takes its port, token and agent id from the GABS environment (``GABP_SERVER_PORT``,
``GABP_TOKEN``, ``GABS_GAME_ID``) or from ``--port``, ``--token`` and ``--agent-id``, and
prints ``listening on 127.0.0.1:<port>`` to stderr once bound. Tools:

* ``example/echo {text}`` returns ``{"text": text}``.
* ``example/fail {message, blocking}`` records an urgent entry through attention (blocking or
  advisory) and returns normally: the call succeeds, and the attention item it opened reaches
  the bridge before the response.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from lib_gab import GabpServer, UrgentEntry
from lib_gab._cli import build_server, serve_announced


def make_server(env: Mapping[str, str] | None = None, **options: Any) -> GabpServer:
    server = GabpServer.from_gabs_environment(
        app_name="lib-gab example", app_version="0.1.0", env=env, agent_id="example", **options
    )
    attention = server.enable_attention()

    @server.tool(
        "example/status",
        description="Report that the example game is up (allowed while attention is open).",
        tags=["status", "read-only"],
    )
    def status() -> dict[str, str]:
        return {"status": "ok"}

    @server.tool(
        "example/echo",
        description="Return the given text unchanged.",
        result_description="The text, as {text}.",
    )
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    @server.tool(
        "example/fail",
        description=(
            "Succeed, but record an urgent game-side problem: blocking (the bridge should stop "
            "further game calls until it is acknowledged) or advisory."
        ),
        result_description="What was recorded, as {recorded, blocking}.",
    )
    def fail(message: str, blocking: bool = True) -> dict[str, object]:
        attention.report(
            UrgentEntry(
                level="error" if blocking else "warning", message=message, blocking=blocking
            )
        )
        return {"recorded": message, "blocking": blocking}

    return server


def main(argv: Sequence[str] | None = None) -> None:
    server = build_server(__doc__.splitlines()[0], argv, make_server)
    anyio.run(serve_announced, server)


if __name__ == "__main__":
    main()
