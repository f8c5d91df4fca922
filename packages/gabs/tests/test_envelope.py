"""The Go bridge's result envelope (gabs.mcp.envelope): core results and unknown_argument."""

from __future__ import annotations

import mcp_types as types
import pytest

from gabs.mcp.envelope import (
    NEUTRAL_TRACK_RECORD,
    NextAction,
    TrackRecord,
    cause_class,
    core_result,
    failure_next_actions,
    track_record_line,
    unknown_argument_result,
    unknown_arguments,
)
from gabs_test_support import data as _data


def _text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent)
    return result.content[0].text


def test_codes_are_classified_as_the_go_bridge_does() -> None:
    assert cause_class("unknown_argument") == "call"
    assert cause_class("game_not_found") == "call"
    assert cause_class("config_invalid") == "config"
    assert cause_class("stop_unsupported") == "config"
    assert cause_class("already_running") == "state"
    assert cause_class("termination_unverified") == "state"
    assert cause_class("spawn_failed") == "environment"
    assert cause_class("exited_during_start") == "game"
    assert cause_class("launch_spec_unresolvable") == "config"
    assert cause_class("launch_spec_unresolvable", proven=True) == "environment"
    assert cause_class("unobserved", proven=True) == "environment"
    for quiet in ("started_connected", "started_bridge_pending", "terminated", "no_such_code"):
        assert cause_class(quiet) is None


def test_a_next_action_leaves_out_an_empty_reason() -> None:
    assert NextAction("games_status", {"gameId": "a"}).to_json() == {
        "tool": "games_status",
        "arguments": {"gameId": "a"},
    }
    assert NextAction("games_list", reason="See the games.").to_json() == {
        "tool": "games_list",
        "arguments": {},
        "reason": "See the games.",
    }


def test_the_track_record_line_is_neutral_until_a_start_is_recorded() -> None:
    assert track_record_line() == NEUTRAL_TRACK_RECORD
    assert track_record_line(TrackRecord(consecutive_failures=3)) == (
        f"{NEUTRAL_TRACK_RECORD} (3 consecutive failures)"
    )
    assert track_record_line(
        TrackRecord(workload_starts=4, bridge_connects=3, clean_stops=2, last_success_age_s=7200)
    ) == ("started 4\u00d7, last 2h ago; bridge connected 3\u00d7, clean stops 2\u00d7")
    assert track_record_line(TrackRecord(workload_starts=2, consecutive_failures=1)) == (
        "started 2\u00d7; bridge connected 0\u00d7 — the workload starts but the bridge has never "
        "connected (points game-side, not at launch config); 1 consecutive failures"
    )


def test_only_the_config_class_points_at_the_config() -> None:
    tools = {
        cause: [a.tool for a in failure_next_actions("g", cause)]
        for cause in ("call", "config", "environment", "game", "state")
    }
    assert tools == {
        "call": ["games_show"],
        "config": ["games_show"],
        "environment": ["games_status", "games_start"],
        "game": ["games_status", "games_start"],
        "state": ["games_status"],
    }
    for actions in (failure_next_actions("g", "config"), failure_next_actions("g", "state")):
        assert all(a.arguments == {"gameId": "g"} and a.reason for a in actions)
    config_reason = failure_next_actions("g", "config")[0].reason
    assert all(
        "configuration" not in a.reason
        for cause in ("environment", "game", "state")
        for a in failure_next_actions("g", cause)  # type: ignore[arg-type]
    )
    assert "configuration" in config_reason


def test_a_success_carries_code_game_and_next_actions_and_is_no_error() -> None:
    result = core_result(
        "Game 'rimworld' started successfully and connected via GABP.",
        code="started_connected",
        game_id="rimworld",
        next_actions=[
            NextAction(
                "games_tool_names",
                {"gameId": "rimworld", "brief": True},
                "Discover connected game-specific tools.",
            )
        ],
        extra={"processStarted": True, "code": "ignored", "pid": 42},
    )
    assert result.is_error is False
    assert _data(result) == {
        "code": "started_connected",
        "gameId": "rimworld",
        "processStarted": True,
        "pid": 42,
        "nextActions": [
            {
                "tool": "games_tool_names",
                "arguments": {"gameId": "rimworld", "brief": True},
                "reason": "Discover connected game-specific tools.",
            }
        ],
    }
    assert _text(result) == (
        "Game 'rimworld' started successfully and connected via GABP.\n"
        "Result code: started_connected.\n"
        'Next: games_tool_names {"gameId": "rimworld", "brief": true} - '
        "Discover connected game-specific tools."
    )


def test_a_failure_gets_cause_track_record_and_the_class_next_actions() -> None:
    result = core_result(
        "Game 'rimworld' exited during start (exit code 3).",
        code="exited_during_start",
        game_id="rimworld",
        extra={"exitCode": 3},
    )
    assert result.is_error is True
    data = _data(result)
    assert data["causeClass"] == "game"
    assert data["trackRecord"] == NEUTRAL_TRACK_RECORD
    assert data["exitCode"] == 3
    assert [a["tool"] for a in data["nextActions"]] == ["games_status", "games_start"]
    text = _text(result)
    assert "Result code: exited_during_start (cause: game; game-side" in text
    assert '- games_status {"gameId": "rimworld"} - Inspect the workload' in text
    assert '- games_start {"gameId": "rimworld"} - Retry' in text


def test_informational_codes_have_a_cause_but_are_not_errors() -> None:
    result = core_result(
        "Game 'rimworld' is already running.",
        code="already_running",
        game_id="rimworld",
        next_actions=[NextAction("games_connect", {"gameId": "rimworld"}, "Attach to it.")],
        track_record="started 1\u00d7; bridge connected 1\u00d7",
    )
    assert result.is_error is False
    data = _data(result)
    assert data["causeClass"] == "state"
    assert data["trackRecord"] == "started 1\u00d7; bridge connected 1\u00d7"
    assert data["nextActions"] == [
        {"tool": "games_connect", "arguments": {"gameId": "rimworld"}, "reason": "Attach to it."}
    ]


def test_explicit_cause_and_error_flag_win() -> None:
    result = core_result(
        "The game did not answer.", code="", game_id="g", cause="environment", is_error=True
    )
    data = _data(result)
    assert result.is_error is True
    assert data["causeClass"] == "environment"
    assert [a["tool"] for a in data["nextActions"]] == ["games_status", "games_start"]


def test_unknown_arguments_are_found_and_sorted() -> None:
    assert unknown_arguments({"gameId": "a", "zeta": 1, "alpha": 2}, ["gameId"]) == [
        "alpha",
        "zeta",
    ]
    assert unknown_arguments({"gameId": "a"}, ["gameId", "timeout"]) == []


def test_an_unknown_argument_is_refused_in_the_go_bridges_shape() -> None:
    result = unknown_argument_result(
        ["zeta", "bogusArg"], ["timeout", "gameId", "profile", "launchInputs", "resetEndpoint"]
    )
    assert result.is_error is True
    assert _data(result) == {
        "code": "unknown_argument",
        "path": "/bogusArg",
        "unknown": ["bogusArg", "zeta"],
        "allowed": ["gameId", "launchInputs", "profile", "resetEndpoint", "timeout"],
        "causeClass": "call",
        "trackRecord": "no successful starts recorded for this context",
        "nextActions": [
            {
                "tool": "games_show",
                "arguments": {"gameId": ""},
                "reason": "Check the accepted profiles and declared inputs, then reissue the "
                "call correctly.",
            }
        ],
    }
    assert _text(result) == (
        'Unknown argument "bogusArg". Allowed arguments: gameId, launchInputs, profile, '
        "resetEndpoint, timeout"
    )


def test_an_unknown_argument_name_is_quoted_as_go_quotes_it() -> None:
    text = _text(unknown_argument_result(['a"b\n\x01ü'], []))
    assert text == 'Unknown argument "a\\"b\\n\\x01ü". Allowed arguments: '


def test_the_refusal_names_the_game_in_its_next_action_when_given() -> None:
    data = _data(unknown_argument_result(["x"], ["gameId"], game_id="rimworld"))
    assert data["nextActions"][0]["arguments"] == {"gameId": "rimworld"}
    assert "gameId" not in data


def test_a_refusal_without_unknown_arguments_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="at least one"):
        unknown_argument_result([], ["gameId"])
