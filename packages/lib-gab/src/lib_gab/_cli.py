"""Command-line plumbing shared by the example servers."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence

from lib_gab.server import GabpServer, ServerConfigError


def build_server(
    description: str,
    argv: Sequence[str] | None,
    make: Callable[..., GabpServer],
) -> GabpServer:
    """Parse ``--port/--token/--agent-id`` (else the GABS environment) and build the server."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--port", type=int, help="TCP port on 127.0.0.1 (default: GABP_SERVER_PORT)"
    )
    parser.add_argument("--token", help="bridge token (default: GABP_TOKEN); prefer the variable")
    parser.add_argument("--agent-id", help="agent id (default: GABS_GAME_ID)")
    parser.add_argument("--log-level", default=os.environ.get("LIB_GAB_LOG_LEVEL", "INFO"))
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    env = dict(os.environ)
    if args.token is not None:
        env["GABP_TOKEN"] = args.token
    if args.agent_id is not None:
        env["GABS_GAME_ID"] = args.agent_id
    try:
        return make(env, port=args.port)
    except ServerConfigError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")


async def serve_announced(server: GabpServer) -> None:
    """Serve, printing ``listening on <address>`` to stderr once bound."""
    async with server.running() as address:
        print(f"listening on {address}", file=sys.stderr, flush=True)
        await _forever()


async def _forever() -> None:
    import anyio

    await anyio.sleep_forever()
