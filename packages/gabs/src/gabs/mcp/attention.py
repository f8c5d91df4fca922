"""The attention tools: games_get_attention and games_ack_attention.

:class:`AttentionTools` binds their handlers to one :class:`~gabs.games.GameManager`. They are
never blocked by the gate; ``games_get_attention`` words the open item through the context
pipeline (:mod:`gabs.context`), ``games_ack_attention`` clears it by its id.

Their results have the Go bridge's keys: ``{gameId, supported, attention, blocking}`` and
``{gameId, supported, acknowledged, attentionId, currentAttention}`` (``isError`` when the id was
not the open item's), with our ``mode``, ``status`` and ``nextActions`` beside them. ``timeout``
(seconds, whole) bounds the wait when the game is asked; a request the game could not be asked,
or did not answer, is :func:`~gabs.mcp.attention_failures.request_failed`'s result.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from gabp import GabpError
from gabs.context import trace_json
from gabs.games import GameManager
from gabs.mcp.attention_failures import request_failed
from gabs.mcp.envelope import NextAction
from gabs.mcp.rendering import attention_from_wire, text_result
from gabs.mcp.schemas import ToolHandler
from gabs.results import attention_text

__all__ = ["AttentionTools"]


class AttentionTools:
    """The attention tools' handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.handlers: dict[str, ToolHandler] = {
            "games_get_attention": self.games_get_attention,
            "games_ack_attention": self.games_ack_attention,
        }

    async def games_get_attention(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        asked = self.manager.resolve(args.get("gameId")).id
        try:
            data = await self.manager.get_attention(
                asked, refresh=args.get("refresh", False), timeout=_timeout(args)
            )
        except GabpError as exc:
            return request_failed(asked, exc)
        game_id = data["gameId"]
        raw = data.get("attention")
        if data["supported"]:  # as Go: no `blocking` for a game without attention
            data["blocking"] = bool(isinstance(raw, dict) and raw.get("blocking"))
        if not data["supported"]:
            text = f"Game {game_id} does not support attention (supported: false); nothing to ack."
        else:
            item = attention_from_wire(data.get("attention"))
            if item is None:
                text = f"No attention item is open in game {game_id} (mode {data.get('mode')})."
            else:
                runtime = self.manager.runtime(game_id)
                assembled = await self.manager.assemble(runtime, "inspection", attention=item)
                if assembled.ok and assembled.context_text:
                    text = assembled.context_text
                else:
                    text = attention_text(item, game_id=game_id)
                if args.get("detail") == "trace":
                    data["trace"] = trace_json(assembled)
                ack = NextAction(
                    "games_ack_attention",
                    {"gameId": game_id, "attentionId": item.attention_id},
                    "Acknowledge it once you have taken it into account.",
                )
                data["nextActions"] = [ack.to_json()]
                ack_call = f'games_ack_attention {{"gameId": "{game_id}"'
                if item.blocking and data.get("mode") == "gate" and ack_call not in text:
                    text += (
                        "\nGame calls are refused until you acknowledge it: games_ack_attention "
                        f'{{"gameId": "{game_id}", "attentionId": "{item.attention_id}"}}'
                    )
        return text_result(text, _without_nulls(data))

    async def games_ack_attention(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        asked = self.manager.resolve(args.get("gameId")).id
        try:
            data = await self.manager.ack_attention(
                args["attentionId"], asked, timeout=_timeout(args)
            )
        except GabpError as exc:
            return request_failed(asked, exc, attention_id=args["attentionId"])
        game_id = data["gameId"]
        if not data.get("supported"):
            return text_result(
                f"Game '{game_id}' does not advertise attention support; nothing to acknowledge.",
                data,
            )
        current = attention_from_wire(data.get("currentAttention"))
        if data.get("acknowledged"):
            text = f"Acknowledged {args['attentionId']} in game {game_id}."
            if current is not None:
                text += "\nStill open:\n" + attention_text(current, game_id=game_id)
            else:
                text += " No attention item is open now; game calls go through again."
            return text_result(text, _without_nulls({"status": "acknowledged", **data}))
        if current is not None:
            text = (
                f"NOT acknowledged: {args['attentionId']} is not the open item of game {game_id}. "
                f"The open item is {current.attention_id}:\n"
                + attention_text(current, game_id=game_id)
            )
        else:
            text = (
                f"NOT acknowledged: {args['attentionId']} is not open in game {game_id}; no item "
                "is open now."
            )
        return text_result(text, _without_nulls({"status": "not_acknowledged", **data}), error=True)


def _timeout(args: dict[str, Any]) -> float | None:
    """The ``timeout`` argument in seconds; 0 or less (or none) means the default."""
    value = args.get("timeout")
    return float(min(value, 3600)) if isinstance(value, int) and value > 0 else None


def _without_nulls(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the keys whose value is null (portable output schemas declare no null)."""
    return {key: value for key, value in data.items() if value is not None}
