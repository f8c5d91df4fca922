"""Routing an MCP ``tools/list`` or ``tools/call`` to the right handler.

:class:`ToolDispatcher` lists the 13 core tools (under the names ``toolNormalization`` asks
for) and the mirrored game tools of games with ``exposeGameTools``, gives the SDK each tool's
input schema, and for ``tools/call``:

* a core tool, by its strict-safe name (``games_list``) or its dotted one (``games.list``):
  arguments it does not declare are refused the Go bridge's way (``unknown_argument``), the
  rest are read as Go reads them and checked against the schema
  (:mod:`gabs.mcp.arguments`), then its handler runs (:mod:`gabs.mcp.lifecycle`,
  :mod:`gabs.mcp.discovery`, :mod:`gabs.mcp.calls`, :mod:`gabs.mcp.attention`);
* any other name is a game tool by any of its names (:mod:`gabs.mcp.tool_names`: exposed
  name, ``gameId.dotted``, ``gameId/gabp``, the bare GABP name when one connected game has it),
  called through the gate like ``games_call_tool``, listed or not.

It is the one place where a :class:`~gabs.games.GameError` becomes a refusal
(:mod:`gabs.mcp.refusals`) and any other exception an ``internal_error`` result: a bug becomes
an answer, never a hang.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from gabs.bridge_options import BridgeOptions
from gabs.games import GameError, GameManager
from gabs.mcp.arguments import (
    go_lenient,
    invalid_arguments,
    non_finite_problems,
    schema_problems,
    unknown_argument_refusal,
)
from gabs.mcp.attention import AttentionTools
from gabs.mcp.calls import CallTools
from gabs.mcp.discovery import DiscoveryTools
from gabs.mcp.lifecycle import LifecycleTools
from gabs.mcp.refusals import refusal_result
from gabs.mcp.rendering import text_result
from gabs.mcp.schemas import BRIDGE_TOOLS, ToolHandler
from gabs.mcp.tool_names import CORE_ALIASES, core_dotted_name

__all__ = ["ToolDispatcher"]

logger = logging.getLogger("gabs.mcp")


_LOOKED_UP_AS_GIVEN = frozenset(
    {"games_status", "games_show", "games_start", "games_stop", "games_kill"}
)
#: Tools whose non-blank ``gameId`` is looked up untrimmed, as the Go bridge does (``" x"`` is
#: not ``x``: ``game_not_found``).
_ID_UNTRIMMED = _LOOKED_UP_AS_GIVEN | {"games_connect"}
#: Tools whose ``gameId`` may be a game's launch target, as in Go (the lifecycle tools resolve
#: it themselves, with a runtime claim's id first).
_BY_TARGET = frozenset(
    {
        "games_tool_names",
        "games_tool_detail",
        "games_tools",
        "games_call_tool",
        "games_get_attention",
        "games_ack_attention",
    }
)


def _as_given(name: str, raw: dict[str, Any], lenient: dict[str, Any]) -> dict[str, Any]:
    """``lenient`` with the strings the Go bridge takes untrimmed put back as they came: a
    non-blank ``gameId`` of the lifecycle tools, and a non-empty ``profile`` of ``games_start``
    (``" low"`` is no profile ``low``; only ``""`` means the default)."""
    game_id, profile = raw.get("gameId"), raw.get("profile")
    if name in _ID_UNTRIMMED and isinstance(game_id, str) and game_id.strip():
        lenient["gameId"] = game_id
    if name == "games_start" and isinstance(profile, str) and profile:
        lenient["profile"] = profile
    return lenient


class ToolDispatcher:
    """The ``tools/list`` and ``tools/call`` handlers, bound to one manager."""

    def __init__(self, manager: GameManager, options: BridgeOptions | None = None) -> None:
        self.manager = manager
        self.options = options or BridgeOptions()
        self.calls = CallTools(manager, strip_output_schema=self.options.strip_output_schema)
        self.handlers: dict[str, ToolHandler] = {
            **LifecycleTools(manager).handlers,
            **DiscoveryTools(manager, self.calls).handlers,
            **self.calls.handlers,
            **AttentionTools(manager).handlers,
        }
        assert set(self.handlers) == set(BRIDGE_TOOLS)
        self._core = [self._listed(tool.tool) for tool in BRIDGE_TOOLS.values()]
        self._core_names = {
            tool.name: name for tool, name in zip(self._core, BRIDGE_TOOLS, strict=False)
        }

    def _listed(self, tool: types.Tool) -> types.Tool:
        """A core tool as ``tools/list`` shows it (``toolNormalization``, ``stripOutputSchema``)."""
        options = self.options
        dotted = core_dotted_name(tool.name)
        update: dict[str, Any] = {}
        if options.strip_output_schema:
            update["output_schema"] = None
        if options.normalize_tool_names:
            update["meta"] = {"originalName": dotted}
            if options.preserve_original_name:
                update["description"] = f"{tool.description} (Original: {dotted})"
        else:
            update["name"] = dotted
        return tool.model_copy(update=update) if update else tool

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """The core tools and the exposed game tools, by name (as the Go bridge lists them)."""
        tools = list(self._core)
        tools += [tool for _, _, tool in self.calls.exposed().values()]
        tools.sort(key=lambda tool: tool.name.encode())
        return types.ListToolsResult(tools=tools)

    def _core_name(self, name: str) -> str | None:
        if name in BRIDGE_TOOLS:
            return name
        return CORE_ALIASES.get(name) or self._core_names.get(name)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        core = self._core_name(name)
        if core is not None:
            return BRIDGE_TOOLS[core].input_schema
        exposed = self.calls.exposed().get(name)
        return exposed[2].input_schema if exposed else None

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await self.call(ctx, params.name, params.arguments)

    def takes_no_context(self, name: str) -> bool:
        """Whether a ``tools/call`` of ``name`` never uses its request context: a game tool
        or ``games_call_tool`` (no progress, no requests to the client)."""
        return self._core_name(name) in (None, "games_call_tool")

    async def call(self, ctx: Any, tool: str, arguments: Any) -> types.CallToolResult:
        """Run the ``tools/call`` of ``tool`` with ``arguments`` (see the module doc).

        ``ctx`` is the SDK's request context; it may be None for a tool that
        :meth:`takes_no_context`.
        """
        if arguments is None:
            arguments = {}
        name = self._core_name(tool)
        call = name in (None, "games_call_tool")
        game_id = arguments.get("gameId") if isinstance(arguments, dict) else None
        try:
            if name is not None:
                bridge_tool = BRIDGE_TOOLS[name]
                refusal = unknown_argument_refusal(bridge_tool, arguments)
                if refusal is not None:
                    return refusal
                if name in _LOOKED_UP_AS_GIVEN and isinstance(game_id, str) and not game_id.strip():
                    # Go's status, show, start, stop and kill look a blank gameId up as it is
                    # (game_not_found); everywhere else a blank string counts as not given.
                    return await self.handlers[name](ctx, {"gameId": game_id})
                if isinstance(arguments, dict):
                    arguments = _as_given(name, arguments, go_lenient(bridge_tool, arguments))
                problems = non_finite_problems(arguments) or schema_problems(bridge_tool, arguments)
                if problems:
                    return invalid_arguments(name, problems, call=call, game_id=game_id)
                if name in _BY_TARGET and isinstance(arguments.get("gameId"), str):
                    game_id = self.manager.game_by_target(arguments["gameId"])
                    arguments = {**arguments, "gameId": game_id}
                return await self.handlers[name](ctx, arguments)
            return await self._game_tool(tool, arguments)
        except GameError as exc:
            return refusal_result(
                exc, game_id=game_id if isinstance(game_id, str) else None, call=call
            )
        except Exception as exc:  # the boundary: a bug must become an answer, not a hang
            logger.exception("%s failed", tool)
            data: dict[str, Any] = {
                "status": "internal_error",
                "code": "internal_error",
                "message": f"{type(exc).__name__}: {exc}",
            }
            if call:
                data = {"executed": "unknown", **data}
            return text_result(f"The bridge failed on {tool}: {data['message']}", data, error=True)

    async def _game_tool(self, name: str, arguments: Any) -> types.CallToolResult:
        """A game tool called by one of its names, straight from ``tools/call``."""
        if not isinstance(arguments, dict):
            arguments = {}
        exposed = self.calls.exposed().get(name)
        if exposed is not None:
            return await self.calls.call(exposed[1], exposed[0], arguments, None)
        try:
            return await self.calls.call(name, None, arguments, None)
        except GameError as exc:
            if exc.code not in ("tool_not_found", "no_game"):
                raise
        known = sorted(BRIDGE_TOOLS)
        return text_result(
            f"Unknown tool {name!r}. The bridge's tools: {', '.join(known)}; game tools are "
            "called with games_call_tool (games_tool_names lists them).",
            {"status": "refused", "code": "unknown_tool", "tool": name, "candidates": known},
            error=True,
        )
