"""What stands in front of the MCP app on HTTP (:class:`GuardMiddleware`), request by request:

1. a foreign ``Origin`` (not loopback, not in the config's ``bridge.allowedOrigins``): **403**;
2. ``/health`` (any method, no token): ``{"status": "ok", "server": "gabs", "version": ...}``;
3. any path but ``/mcp``: **404** ``404 page not found``, as the Go bridge answers;
4. no ``Authorization: Bearer <token>`` matching the bridge token or the config's ``apiKey``
   (both compared in constant time): **401** with ``WWW-Authenticate: Bearer``;
5. a method other than POST without a session (a GET stream belongs to a session): **405**,
   as the Go bridge answers every method but POST;
6. a POST body over 1 MiB (:data:`MAX_BODY_BYTES`): **400**, as the Go bridge answers; a
   request with an id whose ``params`` is not an object, or without ``"jsonrpc": "2.0"``, gets
   its JSON-RPC error with its id (:mod:`gabs.transports.invalid_requests`); an ``initialize``
   request without some of its params gets them filled in, as the Go bridge reads none
   (:mod:`gabs.transports.initialize_request`); a JSON body that is no JSON-RPC message (a
   batch, ``null``, ``{}``) is **400** with ``-32600`` (``Invalid Request``) and no id; an
   ``MCP-Protocol-Version`` the SDK does not speak is **400** ``Unsupported protocol version``
   (with the versions it does speak), except on ``initialize``, whose body negotiates;
7. a POST from a plain JSON client, or one without a session that does not open one (anything
   but ``initialize``): the stateless JSON app, as the Go bridge serves every POST, whatever
   its ``Content-Type`` (``curl -d`` sends a form type);
8. everything else: the Streamable HTTP app (sessions, the GET stream), where the answer to a
   request the client cancelled becomes ``202 Accepted`` without a body. A POST reaches it as
   a plain JSON client's too (``Accept`` and ``Content-Type`` ``application/json``): every
   answer is one JSON body, and the Go bridge reads any body as JSON.

The refusals of 1, 4, 5 and the body limit of 6 have a JSON body ``{"error": "..."}``, as the Go
bridge's have.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import urlsplit

from mcp.shared.inbound import unsupported_protocol_version_rejection
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gabp import tokens_equal
from gabs._version import __version__
from gabs.transports.initialize_request import complete_initialize
from gabs.transports.invalid_requests import invalid_request_answer, not_a_message_answer
from gabs.transports.request_body import decode_body
from gabs.transports.request_ids import IdAliases

__all__ = [
    "MAX_BODY_BYTES",
    "MCP_PATH",
    "GuardMiddleware",
    "is_loopback",
    "origin_allowed",
    "without_cancelled_answers",
]

logger = logging.getLogger("gabs.http")

MCP_PATH: Final = "/mcp"
HEALTH_PATH: Final = "/health"
CANCELLED_CODE: Final = -32800
#: The largest POST body served (the Go bridge's limit).
MAX_BODY_BYTES: Final = 1 << 20
LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
_JSON: Final = b"application/json"
_VERSION_HEADER: Final = "mcp-protocol-version"
_TOO_LARGE: Final = f"Request body too large (max {MAX_BODY_BYTES} bytes)"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine (a loopback name or address)."""
    if host.lower() in LOOPBACK_NAMES or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


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
    """ASGI middleware: the checks and routes of the module doc, then the MCP app (clients
    with a session to ``app``, plain JSON clients to ``json_app``)."""

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
            await _refuse(send, 403, "Forbidden: this Origin may not use the bridge")
            return
        path = scope.get("path", "")
        if path == HEALTH_PATH:
            health = {"status": "ok", "server": "gabs", "version": __version__}
            await _respond(send, 200, _compact(health), content_type=_JSON)
            return
        if path.rstrip("/") != MCP_PATH:
            await _respond(send, 404, "404 page not found\n")
            return
        if not self._authorized(headers):
            extra = [(b"www-authenticate", b'Bearer realm="gabs"')]
            await _refuse(send, 401, "Unauthorized: send Authorization: Bearer <token>", extra)
            return
        streaming = "text/event-stream" in headers.get("accept", "")
        session = headers.get("mcp-session-id")
        if scope.get("method") != "POST":
            if self._json_app is not None and session is None:
                extra = [(b"allow", b"GET, POST, DELETE")]
                await _refuse(send, 405, "Method not allowed: MCP requests are POSTed", extra)
                return
            await self.app(scope, receive, without_cancelled_answers(send))
            return
        try:
            body = await _read_body(receive, headers)
        except _ClientLeft:
            logger.info("a client left before its request body was whole: not served")
            return
        if body is None:
            await _refuse(send, 400, _TOO_LARGE)
            return
        aliases = IdAliases()  # an id the SDK cannot carry, swapped and restored
        body = complete_initialize(aliases.alias(body))
        message = decode_body(body)
        opens_session = _opens_session(message)
        refusal = invalid_request_answer(message, known_invalid=False)
        if refusal is not None:  # the SDK would answer it without its id
            refusal = aliases.restore_answer(refusal)
            await _respond(send, 200, refusal.decode(), content_type=_JSON)
            return
        malformed = not_a_message_answer(message)
        if malformed is not None:
            await _respond(send, 400, malformed.decode(), content_type=_JSON)
            return
        version = headers.get(_VERSION_HEADER)
        if version is not None and version not in SUPPORTED_PROTOCOL_VERSIONS:
            if not opens_session:
                refusal = aliases.restore_answer(_unsupported_version(message, version))
                await _respond(send, 400, refusal.decode(), content_type=_JSON)
                return
            # initialize negotiates its version in its body, as the Go bridge reads it
            scope = _without_header(scope, _VERSION_HEADER.encode())
        receive = _replaying(body, receive)
        if len(aliases):
            send = _restoring_ids(aliases, send)
        if self._json_app is not None and (
            not streaming or (session is None and not opens_session)
        ):
            await self._json_app(_json_scope(scope), receive, send)
            return
        await self.app(_json_scope(scope), receive, without_cancelled_answers(send))


def _restoring_ids(aliases: IdAliases, send: Send) -> Send:
    """``send`` with the client's own request id put back into the answer (the length of a
    whole body corrected)."""
    held: list[Any] = []

    async def restoring(message: Any) -> None:
        if message.get("type") == "http.response.start":
            held.append(message)
            return
        if message.get("type") == "http.response.body":
            message = {**message, "body": aliases.restore_all(message.get("body", b""))}
            if held:
                start = held.pop()
                if not message.get("more_body", False):
                    length = str(len(message["body"])).encode()
                    headers = [
                        (name, length if name.lower() == b"content-length" else value)
                        for name, value in start.get("headers", [])
                    ]
                    start = {**start, "headers": headers}
                await send(start)
        await send(message)

    return restoring


class _ClientLeft(Exception):
    """The client disconnected before its request body was whole."""


async def _read_body(receive: Receive, headers: dict[str, str]) -> bytes | None:
    """The whole request body, or None when it is larger than :data:`MAX_BODY_BYTES`.

    Raises :class:`_ClientLeft` when the client disconnects before the body is whole: what
    came of it is not served (it may be JSON, only short of its length), as the Go bridge serves
    no body it could not read to its end."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise _ClientLeft
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """``receive`` that hands over ``body`` (read already) first, then what comes next."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


def _unsupported_version(message: Any, version: str) -> bytes:
    """The SDK's ``Unsupported protocol version`` error (``data``: what is supported and what
    was asked), with the id of the request ``message`` (a decoded body) when it has one."""
    rejection = unsupported_protocol_version_rejection(version, SUPPORTED_PROTOCOL_VERSIONS)
    assert rejection is not None
    request_id = message.get("id") if isinstance(message, dict) else None
    error = {"code": rejection.code, "message": rejection.message, "data": rejection.data}
    return _compact({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()


def _without_header(scope: Scope, name: bytes) -> Scope:
    return {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != name]}


def _opens_session(message: Any) -> bool:
    """Whether a decoded POST body is an ``initialize`` request (the one that opens a
    session)."""
    return isinstance(message, dict) and message.get("method") == "initialize"


def _json_scope(scope: Scope) -> Scope:
    """The request as a plain JSON client's: ``Accept`` and ``Content-Type``
    ``application/json``, whatever it sent (the Go bridge reads every body as JSON)."""
    kept = [(k, v) for k, v in scope["headers"] if k.lower() not in (b"accept", b"content-type")]
    kept += [(b"accept", _JSON), (b"content-type", _JSON)]
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
        name.lower() == b"content-type" and value.startswith(_JSON)
        for name, value in message.get("headers", ())
    )


def without_cancelled_answers(send: Send) -> Send:
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


async def _refuse(
    send: Send, status: int, error: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    """A refusal as the Go bridge shapes its own: ``{"error": "..."}``, JSON."""
    await _respond(send, status, _compact({"error": error}), extra=extra, content_type=_JSON)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


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
