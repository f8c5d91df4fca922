"""How a game call's outcome becomes an MCP result (the Go bridge's shape, our extras in ``_meta``).

A call the game answered passes through (ARCHITECTURE decision 13): ``structuredContent`` is the
game's own result object (any other JSON value is wrapped as ``{"value": ...}``, as the Go
bridge does), and the text is the result's ``text`` string when it has one, otherwise the whole
result as JSON written as the Go bridge writes it (keys sorted, ``<>&`` escaped, Go's
numbers). Nothing is cut; a result nested deeper than :data:`STRUCTURED_DEPTH` goes as text
alone, with ``{}`` as its structured content.

What the bridge adds goes into ``_meta`` under :data:`CALL_META_KEY`: ``executed``, ``status``,
``gameId``, ``tool``, ``operationId``, ``durationMs``, ``valueWrapped`` (the result was not an
object), ``structuredOmitted`` (why the structured content is ``{}``), and the attention item
attached to this call (``attention``, ``attentionRelation``). Attention attached to a call also
gets one short text block after the game's text, because the model must see it.

A call that did not get an answer of the game's (refused by the gate, refused before it was
sent, a game error, lost in transit) stays the bridge's own result, with ``isError``, the Go
bridge's ``code`` vocabulary where it has one, ``gameId``, ``tool`` (the exposed MCP name, as
the Go bridge's blocked result has it) with ``gabpName`` (the game's name), ``nextActions``
(``{tool, arguments, reason}``), ``causeClass`` and ``trackRecord``.
"""

from __future__ import annotations

import json
from typing import Any, Final

import mcp_types as types

from gabp import ErrorCode
from gabp.messages import Attention
from gabs.call_outcome import CallOutcome
from gabs.go_format import go_json, go_numbers_within
from gabs.mcp.envelope import (
    NextAction,
    cause_class,
    failure_next_actions,
    next_lines,
    track_record_line,
)
from gabs.results import attention_brief, outcome_structured, outcome_text

__all__ = ["CALL_META_KEY", "attention_line", "call_meta", "call_view", "game_call_result"]

#: The ``_meta`` key of what the bridge adds to a game call's result.
CALL_META_KEY: Final = "gabs/call"

_RELATION_WORDS: Final = {
    "caused_by_call": "opened or updated by this call",
    "opened_during_call": "opened while this call ran",
    "open_before_call": "already open before this call",
}


def call_meta(game_id: str, outcome: CallOutcome) -> dict[str, Any]:
    """What the bridge knows about the call, for ``_meta[CALL_META_KEY]``."""
    meta: dict[str, Any] = {
        "executed": outcome.executed,
        "status": outcome.status,
        "gameId": game_id,
        "tool": outcome.tool,
    }
    if outcome.operation_id:
        meta["operationId"] = outcome.operation_id
    if outcome.attention is not None:
        meta["attention"] = attention_brief(outcome.attention)
        meta["attentionRelation"] = outcome.attention_relation
    meta["durationMs"] = round(outcome.duration_ms, 1)
    return meta


def attention_line(item: Attention, *, game_id: str, relation: str | None, gated: bool) -> str:
    """One short text block about the attention item attached to a call."""
    kind = "BLOCKING" if item.blocking else "advisory"
    words = _RELATION_WORDS.get(relation or "", "open")
    summary = item.summary.rstrip()
    if summary and summary[-1] not in ".!?":
        summary += "."  # the sentences that follow start a new one
    text = (
        f"ATTENTION {item.attention_id} ({kind}, {item.severity}) in game {game_id}, {words}: "
        f"{summary}"
    )
    if item.state_invalidated:
        text += " The game state was invalidated: re-read ids and facts before acting."
    if item.blocking and gated:
        ack = json.dumps({"gameId": game_id, "attentionId": item.attention_id})
        text += (
            " Further calls to this game are refused until you inspect it (games_get_attention)"
            f" and acknowledge it: games_ack_attention {ack}"
        )
    else:
        text += " Inspect it with games_get_attention."
    return text


def _passthrough(result: Any) -> tuple[dict[str, Any], str, bool, bool]:
    """The game's result as structured content and text; whether it was wrapped, and whether
    its structured content was left out (see below). Whole
    floats of the structured content become integers, as the Go bridge's float64 decoding
    writes them (``5.0`` is ``5``; the text, written as Go writes it, has them so too).

    A result nested deeper than :data:`STRUCTURED_DEPTH` is given as text alone, with an
    empty object as its structured content: the SDK's writer refuses such a value, and the
    whole answer would be lost. One nested deeper than Python's encoder goes (near its
    recursion limit) cannot be written as text either; the text says so."""
    wrapped = not isinstance(result, dict)
    structured: dict[str, Any] = {"value": result} if wrapped else result
    text = structured.get("text")
    if not isinstance(text, str):
        try:
            text = go_json(structured)
        except RecursionError:
            text = "(the game's result nests too deep to be written as JSON text here)"
    # after the text, which Go writes from the float64 values (-0.0 is -0 there)
    within = go_numbers_within(structured, STRUCTURED_DEPTH)
    return (structured if within else {}), text, wrapped, not within


#: The deepest structured content a game call's result carries. pydantic, which writes the
#: SDK's results, refuses values nested about 250 deep (the result's envelope included).
STRUCTURED_DEPTH: Final = 200


#: A game's refusals of a call that the call itself can correct (arguments, tool name).
_CALL_REFUSALS: Final = frozenset({int(ErrorCode.INVALID_PARAMS), int(ErrorCode.TOOL_NOT_FOUND)})


def _failure_code(outcome: CallOutcome) -> str:
    if outcome.status in ("blocked_by_attention", "attention_unavailable"):
        return outcome.status
    if outcome.executed == "unknown":
        return "call_outcome_unknown"
    if outcome.executed:
        return "game_error"
    return "not_sent"


def _next_actions(
    game_id: str, outcome: CallOutcome, arguments: dict[str, Any] | None
) -> list[NextAction]:
    item = outcome.attention
    game = {"gameId": game_id}
    if outcome.status == "blocked_by_attention":
        actions = [NextAction("games_get_attention", game, "Inspect the open attention item.")]
        if item is not None:
            actions.append(
                NextAction(
                    "games_ack_attention",
                    {**game, "attentionId": item.attention_id},
                    "Acknowledge it once you have taken it into account.",
                )
            )
        actions.append(
            NextAction(
                "games_call_tool",
                {**game, "tool": outcome.tool, "arguments": arguments or {}},
                "Then retry the original call (re-read any state first if it was invalidated).",
            )
        )
        return actions
    if outcome.status == "attention_unavailable":
        return [NextAction("games_status", game, "Check the game's connection, then retry.")]
    if outcome.executed == "unknown":
        return [
            NextAction(
                "games_status",
                game,
                "The call may have run: check the game's state before repeating it.",
            )
        ]
    if outcome.executed or _refused_call(outcome):
        return [
            NextAction(
                "games_tool_detail",
                {**game, "tool": outcome.tool},
                "The game refused or failed the call: check the tool's arguments.",
            )
        ]
    return failure_next_actions(game_id, "state")


def _refused_call(outcome: CallOutcome) -> bool:
    """The game refused the call itself (its arguments, its name) before running it."""
    code = outcome.error["code"] if outcome.error else None
    return outcome.sent and outcome.executed is False and code in _CALL_REFUSALS


def game_call_result(
    game_id: str,
    outcome: CallOutcome,
    arguments: dict[str, Any] | None,
    *,
    context: str | None = None,
    context_info: dict[str, Any] | None = None,
    gated: bool = True,
    exposed: str | None = None,
) -> types.CallToolResult:
    """The MCP result of one game call (see the module doc); ``exposed`` is the tool's MCP name,
    the ``tool`` of the bridge's own results (the game's name is their ``gabpName``)."""
    meta = call_meta(game_id, outcome)
    if context_info:
        meta["context"] = context_info
    if outcome.status == "ok":
        structured, text, wrapped, omitted = _passthrough(outcome.result)
        if wrapped:
            meta["valueWrapped"] = True
        if omitted:
            meta["structuredOmitted"] = f"nested more than {STRUCTURED_DEPTH} levels deep"
        content: list[Any] = [types.TextContent(type="text", text=text)]
        item = outcome.attention
        if item is not None:
            line = attention_line(
                item, game_id=game_id, relation=outcome.attention_relation, gated=gated
            )
            content.append(types.TextContent(type="text", text=line))
        return types.CallToolResult(
            content=content,
            structured_content=structured,
            is_error=False,
            _meta={CALL_META_KEY: meta},
        )
    code = _failure_code(outcome)
    data = outcome_structured(game_id, outcome, arguments, exposed=exposed)
    data["code"] = code
    actions = _next_actions(game_id, outcome, arguments)
    data["nextActions"] = [action.to_json() for action in actions]
    cause = cause_class(code) or ("call" if code == "game_error" else "state")
    if _refused_call(outcome):
        cause = "call"
    data["causeClass"] = cause
    data["trackRecord"] = track_record_line()
    if context_info:
        data["context"] = context_info
    text = outcome_text(game_id, outcome, arguments, context=context, gated=gated)
    if not any(line.startswith("Next:") for line in text.splitlines()):
        # the next actions once: a blocked call's text (its context template) gives its own
        text = "\n".join([text, *next_lines(actions)])
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=True,
        _meta={CALL_META_KEY: meta},
    )


def call_view(result: types.CallToolResult) -> dict[str, Any]:
    """A tool result as one object, for programs that read game calls the older way.

    For a game call the game answered: the bridge's ``_meta`` call info with the game's result
    under ``result`` (unwrapped when it was not an object); for anything else the structured
    content as it is.
    """
    data = result.structured_content if isinstance(result.structured_content, dict) else {}
    meta = (result.meta or {}).get(CALL_META_KEY)
    if result.is_error or not isinstance(meta, dict):
        return dict(data)
    value: Any = data.get("value") if meta.get("valueWrapped") else data
    return {**meta, "result": value}
