"""A refused core-tool request as the Go bridge answers it (:func:`refusal_result`).

The game manager refuses lookups and lifecycle requests with a :class:`~gabs.games.GameError`;
this turns one into a core result (:func:`gabs.mcp.envelope.core_result`): the Go bridge's
``code`` where it has one for the situation (``game_not_found``,
``ambiguous_game_reference``), ``causeClass``, ``trackRecord`` and ``nextActions``, the
message with the key guidance as text, and our details (``status: "refused"``, the
``candidates``, ...) as extra keys; next actions the error carries (``nextActions`` in its
details) are used as they are. A refused game call also says ``executed: false``.
"""

from __future__ import annotations

from typing import Any, Final

import mcp_types as types

from gabs.games import GameError
from gabs.mcp.envelope import CauseClass, NextAction, cause_class, core_result

__all__ = ["GO_CODES", "refusal_result"]

#: Our refusal codes that the Go bridge spells differently.
GO_CODES: Final[dict[str, str]] = {
    "unknown_game": "game_not_found",
    "ambiguous_game": "ambiguous_game_reference",
}

# The cause class of our codes that Go's vocabulary does not have.
_CAUSES: Final[dict[str, CauseClass]] = {
    "tool_not_found": "call",
    "unknown_tool": "call",
    "ambiguous_tool": "call",
    "not_connected": "state",
    "no_game": "state",
    "unsupported": "game",
}


def _next_actions(
    code: str, game_id: str | None, details: dict[str, Any]
) -> list[NextAction] | None:
    if code == "tool_not_found":
        arguments: dict[str, Any] = {"brief": True}
        if game_id:
            arguments["gameId"] = game_id
        if details.get("requested"):
            arguments["query"] = details["requested"]
        return [
            NextAction(
                "games_tool_names", arguments, "Discover available game tools before retrying."
            )
        ]
    if code in ("not_connected", "no_game"):
        return [
            NextAction(
                "games_status",
                {"gameId": game_id} if game_id else {},
                "Check whether the game runs, then use games_start or games_connect.",
            )
        ]
    if code == "ambiguous_game_reference" and details.get("requested"):
        # A tool several connected games have: the same tool in each of them.
        return [
            NextAction(
                "games_tool_detail",
                {"gameId": candidate, "tool": details["requested"]},
                f"The tool in game {candidate}: repeat the call with this gameId.",
            )
            for candidate in details.get("candidates", ())
        ]
    if code == "game_not_found":
        return [NextAction("games_list", {}, "See the configured games and their ids.")]
    return None


def refusal_result(
    error: GameError, *, game_id: str | None = None, call: bool = False
) -> types.CallToolResult:
    """The core result for a refused request (see the module doc)."""
    code = GO_CODES.get(error.code, error.code)
    details = dict(error.details)
    given = details.pop("nextActions", None)
    extra: dict[str, Any] = {"status": "refused", "message": error.message, **details}
    if code != error.code:
        extra["reason"] = error.code
    if call:
        extra = {"executed": False, **extra}
    cause = cause_class(code) or _CAUSES.get(code)
    if given:
        actions: list[NextAction] | None = [
            NextAction(a["tool"], a.get("arguments") or {}, a.get("reason", "")) for a in given
        ]
    else:
        actions = _next_actions(code, game_id, details)
    message = f"Refused ({code}): {error.message}"
    if call:
        message = "NOT EXECUTED. " + message
    return core_result(
        message,
        code=code,
        game_id=game_id,
        next_actions=actions,
        cause=cause,
        is_error=True,
        extra=extra,
    )
