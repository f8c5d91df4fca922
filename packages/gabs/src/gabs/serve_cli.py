"""The ``gabs serve`` command (registered by :mod:`gabs.cli`): run the MCP server.

stdio (the default) is what MCP hosts launch; ``--transport http`` serves Streamable HTTP
(:mod:`gabs.transports`). ``gabs server [stdio|http]`` is the same command as the Go bridge
spells it, and ``--log-level`` takes the Go bridge's level names. Logging goes to stderr only: on
stdio, stdout carries the protocol.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, Final

import anyio

from gabs.config import GabsConfig
from gabs.transports.http import DEFAULT_HTTP_PORT, HttpServeError, serve_http
from gabs.transports.stdio import serve_stdio

__all__ = ["LOG_LEVELS", "add_serve_command", "log_level", "setup_logging"]


#: ``--log-level`` names: the Go bridge's (trace, debug, info, warn, error) and Python's.
LOG_LEVELS: Final[dict[str, str]] = {
    "trace": "DEBUG",
    "debug": "DEBUG",
    "info": "INFO",
    "warn": "WARNING",
    "warning": "WARNING",
    "error": "ERROR",
}


def log_level(name: str) -> str:
    """The ``logging`` level for a ``--log-level`` or ``$GABS_LOG_LEVEL`` name (any case)."""
    level = LOG_LEVELS.get(name.strip().lower())
    if level is None:
        raise argparse.ArgumentTypeError(
            f"unknown log level {name!r} (use trace, debug, info, warn or error)"
        )
    return level


def parse_addr(text: str) -> tuple[str, int]:
    """``host:port`` as the Go bridge's ``--addr`` takes it (``:8080`` is loopback here)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"--addr {text!r}: use host:port, e.g. 127.0.0.1:8080")
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--addr {text!r}: the port must be a number") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"--addr {text!r}: the port must be 0 to 65535")
    return (host.strip("[]") or "127.0.0.1"), number


def _serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="HTTP: the address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help=f"HTTP: the port (default {DEFAULT_HTTP_PORT})")
    parser.add_argument(
        "--addr",
        type=parse_addr,
        metavar="HOST:PORT",
        help="HTTP: the address as the Go bridge takes it (host:port; an empty host is "
        "127.0.0.1); sets --host and --port",
    )
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
        type=log_level,
        default=os.environ.get("GABS_LOG_LEVEL", "info"),
        metavar="LEVEL",
        help="stderr log level: trace, debug, info, warn or error (default info, or "
        "$GABS_LOG_LEVEL)",
    )


def add_serve_command(subparsers: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add ``serve`` and its Go-bridge spelling ``server [stdio|http]`` to ``gabs``."""
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
    _serve_options(parser)
    server = add_command(
        subparsers,
        "server",
        _serve_command,
        "run the MCP server: server [stdio|http], the same as serve [--transport ...]",
        "Run the GABS MCP server, as the Go bridge spells it: `server` and `server stdio` serve "
        "MCP on stdio, `server http` serves Streamable HTTP (see `gabs serve --help`).",
    )
    server.add_argument(
        "transport", nargs="?", choices=("stdio", "http"), default="stdio", metavar="stdio|http"
    )
    server.add_argument(
        "--http",
        type=parse_addr,
        metavar="HOST:PORT",
        dest="http_addr",
        help="serve Streamable HTTP on HOST:PORT (the Go bridge's `server --http ADDR`)",
    )
    _serve_options(server)


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
    addr = getattr(args, "http_addr", None)
    if addr is not None:
        args.transport = "http"
    addr = addr or args.addr
    if addr is not None:
        args.host, args.port = addr
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
