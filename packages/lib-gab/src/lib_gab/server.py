"""GabpServer: what a game mod embeds to be reached by a GABP bridge.

The server listens on loopback (TCP by default; also a Unix socket or stdio), authenticates
each bridge connection with the shared token, and serves the protocol methods from its tool
registry, event channels, resources, optional state providers and, when enabled, the
attention manager. Every connection is a :class:`gabp.Connection`; what each method means is
in ``lib_gab._method_handlers``.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.abc

from gabp import (
    ConnectionClosed,
    ConnectionLimits,
    MessageTooLarge,
    read_gabs_environment,
)
from gabp.handoff import HandoffError
from gabp.messages import AppInfo, Attention, ServerInfo, new_id
from gabp.wirejson import EncodedJson
from lib_gab._attention_relay import AttentionRelay
from lib_gab._json_values import ANY_VALUE, wire_json
from lib_gab._method_handlers import ATTENTION_CHANNELS, Channel, Session
from lib_gab._server_config import (
    RUNTIME_NAME,
    RUNTIME_VERSION,
    ProtocolOptions,
    ServerAddress,
    ServerConfigError,
    ServerLimits,
    Transport,
    check_address,
    check_token,
)
from lib_gab._serving import Serving
from lib_gab.attention import AckOutcome, AttentionManager, AttentionPolicy
from lib_gab.discovery import gabs_launch
from lib_gab.operation import Operation, current_operation
from lib_gab.resources import Resource, ResourceRegistry
from lib_gab.tool_info import ToolInfo
from lib_gab.tool_registry import ToolRegistry
from lib_gab.tools import (
    Tool,
    ToolHandler,
    ToolNotFound,
    build_handler_tool,
    build_tool,
    marked_tools,
)

__all__ = [
    "ATTENTION_CHANNELS",
    "GabpServer",
    "ProtocolOptions",
    "ServerAddress",
    "ServerConfigError",
    "ServerLimits",
]

logger = logging.getLogger("lib_gab.server")

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_AGENT_ID = "gabp-server"
"""Lib.GAB's agent id when neither the caller nor GABS names one."""


class GabpServer(Serving):
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
        options: ProtocolOptions | None = None,
        bridge_path: str | os.PathLike[str] | None = None,
        inline_sync_tools: bool = False,
    ) -> None:
        if not app_name or not app_version:
            raise ServerConfigError("app_name and app_version must not be empty")
        if not agent_id:
            raise ServerConfigError("agent_id must not be empty")
        check_token(token, options or ProtocolOptions())
        check_address(transport, host, port, unix_path is not None)
        self.app = AppInfo(name=app_name, version=app_version)
        self.agent_id = agent_id
        self._token = token
        self.host = host
        self._port = port
        self.transport: Transport = transport
        self.unix_path = Path(unix_path) if unix_path is not None else None
        self.limits = limits or ServerLimits()
        self.options = options or ProtocolOptions()
        self.bridge_path = Path(bridge_path) if bridge_path is not None else None
        """``GABS_BRIDGE_PATH`` when built from a GABS launch: the launch's ``bridge.json``."""
        self.inline_sync_tools = inline_sync_tools
        """Run sync tools on the event loop rather than in worker threads, unless a tool says
        otherwise (:attr:`Tool.inline`). Only for integrations whose sync tools are all quick
        and never block: a tool running inline holds up every connection."""
        self.server_info = ServerInfo.model_validate(
            dict(server_info or {"name": RUNTIME_NAME, "version": RUNTIME_VERSION})
        )
        self.tools = ToolRegistry()
        self.resources = ResourceRegistry()
        self._channels: dict[str, Channel] = {}
        self._state_get: Callable[..., Any] | None = None
        self._state_set: Callable[..., Any] | None = None
        self._sessions: set[Session] = set()
        self._attention: AttentionManager | None = None
        self._relay = AttentionRelay(self.emit)
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
        """A TCP server configured strictly from a GABS launch.

        Port, token and agent id come from ``GABP_SERVER_PORT``, ``GABP_TOKEN`` and
        ``GABS_GAME_ID``; ``agent_id`` stands in for a missing ``GABS_GAME_ID`` and ``port``
        (0 for an OS-assigned one) overrides ``GABP_SERVER_PORT``. Missing or malformed values
        raise :class:`ServerConfigError` naming the variable. :meth:`gabs_aware` falls back
        instead, as Lib.GAB does.
        """
        source = dict(os.environ if env is None else env)
        if port is not None:
            source["GABP_SERVER_PORT"] = "1"  # stands in for the explicit port below
        try:
            handoff = read_gabs_environment(source, require_game_id=agent_id is None)
        except HandoffError as exc:
            raise ServerConfigError(str(exc)) from None
        options.setdefault("bridge_path", handoff.bridge_path)
        return cls(
            app_name=app_name,
            app_version=app_version,
            agent_id=handoff.game_id or agent_id or "",
            token=handoff.token,
            port=handoff.port if port is None else port,
            **options,
        )

    @classmethod
    def gabs_aware(
        cls,
        *,
        app_name: str,
        app_version: str,
        fallback_port: int = 0,
        agent_id: str | None = None,
        token: str | None = None,
        env: Mapping[str, str] | None = None,
        **options: Any,
    ) -> GabpServer:
        """A server that uses the GABS launch when there is one and stands alone otherwise.

        Lib.GAB's ``CreateGabsAwareServer``: under GABS (``GABP_SERVER_PORT`` and
        ``GABP_TOKEN`` set, see :func:`lib_gab.is_running_under_gabs`) port, token and (if set)
        ``GABS_GAME_ID`` come from there; otherwise the server listens on ``fallback_port``
        (0: any free port) with ``token`` or a fresh random one (read it from
        :attr:`token`), and the agent id is ``agent_id`` or ``gabp-server``. A launch that
        cannot be used (one ``GABP_`` variable set, the other not usable) and, unless the
        options accept it, a token shorter than 32 characters raise :class:`ServerConfigError`,
        where Lib.GAB would start on its own port and token, or take the short token.
        """
        launch = gabs_launch(env)
        if launch is None:
            return cls(
                app_name=app_name,
                app_version=app_version,
                agent_id=agent_id or DEFAULT_AGENT_ID,
                token=token or secrets.token_hex(32),
                port=fallback_port,
                **options,
            )
        options.setdefault("bridge_path", launch.bridge_path)
        return cls(
            app_name=app_name,
            app_version=app_version,
            agent_id=launch.game_id or agent_id or DEFAULT_AGENT_ID,
            token=launch.token,
            port=launch.port,
            **options,
        )

    @property
    def token(self) -> str:
        """The token a bridge must send (to show it when running standalone; never log it)."""
        return self._token

    # -- tools ----------------------------------------------------------------------------------

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
        inline: bool | None = None,
    ) -> Callable[[F], F]:
        """Register the decorated sync or async function as the tool ``name``.

        ``inline=True`` runs a sync function on the event loop instead of a worker thread
        (see :attr:`Tool.inline`); ``None`` leaves it to ``inline_sync_tools``.
        """

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
                inline=inline,
            )
            return function

        return register

    def add_tool(
        self, function: Callable[..., Any], *, name: str, description: str, **metadata: Any
    ) -> Tool:
        """Register ``function`` as a tool (the decorator's non-decorator form).

        Integrations that keep tool metadata elsewhere (e.g. in annotations) read it and call
        this; ``metadata`` takes title, tags, result_description, parameter_descriptions,
        deprecated, version, response_fields, requires_auth and inline (see
        :attr:`Tool.inline`). A second tool of the same name is refused.
        """
        return self.tools.add(build_tool(function, name=name, description=description, **metadata))

    def register_tool(
        self,
        name: str,
        handler: ToolHandler,
        info: ToolInfo | None = None,
        *,
        inline: bool | None = None,
    ) -> Tool:
        """Register a plain handler as the tool ``name``, described by ``info``.

        Lib.GAB's ``RegisterTool(name, handler, info)``: ``handler(arguments)`` takes the
        checked arguments as one mapping (with the defaults of parameters left out) and returns
        the result, or an awaitable of it. The schemas are built from ``info`` as Lib.GAB
        builds them. A tool of the same name is replaced. ``inline``: see :attr:`Tool.inline`.
        """
        return self.tools.put(build_handler_tool(name, handler, info, inline=inline))

    def register_tools_from(self, target: object) -> list[Tool]:
        """Register every tool marked with :func:`lib_gab.tool` on ``target``.

        An instance: its methods (Lib.GAB's ``RegisterToolsFromInstance``); a class: its static
        and class methods; a module: its functions. Tools of the same names are replaced.
        """
        if target is None:  # Lib.GAB: ArgumentNullException; nothing found would hide a slip
            raise TypeError("register_tools_from needs an instance, a class or a module, not None")
        found = marked_tools(target)
        for tool in found:
            self.tools.put(tool)
        return found

    def unregister_tool(self, name: str) -> bool:
        """Remove the tool ``name``; False when there was none."""
        return self.tools.remove(name)

    def has_tool(self, name: str) -> bool:
        return name in self.tools

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Run a tool in process, exactly as a bridge's tools/call would, and return its result.

        The call is an operation of its own (a fresh id), so attention it raises names it.
        Raises :class:`ToolNotFound`, :class:`InvalidArguments`, or what the tool raises.
        """
        tool = self.tools.get(name)
        if tool is None:
            raise ToolNotFound(name)
        outer = current_operation()
        operation = Operation(new_id(), name) if outer is None else outer
        return tool.encode_result(await self._run_tool(tool, arguments, operation))

    # -- channels, resources, state -------------------------------------------------------------

    def channel(self, name: str, description: str | None = None) -> None:
        """Offer the event channel ``name`` (bridges subscribe to it with events/subscribe)."""
        if not isinstance(name, str) or not name.strip():  # Lib.GAB: IsNullOrWhiteSpace
            raise ValueError(f"a channel name must not be empty or blank, got {name!r}")
        if name in ATTENTION_CHANNELS:
            raise ValueError(f"{name} is an attention channel: use enable_attention()")
        self._channels.setdefault(name, Channel(name, description))

    def unregister_channel(self, name: str) -> bool:
        """Withdraw a channel and every subscription to it (Lib.GAB's ``UnregisterChannel``);
        False when it was not offered."""
        if self._channels.pop(name, None) is None:
            return False
        for session in self._sessions:
            session.subscriptions.discard(name)
        return True

    def subscriber_count(self, channel: str) -> int:
        """How many bridges are subscribed to ``channel`` (Lib.GAB's ``GetSubscriberCount``):
        a game can skip building a payload nobody receives."""
        return sum(1 for s in self._sessions if s.established and channel in s.subscriptions)

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

    # -- attention ------------------------------------------------------------------------------

    def enable_attention(
        self,
        *,
        policy: AttentionPolicy | None = None,
        manager: AttentionManager | None = None,
        **manager_options: Any,
    ) -> AttentionManager:
        """Serve attention/current, attention/ack and the three lifecycle channels.

        Returns the :class:`AttentionManager` the integration reports urgent entries to (or
        publishes whole items with). Without this call those methods are answered -32601,
        exactly as a legacy server would.
        """
        if self._attention is not None:
            raise RuntimeError("attention is already enabled")
        if manager is None:
            manager = AttentionManager(
                policy=policy, operation_provider=_operation_for_attention, **manager_options
            )
        manager.set_listener(self._relay.on_attention)
        self._attention = manager
        self._served = None
        return manager

    @property
    def attention(self) -> AttentionManager | None:
        """The attention manager, once :meth:`enable_attention` was called."""
        return self._attention

    def _manager(self) -> AttentionManager:
        if self._attention is None:
            raise RuntimeError("attention is not enabled: call enable_attention() first")
        return self._attention

    async def publish_attention(self, item: Attention | Mapping[str, Any]) -> Attention:
        """Publish a whole item (Lib.GAB's ``PublishAsync``) and wait until it is sent.

        See :meth:`AttentionManager.publish`; raises ``RuntimeError`` without attention.
        """
        published = self._manager().publish(item)
        await self._relay.flush()
        return published

    async def clear_attention(
        self, item: Attention | Mapping[str, Any] | None = None
    ) -> Attention | None:
        """Clear the open item (Lib.GAB's ``ClearAsync``) and wait until that is sent."""
        cleared = self._manager().clear(item)
        await self._relay.flush()
        return cleared

    async def acknowledge_attention(self, attention_id: str) -> AckOutcome:
        """Acknowledge as a bridge would (Lib.GAB's ``AcknowledgeAsync``), in process."""
        if not attention_id or not attention_id.strip():
            raise ValueError("acknowledging needs a non-empty attention id")
        outcome = self._manager().ack(attention_id)
        await self._relay.flush()
        return outcome

    # -- events ---------------------------------------------------------------------------------

    async def emit(self, channel: str, payload: Any) -> int:
        """Send an event to every bridge subscribed to ``channel``; returns how many got it
        (:class:`~gabp.MessageTooLarge`, sent to none, past ``max_message_bytes``)."""
        if channel not in self._channels and not (
            self._attention is not None and channel in ATTENTION_CHANNELS
        ):
            raise ValueError(f"unknown event channel {channel!r}: register it with channel()")
        targets = [s for s in self._sessions if channel in s.subscriptions and s.established]
        if targets:  # written once for every target, time values as Lib.GAB writes them
            payload = EncodedJson(wire_json(ANY_VALUE, payload, True))
        delivered = 0
        too_large: list[MessageTooLarge] = []

        async def send(session: Session) -> None:
            nonlocal delivered
            try:
                await session.connection.emit(channel, payload)
                delivered += 1
            except ConnectionClosed:
                pass
            except MessageTooLarge as exc:  # raised once below, not once per bridge
                too_large.append(exc)

        if len(targets) == 1:
            await send(targets[0])
        elif targets:
            async with anyio.create_task_group() as tg:
                for session in targets:
                    tg.start_soon(send, session)
        if too_large:
            raise too_large[0]
        return delivered


def _operation_for_attention() -> tuple[str, str] | None:
    operation = current_operation()
    return (operation.id, operation.method) if operation is not None else None
