"""Tool- and resource-list change notifications for both protocol eras (:class:`ToolListNotifier`).

A game connecting or going away changes both the game tools and the resources
(``gab://<gameId>/state``): each change is announced once, as one
``notifications/tools/list_changed`` and one ``notifications/resources/list_changed``.

Only the SDK's public API is used: the ``subscriptions/listen`` bus
(:class:`~mcp.server.subscriptions.InMemorySubscriptionBus` served by a
:class:`~mcp.server.subscriptions.ListenHandler`) for 2026-07-28 clients, and
``ServerSession.send_tool_list_changed()`` (:class:`mcp.server.session.ServerSession`), which
writes on the connection's standalone channel, for handshake-era clients.

A handshake-era connection is remembered from its messages (the server middleware
:meth:`ToolListNotifier.middleware` sees each one): its ``ServerSession`` is kept under the
identity of the connection's ``client_params`` (the ``initialize`` parameters, one object per
connection). The SDK offers no public signal when a connection ends and drops notifications to
a closed one without an error, so the notifier keeps the :attr:`~ToolListNotifier.max_legacy`
connections that were active most recently and forgets older ones.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any, Final

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["ToolListNotifier"]

logger = logging.getLogger("gabs.mcp.notify")


class ToolListNotifier:
    """Tells connected MCP clients that the tool list changed.

    Call it (``await notifier()``): it publishes :class:`ToolsListChanged` on the
    ``subscriptions/listen`` bus (2026-07-28 clients) and sends
    ``notifications/tools/list_changed`` once to every handshake-era connection it has seen
    (registered by :meth:`middleware` from their first message after ``initialize``). Pass it
    as ``GameManager(on_tools_changed=...)``.
    """

    SEND_TIMEOUT: Final = 2.0
    MAX_LEGACY: Final = 256

    def __init__(
        self, bus: InMemorySubscriptionBus | None = None, *, max_legacy: int = MAX_LEGACY
    ) -> None:
        if max_legacy < 1:
            raise ValueError("max_legacy must be at least 1")
        self.bus = bus or InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus)
        self.max_legacy = max_legacy
        # id(client_params) -> (client_params, a session of that connection); the params are
        # held so that their id stays unique while the entry lives.
        self._legacy: OrderedDict[int, tuple[object, ServerSession]] = OrderedDict()
        self.sent = 0

    @property
    def legacy_connections(self) -> int:
        """How many handshake-era connections are notified."""
        return len(self._legacy)

    def _register(self, ctx: ServerRequestContext[Any, Any]) -> None:
        if ctx.method == "initialize" or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # modern connections: change events ride subscriptions/listen
        params = ctx.session.client_params
        if params is None:
            return  # no handshake on this connection: nothing to notify
        key = id(params)
        if key in self._legacy:
            self._legacy.move_to_end(key)
            return
        self._legacy[key] = (params, ctx.session)
        while len(self._legacy) > self.max_legacy:
            self._legacy.popitem(last=False)

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Server middleware: remembers the handshake-era connection a message came on."""
        self._register(ctx)
        return await call_next(ctx)

    async def __call__(self, *, tools: bool = True, resources: bool = True) -> None:
        """Send ``tools/list_changed`` and/or ``resources/list_changed`` (each once)."""
        if not (tools or resources):
            return
        self.sent += 1
        if tools:
            await self.bus.publish(ToolsListChanged())
        if resources:
            await self.bus.publish(ResourcesListChanged())
        for _, session in list(self._legacy.values()):
            with anyio.move_on_after(self.SEND_TIMEOUT) as scope:
                if tools:
                    await session.send_tool_list_changed()
                if resources:
                    await session.send_resource_list_changed()
            if scope.cancelled_caught:
                logger.debug("a list_changed notification timed out")
