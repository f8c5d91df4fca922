"""Building the bridge's MCP server from a game manager (:func:`build_server`)."""

from __future__ import annotations

import os
from typing import Any, Final

from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions

from gabs._version import __version__
from gabs.bridge_options import BridgeOptions
from gabs.games import GameManager
from gabs.mcp.dispatch import ToolDispatcher
from gabs.mcp.notify import ToolListNotifier
from gabs.mcp.resources import GameResources

__all__ = [
    "INSTRUCTIONS",
    "SERVER_NAME",
    "BridgeServer",
    "build_server",
    "initialization_options",
]

SERVER_NAME: Final = "gabs"
INSTRUCTIONS: Final = (
    "GABS bridges you to running games. Find games with games_list, start one with "
    "games_start, discover its tools with games_tool_names / games_tool_detail and call them "
    "with games_call_tool. A game may open an attention item (an error or a state change that "
    "matters): it is attached to the result of the call that caused it, and while a blocking "
    "item is open further game calls are refused (executed: false) until you inspect it "
    "(games_get_attention) and acknowledge it (games_ack_attention with its attentionId). A "
    'call reported executed: "unknown" may have run: check the game state before repeating it.'
)


_NOTIFICATIONS: Final = NotificationOptions(tools_changed=True, resources_changed=True)


def initialization_options(server: Server[Any]) -> InitializationOptions:
    """The initialize options of a server built here (``tools`` and ``resources``
    ``listChanged`` on)."""
    return server.create_initialization_options(_NOTIFICATIONS)


class BridgeServer(Server[Any]):
    """The SDK's low-level server for one game manager, with ``listChanged`` on for tools and
    resources.

    :meth:`create_initialization_options` defaults to ``NotificationOptions(tools_changed=True)``:
    ``Server.run()`` (stdio, in memory) takes its options from the caller
    (:func:`initialization_options`), while the Streamable HTTP session manager asks the server
    for its defaults, so both advertise the tool-list notifications the bridge sends.
    """

    def __init__(
        self,
        manager: GameManager,
        notifier: ToolListNotifier,
        options: BridgeOptions | None = None,
    ) -> None:
        self.dispatcher = ToolDispatcher(manager, options)
        self.resources = GameResources(manager)
        self.notifier = notifier
        super().__init__(
            SERVER_NAME,
            version=__version__,
            title="GABS game bridge",
            description="One MCP server for many games, talking GABP to each.",
            instructions=INSTRUCTIONS,
            get_tool_input_schema=self.dispatcher.input_schema,
            on_list_tools=self.dispatcher.list_tools,
            on_call_tool=self.dispatcher.call_tool,
            on_list_resources=self.resources.list_resources,
            on_read_resource=self.resources.read_resource,
            on_subscriptions_listen=notifier.listen_handler,
        )
        if os.environ.get("GABS_OTEL") != "1":
            # The SDK's default OpenTelemetry middleware costs ~10% per call and is a no-op
            # without an exporter; GABS_OTEL=1 keeps it.
            self.middleware[:] = [
                m for m in self.middleware if type(m).__name__ != "OpenTelemetryMiddleware"
            ]
        self.middleware.append(notifier.middleware)

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or _NOTIFICATIONS,
            experimental_capabilities,
            extensions,
        )


def build_server(
    manager: GameManager,
    *,
    notifier: ToolListNotifier | None = None,
    options: BridgeOptions | None = None,
) -> BridgeServer:
    """The MCP server for ``manager``'s games.

    ``options`` are the bridge-wide settings of the config (default: read from
    ``manager.config``).

    Pass the same ``notifier`` the manager was built with (``on_tools_changed=notifier``); if
    none is given, one is made and, when the manager has no ``on_tools_changed`` callback yet,
    attached to it. The notifier is reachable as ``server.notifier``.
    """
    if notifier is None:
        notifier = ToolListNotifier()
        manager.set_tools_changed_callback(notifier)
    if options is None:
        options = BridgeOptions.from_config(manager.config)
    return BridgeServer(manager, notifier, options)
