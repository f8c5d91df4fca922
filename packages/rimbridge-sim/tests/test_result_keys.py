"""Top-level result keys the mod's successful answers carry, with the mod's meaning: the
Architect's ``state`` and ``selectionStillValid``, a clicked menu's ``provider``, play_for's
neverForceNormalSpeed fields, and screenshot_cell_rect's camera after the capture."""

from __future__ import annotations

from typing import Any

import anyio

_STRUCTURE = "architect-category:structure"
_WALL = "architect-designator:structure:build-wall"


def _without_operation(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "operation"}


async def test_architect_answers_carry_the_tool_state_snapshot(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        state = (await sim.call("rimworld/set_time_speed", speed="Normal"))["state"]
        for tool, arguments in (
            ("rimworld/get_designator_state", {}),
            ("rimworld/list_architect_categories", {}),
            ("rimworld/list_architect_designators", {"categoryId": _STRUCTURE}),
            ("rimworld/select_architect_designator", {"designatorId": _WALL}),
            ("rimworld/set_god_mode", {"enabled": False}),
        ):
            result = await sim.call(tool, **arguments)
            assert result["success"] is True, tool
            assert result["state"].keys() == state.keys(), tool
            assert result["state"]["programState"] == state["programState"], tool


async def test_set_god_mode_says_whether_the_selected_designator_stays(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        nothing = await sim.call("rimworld/set_god_mode", enabled=True)
        assert nothing["selectionStillValid"] is False
        await sim.call("rimworld/select_architect_designator", designatorId=_WALL)
        kept = await sim.call("rimworld/set_god_mode", enabled=False)
        assert (kept["selectionStillValid"], kept["changed"]) == (True, True)
        assert kept["designatorState"]["selectedDesignatorId"] == _WALL
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        menu = await sim.call("rimworld/set_god_mode", enabled=True)
        assert (menu["success"], menu["selectionStillValid"]) == (True, None)


async def test_a_click_that_opens_a_menu_names_its_provider(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        click = await sim.call("rimworld/click_cell", button="right", **spot)
        assert (click["actionKind"], click["command"]) == ("menu_opened", "click_cell")
        listed = await sim.call("rimworld/get_context_menu_options")
        assert click["provider"] == listed["provider"] == "ui_event"
        assert (click["menuId"], click["optionCount"]) == (listed["menuId"], listed["optionCount"])


async def test_play_for_reports_the_never_force_normal_speed_setting(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        plain = await sim.call("rimworld/play_for", durationMs=50)
        assert (
            plain["previousNeverForceNormalSpeed"],
            plain["restoredNeverForceNormalSpeed"],
            plain["finalNeverForceNormalSpeed"],
        ) == (None, None, False)
        forced = await sim.call("rimworld/play_for", durationMs=50, forceRequestedSpeed=True)
        assert (
            forced["forceRequestedSpeed"],
            forced["previousNeverForceNormalSpeed"],
            forced["restoredNeverForceNormalSpeed"],
            forced["finalNeverForceNormalSpeed"],
        ) == (True, False, False, False)
        assert forced["paused"] is True


async def test_a_cancelled_play_for_puts_the_setting_back(open_sim: Any) -> None:
    async with open_sim(tick_rate=60.0) as sim:
        settings = sim.bridge.world.debug_settings
        with anyio.move_on_after(0.3) as scope:
            await sim.bridge.server.call_tool(
                "rimworld/play_for", {"durationMs": 10_000, "forceRequestedSpeed": True}
            )
        assert scope.cancelled_caught
        assert settings.get("neverForceNormalSpeed", False) is False


async def test_a_cell_rect_shot_left_in_place_reports_the_camera_after_capture(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        shot = await sim.call(
            "rimworld/screenshot_cell_rect", x=20, z=20, width=4, height=4, doNotResetCamera=True
        )
        camera = _without_operation(await sim.call("rimworld/get_camera_state"))
        assert (shot["cameraWasReset"], shot["cameraRestored"]) == (False, None)
        assert shot["cameraAfterCapture"] == camera
