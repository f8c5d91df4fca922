"""Small edges where the mod's own code decides what a tool caller sees: how durations are
written, and what an explicit ``null`` argument does."""

from __future__ import annotations

import datetime
import types
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from lib_gab import InvalidArguments
from rimbridge_sim.clock import ManualClock, whole_ms
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.diagnostics import OperationJournal
from rimbridge_sim.integration import RimBridge
from rimbridge_sim.scripting import CallOutcome, ScriptRunner, normalize_definition, report

# --- durations: the mod cuts the fraction ((long)TotalMilliseconds, Stopwatch.ElapsedMilliseconds)


def test_a_duration_is_its_whole_milliseconds_with_the_fraction_cut_off() -> None:
    assert [whole_ms(s) for s in (0.0, 0.0009, 0.0015, 0.0259, 1.9999, 2.0)] == [
        0,
        0,
        1,
        25,
        1999,
        2000,
    ]


def test_an_operation_envelope_cuts_its_duration_as_the_mod_does() -> None:
    clock = ManualClock(50.0)
    journal = OperationJournal(clock=clock)
    journal.start("call-1", "rimworld/pause_game", arguments_summary="{}")
    clock.advance(0.0259)
    record = journal.complete("call-1", "paused")
    assert record.to_wire(include_events=False)["DurationMs"] == 25
    journal.start("call-2", "rimworld/pause_game", arguments_summary="{}")
    clock.advance(0.0009)
    assert journal.complete("call-2", "paused").to_wire(include_events=False)["DurationMs"] == 0


def test_a_script_report_and_its_call_steps_cut_their_durations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(report, "time", types.SimpleNamespace(time=lambda: 1000.0259))
    script = report.ScriptReport(name="s", continue_on_error=False, started=1000.0)
    outcome = CallOutcome(True, "op-1", "completed", {"ok": True}, None)
    row = report.call_row(1, "step-1", "rimworld/pause_game", outcome, 1, 1000.0)
    assert (script.to_wire()["durationMs"], row["durationMs"]) == (25, 25)


def _moment(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_a_continue_until_step_reports_its_last_attempt_as_the_mod_does() -> None:
    # The mod's step takes the last attempt's envelope (StartedAtUtc, DurationMs); a step
    # that fails on the runner's terms is timed from that attempt's start to its failure.
    calls = 0

    async def poll(name: str, arguments: Mapping[str, Any]) -> CallOutcome:
        nonlocal calls
        calls += 1
        return CallOutcome(True, f"op-{calls}", "completed", {"ready": calls >= 2}, None)

    def step(condition: dict[str, Any], timeout_ms: int) -> dict[str, Any]:
        policy = {"pollIntervalMs": 150, "timeoutMs": timeout_ms, "condition": condition}
        return {"id": "p", "call": "a/poll", "continueUntil": policy}

    ready = step({"path": "result.ready", "equals": True}, 5000)
    runner = ScriptRunner(poll, include_step_results=True)
    wire = (await runner.run(normalize_definition({"steps": [ready]}))).to_wire()
    row = wire["steps"][0]
    waited = _moment(row["startedAtUtc"]) - _moment(wire["startedAtUtc"])
    assert (row["attempts"], row["success"]) == (2, True)
    assert waited >= datetime.timedelta(milliseconds=140)  # after the first attempt's pause
    assert row["durationMs"] < 140

    calls = 0
    never = step({"path": "result.ready", "equals": "never"}, 400)
    runner = ScriptRunner(poll, include_step_results=True)
    row = (await runner.run(normalize_definition({"steps": [never]}))).to_wire()["steps"][0]
    span = _moment(row["completedAtUtc"]) - _moment(row["startedAtUtc"])
    assert (row["error"]["Code"], row["attempts"] > 2) == ("script.continue_timeout", True)
    assert abs(row["durationMs"] - span / datetime.timedelta(milliseconds=1)) <= 1


# --- an explicit null for a parameter with a default ---------------------------------------------


@pytest.fixture(scope="module")
def bridge() -> Iterator[Any]:
    built = RimBridge(BridgeConfig(token="0" * 64, enable_test_tools=True, tick_rate=0))
    yield built
    built.close()


@pytest.mark.parametrize(
    ("tool", "argument", "rule"),
    [
        ("rimbridge/list_capabilities", "limit", "valid integer"),
        ("rimbridge/list_capabilities", "includeParameters", "valid boolean"),
        ("rimbridge/list_logs", "minimumLevel", "valid string"),
    ],
)
def test_a_null_for_a_parameter_with_a_default_is_refused_by_its_advertised_type(
    bridge: Any, tool: str, argument: str, rule: str
) -> None:
    # The mod (through Lib.GAB) would run the tool with the .NET type's zero value (0, false,
    # null) in place of the default; the sim keeps to the advertised schema and refuses it.
    found = bridge.tool(tool)
    assert "null" not in str(found.input_schema["properties"][argument].get("type"))
    with pytest.raises(InvalidArguments, match=rf"\$\.{argument}: Input should be a {rule}"):
        found.validate_arguments({argument: None})


def test_a_null_for_a_parameter_whose_default_is_null_is_taken_as_left_out(bridge: Any) -> None:
    found = bridge.tool("rimbridge/list_capabilities")
    assert found.validate_arguments(
        {"providerId": None, "query": None}
    ) == found.validate_arguments({})
