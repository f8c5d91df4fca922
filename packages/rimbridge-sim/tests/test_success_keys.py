"""A successful answer carries the top-level keys of the mod's success record, in its order,
and no others (the ``operation`` envelope aside)."""

from __future__ import annotations

from typing import Any

_SHOT = [
    "path",
    "sourcePath",
    "fileName",
    "requestedFileName",
    "saveDataFolder",
    "screenshotFolder",
    "sizeBytes",
    "capturedAtUtc",
    "suppressMessage",
    "clipped",
    "clipTargetId",
    "clipTargetKind",
    "clipTargetLabel",
]


def _keys(result: dict[str, Any]) -> list[str]:
    return [key for key in result if key != "operation"]


async def test_a_taken_screenshot_answers_with_the_mods_fields_only(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        shot = await sim.call("rimworld/take_screenshot", fileName="keys")
        assert shot["success"] is True
        assert _keys(shot) == [
            "success",
            "message",
            *_SHOT,
            "clipPadding",
            "clipRect",
            "screenTargets",
            "expectedPath",
        ]


async def test_a_cell_rect_screenshot_answers_with_the_mods_fields_only(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        shot = await sim.call("rimworld/screenshot_cell_rect", x=20, z=20, width=3, height=3)
        assert shot["success"] is True
        assert _keys(shot) == [
            "success",
            *_SHOT,
            "clipRect",
            "doNotResetCamera",
            "cameraWasReset",
            "requestedRect",
            "paddedRect",
            "paddingCells",
            "fullyVisible",
            "rootSizeMode",
            "requestedRootSize",
            "requiredRootSize",
            "appliedRootSize",
            "cameraBefore",
            "cameraDuringCapture",
            "cameraAfterCapture",
            "cameraRestored",
        ]


async def test_a_tick_step_answers_with_the_mods_step_record_only(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        step = await sim.call("rimworld/step_game_ticks", ticks=3)
        assert step["success"] is True
        assert _keys(step) == [
            "success",
            "stepId",
            "status",
            "requestedTicks",
            "completedTicks",
            "remainingTicks",
            "startTicksGame",
            "endTicksGame",
            "advancedTicks",
            "initialFrame",
            "lastFrame",
            "advancedFrames",
            "initialTimeSpeed",
            "startedAtUtc",
            "completedAtUtc",
            "message",
            "state",
        ]


async def test_the_profiler_status_answers_with_the_mods_fields_only(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        status = await sim.call("rimworld/dpa_status")
        assert _keys(status) == ["success", "dpa", "presets"]
        assert (status["success"], status["dpa"]["available"]) == (True, False)


async def test_a_lua_run_counts_its_parameters_before_its_output_as_the_mod(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        run = await sim.call("rimbridge/run_lua", luaSource="return 1")
        assert run["success"] is True
        assert _keys(run) == [
            "success",
            "message",
            "returned",
            "result",
            "error",
            "parameterCount",
            "output",
            "script",
        ]


async def test_a_spawned_thing_is_answered_without_an_id_as_the_mod(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        spawned = await sim.call("rimworld/spawn_thing", defName="Steel", x=12, z=12)
        assert _keys(spawned) == ["success", "defName", "label", "stackCount", "cell"]
        assert spawned["cell"] == {"x": 12, "z": 12}


async def test_a_chosen_menu_option_is_answered_without_a_message_as_the_mod(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        await sim.call("rimworld/click_cell", button="right", **spot)
        chosen = await sim.call("rimworld/execute_context_menu_option", optionIndex=1)
        assert chosen["success"] is True
        assert _keys(chosen) == ["success", "executedIndex", "label"]


async def test_a_pressed_gizmo_is_answered_without_a_message_as_the_mod(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        draft = (await sim.call("rimworld/list_selected_gizmos"))["gizmos"][0]
        pressed = await sim.call("rimworld/execute_gizmo", gizmoId=draft["id"])
        assert pressed["success"] is True
        assert _keys(pressed) == [
            "success",
            "requestedGizmoId",
            "gizmo",
            "selectionBefore",
            "selectionAfter",
            "selectionChanged",
            "uiBefore",
            "uiAfter",
        ]


async def test_a_run_debug_action_is_answered_without_a_message_as_the_mod(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        heal = await sim.call(
            "rimworld/execute_debug_action", path="Actions/Pawns/Heal", pawnName=pawn["name"]
        )
        assert heal["success"] is True
        assert _keys(heal) == [
            "success",
            "path",
            "node",
            "targetPawn",
            "stateBefore",
            "stateAfter",
            "effects",
        ]


async def test_only_the_plain_settings_read_names_the_settings_type(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        tidy = "sim.tidystockpiles"
        read = await sim.call("rimworld/get_mod_settings", modId=tidy)
        assert _keys(read) == [
            "success",
            "requestedModId",
            "mod",
            "settingsType",
            "root",
            "topLevelSettingCount",
        ]
        updated = await sim.call(
            "rimworld/update_mod_settings", modId=tidy, values={"enabled": False}
        )
        assert _keys(updated) == [
            "success",
            "requestedModId",
            "wroteSettings",
            "changed",
            "updateCount",
            "updates",
            "mod",
            "root",
            "topLevelSettingCount",
        ]
        reloaded = await sim.call("rimworld/reload_mod_settings", modId=tidy)
        assert _keys(reloaded) == [
            "success",
            "requestedModId",
            "message",
            "mod",
            "root",
            "topLevelSettingCount",
        ]


async def test_clearing_and_deleting_an_area_answer_with_the_mods_fields_only(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        area = (await sim.call("rimworld/create_allowed_area"))["area"]
        cleared = await sim.call("rimworld/clear_area", areaId=area["id"])
        assert _keys(cleared) == [
            "success",
            "previousCellCount",
            "area",
            "selectedAllowedArea",
            "designatorState",
            "state",
        ]
        deleted = await sim.call("rimworld/delete_area", areaId=area["id"])
        assert _keys(deleted) == [
            "success",
            "deletedArea",
            "selectedAllowedArea",
            "designatorState",
            "state",
        ]


async def test_a_deleted_zone_is_named_once_as_the_mod(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]["position"]
        found = await sim.call(
            "rimworld/find_random_cell_near",
            x=pawn["x"],
            z=pawn["z"],
            requireStandable=True,
            requireNoImpassableThings=True,
        )
        stockpile = "architect-designator:zone:dropdown-label-stockpile-zone:label-stockpile-zone"
        cell = found["cell"]
        await sim.call("rimworld/apply_architect_designator", designatorId=stockpile, **cell)
        (zone,) = (await sim.call("rimworld/list_zones"))["zones"]
        deleted = await sim.call("rimworld/delete_zone", zoneId=zone["id"])
        assert _keys(deleted) == ["success", "deletedZone", "designatorState", "state"]
        assert deleted["deletedZone"]["id"] == zone["id"]
