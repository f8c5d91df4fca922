"""The discovery tools: games_tool_names, games_tool_detail and games_tools.

:class:`DiscoveryTools` binds their handlers to one :class:`~gabs.games.GameManager`; they read
the tool lists the game sessions hold and never reach a game.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from gabs.games import GameManager
from gabs.mcp.rendering import compact, text_result
from gabs.mcp.schemas import ToolHandler

__all__ = ["DiscoveryTools"]


class DiscoveryTools:
    """The discovery tools' handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.handlers: dict[str, ToolHandler] = {
            "games_tool_names": self.games_tool_names,
            "games_tool_detail": self.games_tool_detail,
            "games_tools": self.games_tools,
        }

    async def games_tool_names(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.tool_names(
            args.get("gameId"),
            query=args.get("query"),
            prefix=args.get("prefix"),
            offset=int(args.get("offset", 0)),
            limit=int(args.get("limit", 50)),
            brief=args.get("brief", True),
        )
        several = len({t["gameId"] for t in data["tools"]}) > 1
        lines = []
        for entry in data["tools"]:
            line = f"{entry['gameId']}:{entry['name']}" if several else entry["name"]
            if entry.get("description"):
                line += f" - {entry['description']}"
            if entry.get("tags"):
                line += f" [{', '.join(entry['tags'])}]"
            lines.append(line)
        shown = f"{len(data['tools'])} of {data['total']} tools"
        if data.get("nextOffset") is not None:
            shown += f" (more: offset {data['nextOffset']})"
        return text_result("\n".join([shown, *lines]), data)

    async def games_tool_detail(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.tool_detail(args["tool"], args.get("gameId"))
        return text_result(compact(data), data)

    async def games_tools(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        tools = self.manager.tools(args.get("gameId"))
        return text_result(compact(tools, 20000), {"tools": tools})
