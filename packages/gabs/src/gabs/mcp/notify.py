"""Tool-list change notifications for both protocol eras (:class:`ToolListNotifier`)."""

from __future__ import annotations

from typing import Any, Final

import anyio
from mcp.server.connection import Connection as McpConnection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["ToolListNotifier"]


class ToolListNotifier:
    """Tells connected MCP clients that the tool list changed.

    Call it (``await notifier()``): it publishes :class:`ToolsListChanged` on the
    ``subscriptions/listen`` bus (2026-07-28 clients) and sends
    ``notifications/tools/list_changed`` on the standalone channel of every handshake-era
    connection it has seen (registered by :meth:`middleware` on their first message). Pass it
    as ``GameManager(on_tools_changed=...)``.
    """

    SEND_TIMEOUT: Final = 2.0

    def __init__(self, bus: InMemorySubscriptionBus | None = None) -> None:
        self.bus = bus or InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus)
        self._legacy: dict[int, McpConnection] = {}
        self.sent = 0

    @property
    def legacy_connections(self) -> int:
        return len(self._legacy)

    def _register(self, ctx: ServerRequestContext[Any, Any]) -> None:
        connection = getattr(ctx.session, "_connection", None)
        if not isinstance(connection, McpConnection) or "gabs.notifier" in connection.state:
            return
        connection.state["gabs.notifier"] = True
        if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # per-request connections; change events ride subscriptions/listen
        if not connection.has_standalone_channel:
            return
        key = id(connection)
        self._legacy[key] = connection
        connection.exit_stack.callback(self._legacy.pop, key, None)

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        self._register(ctx)
        return await call_next(ctx)

    async def __call__(self) -> None:
        self.sent += 1
        await self.bus.publish(ToolsListChanged())
        for connection in list(self._legacy.values()):
            if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
                continue
            if not connection.initialized.is_set():
                continue
            with anyio.move_on_after(self.SEND_TIMEOUT):
                await connection.send_tool_list_changed()
