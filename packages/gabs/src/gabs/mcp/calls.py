"""Calling game tools: games_call_tool and the mirrored game tools.

:class:`CallTools` binds ``games_call_tool`` to one :class:`~gabs.games.GameManager`, lists the
game tools mirrored under their own MCP names (:meth:`CallTools.exposed`, per game
``exposeGameTools``) and calls either kind through the manager, so the attention gate applies
to both (:meth:`CallTools.call`). The result is rendered by :mod:`gabs.mcp.call_results`: the
game's own result passes through, the bridge's additions go into ``_meta``. A name no mirrored
tool has makes the game it names list its tools once more first (:meth:`CallTools._relisted`),
as the Go bridge does, so a tool the game added since the connection is found.

The timeout of a game call is derived as the Go bridge derives it (:func:`call_timeout`): the
``timeout`` argument of ``games_call_tool`` (else the game's call timeout), raised to the
tool's own ``timeoutMs`` argument plus 5 s and to its own ``timeout`` argument (seconds), and
kept within :data:`MAX_CALL_TIMEOUT`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final, Literal

import mcp_types as types

from gabs.game_tools import MirroredTool, mcp_tool_name
from gabs.games import GameError, GameManager, GameRuntime
from gabs.mcp.arguments import invalid_arguments, non_finite_problems
from gabs.mcp.call_results import game_call_result
from gabs.mcp.schemas import BRIDGE_TOOLS, ToolHandler
from gabs.mcp.tool_items import query_filter, tool_item
from gabs.mcp.tool_names import NamedTool, ToolIndex, exposed_output_schema, tool_index

__all__ = ["MAX_CALL_TIMEOUT", "CallTools", "call_timeout"]

logger = logging.getLogger("gabs.mcp.calls")

#: The longest a game call may be given, in seconds, whatever its arguments ask for.
MAX_CALL_TIMEOUT: Final = 3600.0


def _positive_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and value > 0:
        return float(value)
    return None


def call_timeout(timeout: Any, tool_arguments: Mapping[str, Any] | None, default: float) -> float:
    """Seconds to wait for a game call, as the Go bridge derives them (see the module doc)."""
    seconds = _positive_number(timeout) or default
    if tool_arguments:
        own_ms = _positive_number(tool_arguments.get("timeoutMs"))
        if own_ms is not None:
            seconds = max(seconds, own_ms / 1000 + 5)
        own = _positive_number(tool_arguments.get("timeout"))
        if own is not None:
            seconds = max(seconds, own)
    return min(seconds, MAX_CALL_TIMEOUT)


def _unlisted(runtime: GameRuntime, requested: str) -> NamedTool | None:
    """A tool of a connected game whose tool list failed (the game answered ``tools/list``
    with an error): nothing to check the name against, so the call goes to the game by its
    GABP name (``gameId.`` or ``gameId/`` taken off, a dotted name with ``/``), as in Go."""
    session = runtime.session
    if session is None or not session.connected or session.tools_error is None:
        return None
    name = requested
    for prefix in (f"{runtime.id}.", f"{runtime.id}/"):
        name = name.removeprefix(prefix)
    if "/" not in name:
        name = name.replace(".", "/")
    tool = MirroredTool.from_descriptor({"name": name})
    return NamedTool(runtime.id, tool, mcp_tool_name(runtime.id, name))


class CallTools:
    """``games_call_tool`` and the mirrored tools, bound to one manager."""

    def __init__(self, manager: GameManager, *, strip_output_schema: bool = False) -> None:
        self.manager = manager
        self.strip_output_schema = strip_output_schema
        self.handlers: dict[str, ToolHandler] = {"games_call_tool": self.games_call_tool}

    def index(self) -> ToolIndex:
        """The names of the connected games' tools (see :mod:`gabs.mcp.tool_names`)."""
        return tool_index(
            [(r.id, r.session.tools) for r in self.manager.connected_games() if r.session]
        )

    def resolve(self, requested: str, game_id: str | None) -> tuple[GameRuntime, NamedTool]:
        """The game and tool a ``games_call_tool`` reference means, by any alias.

        Refuses with :class:`~gabs.games.GameError`: ``game_not_found``, ``not_connected``,
        ``no_game`` (nothing connected), ``ambiguous_game_reference`` (the name fits tools of
        several games: pass gameId), ``ambiguous_tool`` and ``tool_not_found`` (with
        candidates).
        """
        index = self.index()
        runtime: GameRuntime | None = None
        if game_id:
            runtime = self.manager.runtime(game_id)
            found = index.find(requested, game_id)
            if not found and (unlisted := _unlisted(runtime, requested)) is not None:
                return runtime, unlisted
            if not found and (runtime.session is None or not runtime.session.connected):
                raise GameError(
                    "not_connected",
                    f"game {runtime.id} is not connected ({runtime.status}): start it with "
                    "games_start or attach with games_connect",
                )
        else:
            found = index.find(requested)
            games = sorted({entry.game_id for entry in found})
            if len(games) > 1:
                raise GameError(
                    "ambiguous_game_reference",
                    f"tool {requested!r} matched multiple games ({', '.join(games)}): pass gameId",
                    candidates=games,
                    requested=requested,
                )
            connected = self.manager.connected_games()
            if not found and not index.entries and not connected:
                raise GameError("no_game", "no game is connected: start one with games_start")
            one = connected[0] if len(connected) == 1 else None  # the one game there is, as Go
            if not found and one is not None and (unlisted := _unlisted(one, requested)):
                return one, unlisted
        if len(found) == 1:
            if runtime is not None and runtime.id == found[0].game_id:
                return runtime, found[0]
            return self.manager.runtime(found[0].game_id), found[0]
        if len(found) > 1:
            names = [entry.tool.name for entry in found]
            raise GameError(
                "ambiguous_tool",
                f"{requested!r} matches several tools: {', '.join(names)}",
                candidates=names,
            )
        scope = index.of_game(game_id) if game_id else index.entries
        # as the Go bridge: the first ten tools the name matches as a games_tool_names query
        close = query_filter(scope, requested)[:10]
        raise GameError(
            "tool_not_found",
            f"tool {requested!r} was not found"
            + (f" in game {game_id}" if game_id else " in any connected game")
            + ": use games_tool_names to discover the names"
            + (f"; similar: {', '.join(e.exposed for e in close)}" if close else ""),
            requested=requested,
            availableTotal=len(scope),
            candidates=[tool_item(entry, detail=False, brief=True) for entry in close],
        )

    async def _relisted(self, requested: str, game_id: str | None) -> bool:
        """Ask the game a name not found may belong to for its tools again (``gameId``, else
        the one connected game whose id prefixes the name, else the one connected game), so a
        tool it added since the connection is found, as the Go bridge finds it; whether the
        list was read."""
        connected = self.manager.connected_games()
        if game_id:
            scope = [runtime for runtime in connected if runtime.id == game_id]
        else:
            prefixed = self.index().by_game_prefix(requested, [r.id for r in connected])
            scope = [r for r in connected if r.id in prefixed] if prefixed else connected
        if len(scope) != 1:
            return False
        return await self.manager.sync_tools(scope[0], always=True) is None

    def exposed(self) -> dict[str, tuple[str, str, types.Tool]]:
        """Mirrored game tools listed in MCP (games with ``exposeGameTools``), by exposed
        name: (gameId, game tool name, MCP tool)."""
        found: dict[str, tuple[str, str, types.Tool]] = {}
        listed = {
            r.id: r
            for r in self.manager.connected_games()
            if r.config is not None and r.config.expose_game_tools
        }
        if not listed:
            return found
        for entry in self.index().entries:
            runtime = listed.get(entry.game_id)
            if runtime is None:
                continue
            name, tool = entry.exposed, entry.tool
            if name in BRIDGE_TOOLS:
                logger.warning(
                    "not exposing %s of %s: the name %s is taken", tool.name, runtime.id, name
                )
                continue
            schema = dict(tool.input_schema) if tool.input_schema else {"type": "object"}
            schema.setdefault("type", "object")
            description = tool.description or tool.title
            output = None if self.strip_output_schema else exposed_output_schema(tool.output_schema)
            found[name] = (
                runtime.id,
                tool.name,
                types.Tool(
                    name=name,
                    title=f"{tool.title} ({runtime.id})",
                    description=f"{description} (Game: {runtime.id}, tool {tool.name}; called "
                    "through the bridge like games_call_tool: refused while a blocking "
                    "attention item is open.)",
                    input_schema=schema,
                    output_schema=output,
                ),
            )
        return found

    async def call(
        self,
        tool: str,
        game_id: str | None,
        arguments: dict[str, Any] | None,
        timeout: Any,
        *,
        checked: bool = False,
    ) -> types.CallToolResult:
        """Call ``tool`` (any alias) of a game through the gate and render the outcome.

        ``checked``: the dispatcher has already refused a number JSON cannot carry in
        ``arguments`` (it checks ``games_call_tool``'s own arguments, these among them)."""
        try:
            runtime, entry = self.resolve(tool, game_id)
        except GameError as exc:
            if exc.code != "tool_not_found" or not await self._relisted(tool, game_id):
                raise
            runtime, entry = self.resolve(tool, game_id)
        if not checked and (problems := non_finite_problems(arguments)):
            return invalid_arguments(tool, problems, call=True, game_id=runtime.id)
        default = runtime.config.timeouts.call_seconds if runtime.config is not None else 30.0
        seconds = call_timeout(timeout, arguments, default)
        outcome = await self.manager.call_tool(
            runtime, entry.tool.name, arguments=arguments, timeout=seconds
        )
        context: str | None = None
        context_info: dict[str, Any] | None = None
        if outcome.attention is not None and outcome.status != "ok":
            purpose: Literal["blocked_call", "attached_result"] = (
                "blocked_call" if outcome.status == "blocked_by_attention" else "attached_result"
            )
            assembled = await self.manager.assemble(
                runtime,
                purpose,
                attention=outcome.attention,
                tool=outcome.tool,
                arguments=arguments,
            )
            if assembled.ok and assembled.context_text:
                context = assembled.context_text
                context_info = {
                    "templateId": assembled.template_id,
                    "contextHash": assembled.context_hash,
                    "tokens": assembled.budget_used.tokens,
                }
        return game_call_result(
            runtime.id,
            outcome,
            arguments,
            context=context,
            context_info=context_info,
            gated=runtime.config is None or runtime.config.attention.mode == "gate",
            exposed=entry.exposed,
        )

    async def games_call_tool(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self.call(
            args["tool"],
            args.get("gameId"),
            args.get("arguments"),
            args.get("timeout"),
            checked=True,
        )
