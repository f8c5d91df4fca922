"""Diagnostics, debug-menu and scripting tools refuse, filter, order and default as the mod's
code does."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gabp import RemoteError


async def test_get_capability_refuses_a_padded_alias_and_names_it_as_not_registered(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        padded = await sim.call(
            "rimbridge/get_capability", capabilityIdOrAlias=" rimworld/select_pawn "
        )
        assert padded == {
            "success": False,
            "message": "Capability ' rimworld/select_pawn ' is not registered.",
            "requestedId": " rimworld/select_pawn ",
            "code": "unknown_id",
            "operation": padded["operation"],
        }
        blank = await sim.call("rimbridge/get_capability", capabilityIdOrAlias="  ")
        # the registry's ArgumentException, as Mono words it (the parameter on its own line)
        assert blank["message"] == f"A capability id or alias is required.{os.linesep}" + (
            "Parameter name: idOrAlias"
        )
        found = await sim.call("rimbridge/get_capability", capabilityIdOrAlias="RIMWORLD/Ping")
        assert found["success"] is False
        assert (await sim.call("rimbridge/get_capability", capabilityIdOrAlias="RIMBRIDGE/PING"))[
            "success"
        ]


async def test_list_capabilities_orders_by_id_and_ignores_blank_filters(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimbridge/list_capabilities", includeParameters=False)
        ids = [c["id"] for c in listed["capabilities"]]
        assert ids == sorted(ids)
        blank = await sim.call(
            "rimbridge/list_capabilities", providerId=" ", category=" ", includeParameters=False
        )
        assert blank["totalCount"] == listed["totalCount"]
        padded = await sim.call("rimbridge/list_capabilities", category=" selection ")
        assert padded["totalCount"] == 0


async def test_get_operation_and_wait_for_operation_throw_on_a_blank_id(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool, extra in (
            ("rimbridge/get_operation", {}),
            ("rimbridge/wait_for_operation", {"timeoutMs": 0}),
        ):
            with pytest.raises(RemoteError) as caught:
                await sim.call(tool, operationId=" ", **extra)
            assert caught.value.message == (
                f"{tool} failed: An operation id is required.{os.linesep}"
                "Parameter name: operationId"
            )
            assert caught.value.data["code"] == "invalid_argument"


async def test_blank_log_and_event_filters_are_no_filter(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/pause_game", pause=True)
        logs = await sim.call("rimbridge/list_logs", limit=500, minimumLevel="debug")
        blank = await sim.call(
            "rimbridge/list_logs",
            limit=500,
            minimumLevel="debug",
            operationId=" ",
            rootOperationId=" ",
            capabilityId=" ",
        )
        assert logs["logs"] and len(blank["logs"]) == len(logs["logs"])
        events = await sim.call("rimbridge/list_operation_events")
        blank_events = await sim.call(
            "rimbridge/list_operation_events", eventType=" ", operationId=" "
        )
        assert events["events"]
        assert [e["EventId"] for e in blank_events["events"]] == [
            e["EventId"] for e in events["events"]
        ]


async def test_debug_roots_are_ordered_by_tab_name(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        roots = await sim.call("rimworld/list_debug_action_roots")
        assert [r["path"] for r in roots["roots"]] == ["Actions", "Outputs", "Settings"]


async def test_an_unknown_or_blank_debug_path_is_refused_with_the_mods_text(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        unknown = await sim.call("rimworld/execute_debug_action", path=" Actions/Nope ")
        assert unknown["message"] == "Could not find debug action 'Actions/Nope'."
        assert "path" not in unknown
        blank = await sim.call("rimworld/get_debug_action", path=" ")
        assert blank["message"] == "A debug action path is required."
        setting = await sim.call("rimworld/set_debug_setting", path="Settings/Nope", enabled=True)
        assert (setting["message"], "path" in setting) == (
            "Could not find debug action 'Settings/Nope'.",
            False,
        )


async def test_debug_pawn_tools_without_a_game_answer_a_payload_failure(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        logging = await sim.call("rimworld/set_colonist_job_logging", pawnName="Flint")
        assert logging["success"] is False
        assert logging["message"].startswith(
            "Could not resolve current-map colonist for job logging: "
        )
        heal = await sim.call(
            "rimworld/execute_debug_action", path="Actions/Pawns/Heal", pawnName="Flint"
        )
        assert heal["success"] is False
        assert heal["message"].startswith(
            "Could not resolve pawn target for debug action 'Actions/Pawns/Heal': "
        )


async def test_job_logging_names_what_it_could_not_resolve(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        missing = await sim.call("rimworld/set_colonist_job_logging", pawnName="Nobody")
        assert missing["success"] is False
        assert missing["message"].startswith(
            "Could not resolve current-map colonist for job logging: "
        )


@pytest.mark.parametrize(
    ("script_json", "message"),
    [
        ("null", "The scriptJson payload did not produce a script definition."),
        ("[1]", "The scriptJson payload could not be parsed."),
        ('{"steps": []}', "The script must contain at least one step."),
        ('{"name": "x"}', "The script must contain at least one step."),
    ],
)
async def test_run_script_refuses_what_is_not_a_runnable_definition_as_the_mod(
    open_sim: Any, script_json: str, message: str
) -> None:
    async with open_sim(tick_rate=0) as sim:
        answer = await sim.call("rimbridge/run_script", scriptJson=script_json)
        assert (answer["success"], answer["message"]) == (False, message)
        assert "error" not in answer


async def test_a_script_with_a_non_positive_budget_halts_before_its_first_step(
    open_sim: Any,
) -> None:
    script = {
        "maxExecutedStatements": 0,
        "steps": [{"id": "p", "call": "rimworld/pause_game", "arguments": {"pause": True}}],
    }
    async with open_sim(tick_rate=0) as sim:
        answer = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
        text = "The script must declare a positive maxExecutedStatements value."
        assert (answer["success"], answer["message"]) == (False, text)
        assert answer["error"]["Code"] == "script.invalid_definition"
        assert answer["error"]["Details"] == {"maxExecutedStatements": 0}
        report = answer["script"]
        assert (report["halted"], report["haltReason"], report["executedStepCount"]) == (
            True,
            text,
            0,
        )
        assert report["stepCount"] == 1


async def test_lua_file_tools_refuse_a_blank_path_and_name_a_missing_file_trimmed(
    open_sim: Any, tmp_path: Path
) -> None:
    async with open_sim(tick_rate=0) as sim:
        blank = await sim.call("rimbridge/compile_lua_file", scriptPath="  ")
        assert blank["message"] == "A non-empty scriptPath payload is required."
        missing = tmp_path / "absent.lua"
        answer = await sim.call("rimbridge/run_lua_file", scriptPath=f"  {missing}  ")
        assert answer["message"] == f"The Lua script file '{missing}' could not be found."
