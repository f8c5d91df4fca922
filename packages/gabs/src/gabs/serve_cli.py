"""The ``gabs serve`` command (registered by :mod:`gabs.cli`): run the MCP server.

stdio (the default) is what MCP hosts launch; ``--transport http`` serves Streamable HTTP
(:mod:`gabs.transports`). Logging goes to stderr only: on stdio, stdout carries the protocol.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

import anyio

from gabs.config import GabsConfig
from gabs.transports.http import DEFAULT_HTTP_PORT, HttpServeError, serve_http
from gabs.transports.stdio import serve_stdio

__all__ = ["add_serve_command", "setup_logging"]


def add_serve_command(subparsers: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers,
        "serve",
        _serve_command,
        "run the MCP server (stdio or Streamable HTTP)",
        "Run the GABS MCP server. stdio (the default) is what MCP hosts launch; "
        "--transport http serves Streamable HTTP on loopback with a bearer token (read from "
        "<config-dir>/http-token, generated there with mode 0600 when missing).",
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", help="HTTP: the address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help=f"HTTP: the port (default {DEFAULT_HTTP_PORT})")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="HTTP: allow a non-loopback --host (requires a configured token)",
    )
    parser.add_argument(
        "--show-token", action="store_true", help="HTTP: print the bearer token to stderr"
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("GABS_LOG_LEVEL", "INFO"),
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="stderr log level (default INFO, or $GABS_LOG_LEVEL)",
    )


def setup_logging(level: str = "INFO") -> None:
    """Log to stderr only (stdout carries the protocol on stdio)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    if level != "DEBUG":
        for noisy in ("mcp", "httpx", "httpx2", "uvicorn.access"):
            logging.getLogger(noisy).setLevel(logging.WARNING)


def _serve_command(args: argparse.Namespace) -> int:
    setup_logging(args.log_level)
    config_dir = getattr(args, "config_dir", None)
    GabsConfig.load(config_dir)  # config errors now, as usage errors, before serving
    try:
        if args.transport == "stdio":
            anyio.run(serve_stdio, config_dir)
        else:
            try:
                anyio.run(
                    lambda: serve_http(
                        config_dir,
                        host=args.host,
                        port=args.port,
                        allow_remote=args.allow_remote,
                        show_token=args.show_token,
                    )
                )
            except HttpServeError as exc:
                print(f"gabs serve: {exc}", file=sys.stderr)
                return 2
    except KeyboardInterrupt:
        return 0
    return 0
