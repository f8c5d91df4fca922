"""What ``games_get_attention`` and ``games_ack_attention`` answer when the request to the game
fails: no connection, no answer in time, an error answer, an unreadable one.

The text begins in the Go bridge's words (``Failed to query current attention for game 'X':
...``, ``Failed to acknowledge attention 'A' for game 'X': ...``); the structured content says
which way it failed, ``code``:

* ``not_sent``: the request never reached the game (not connected now, or no request slot free
  in time); an ack did not happen;
* ``game_error``: the game answered with an error; an ack did not happen;
* ``no_answer``: the request was sent but no usable answer came (the time ran out, the
  connection was lost, the answer was unreadable). An ack may have reached the game, so
  ``acknowledged`` is left out and the next action is to look again.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from gabp import GabpError, RemoteError
from gabs.call_outcome import NotSent
from gabs.mcp.envelope import NextAction
from gabs.mcp.rendering import text_result

__all__ = ["request_failed"]


def request_failed(
    game_id: str, exc: GabpError, *, attention_id: str | None = None
) -> types.CallToolResult:
    """The error result of an attention request to ``game_id`` that ended with ``exc`` (an
    ack of ``attention_id`` when it is given, else a look at the current item)."""
    if isinstance(exc, NotSent):
        code = "not_sent"
    elif isinstance(exc, RemoteError):
        code = "game_error"
    else:
        code = "no_answer"
    reason = str(exc)
    game = {"gameId": game_id}
    data: dict[str, Any] = {
        "status": "error",
        "code": code,
        "gameId": game_id,
        "supported": True,
        "message": reason,
    }
    if attention_id is None:
        text = f"Failed to query current attention for game '{game_id}': {reason}"
        action = NextAction("games_status", game, "Check the game's connection, then look again.")
    else:
        text = f"Failed to acknowledge attention '{attention_id}' for game '{game_id}': {reason}"
        data["attentionId"] = attention_id
        if code == "no_answer":
            text += "\nThe acknowledgement may have reached the game: look before acking again."
            action = NextAction(
                "games_get_attention",
                {**game, "refresh": True},
                "See whether the item is still open.",
            )
        else:
            data["acknowledged"] = False
            action = NextAction(
                "games_status", game, "Check the game's connection, then acknowledge again."
            )
    data["nextActions"] = [action.to_json()]
    return text_result(text, data, error=True)
