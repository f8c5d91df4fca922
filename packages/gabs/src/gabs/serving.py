"""Running the MCP server for ``gabs server`` / ``gabs serve``: check the config first (an
unusable file is exit code 1, with every problem), then serve stdio or Streamable HTTP until
the host closes stdin or the process is interrupted. The games keep running afterwards.

SIGTERM and SIGINT end the bridge with exit status 0 at any moment from here on, as the Go
bridge's do: while the transport starts up (importing it and opening the games takes a moment)
as well as while it serves."""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import Final

import anyio

from .config import ConfigError, GabsConfig

__all__ = ["SERVER_COMMANDS", "interrupt", "serve"]

#: The commands that serve MCP.
SERVER_COMMANDS: Final = frozenset({"server", "serve"})


def interrupt(signum: int, frame: FrameType | None) -> None:
    """A signal handler: SIGTERM as an interruption (``KeyboardInterrupt``), as SIGINT is."""
    raise KeyboardInterrupt


def serve(
    config_dir: str | None,
    transport: str,
    *,
    host: str | None = None,
    port: int | None = None,
    allow_remote: bool = False,
    show_token: bool = False,
) -> int:
    # until the transport's own handling takes over, SIGTERM is an interruption as SIGINT is
    signal.signal(signal.SIGTERM, interrupt)
    try:
        return _serve(
            config_dir,
            transport,
            host=host,
            port=port,
            allow_remote=allow_remote,
            show_token=show_token,
        )
    except KeyboardInterrupt:
        return 0


def _serve(
    config_dir: str | None,
    transport: str,
    *,
    host: str | None = None,
    port: int | None = None,
    allow_remote: bool = False,
    show_token: bool = False,
) -> int:
    try:
        config = GabsConfig.load(config_dir)
    except ConfigError as exc:
        print(f"gabs: failed to load games config: {exc.invalid_text()}", file=sys.stderr)
        return 1
    if config.location_note:
        print(f"gabs: note: {config.location_note}", file=sys.stderr)
    for warning in config.warnings:
        print(f"gabs: config warning: {warning}", file=sys.stderr)
    for game_id, issues in config.broken.items():
        print(
            f"gabs: game {game_id!r} cannot be started until its entry is fixed: "
            + "; ".join(map(str, issues)),
            file=sys.stderr,
        )
    if transport == "stdio":
        from .transports.stdio import serve_stdio

        anyio.run(serve_stdio, str(config.config_dir))
        return 0
    from .transports.http import HttpServeError
    from .transports.http import serve_http as _serve_http

    try:
        anyio.run(
            lambda: _serve_http(
                str(config.config_dir),
                host=host,
                port=port,
                allow_remote=allow_remote,
                show_token=show_token,
            )
        )
    except HttpServeError as exc:
        print(f"gabs server: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0
