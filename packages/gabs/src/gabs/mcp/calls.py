"""Calling game tools: games_call_tool and the mirrored game tools.

:class:`CallTools` binds ``games_call_tool`` to one :class:`~gabs.games.GameManager`, lists the
game tools mirrored under their own MCP names (:meth:`CallTools.exposed`, per game
``exposeGameTools``) and calls either kind through the manager, so the attention gate applies
to both (:meth:`CallTools.call`). An attention item attached to the outcome is worded through
the context pipeline.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import mcp_types as types

from gabs.games import GameManager
from gabs.mcp.rendering import text_result
from gabs.mcp.schemas import BRIDGE_TOOLS, CALL_OUTPUT_SCHEMA, ToolHandler
from gabs.results import outcome_structured, outcome_text

__all__ = ["CallTools"]

logger = logging.getLogger("gabs.mcp.calls")


class CallTools:
    """``games_call_tool`` and the mirrored tools, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.handlers: dict[str, ToolHandler] = {"games_call_tool": self.games_call_tool}

    def exposed(self) -> dict[str, tuple[str, str, types.Tool]]:
        """Mirrored game tools by MCP name: (gameId, game tool name, MCP tool)."""
        found: dict[str, tuple[str, str, types.Tool]] = {}
        for name, runtime, tool in self.manager.exposed_tools():
            if name in BRIDGE_TOOLS or name in found:
                logger.warning(
                    "not exposing %s of %s: the name %s is taken", tool.name, runtime.id, name
                )
                continue
            schema = dict(tool.input_schema) if tool.input_schema else {"type": "object"}
            schema.setdefault("type", "object")
            description = tool.description or tool.title
            found[name] = (
                runtime.id,
                tool.name,
                types.Tool(
                    name=name,
                    title=f"{tool.title} ({runtime.id})",
                    description=f"[game {runtime.id}, tool {tool.name}] {description} "
                    "Called through the bridge like games_call_tool: refused while a "
                    "blocking attention item is open.",
                    input_schema=schema,
                    output_schema=CALL_OUTPUT_SCHEMA,
                ),
            )
        return found

    async def call(
        self,
        tool: str,
        game_id: str | None,
        arguments: dict[str, Any] | None,
        timeout: float | None,
    ) -> types.CallToolResult:
        """Call ``tool`` of a game through the gate and render the outcome."""
        runtime, outcome = await self.manager.call_tool(
            tool, game_id=game_id, arguments=arguments, timeout=timeout
        )
        data = outcome_structured(runtime.id, outcome, arguments)
        context: str | None = None
        if outcome.attention is not None:
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
                data["context"] = {
                    "templateId": assembled.template_id,
                    "contextHash": assembled.context_hash,
                    "tokens": assembled.budget_used.tokens,
                }
        text = outcome_text(
            runtime.id,
            outcome,
            arguments,
            context=context,
            gated=runtime.config is None or runtime.config.attention.mode == "gate",
        )
        return text_result(text, data, error=outcome.status != "ok")

    async def games_call_tool(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self.call(
            args["tool"], args.get("gameId"), args.get("arguments"), args.get("timeout")
        )
