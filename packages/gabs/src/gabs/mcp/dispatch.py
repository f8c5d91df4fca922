"""Routing an MCP ``tools/list`` or ``tools/call`` to the right handler.

:class:`ToolDispatcher` lists the 13 core tools and the mirrored game tools, gives the SDK each
tool's input schema, and for ``tools/call`` checks a core tool's arguments
(:mod:`gabs.mcp.arguments`), runs its handler (:mod:`gabs.mcp.lifecycle`,
:mod:`gabs.mcp.discovery`, :mod:`gabs.mcp.calls`, :mod:`gabs.mcp.attention`) and is the one
place where a :class:`~gabs.games.GameError` becomes a refusal and any other exception an
``internal_error`` result: a bug becomes an answer, never a hang.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from gabs.games import GameError, GameManager
from gabs.mcp.arguments import invalid_arguments, schema_problems
from gabs.mcp.attention import AttentionTools
from gabs.mcp.calls import CallTools
from gabs.mcp.discovery import DiscoveryTools
from gabs.mcp.lifecycle import LifecycleTools, refuse_unknown
from gabs.mcp.rendering import refused, text_result
from gabs.mcp.schemas import BRIDGE_TOOLS, ToolHandler

__all__ = ["ToolDispatcher"]

logger = logging.getLogger("gabs.mcp")


class ToolDispatcher:
    """The ``tools/list`` and ``tools/call`` handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.calls = CallTools(manager)
        self.handlers: dict[str, ToolHandler] = {
            **LifecycleTools(manager).handlers,
            **DiscoveryTools(manager).handlers,
            **self.calls.handlers,
            **AttentionTools(manager).handlers,
        }
        assert set(self.handlers) == set(BRIDGE_TOOLS)

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [tool.tool for tool in BRIDGE_TOOLS.values()]
        tools += [tool for _, _, tool in self.calls.exposed().values()]
        return types.ListToolsResult(tools=tools)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        if name in BRIDGE_TOOLS:
            return BRIDGE_TOOLS[name].input_schema
        exposed = self.calls.exposed().get(name)
        return exposed[2].input_schema if exposed else None

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name = params.name
        arguments: Any = params.arguments if params.arguments is not None else {}
        bridge_tool = BRIDGE_TOOLS.get(name)
        call = name == "games_call_tool"
        try:
            if bridge_tool is not None:
                unknown = refuse_unknown(name, arguments)
                if unknown is not None:
                    return unknown
                problems = schema_problems(bridge_tool, arguments)
                if problems:
                    return invalid_arguments(name, problems, call=call)
                return await self.handlers[name](ctx, arguments)
            exposed = self.calls.exposed().get(name)
            if exposed is not None:
                game_id, tool, _ = exposed
                call = True
                return await self.calls.call(tool, game_id, arguments, None)
            known = sorted(BRIDGE_TOOLS)
            return text_result(
                f"Unknown tool {name!r}. The bridge's tools: {', '.join(known)}; game tools are "
                "called with games_call_tool.",
                {"status": "refused", "code": "unknown_tool", "tool": name, "candidates": known},
                error=True,
            )
        except GameError as exc:
            return refused(exc, call=call)
        except Exception as exc:  # the boundary: a bug must become an answer, not a hang
            logger.exception("%s failed", name)
            data: dict[str, Any] = {
                "status": "internal_error",
                "code": "internal_error",
                "message": f"{type(exc).__name__}: {exc}",
            }
            if call:
                data = {"executed": "unknown", **data}
            return text_result(f"The bridge failed on {name}: {data['message']}", data, error=True)
