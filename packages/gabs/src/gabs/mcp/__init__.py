"""The bridge's MCP surface: 13 tools by the Go bridge's names, served by a low-level SDK server.

:func:`build_server` turns a :class:`~gabs.games.GameManager` into a low-level
:class:`mcp.server.lowlevel.Server` (mcp 2.x: handlers are constructor arguments). What it adds
on top of the manager:

* **Strict tools.** Each bridge tool has an input schema with ``additionalProperties: false``
  and its required fields; arguments are checked here (Draft 2020-12, formats on) and refused
  with an ``isError`` result naming the field and the rule before anything runs.
* **Results the model can read and a program can parse.** Every result has compact text and
  ``structuredContent``. ``isError`` is set for refused lookups (``status: "refused"``), invalid
  arguments (``"invalid_arguments"``), calls the gate blocked (``"blocked_by_attention"``,
  ``executed: false``), in-band game errors (``"error"``) and calls lost in transit
  (``"unknown"``, ``executed: "unknown"``).
* **Mirrored tools** (per game ``exposeGameTools``) are listed under
  :func:`~gabs.game_tools.mcp_tool_name` and called through the gate like ``games_call_tool``.
* **Tool-list changes** reach clients of both protocol eras (:class:`ToolListNotifier`).

Concurrency is the SDK's: its dispatcher runs every request in a task of its own (only
``initialize`` is inline), so a slow game call never holds up ``games_status`` or the attention
tools, and a client's ``notifications/cancelled`` cancels that task's scope, which cancels the
bridge's wait on the game. ``games_start`` reports progress when the client sends a progress
token. Logging goes to stderr only; stdout belongs to the protocol.

Modules, one concern each:

* :mod:`gabs.mcp.schemas`: the core tools' names, descriptions, input and output schemas.
* :mod:`gabs.mcp.arguments`: checking a core tool's arguments against its schema.
* :mod:`gabs.mcp.lifecycle`: games_list, games_show, games_start, games_stop, games_kill,
  games_status, games_connect.
* :mod:`gabs.mcp.discovery`: games_tool_names, games_tool_detail, games_tools.
* :mod:`gabs.mcp.calls`: games_call_tool and the mirrored game tools.
* :mod:`gabs.mcp.attention`: games_get_attention, games_ack_attention.
* :mod:`gabs.mcp.rendering`: text and structured results, status lines.
* :mod:`gabs.mcp.envelope`: the Go bridge's result envelope (``code``, ``nextActions``, ...)
  and its ``unknown_argument`` refusal.
* :mod:`gabs.mcp.notify`: tool-list change notifications.
* :mod:`gabs.mcp.dispatch`: routing ``tools/list`` and ``tools/call`` to the handlers.
* :mod:`gabs.mcp.server`: building the SDK server.

The transports that serve it (stdio, Streamable HTTP) live in :mod:`gabs.transports`, the
``gabs serve`` command in :mod:`gabs.serve_cli`.
"""

from gabs.mcp.notify import ToolListNotifier
from gabs.mcp.schemas import BRIDGE_TOOLS, BridgeTool
from gabs.mcp.server import BridgeServer, build_server, initialization_options

__all__ = [
    "BRIDGE_TOOLS",
    "BridgeServer",
    "BridgeTool",
    "ToolListNotifier",
    "build_server",
    "initialization_options",
]
