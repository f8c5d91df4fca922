"""GabpServer: what a game mod embeds to be reached by a GABP bridge.

The server listens on loopback (TCP by default; also a Unix socket or stdio), authenticates
each bridge connection with the shared token, and serves the protocol methods from its tool
registry, event channels, resources, optional state providers and, when enabled, the
attention manager. Every connection is a :class:`gabp.Connection`; this module only decides
what each method means.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

from gabp import (
    Connection,
    ConnectionClosed,
    ConnectionLimits,
    ErrorCode,
    InboundRequest,
    MessageError,
    ProtocolError,
    parse_params,
    read_gabs_environment,
    stdio_stream,
    tokens_equal,
)
from gabp.handoff import HandoffError
from gabp.messages import (
    SCHEMA_VERSION,
    AppInfo,
    Attention,
    Capabilities,
    HelloResult,
    Limits,
    ServerInfo,
)
from lib_gab.attention import AttentionManager, AttentionPolicy
from lib_gab.operation import Operation, current_operation, use_operation
from lib_gab.resources import Resource, ResourceRegistry
from lib_gab.tools import Tool, ToolContext, ToolRegistry, build_tool

__all__ = [
    "ATTENTION_CHANNELS",
    "GabpServer",
    "ServerAddress",
    "ServerConfigError",
    "ServerLimits",
]

logger = logging.getLogger("lib_gab.server")

ATTENTION_CHANNELS = ("attention/opened", "attention/updated", "attention/cleared")
LOOPBACK_HOSTS = ("127.0.0.1", "::1")
RUNTIME_NAME = "lib-gab"
RUNTIME_VERSION = "0.1.0"

F = TypeVar("F", bound=Callable[..., Any])
Transport = Literal["tcp", "unix", "stdio"]


class ServerConfigError(ValueError):
    """The server was configured in a way it cannot run (a bad host, token or port)."""


@dataclass(frozen=True)
class ServerLimits:
    """Bounds the server keeps and advertises in ``capabilities.limits``."""

    max_connections: int = 16
    """Bridge connections at once; further ones are closed as soon as they are accepted."""
    max_message_bytes: int = 4 * 1024 * 1024
    max_concurrent_requests: int = 64
    """Requests served at once per connection."""
    request_timeout: int = 60
    """Seconds a request may take before it is answered with a timeout error."""
    hello_timeout: float = 10.0
    """Seconds a new connection has to send a valid session/hello before it is closed."""
    max_tool_threads: int = 8
    auth_failures_before_delay: int = 5
    """Failed hellos within ``auth_failure_window`` seconds before further failures are slowed."""
    auth_failure_window: float = 10.0
    auth_failure_delay: float = 1.0
    """Seconds a failed hello waits before its answer once the failure rate is exceeded."""
    """Sync tools run in worker threads, at most this many at once."""

    def __post_init__(self) -> None:
        if self.max_connections < 1:
            raise ServerConfigError("ServerLimits.max_connections must be at least 1")
        if self.max_message_bytes < 1024:
            raise ServerConfigError("ServerLimits.max_message_bytes must be at least 1024")
        if self.max_concurrent_requests < 1 or self.max_tool_threads < 1:
            raise ServerConfigError("ServerLimits concurrency limits must be at least 1")
        if self.request_timeout < 1 or not self.hello_timeout > 0:
            raise ServerConfigError("ServerLimits timeouts must be positive")


@dataclass(frozen=True)
class ServerAddress:
    """Where a running server can be reached."""

    transport: Transport
    host: str | None = None
    port: int | None = None
    path: str | None = None

    def __str__(self) -> str:
        if self.transport == "tcp":
            host = f"[{self.host}]" if self.host and ":" in self.host else self.host
            return f"{host}:{self.port}"
        if self.transport == "unix":
            return f"unix:{self.path}"
        return "stdio"


@dataclass
class _Channel:
    name: str
    description: str | None = None


@dataclass(eq=False)
class _Session:
    """One bridge connection and what it asked for."""

    connection: Connection
    established: bool = False
    subscriptions: set[str] = field(default_factory=set)
    client: str = ""


class GabpServer:
    """A GABP server for one game.

    ::

        server = GabpServer(app_name="RimWorld", app_version="1.5", agent_id="rimworld",
                            token=token, port=0)

        @server.tool("colony/get_status", description="Summarize the colony.")
        def get_status(detail: bool = False) -> dict[str, int]:
            ...

        async with server.running() as address:
            ...
    """

    def __init__(
        self,
        *,
        app_name: str,
        app_version: str,
        agent_id: str,
        token: str,
        host: str = "127.0.0.1",
        port: int = 0,
        transport: Transport = "tcp",
        unix_path: str | os.PathLike[str] | None = None,
        limits: ServerLimits | None = None,
        server_info: Mapping[str, str] | None = None,
    ) -> None:
        if not app_name or not app_version:
            raise ServerConfigError("app_name and app_version must not be empty")
        if not agent_id:
            raise ServerConfigError("agent_id must not be empty")
        if len(token) < 32:
            raise ServerConfigError(f"the token must be at least 32 characters (got {len(token)})")
        if transport == "tcp" and host not in LOOPBACK_HOSTS:
            raise ServerConfigError(
                f"GABP servers bind loopback only: host must be 127.0.0.1 or ::1, not {host!r}"
            )
        if not 0 <= port <= 65535:
            raise ServerConfigError(f"port must be from 0 to 65535, got {port}")
        if transport == "unix" and unix_path is None:
            raise ServerConfigError("a unix transport needs unix_path")
        if transport not in ("tcp", "unix", "stdio"):
            raise ServerConfigError(f"unknown transport {transport!r} (tcp, unix or stdio)")
        self.app = AppInfo(name=app_name, version=app_version)
        self.agent_id = agent_id
        self._token = token
        self.host = host
        self.port = port
        self.transport: Transport = transport
        self.unix_path = Path(unix_path) if unix_path is not None else None
        self.limits = limits or ServerLimits()
        self.server_info = ServerInfo.model_validate(
            dict(server_info or {"name": RUNTIME_NAME, "version": RUNTIME_VERSION})
        )
        self.tools = ToolRegistry()
        self.resources = ResourceRegistry()
        self._channels: dict[str, _Channel] = {}
        self._state_get: Callable[..., Any] | None = None
        self._state_set: Callable[..., Any] | None = None
        self._sessions: set[_Session] = set()
        self._attention: AttentionManager | None = None
        self._attention_outbox: deque[tuple[str, Attention]] = deque()
        self._attention_wake: anyio.Event | None = None
        self._loop_thread: int | None = None
        self._token_loop: anyio.lowlevel.EventLoopToken | None = None
        self._tool_threads = anyio.CapacityLimiter(self.limits.max_tool_threads)
        self._connection_limits = ConnectionLimits(
            max_message_bytes=self.limits.max_message_bytes,
            max_concurrent_requests=self.limits.max_concurrent_requests,
            handler_timeout=float(self.limits.request_timeout),
        )
        self._address: ServerAddress | None = None
        self._served: frozenset[str] | None = None
        self._auth_failures: deque[float] = deque(maxlen=1024)

    def __repr__(self) -> str:
        return f"GabpServer(agent_id={self.agent_id!r}, transport={self.transport!r})"

    # -- construction from the bridge's handoff -------------------------------------------------

    @classmethod
    def from_gabs_environment(
        cls,
        *,
        app_name: str,
        app_version: str,
        env: Mapping[str, str] | None = None,
        agent_id: str | None = None,
        port: int | None = None,
        **options: Any,
    ) -> GabpServer:
        """A TCP server configured the way a GABS bridge launches a game.

        Port, token and agent id come from ``GABP_SERVER_PORT``, ``GABP_TOKEN`` and
        ``GABS_GAME_ID``; ``agent_id`` stands in for a missing ``GABS_GAME_ID`` and ``port``
        (0 for an OS-assigned one) overrides ``GABP_SERVER_PORT``. Missing or malformed values
        raise :class:`ServerConfigError` naming the variable.
        """
        source = dict(os.environ if env is None else env)
        if port is not None:
            source["GABP_SERVER_PORT"] = "1"  # stands in for the explicit port below
        try:
            handoff = read_gabs_environment(source, require_game_id=agent_id is None)
        except HandoffError as exc:
            raise ServerConfigError(str(exc)) from None
        return cls(
            app_name=app_name,
            app_version=app_version,
            agent_id=handoff.game_id or agent_id or "",
            token=handoff.token,
            port=handoff.port if port is None else port,
            **options,
        )

    # -- registration ---------------------------------------------------------------------------

    def tool(
        self,
        name: str,
        *,
        description: str,
        title: str | None = None,
        tags: Iterable[str] = (),
        result_description: str | None = None,
        parameter_descriptions: Mapping[str, str] | None = None,
        deprecated: bool = False,
        version: str | None = None,
    ) -> Callable[[F], F]:
        """Register the decorated sync or async function as the tool ``name``."""

        def register(function: F) -> F:
            self.add_tool(
                function,
                name=name,
                description=description,
                title=title,
                tags=tags,
                result_description=result_description,
                parameter_descriptions=parameter_descriptions,
                deprecated=deprecated,
                version=version,
            )
            return function

        return register

    def add_tool(
        self, function: Callable[..., Any], *, name: str, description: str, **metadata: Any
    ) -> Tool:
        """Register ``function`` as a tool (the decorator's non-decorator form).

        Integrations that keep tool metadata elsewhere (e.g. in annotations) read it and call
        this; ``metadata`` takes title, tags, result_description, parameter_descriptions,
        deprecated and version.
        """
        return self.tools.add(build_tool(function, name=name, description=description, **metadata))

    def channel(self, name: str, *, description: str | None = None) -> None:
        """Offer the event channel ``name`` (bridges subscribe to it with events/subscribe)."""
        if not name:
            raise ValueError("a channel name must not be empty")
        if name in ATTENTION_CHANNELS:
            raise ValueError(f"{name} is an attention channel: use enable_attention()")
        self._channels.setdefault(name, _Channel(name, description))

    def resource(
        self,
        uri: str,
        *,
        name: str,
        content: Any = None,
        provider: Callable[[], Any] | None = None,
        description: str | None = None,
        mime_type: str | None = "application/json",
    ) -> Resource:
        """Offer a resource: static ``content``, or a ``provider`` called on every read."""
        return self.resources.add(
            Resource(
                uri=uri,
                name=name,
                content=content,
                provider=provider,
                description=description,
                mime_type=mime_type,
            )
        )

    def state_provider(
        self,
        get: Callable[[list[str] | None, str | None], Mapping[str, Any]] | None = None,
        set: Callable[[Mapping[str, Any], str | None, bool], Mapping[str, Any]] | None = None,
    ) -> None:
        """Serve state/get (``get(components, player_id) -> state``) and state/set
        (``set(updates, player_id, validate) -> {"applied": ..., "errors"?: [...]}``)."""
        self._state_get = get
        self._state_set = set
        self._served = None

    def enable_attention(
        self,
        *,
        policy: AttentionPolicy | None = None,
        manager: AttentionManager | None = None,
        **manager_options: Any,
    ) -> AttentionManager:
        """Serve attention/current, attention/ack and the three lifecycle channels.

        Returns the :class:`AttentionManager` the integration reports urgent entries to.
        Without this call those methods are answered -32601, exactly as a legacy server would.
        """
        if self._attention is not None:
            raise RuntimeError("attention is already enabled")
        if manager is None:
            manager = AttentionManager(
                policy=policy, operation_provider=_operation_for_attention, **manager_options
            )
        manager.set_listener(self._on_attention)
        self._attention = manager
        self._served = None
        return manager

    @property
    def attention(self) -> AttentionManager | None:
        return self._attention

    @property
    def address(self) -> ServerAddress | None:
        """Where the server listens, once it runs."""
        return self._address

    @property
    def connection_count(self) -> int:
        return len(self._sessions)

    # -- capabilities ---------------------------------------------------------------------------

    def methods(self) -> list[str]:
        """The protocol methods this server serves (as advertised in the hello reply)."""
        methods = [
            "session/hello",
            "tools/list",
            "tools/call",
            "events/subscribe",
            "events/unsubscribe",
            "resources/list",
            "resources/read",
        ]
        if self._state_get is not None:
            methods.append("state/get")
        if self._state_set is not None:
            methods.append("state/set")
        if self._attention is not None:
            methods += ["attention/current", "attention/ack"]
        return methods

    def channels(self) -> list[str]:
        names = list(self._channels)
        if self._attention is not None:
            names += list(ATTENTION_CHANNELS)
        return names

    def capabilities(self) -> Capabilities:
        return Capabilities(
            methods=self.methods(),
            events=self.channels(),
            resources=self.resources.uris(),
            limits=Limits(
                max_message_size=self.limits.max_message_bytes,
                max_concurrent_requests=self.limits.max_concurrent_requests,
                request_timeout=self.limits.request_timeout,
            ),
        )

    # -- running --------------------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ServerAddress]:
        """Serve in the background for the duration of the block; yields the bound address."""
        async with anyio.create_task_group() as tg:
            address: ServerAddress = await tg.start(self.serve)
            try:
                yield address
            finally:
                tg.cancel_scope.cancel()

    def run(self) -> None:
        """Serve until interrupted (blocking). Ctrl-C stops the server cleanly."""
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(self.serve)

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[ServerAddress] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Listen and serve until cancelled; reports the bound address through ``task_status``."""
        self._loop_thread = threading.get_ident()
        self._token_loop = anyio.lowlevel.current_token()
        self._attention_wake = anyio.Event()
        async with anyio.create_task_group() as tg:
            if self._attention is not None:
                tg.start_soon(self._attention_pump)
            if self.transport == "stdio":
                self._address = ServerAddress("stdio")
                task_status.started(self._address)
                await self._serve_connection(stdio_stream())
                tg.cancel_scope.cancel()
                return
            listener = await self._listen()
            async with listener:
                task_status.started(self._address)  # type: ignore[arg-type]
                await listener.serve(self._accept)

    async def _listen(self) -> anyio.abc.Listener[Any]:
        if self.transport == "unix":
            assert self.unix_path is not None
            if self.unix_path.exists():
                raise ServerConfigError(f"{self.unix_path} already exists")
            listener = await anyio.create_unix_listener(self.unix_path, mode=0o600)
            self._address = ServerAddress("unix", path=str(self.unix_path))
            return listener
        tcp = await anyio.create_tcp_listener(local_host=self.host, local_port=self.port)
        for each in tcp.listeners:  # check what was bound, not only what was asked for
            bound = each.extra(anyio.abc.SocketAttribute.local_address)
            if not ipaddress.ip_address(bound[0]).is_loopback:
                await tcp.aclose()
                raise ServerConfigError(f"refusing to serve on non-loopback address {bound[0]}")
        port = tcp.extra(anyio.abc.SocketAttribute.local_port)
        self._address = ServerAddress("tcp", host=self.host, port=port)
        return tcp

    async def _accept(self, stream: anyio.abc.ByteStream) -> None:
        if len(self._sessions) >= self.limits.max_connections:
            logger.warning(
                "refusing a bridge connection: %d connections already open",
                self.limits.max_connections,
            )
            await stream.aclose()
            return
        await self._serve_connection(stream)

    async def _serve_connection(self, stream: anyio.abc.ByteStream) -> None:
        connection = Connection(stream, limits=self._connection_limits, name=self.agent_id)
        session = _Session(connection)
        connection.set_fallback_handler(lambda request: self._dispatch(session, request))
        self._sessions.add(session)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._expire_without_hello, session)
                await connection.run()
                tg.cancel_scope.cancel()
        finally:
            self._sessions.discard(session)
            logger.info("bridge connection closed: %s", connection.close_reason)

    async def _expire_without_hello(self, session: _Session) -> None:
        await anyio.sleep(self.limits.hello_timeout)
        if not session.established:
            logger.warning("closing a connection that sent no valid session/hello in time")
            session.connection.close_soon(
                f"no session/hello within {self.limits.hello_timeout:g} s"
            )

    # -- dispatch -------------------------------------------------------------------------------

    async def _dispatch(self, session: _Session, request: InboundRequest) -> Any:
        method = request.method
        if not session.established:
            if method != "session/hello":
                raise ProtocolError(
                    ErrorCode.SESSION_NOT_ESTABLISHED,
                    f"session not established: send session/hello before {method}",
                )
            return await self._hello(session, request)
        if self._served is None:
            self._served = frozenset(self.methods())
        handler = self._handlers.get(method)
        if handler is None or method not in self._served:
            raise ProtocolError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {method}")
        return await handler(self, session, request)

    async def _hello(self, session: _Session, request: InboundRequest) -> dict[str, Any]:
        token = request.params.get("token")
        if not (isinstance(token, str) and len(token) >= 32 and tokens_equal(token, self._token)):
            logger.warning("refusing a bridge: authentication failed")
            request.close_after_response = "authentication failed"
            await self._slow_down_guessing()
            raise ProtocolError(ErrorCode.AUTHENTICATION_FAILED, "authentication failed")
        params = _parse(request)
        session.established = True
        session.client = (
            f"{params.client_info.name if params.client_info else 'bridge'} {params.bridge_version}"
        )
        logger.info("bridge session established (%s, %s)", session.client, params.platform)
        return HelloResult(
            agent_id=self.agent_id,
            app=self.app,
            capabilities=self.capabilities(),
            schema_version=SCHEMA_VERSION,
            server_info=self.server_info,
        ).to_wire()

    async def _slow_down_guessing(self) -> None:
        """Delay the answer to a failed hello once failures come too fast (token guessing)."""
        now = time.monotonic()
        failures = self._auth_failures
        failures.append(now)
        window = self.limits.auth_failure_window
        while failures and failures[0] < now - window:
            failures.popleft()
        if len(failures) > self.limits.auth_failures_before_delay:
            await anyio.sleep(self.limits.auth_failure_delay)

    async def _session_hello_again(self, session: _Session, request: InboundRequest) -> Any:
        raise ProtocolError(ErrorCode.METHOD_NOT_ALLOWED, "the session is already established")

    async def _tools_list(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        selected = params.filter
        return {
            "tools": self.tools.list(
                tags=selected.tags if selected else None,
                name_pattern=selected.name_pattern if selected else None,
            )
        }

    async def _tools_call(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        tool = self.tools.get(params.name)
        if tool is None:
            raise ProtocolError(
                ErrorCode.TOOL_NOT_FOUND, f"tool not found: {params.name}", {"tool": params.name}
            )
        arguments = tool.validate_arguments(params.arguments)
        operation = Operation(
            id=request.id,
            method=tool.name,
            close_connection=lambda reason: setattr(request, "close_after_response", reason),
        )
        with use_operation(operation):
            if tool.context_parameter is not None:
                arguments[tool.context_parameter] = ToolContext(
                    tool.name,
                    operation,
                    self.emit,
                    close_after_response=operation.close_connection or (lambda reason: None),
                )
            try:
                if tool.is_async:
                    result = await tool.function(**arguments)
                else:
                    result = await anyio.to_thread.run_sync(
                        lambda: tool.function(**arguments), limiter=self._tool_threads
                    )
            finally:
                # attention raised by this call goes out before its response (decision 4)
                if self._attention is not None:
                    self._attention.flush_pending()
                await self._flush_attention()
        return tool.encode_result(result)

    async def _events_subscribe(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        self._check_channels(params.channels)
        session.subscriptions.update(params.channels)
        return {"subscribed": list(params.channels)}

    def _check_channels(self, channels: list[str]) -> None:
        """Refuse (``-31003``) a request naming any channel this server does not offer."""
        known = set(self.channels())
        unknown = [name for name in channels if name not in known]
        if unknown:
            raise ProtocolError(
                ErrorCode.CHANNEL_NOT_FOUND,
                f"event channel not found: {', '.join(unknown)}",
                {"channels": unknown, "available": sorted(known)},
            )

    async def _events_unsubscribe(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        self._check_channels(params.channels)
        removed = [name for name in params.channels if name in session.subscriptions]
        session.subscriptions.difference_update(removed)
        return {"unsubscribed": removed}

    async def _resources_list(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        return {
            "resources": self.resources.list(pattern=params.pattern, namespace=params.namespace)
        }

    async def _resources_read(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        resource = self.resources.get(params.uri)
        if resource is None:
            raise ProtocolError(
                ErrorCode.RESOURCE_NOT_FOUND,
                f"resource not found: {params.uri}",
                {"uri": params.uri},
            )
        return await resource.read()

    async def _state_get_handler(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        assert self._state_get is not None
        getter = self._state_get
        state = await anyio.to_thread.run_sync(
            lambda: getter(params.components, params.player_id), limiter=self._tool_threads
        )
        return {"state": dict(state), "timestamp": int(time.time())}

    async def _state_set_handler(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        assert self._state_set is not None
        setter = self._state_set
        validate = True if params.validate_ is None else params.validate_
        return dict(
            await anyio.to_thread.run_sync(
                lambda: setter(params.updates, params.player_id, validate),
                limiter=self._tool_threads,
            )
        )

    async def _attention_current(self, session: _Session, request: InboundRequest) -> Any:
        if request.params:
            raise ProtocolError(ErrorCode.INVALID_PARAMS, "attention/current takes no parameters")
        assert self._attention is not None
        item = self._attention.current()
        return {"attention": item.to_wire() if item is not None else None}

    async def _attention_ack(self, session: _Session, request: InboundRequest) -> Any:
        params = _parse(request)
        assert self._attention is not None
        outcome = self._attention.ack(params.attention_id)
        await self._flush_attention()  # attention/cleared goes out before the ack's answer
        return outcome.to_wire()

    _handlers: dict[str, Callable[[GabpServer, _Session, InboundRequest], Awaitable[Any]]] = {
        "session/hello": _session_hello_again,
        "tools/list": _tools_list,
        "tools/call": _tools_call,
        "events/subscribe": _events_subscribe,
        "events/unsubscribe": _events_unsubscribe,
        "resources/list": _resources_list,
        "resources/read": _resources_read,
        "state/get": _state_get_handler,
        "state/set": _state_set_handler,
        "attention/current": _attention_current,
        "attention/ack": _attention_ack,
    }

    # -- events ---------------------------------------------------------------------------------

    async def emit(self, channel: str, payload: Any) -> int:
        """Send an event to every bridge subscribed to ``channel``; returns how many got it."""
        if channel not in self._channels and not (
            self._attention is not None and channel in ATTENTION_CHANNELS
        ):
            raise ValueError(f"unknown event channel {channel!r}: register it with channel()")
        targets = [s for s in self._sessions if channel in s.subscriptions and s.established]
        delivered = 0

        async def send(session: _Session) -> None:
            nonlocal delivered
            try:
                await session.connection.emit(channel, payload)
                delivered += 1
            except ConnectionClosed:
                pass

        if len(targets) == 1:
            await send(targets[0])
        elif targets:
            async with anyio.create_task_group() as tg:
                for session in targets:
                    tg.start_soon(send, session)
        return delivered

    # -- attention plumbing ---------------------------------------------------------------------

    def _on_attention(self, channel: str, item: Attention) -> None:
        """The manager's listener: queue the event and wake the pump (from any thread)."""
        self._attention_outbox.append((channel, item))
        wake = self._attention_wake
        if wake is None:
            return
        if threading.get_ident() == self._loop_thread:
            wake.set()
        elif self._token_loop is not None:
            with contextlib.suppress(RuntimeError):
                anyio.from_thread.run_sync(wake.set, token=self._token_loop)

    async def _flush_attention(self) -> None:
        outbox = self._attention_outbox
        while outbox:
            channel, item = outbox.popleft()
            await self.emit(channel, item.to_wire())

    async def _attention_pump(self) -> None:
        """Send queued attention events, and deferred (rate-limited) updates when they are due."""
        assert self._attention is not None
        manager = self._attention
        while True:
            due = manager.flush_due()
            await self._flush_attention()
            assert self._attention_wake is not None
            with anyio.move_on_after(1.0 if due is None else max(due, 0.0)):
                await self._attention_wake.wait()
            self._attention_wake = anyio.Event()


def _operation_for_attention() -> tuple[str, str] | None:
    operation = current_operation()
    return (operation.id, operation.method) if operation is not None else None


def _parse(request: InboundRequest) -> Any:
    """The request's params as their model; ``-32602`` naming each field when invalid."""
    try:
        return parse_params(request.method, request.params)
    except MessageError as exc:
        raise ProtocolError(ErrorCode.INVALID_PARAMS, str(exc)) from None
