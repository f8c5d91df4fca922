"""The discovery tools as the Go bridge has them: games_tool_names, games_tool_detail, games_tools.

They read the tool lists the game sessions hold (never a game) and name each tool as the Go
bridge does (:mod:`gabs.mcp.tool_names`): ``name`` is the exposed MCP name
(``rimworld_rimworld_get_game_info``), ``localName`` and ``gabpName`` the game's own name,
``originalName`` the dotted ``<gameId>.<name>``.

* ``games_tool_names {gameId?, query?, prefix?, limit?, cursor?, brief?}``: a page of names
  (default 50) with ``availableTotal``, ``total`` (after the filters), ``returned``,
  ``nextCursor`` (``""`` on the last page); ``brief`` adds a one-line ``summary`` per tool.
* ``games_tools {gameId?, query?, prefix?, limit?, cursor?}``: the same page with schemas and
  descriptions (no limit by default).
* ``games_tool_detail {tool, gameId?}``: one tool in full, found by any of its names.

``query`` matches as in the Go bridge: with a separator in it (``. / _ -`` or a space) it is a
substring of the name, else a prefix of one of the name's words; ``prefix`` is a prefix of the
exposed, original or local name. Both ignore case. ``cursor`` is the offset a previous page
returned as ``nextCursor``.
"""

from __future__ import annotations

import json
from typing import Any, Final

import mcp_types as types

from gabs.games import GameError, GameManager
from gabs.go_format import go_json
from gabs.mcp.calls import CallTools
from gabs.mcp.envelope import NextAction
from gabs.mcp.rendering import text_result
from gabs.mcp.schemas import ToolHandler
from gabs.mcp.tool_items import brief_description, described, matches_query, query_filter, tool_item
from gabs.mcp.tool_names import NamedTool

__all__ = ["DiscoveryTools", "brief_description", "matches_query"]

DEFAULT_NAMES_LIMIT: Final = 50


def schema_type(prop: dict[str, Any]) -> tuple[str, bool]:
    """A property's type as the Go bridge names it (a list joined with `` | ``, ``any`` when
    none) and whether it may be null (``null`` in the list, or Lib.GAB's ``nullable: true``)."""
    declared = prop.get("type")
    nullable = prop.get("nullable") is True
    if isinstance(declared, str):
        return declared, nullable
    if isinstance(declared, list):
        names = [name for name in declared if isinstance(name, str)]
        nullable = nullable or "null" in names
        names = [name for name in names if name != "null"]
        if names:
            return " | ".join(names), nullable
    return "any", nullable


def _property_lines(schema: Any, heading: str, *, output: bool) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict) or not properties:
        return []
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    lines = [heading]
    for name in sorted(properties):
        prop = properties[name] if isinstance(properties[name], dict) else {}
        kind, nullable = schema_type(prop)
        tags = [kind]
        if nullable if output else name not in required:
            tags.append("optional")
        if not output and "default" in prop:
            tags.append(f"default: {go_json(prop['default'])}")
        description = prop.get("description")
        text = f": {description}" if isinstance(description, str) and description else ""
        lines.append(f"    - `{name}` ({', '.join(tags)}){text}")
    return lines


def parameter_lines(schema: dict[str, Any]) -> list[str]:
    """``  Parameters:`` and one ``    - `name` (type[, optional][, default: v])[: description]``
    line per input property, by name (the Go bridge's layout)."""
    return _property_lines(schema, "  Parameters:", output=False)


def returns_lines(schema: Any) -> list[str]:
    """``  Returns:`` and one ``    - `name` (type[, optional])[: description]`` line per output
    property, by name; ``optional`` marks a member that may be null (the Go bridge's layout)."""
    return _property_lines(schema, "  Returns:", output=True)


class DiscoveryTools:
    """The discovery tools' handlers, bound to one manager."""

    def __init__(self, manager: GameManager, calls: CallTools) -> None:
        self.manager = manager
        self.calls = calls
        self.handlers: dict[str, ToolHandler] = {
            "games_tool_names": self.games_tool_names,
            "games_tool_detail": self.games_tool_detail,
            "games_tools": self.games_tools,
        }

    def _entries(self, game_id: str | None) -> list[NamedTool]:
        index = self.calls.index()
        if game_id is None:
            return list(index.entries)
        self.manager.runtime(game_id)  # game_not_found for an unknown id
        return index.of_game(game_id)

    def _page(self, args: dict[str, Any], default_limit: int | None) -> dict[str, Any]:
        game_id = args.get("gameId")
        entries = self._entries(game_id)
        available = len(entries)
        query = str(args.get("query", "")).lower()
        prefix = str(args.get("prefix", "")).lower()
        if query:
            entries = query_filter(entries, query)
        if prefix:
            entries = [
                e for e in entries if any(name.startswith(prefix) for name, _ in e.searchable)
            ]
        total = len(entries)
        cursor_text = args.get("cursor", "")
        try:
            cursor = int(cursor_text) if cursor_text else 0
        except ValueError:
            raise GameError(
                "invalid_cursor",
                f"cursor {cursor_text!r} is not one this tool returned (an offset)",
            ) from None
        if cursor < 0 or cursor > total:
            raise GameError(
                "invalid_cursor", f"cursor {cursor} is out of range for {total} matching tools"
            )
        limit = args.get("limit", default_limit)
        end = total if limit is None else min(cursor + limit, total)
        page = entries[cursor:end]
        data: dict[str, Any] = {
            "availableTotal": available,
            "total": total,
            "returned": len(page),
            "nextCursor": str(end) if end < total else "",
            "page": page,
        }
        if game_id:
            data["gameId"] = game_id
        if query:
            data["query"] = args["query"]
        if prefix:
            data["prefix"] = args["prefix"]
        return data

    def _empty_text(self, data: dict[str, Any], noun: str) -> str:
        """An empty page's text, laid out as Go's: a first line that says what is empty, then
        the hint; every line ends with a newline."""
        game_id = data.get("gameId")
        where = f" for '{game_id}'" if game_id else ""
        filters = " and ".join(
            f"{key} {json.dumps(data[key], ensure_ascii=False)}"
            for key in ("query", "prefix")
            if data.get(key)
        )
        if data["availableTotal"] and filters:
            header = f"No matching game-specific {noun}{where}."
            hint = (
                f"{data['availableTotal']} are connected, none matched {filters}. Use "
                "games_tool_names without filters to browse."
            )
        elif data["total"]:
            header = f"No more matching {noun} for cursor {data['total']}."
            hint = "Start again without a cursor."
        elif game_id:
            header = f"No game-specific {noun} available{where}."
            hint = "Start it with games_start (or attach with games_connect) to reach its tools."
        else:
            header = f"No game-specific {noun} available."
            hint = "Start a game with games_start first."
        return f"{header}\n{hint}\n"

    async def _unsynced(self, game_id: str | None) -> types.CallToolResult | None:
        """Ask a connected game whose tool list failed or had no tools for it again, as the Go
        bridge does before discovery: with ``gameId``, a list still refused is the answer (Go's
        line and keys); without, such a game just lists nothing."""
        if game_id is None:
            for runtime in self.manager.connected_games():
                await self.manager.sync_tools(runtime)
            return None
        failed = await self.manager.sync_tools(self.manager.runtime(game_id))
        if failed is None:
            return None
        return text_result(
            f"Game '{game_id}' is connected, but syncing GABP tools failed: {failed}",
            {"gameId": game_id, "error": failed},
            error=True,
        )

    def _empty_page(self, data: dict[str, Any], noun: str) -> types.CallToolResult:
        """An empty page: its text names the filters, its structured content is Go's (the
        counts, ``gameId``, ``nextCursor`` and ``tools``, no echo of the filters or ``brief``)."""
        text = self._empty_text(data, noun)
        for key in ("query", "prefix"):
            data.pop(key, None)
        return text_result(text, data)

    async def games_tool_names(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        if (unsynced := await self._unsynced(args.get("gameId"))) is not None:
            return unsynced
        data = self._page(args, DEFAULT_NAMES_LIMIT)
        page: list[NamedTool] = data.pop("page")
        brief = bool(args.get("brief", False))
        data["tools"] = [tool_item(entry, detail=False, brief=brief) for entry in page]
        if not page:
            return self._empty_page(data, "tool names")
        if brief:
            data["brief"] = True
        scope = f"game '{data['gameId']}'" if data.get("gameId") else "all games"
        lines = [f"Tool names for {scope} ({len(page)} shown of {data['total']} matching):"]
        lines += [entry.exposed for entry in page]
        lines.append(
            "\nUse games_tool_detail with one of these names to inspect parameters and output."
        )
        if data["nextCursor"]:
            lines.append(f"Next cursor: {data['nextCursor']}")
        first = page[0]
        data["nextActions"] = [
            NextAction(
                "games_tool_detail",
                {"gameId": first.game_id, "tool": first.exposed},
                "Inspect one tool's parameters before calling it.",
            ).to_json()
        ]
        return text_result("\n".join(lines), data)

    async def games_tool_detail(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        if (unsynced := await self._unsynced(args.get("gameId"))) is not None:
            return unsynced
        runtime, entry = self.calls.resolve(args["tool"], args.get("gameId"))
        data = tool_item(entry, detail=True)
        data["mcpName"] = entry.exposed
        tool = entry.tool
        lines = [f"Tool detail for '{entry.exposed}' in game '{runtime.id}'"]
        lines += ["", described(entry)]
        lines.append(f"\nOriginal name: {entry.legacy_name}")
        lines += parameter_lines(tool.input_schema)
        lines += returns_lines(tool.output_schema)
        if tool.result_description:
            # Ours, after the Go bridge's lines: what the result means, in the game's words.
            lines.append(f"  Result: {tool.result_description}")
        data["nextActions"] = [
            NextAction(
                "games_call_tool",
                {"gameId": runtime.id, "tool": entry.exposed, "arguments": {}},
                "Call the tool with arguments as its input schema says.",
            ).to_json()
        ]
        return text_result("\n".join(lines), data)

    async def games_tools(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        if (unsynced := await self._unsynced(args.get("gameId"))) is not None:
            return unsynced
        data = self._page(args, None)
        page: list[NamedTool] = data.pop("page")
        data["tools"] = [tool_item(entry, detail=True) for entry in page]
        if not page:
            return self._empty_page(data, "tools")
        shown = f"({len(page)} shown of {data['total']} matching):"
        if data.get("gameId"):
            lines = [f"Tools for game '{data['gameId']}' {shown}", ""]
            for entry in page:
                lines.append(f"• **{entry.exposed}** - {described(entry)}")
                lines += parameter_lines(entry.tool.input_schema)
                lines += returns_lines(entry.tool.output_schema)
        else:
            lines = [f"Game-Specific Tools Available {shown}"]
            current = None
            for entry in page:
                if entry.game_id != current:
                    current = entry.game_id
                    status = self.manager.runtime(current).status
                    status = "running" if status == "connected" else status
                    lines += ["", f"**{current}** ({status}):"]
                lines.append(f"  • {entry.exposed} - {described(entry)}")
                lines += parameter_lines(entry.tool.input_schema)
                lines += returns_lines(entry.tool.output_schema)
        lines.append(
            "\nUse games_tool_names for a smaller list and games_tool_detail for one tool."
        )
        if data["nextCursor"]:
            lines.append(f"Next cursor: {data['nextCursor']}")
        return text_result("\n".join(lines), data)
