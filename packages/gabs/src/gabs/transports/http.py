"""Streamable HTTP for the bridge: the SDK's transport behind a bearer token and an Origin check.

The MCP endpoint is ``http://<host>:<port>/mcp``, served by the SDK's Streamable HTTP session
manager (real MCP Streamable HTTP: POST for requests, SSE for streams, ``Mcp-Session-Id``).
In front of it, :class:`~gabs.transports.http_guard.GuardMiddleware` checks the ``Origin``
(403) and the bearer token (401), answers ``/health`` and the Go bridge's refusals, and sends a
plain JSON client (or a POST without a session that does not open one) to a stateless instance
of the same MCP server. Every request is answered with one JSON body
(``Content-Type: application/json``), as the Go bridge answers; the session's GET stream carries
the list-changed notifications.

The token comes from the ``token`` argument, else ``$GABS_HTTP_TOKEN``, else the token file
(``bridge.tokenFile`` in the config, default ``<config-dir>/http-token``); when there is none, a
new one is generated and written there with mode 0600, and only the file's path is printed.
The bridge binds loopback by default; a non-loopback host is refused unless a token was
configured (not just generated) and ``allow_remote`` is set.

On SIGTERM or SIGINT the bridge stops accepting connections, ends the sessions' open GET
streams, and lets the requests in flight finish for up to :data:`SHUTDOWN_GRACE_SECONDS` (the
Go bridge's drain) before it cancels them; then it exits with status 0.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from mcp.server.transport_security import TransportSecuritySettings

from gabp import generate_token, write_secret_file
from gabs._version import __version__
from gabs.bridge_options import BridgeOptions
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.transports._manager import open_manager
from gabs.transports.http_deadline import first_request_protocol
from gabs.transports.http_guard import MCP_PATH, GuardMiddleware, is_loopback

__all__ = [
    "DEFAULT_HTTP_PORT",
    "SHUTDOWN_GRACE_SECONDS",
    "TOKEN_ENV",
    "TOKEN_FILE_NAME",
    "GuardMiddleware",
    "HttpServeError",
    "bind_listener",
    "build_http_app",
    "is_loopback",
    "resolve_token",
    "serve_http",
]

logger = logging.getLogger("gabs.http")

TOKEN_ENV: Final = "GABS_HTTP_TOKEN"
DEFAULT_HTTP_PORT: Final = 8765
TOKEN_FILE_NAME: Final = "http-token"
#: How long requests in flight may run on after SIGTERM or SIGINT, in seconds (the Go bridge
#: waits as long for its HTTP server to drain); a second signal ends them at once.
SHUTDOWN_GRACE_SECONDS: Final = 10


class HttpServeError(Exception):
    """The HTTP server cannot be started as asked (a refused bind, an unreadable token).

    ``exit_code`` is the command's exit status: 1 for a failure (an address in use, an
    unreadable token file), as the Go bridge exits when it cannot listen; 2 for a command line
    that is refused as given (a non-loopback address without ``--allow-remote``).
    """

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def resolve_token(config: GabsConfig, token: str | None = None) -> tuple[str, bool, Path | None]:
    """The bearer token, whether it was configured (not generated now), and its file."""
    if token:
        return token, True, None
    from_env = os.environ.get(TOKEN_ENV)
    if from_env:
        return from_env.strip(), True, None
    configured = config.bridge.token_file
    path = Path(configured).expanduser() if configured else Path(TOKEN_FILE_NAME)
    if not path.is_absolute():
        path = config.config_dir / path
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise HttpServeError(f"cannot read the token file {path}: {exc}") from None
    if text:
        return text, True, path
    fresh = generate_token()
    write_secret_file(path, (fresh + "\n").encode())
    print(f"gabs: generated an HTTP bearer token in {path} (mode 0600)", file=sys.stderr)
    return fresh, False, path


def build_http_app(
    manager: GameManager,
    *,
    token: str,
    host: str = "127.0.0.1",
    notifier: ToolListNotifier | None = None,
    allowed_origins: Iterable[str] = (),
    options: BridgeOptions | None = None,
) -> Any:
    """The ASGI app: the SDK's Streamable HTTP app at ``/mcp`` behind :class:`GuardMiddleware`.

    Run it with its lifespan (uvicorn does): the lifespan runs the session managers.
    ``options`` are the config's bridge-wide settings (default: read from the manager's config);
    their ``apiKey`` is accepted as a bearer token besides ``token``.
    """
    if options is None:
        options = BridgeOptions.from_config(manager.config)
    server = build_server(manager, notifier=notifier, options=options)
    plain = build_server(manager, notifier=notifier, options=options)
    origins = list(allowed_origins)
    if is_loopback(host):
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[
                "127.0.0.1",
                "localhost",
                "[::1]",
                "127.0.0.1:*",
                "localhost:*",
                "[::1]:*",
            ],
            allowed_origins=[
                f"{scheme}://{name}{port}"
                for scheme in ("http", "https")
                for name in ("127.0.0.1", "localhost", "[::1]")
                for port in ("", ":*")
            ]
            + origins,
        )
    else:
        # Remote binds: the Host is whatever name clients use; the guard's Origin check and
        # the token remain.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    # Every request is answered with one JSON body, as the Go bridge answers: no request of
    # the bridge streams anything before its answer (no progress, no requests to the client),
    # and an SSE stream per POST costs the bridge about twice the CPU per call. Sessions, and
    # the GET stream for list-changed notifications, stay.
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=host, json_response=True
    )
    json_app = plain.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security,
        host=host,
        json_response=True,
        stateless_http=True,
    )
    return GuardMiddleware(
        app,
        token,
        allowed_origins=origins,
        api_key=options.api_key,
        json_app=json_app,
        json_lifespan=plain.session_manager.run,
    )


def bind_listener(host: str, port: int) -> socket.socket:
    """The bound (not yet listening) TCP socket the HTTP server accepts on.

    Made with ``IPPROTO_TCP`` as its protocol, not 0: asyncio turns Nagle's algorithm off
    (``TCP_NODELAY``) only on sockets that say they are TCP, and an answer is written in parts
    (the headers, then the body or an event); with Nagle on, a part after the first can wait
    for the client's delayed ACK, about 40 ms on a kept-alive connection.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        raise HttpServeError(f"cannot listen on {host}:{port}: {exc}") from None
    listener.set_inheritable(True)
    return listener


def _server_class(uvicorn: Any) -> Any:
    """uvicorn's server, ending cleanly on SIGTERM or SIGINT (exit status 0).

    uvicorn raises a caught signal again after its graceful shutdown, so the process would end
    with 143 on SIGTERM; here a signal only asks for the shutdown (a second one forces it).
    The handler is a method of the server: the SDK's GET streams (sse-starlette's) end when
    the server that the SIGTERM handler belongs to is exiting, and a plain function belongs to
    none, so an open stream kept the bridge from exiting at all.
    """

    class CleanExitServer(uvicorn.Server):  # type: ignore[misc]
        def request_exit(self, signum: int, frame: Any) -> None:
            server: Any = self
            if server.should_exit:
                server.force_exit = True
            server.should_exit = True

        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            import threading

            if threading.current_thread() is not threading.main_thread():
                yield
                return

            handled = (signal.SIGINT, signal.SIGTERM)
            original = {signum: signal.signal(signum, self.request_exit) for signum in handled}
            try:
                yield
            finally:
                for signum, handler in original.items():
                    signal.signal(signum, handler)

    return CleanExitServer


async def serve_http(
    config_dir: str | os.PathLike[str] | None = None,
    *,
    host: str | None = None,
    port: int | None = None,
    token: str | None = None,
    allow_remote: bool = False,
    show_token: bool = False,
) -> None:
    """Serve MCP over Streamable HTTP until cancelled (or interrupted)."""
    import uvicorn

    config = GabsConfig.load(config_dir)
    settings = config.bridge
    host = host or settings.host or "127.0.0.1"
    if port is None:
        port = settings.port if settings.port is not None else DEFAULT_HTTP_PORT
    secret, configured, path = resolve_token(config, token)
    if not is_loopback(host):
        if not allow_remote:
            raise HttpServeError(
                f"refusing to listen on the non-loopback address {host}: pass --allow-remote "
                "(with a configured token) to expose the bridge beyond this machine",
                exit_code=2,
            )
        if not configured:
            raise HttpServeError(
                f"refusing to listen on {host} with a token generated just now: configure one "
                f"(write it to {path}, or set ${TOKEN_ENV}) and pass --allow-remote again",
                exit_code=2,
            )
    if show_token:
        print(f"gabs: HTTP bearer token: {secret}", file=sys.stderr)
    notifier = ToolListNotifier()
    async with open_manager(config, notifier) as manager:
        app = build_http_app(
            manager,
            token=secret,
            host=host,
            notifier=notifier,
            allowed_origins=settings.allowed_origins or (),
        )
        uv_config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_config=None,
            access_log=False,
            lifespan="on",
            server_header=False,
            http=first_request_protocol(),
            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
        )
        server = _server_class(uvicorn)(uv_config)
        # bind here, so that port 0 (any free port) is reported as the port actually bound
        listener = bind_listener(host, port)
        port = listener.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        where = f"token file {path}" if path else "the given token"
        print(
            f"gabs {__version__}: MCP Streamable HTTP on http://{shown}:{port}{MCP_PATH} "
            f"(bearer token: {where})",
            file=sys.stderr,
        )
        try:
            await server.serve(sockets=[listener])
        finally:
            listener.close()
