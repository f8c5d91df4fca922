"""What the model sees: call outcomes and attention rendered compactly, as text and as data.

Every game-bound call ends as one of three things (ARCHITECTURE decision 5): refused before it
reached the game (``executed: false``), answered (``executed: true``, with any related
attention attached), or lost before its answer (``executed: "unknown"``). Attention is rendered
late and compactly: summary, severity, counts, a small sample and cursors into the game's
diagnostics, never raw log tails.
"""

from __future__ import annotations

import json
from typing import Any

from gabp.messages import Attention
from gabs.call_outcome import CallOutcome

__all__ = [
    "attention_brief",
    "attention_text",
    "blocked_next_actions",
    "outcome_structured",
    "outcome_text",
]

SAMPLE_LINES = 3
MESSAGE_CHARS = 160


def _cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def attention_brief(item: Attention | None) -> dict[str, Any] | None:
    """The attention item as structured content (the wire shape; bounded by the game)."""
    return item.to_wire() if item is not None else None


def attention_text(item: Attention, *, game_id: str) -> str:
    """A few lines a model reads before acting."""
    kind = "BLOCKING" if item.blocking else "advisory"
    count = item.total_urgent_entries
    invalidated = (
        ", game state invalidated: ids and facts read before may be stale"
        if item.state_invalidated
        else ""
    )
    lines = [
        f"Attention {item.attention_id} ({kind}, {item.severity}) in game {game_id}: "
        f"{_cut(item.summary, 240)}",
        f"  {count} urgent entr{'y' if count == 1 else 'ies'}{invalidated}",
    ]
    if item.causal_method:
        operation = item.causal_operation_id
        lines.append(
            f"  caused by {item.causal_method}" + (f" (operation {operation})" if operation else "")
        )
    for sample in (item.sample or [])[:SAMPLE_LINES]:
        repeat = f" x{sample.repeat_count}" if sample.repeat_count > 1 else ""
        lines.append(f"  - [{sample.level}]{repeat} {_cut(sample.message)}")
    if item.diagnostics_cursor is not None:
        lines.append(f"  diagnostics start after log sequence {item.diagnostics_cursor}")
    return "\n".join(lines)


def blocked_next_actions(
    game_id: str, tool: str, arguments: dict[str, Any] | None, item: Attention | None
) -> list[dict[str, Any]]:
    """The concrete calls that recover from a blocked call, with the real ids."""
    actions: list[dict[str, Any]] = [
        {
            "tool": "games_get_attention",
            "arguments": {"gameId": game_id},
            "why": "inspect the item",
        },
    ]
    if item is not None:
        actions.append(
            {
                "tool": "games_ack_attention",
                "arguments": {"gameId": game_id, "attentionId": item.attention_id},
                "why": "acknowledge it once you have taken it into account",
            }
        )
    actions.append(
        {
            "tool": "games_call_tool",
            "arguments": {"gameId": game_id, "tool": tool, "arguments": arguments or {}},
            "why": "then retry the original call (re-read any state first if it was invalidated)",
        }
    )
    return actions


def outcome_structured(
    game_id: str,
    outcome: CallOutcome,
    arguments: dict[str, Any] | None,
    *,
    exposed: str | None = None,
) -> dict[str, Any]:
    """The machine-readable form of a call's outcome (MCP structured content).

    ``tool`` is the tool's exposed MCP name (``rim_sim_unload_map``), as the Go bridge names it
    in a blocked result, when the caller knows it; ``gabpName`` is always the game's own name.
    """
    data: dict[str, Any] = {
        "executed": outcome.executed,
        "status": outcome.status,
        "gameId": game_id,
        "tool": exposed or outcome.tool,
        "gabpName": outcome.tool,
    }
    if outcome.status in ("blocked_by_attention", "attention_unavailable"):
        data["code"] = outcome.status
        item = outcome.attention
        data["attentionId"] = item.attention_id if item is not None else None
        data["attention"] = attention_brief(item)
        data["nextActions"] = blocked_next_actions(game_id, outcome.tool, arguments, item)
        if outcome.gate is not None and outcome.gate.detail:
            data["reason"] = outcome.gate.detail
        return data
    if outcome.operation_id:
        data["operationId"] = outcome.operation_id
    if outcome.status == "ok":
        data["result"] = outcome.result
    if outcome.error is not None:
        data["error"] = outcome.error
    if outcome.attention is not None:
        data["attention"] = attention_brief(outcome.attention)
        data["attentionRelation"] = outcome.attention_relation
    data["durationMs"] = round(outcome.duration_ms, 1)
    return data


def _json(value: Any, limit: int = 4000) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _cut(text, limit)


def outcome_text(
    game_id: str,
    outcome: CallOutcome,
    arguments: dict[str, Any] | None,
    *,
    context: str | None = None,
    gated: bool = True,
) -> str:
    """The text the model reads for a call's outcome.

    ``context`` is the assembled context about the call's attention item (see
    :mod:`gabs.context`); without it the item is rendered on its own. ``gated`` says whether
    the game's attention mode enforces blocking items (``gate``) or only shows them.
    """
    item = outcome.attention
    if outcome.status == "blocked_by_attention":
        assert item is not None
        if context:
            return (
                f"NOT EXECUTED: {outcome.tool} was not sent to game {game_id} because a blocking "
                "attention item is open. Retrying without acknowledging is refused the same "
                "way.\n\n" + context
            )
        return "\n".join(
            [
                f"NOT EXECUTED: {outcome.tool} was not sent to game {game_id} because a blocking "
                "attention item is open.",
                attention_text(item, game_id=game_id),
                "Next: inspect it with games_get_attention "
                f'{{"gameId": "{game_id}"}}, acknowledge it with games_ack_attention '
                f'{{"gameId": "{game_id}", "attentionId": "{item.attention_id}"}}, then retry '
                f"{outcome.tool}. Retrying without acknowledging is refused the same way.",
            ]
        )
    if outcome.status == "attention_unavailable":
        detail = outcome.gate.detail if outcome.gate is not None else ""
        return (
            f"NOT EXECUTED: {outcome.tool} was not sent to game {game_id}: {detail}. The bridge "
            "refuses game calls while it cannot tell whether blocking attention is open. Check "
            f'games_status {{"gameId": "{game_id}"}} and retry.'
        )
    if outcome.executed == "unknown":
        message = outcome.error["message"] if outcome.error else "no answer"
        text = (
            f"UNKNOWN whether {outcome.tool} ran in game {game_id}: {message}. It may have run; "
            "check the game's state before repeating it."
        )
    elif outcome.status == "error" and not outcome.sent:
        assert outcome.error is not None
        text = (
            f"NOT EXECUTED. {outcome.tool} was not sent to game {game_id}: "
            f"{outcome.error['message']} (code {outcome.error['code']})"
        )
    elif outcome.status == "error":
        assert outcome.error is not None
        ran = "ran and failed" if outcome.executed else "was refused by the game and did not run"
        said = f": {outcome.error['message']}" if outcome.error["message"] else " without a message"
        text = f"{outcome.tool} {ran}{said} (code {outcome.error['code']})"
    else:
        text = _json(outcome.result)
    if item is not None:
        relation = {
            "caused_by_call": "This call opened or updated attention:",
            "opened_during_call": "Attention opened while this call ran:",
            "open_before_call": "Attention already open:",
        }.get(outcome.attention_relation or "", "Attention:")
        text += "\n\n" + relation + "\n" + (context or attention_text(item, game_id=game_id))
        if item.blocking and gated and not context:
            ack = f'{{"gameId": "{game_id}", "attentionId": "{item.attention_id}"}}'
            text += (
                "\nFurther calls to this game are refused until the item is acknowledged "
                f"(games_ack_attention {ack})."
            )
    return text
