"""The mod's per-line fields of ``list_logs``: ``stackTrace`` and the script step a line was
logged in (``scriptStatementId``, ``scriptStepId``, ``scriptCall``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gabp.errors import RemoteError
from rimbridge_sim.clock import ManualClock
from rimbridge_sim.diagnostics import LogRing, current_script_step, in_script_step

SCRIPT_FIELDS = ("ScriptStatementId", "ScriptStepId", "ScriptCall")


def _fields(entry: dict[str, Any]) -> tuple[str, str, str]:
    return (entry["ScriptStatementId"], entry["ScriptStepId"], entry["ScriptCall"])


async def _logs(sim: Any, **filters: Any) -> list[dict[str, Any]]:
    page = await sim.call("rimbridge/list_logs", minimumLevel="debug", limit=200, **filters)
    return list(page["logs"])


def test_a_line_carries_the_running_step_and_identical_lines_of_two_steps_stay_apart() -> None:
    ring = LogRing(capacity=10, collapse_window=1.0, clock=ManualClock())
    ring.append("warning", "low food", source="world")
    with in_script_step("check", "check#2", "rimworld/get_colony"):
        ring.append("warning", "low food", source="world")
        ring.append("warning", "low food", source="world")
    assert current_script_step() is None
    entries = [entry.to_wire() for entry in ring.query().entries]
    assert [(e["RepeatCount"], _fields(e)) for e in entries] == [
        (2, ("check", "check#2", "rimworld/get_colony")),
        (1, ("", "", "")),
    ]
    assert all(e["StackTrace"] == "" for e in entries)


async def test_lines_logged_by_script_steps_carry_the_step_and_other_lines_do_not(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="warning", message="before the script")
        # one statement run twice (two statements may not share an id, as in the mod)
        shout = {
            "id": "shout",
            "call": "sim/inject_log",
            "arguments": {
                "level": "warning",
                "message": {"$var": "n"},
            },
        }
        steps: list[dict[str, Any]] = [
            {
                "type": "foreach",
                "itemName": "n",
                "collection": ["from the step 1", "from the step 2"],
                "body": [shout],
            }
        ]
        steps.append(
            {"call": "sim/inject_log", "arguments": {"level": "info", "message": "unnamed step"}}
        )
        result = await sim.call(
            "rimbridge/run_script", scriptJson=json.dumps({"name": "logs", "steps": steps})
        )
        assert result["success"] is True
        await sim.call("sim/inject_log", level="warning", message="after the script")

        by_message = {entry["Message"]: entry for entry in await _logs(sim)}
        assert _fields(by_message["from the step 1"]) == ("shout", "shout", "sim/inject_log")
        assert _fields(by_message["from the step 2"]) == ("shout", "shout#2", "sim/inject_log")
        # unnamed statements are numbered together: the foreach is foreach-1
        assert _fields(by_message["unnamed step"]) == ("step-2", "step-2", "sim/inject_log")
        for outside in ("before the script", "after the script"):
            assert _fields(by_message[outside]) == ("", "", "")


async def test_the_error_line_of_a_throwing_tool_carries_its_traceback(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        request_id = "55555555-6666-4777-8888-999999999999"
        with pytest.raises(RemoteError):
            await sim.call("rimworld/select_pawn", request_id=request_id)
        [line] = [e for e in await _logs(sim, operationId=request_id) if e["Source"] == "tool"]
        assert line["Level"] == "error"
        trace = line["StackTrace"]
        assert trace.startswith("Traceback (most recent call last):\n")
        assert "InvalidArgumentError: A player-controlled colonist name or id" in trace
        assert 'File "' in trace and "select_pawn" in trace
        assert _fields(line) == ("", "", "")


async def test_a_step_that_throws_logs_its_traceback_under_the_step(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        script = {"steps": [{"id": "nobody", "call": "rimworld/select_pawn", "arguments": {}}]}
        result = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        assert result["success"] is False
        [line] = [e for e in await _logs(sim) if e["Source"] == "tool"]
        assert _fields(line) == ("nobody", "nobody", "rimworld/select_pawn")
        assert "InvalidArgumentError" in line["StackTrace"]


async def test_an_injected_error_line_has_no_stack_trace(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="error", message="Injected failure")
        [line] = [e for e in await _logs(sim) if e["Message"] == "Injected failure"]
        assert line["Level"] == "error"
        assert line["StackTrace"] == ""
        assert _fields(line) == ("", "", "")
        assert set(SCRIPT_FIELDS) <= line.keys()
