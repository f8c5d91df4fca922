"""Streamable HTTP for the bridge: the SDK's transport behind a bearer token and an Origin check.

The MCP endpoint is ``http://<host>:<port>/mcp``, served by the SDK's Streamable HTTP session
manager (real MCP Streamable HTTP: POST for requests, SSE for streams, ``Mcp-Session-Id``).
In front of it, :class:`GuardMiddleware` answers

* **403** to a request whose ``Origin`` is not loopback (or listed in the config's
  ``bridge.allowedOrigins``): a web page must not drive a local game bridge;
* **401** (``WWW-Authenticate: Bearer``) to a request without ``Authorization: Bearer <token>``
  matching the bridge token or the config's ``apiKey`` (both compared in constant time);

and besides:

* ``GET /health`` answers ``{"status": "ok", "server": "gabs", "version": ...}`` without a token
  (as the Go bridge does);
* a POST to ``/mcp`` from a client that does not accept ``text/event-stream`` (a plain JSON-RPC
  client, as the Go bridge serves them, that keeps no session) is answered by a stateless
  instance of the same MCP server;
* every request is answered with one JSON body (``Content-Type: application/json``), as the Go
  bridge answers; the session's GET stream carries the list-changed notifications;
* a request the client cancelled gets no answer: ``202 Accepted`` without a body (the SDK's
  handshake-era transport would answer ``-32800``; the spec says a cancelled request is not
  answered).

The token comes from the ``token`` argument, else ``$GABS_HTTP_TOKEN``, else the token file
(``bridge.tokenFile`` in the config, default ``<config-dir>/http-token``); when there is none, a
new one is generated and written there with mode 0600, and only the file's path is printed.
The bridge binds loopback by default; a non-loopback host is refused unless a token was
configured (not just generated) and ``allow_remote`` is set.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from gabp import generate_token, tokens_equal, write_secret_file
from gabs._version import __version__
from gabs.bridge_options import BridgeOptions
from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server
from gabs.transports._manager import open_manager

__all__ = [
    "DEFAULT_HTTP_PORT",
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
MCP_PATH: Final = "/mcp"
HEALTH_PATH: Final = "/health"
CANCELLED_CODE: Final = -32800
DEFAULT_HTTP_PORT: Final = 8765
TOKEN_FILE_NAME: Final = "http-token"
LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine (a loopback name or address)."""
    if host.lower() in LOOPBACK_NAMES or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class HttpServeError(Exception):
    """The HTTP server cannot be started as asked (a refused bind, an unreadable token)."""


def origin_allowed(origin: str, extra: Iterable[str] = ()) -> bool:
    """Loopback origins (any port, http or https) and the explicitly listed ones."""
    if origin in set(extra):
        return True
    try:
        parts = urlsplit(origin)
        host = parts.hostname
        _ = parts.port  # a malformed port raises
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host:
        return False
    if parts.path not in ("", "/") or parts.query or parts.username or parts.password:
        return False
    return is_loopback(host)


class GuardMiddleware:
    """ASGI middleware: Origin check (403), ``/health``, bearer token check (401), then the
    MCP app: SSE clients to the Streamable HTTP app, plain JSON clients to ``json_app``."""

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        *,
        allowed_origins: Iterable[str] = (),
        api_key: str | None = None,
        json_app: ASGIApp | None = None,
        json_lifespan: Any = None,
    ) -> None:
        self.app = app
        self._token = token
        self._api_key = api_key
        self._origins = tuple(allowed_origins)
        self._json_app = json_app
        self._json_lifespan = json_lifespan

    def _authorized(self, headers: dict[str, str]) -> bool:
        scheme, _, presented = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        presented = presented.strip()
        token_ok = tokens_equal(presented, self._token)
        key_ok = self._api_key is not None and tokens_equal(presented, self._api_key)
        return token_ok or key_ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            if self._json_lifespan is not None:
                async with self._json_lifespan():
                    await self.app(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(origin, self._origins):
            logger.warning("refused a request from Origin %r", origin[:200])
            await _respond(send, 403, "Forbidden: this Origin may not use the bridge\n")
            return
        path = scope.get("path", "")
        if path == HEALTH_PATH and scope.get("method") in ("GET", "HEAD"):
            body = json.dumps({"status": "ok", "server": "gabs", "version": __version__})
            await _respond(send, 200, body, content_type=b"application/json")
            return
        if not self._authorized(headers):
            await _respond(
                send,
                401,
                "Unauthorized: send Authorization: Bearer <token>\n",
                extra=[(b"www-authenticate", b'Bearer realm="gabs"')],
            )
            return
        accept = headers.get("accept", "")
        if (
            self._json_app is not None
            and scope.get("method") == "POST"
            and path.rstrip("/") == MCP_PATH
            and "text/event-stream" not in accept
        ):
            await self._json_app(_json_scope(scope, headers), receive, send)
            return
        await self.app(scope, receive, _without_cancelled_answers(send))


def _json_scope(scope: Scope, headers: dict[str, str]) -> Scope:
    """The request as a JSON-only client's: ``Accept: application/json`` (and a JSON
    ``Content-Type`` when none was given), whatever it sent."""
    kept = [(k, v) for k, v in scope["headers"] if k.lower() not in (b"accept", b"content-type")]
    kept.append((b"accept", b"application/json"))
    content_type = headers.get("content-type") or "application/json"
    kept.append((b"content-type", content_type.encode("latin-1")))
    return {**scope, "headers": kept, "path": MCP_PATH}


def _is_cancel_answer(body: bytes) -> bool:
    """Whether a JSON answer is only the JSON-RPC error -32800 (request cancelled)."""
    try:
        message = json.loads(body)
    except ValueError:
        return False
    error = message.get("error") if isinstance(message, dict) else None
    return isinstance(error, dict) and error.get("code") == CANCELLED_CODE


def _is_json_start(message: Any) -> bool:
    if message.get("type") != "http.response.start":
        return False
    return any(
        name.lower() == b"content-type" and value.startswith(b"application/json")
        for name, value in message.get("headers", ())
    )


def _without_cancelled_answers(send: Send) -> Send:
    """``send`` that turns the answer to a cancelled request into ``202 Accepted`` without a
    body (there is nothing to answer); every other response passes unchanged."""
    held: list[Any] = []

    async def filtered(message: Any) -> None:
        if _is_json_start(message):
            held.append(message)  # sent with the body, once it is known not to be the error
            return
        if held and message.get("type") == "http.response.body":
            start = held.pop()
            body = message.get("body", b"")
            complete = not message.get("more_body", False)
            if complete and b"-32800" in body and _is_cancel_answer(body):
                headers = [
                    (name, value)
                    for name, value in start.get("headers", ())
                    if name.lower() not in (b"content-length", b"content-type")
                ]
                headers.append((b"content-length", b"0"))
                await send({**start, "status": 202, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
            await send(start)
        await send(message)

    return filtered


async def _respond(
    send: Send,
    status: int,
    body: str,
    *,
    extra: list[tuple[bytes, bytes]] | None = None,
    content_type: bytes = b"text/plain; charset=utf-8",
) -> None:
    data = body.encode()
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(data)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def resolve_token(config: GabsConfig, token: str | None = None) -> tuple[str, bool, Path | None]:
    """The bearer token, whether it was configured (not generated now), and its file."""
    if token:
        return token, True, None
    from_env = os.environ.get(TOKEN_ENV)
    if from_env:
        return from_env.strip(), True, None
    configured = config.bridge.token_file
    path = Path(configured).expanduser() if configured else config.config_dir / TOKEN_FILE_NAME
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
    """

    class CleanExitServer(uvicorn.Server):  # type: ignore[misc]
        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            import threading

            if threading.current_thread() is not threading.main_thread():
                yield
                return

            server: Any = self

            def stop(signum: int, frame: Any) -> None:
                if server.should_exit:
                    server.force_exit = True
                server.should_exit = True

            handled = (signal.SIGINT, signal.SIGTERM)
            original = {signum: signal.signal(signum, stop) for signum in handled}
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
                "(with a configured token) to expose the bridge beyond this machine"
            )
        if not configured:
            raise HttpServeError(
                f"refusing to listen on {host} with a token generated just now: configure one "
                f"(write it to {path}, or set ${TOKEN_ENV}) and pass --allow-remote again"
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
