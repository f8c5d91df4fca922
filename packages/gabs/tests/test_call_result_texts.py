"""The text a model reads for a game call: every fact and every next step once."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from gabp.messages import Attention
from gabs.call_outcome import CallOutcome
from gabs.mcp.call_results import game_call_result

RETRY_WARNING = "Retrying without acknowledging is refused the same way."


def _item(**changes: Any) -> Attention:
    fields: dict[str, Any] = {
        "attentionId": "attn_7",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": True,
        "summary": "game/fail was called: the operation failed",
        "openedAtSequence": 101,
        "latestSequence": 101,
        "totalUrgentEntries": 1,
        "causalMethod": "game/fail",
    }
    return Attention.model_validate({**fields, **changes})


def _text(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


def test_a_blocked_call_names_its_next_steps_and_the_retry_rule_once() -> None:
    blocked = CallOutcome(
        executed=False,
        status="blocked_by_attention",
        tool="game/repeat",
        attention=_item(),
        attention_relation="blocking",
    )
    for context in (None, "Attention attn_7 ...\nNext: inspect, acknowledge, then retry."):
        text = _text(game_call_result("mono", blocked, {"count": 1}, context=context))
        assert [line for line in text.splitlines() if line.startswith("Next:")] != []
        assert len([line for line in text.splitlines() if line.startswith("Next:")]) == 1, text
        assert text.count(RETRY_WARNING) == 1, text


def test_a_call_whose_answer_was_lost_ends_with_its_one_next_action() -> None:
    lost = CallOutcome(
        executed="unknown",
        status="unknown",
        tool="game/repeat",
        error={"code": -32000, "message": "connection lost"},
    )
    result = game_call_result("mono", lost, {"count": 1})
    (action,) = (result.structured_content or {})["nextActions"]
    lines = _text(result).splitlines()
    assert [line for line in lines if line.startswith("Next:")] == [lines[-1]]
    assert lines[-1] == f'Next: games_status {{"gameId": "mono"}} - {action["reason"]}'


def test_an_attention_summary_without_a_full_stop_still_ends_its_sentence() -> None:
    opened = CallOutcome(
        executed=True,
        status="ok",
        tool="game/fail",
        result={"text": "failure recorded"},
        attention=_item(),
        attention_relation="opened_during_call",
    )
    line = _text(game_call_result("mono", opened, {}))
    assert "the operation failed. The game state was invalidated" in line
    stopped = _item(summary="Map lost!")
    opened.attention = stopped
    assert "Map lost! The game state" in _text(game_call_result("mono", opened, {}))


def test_a_game_error_without_a_message_still_names_its_code() -> None:
    # A live game may answer {"code": 1002, "message": ""}: the Go bridge says
    # "GABP tool call failed: GABP error 1002: ."; ours names the code and the empty message.
    failed = CallOutcome(
        executed=True,
        status="error",
        tool="fault/act",
        error={"code": 1002, "message": ""},
    )
    result = game_call_result("faulty", failed, {})
    first = _text(result).splitlines()[0]
    assert first == "fault/act ran and failed without a message (code 1002)"
    assert (result.structured_content or {})["error"] == {"code": 1002, "message": ""}


def test_a_call_the_bridge_never_sent_does_not_blame_the_game() -> None:
    # The turn is still held by an earlier call the game never answered: the bridge did not
    # send this one, so the game did not refuse it.
    unsent = CallOutcome(
        executed=False,
        status="error",
        tool="fault/echo",
        error={"code": -32000, "message": "faulty was busy: no request slot within 5 s"},
        sent=False,
    )
    result = game_call_result("faulty", unsent, {})
    first = _text(result).splitlines()[0]
    assert first == (
        "NOT EXECUTED. fault/echo was not sent to game faulty: faulty was busy: no request "
        "slot within 5 s (code -32000)"
    )
    assert "refused by the game" not in _text(result)
    assert (result.structured_content or {})["code"] == "not_sent"


def test_a_call_the_game_refused_for_its_arguments_points_at_the_tool_s_detail() -> None:
    # -32602 and -31002: the call itself can be corrected, so the next step is the tool's
    # parameters (class call), not the runtime state (the Go bridge: games_status, state).
    for code in (-32602, -31002):
        refused = CallOutcome(
            executed=False,
            status="error",
            tool="fault/act",
            error={"code": code, "message": "bad arguments"},
        )
        data = game_call_result("faulty", refused, {}).structured_content or {}
        assert data["code"] == "not_sent"
        assert data["causeClass"] == "call"
        assert [a["tool"] for a in data["nextActions"]] == ["games_tool_detail"]
    # a refusal that says nothing about the call keeps the state class
    other = CallOutcome(
        executed=False,
        status="error",
        tool="fault/act",
        error={"code": -32601, "message": "no tools/call"},
    )
    data = game_call_result("faulty", other, {}).structured_content or {}
    assert (data["causeClass"], data["nextActions"][0]["tool"]) == ("state", "games_status")
