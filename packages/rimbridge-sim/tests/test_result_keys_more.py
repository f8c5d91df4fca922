"""Top-level result keys of the less used tools, and of payload failures, with the mod's
meaning: zone and area answers (``state``, ``previousCellCount``, ``deletedArea``,
``deletedZone``) and refusals (the Architect failure's ``devModeEnabled``, ``godMode``,
``state``), the mod configuration's mod lists, refusals that name a resolved mod, and the
debug tools' ``effects``, ``node`` and ``requiredTargetKind``."""

from __future__ import annotations

from typing import Any

_ALLOWED = "architect-designator:zone:label-expand-allowed-area"
_TIDY = "sim.tidystockpiles"


async def test_zone_and_area_answers_carry_the_state_snapshot(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        state = (await sim.call("rimworld/get_designator_state"))["state"]
        created = await sim.call("rimworld/create_allowed_area", label="Kitchen")
        area_id = created["area"]["id"]
        for tool, arguments in (
            ("rimworld/list_zones", {}),
            ("rimworld/list_areas", {}),
            ("rimworld/select_allowed_area", {"areaId": area_id}),
            ("rimworld/select_allowed_area", {}),
        ):
            result = await sim.call(tool, **arguments)
            assert result["success"] is True, tool
            assert result["state"].keys() == state.keys(), tool
        assert created["state"]["programState"] == state["programState"]


async def test_clearing_and_deleting_report_what_was_there(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        area_id = (await sim.call("rimworld/create_allowed_area", label="Pen"))["area"]["id"]
        await sim.call(
            "rimworld/apply_architect_designator", designatorId=_ALLOWED, x=1, z=1, width=2
        )
        cleared = await sim.call("rimworld/clear_area", areaId=area_id)
        assert (cleared["previousCellCount"], cleared["area"]["cellCount"]) == (2, 0)
        deleted = await sim.call("rimworld/delete_area", areaId=area_id)
        assert deleted["deletedArea"]["id"] == area_id
        assert "state" in deleted


async def test_zone_and_area_refusals_carry_the_architect_failure_fields(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool, arguments, code in (
            ("rimworld/clear_area", {"areaId": "nope"}, "unknown_id"),
            ("rimworld/delete_zone", {"zoneId": "nope"}, "unknown_id"),
            ("rimworld/set_zone_target", {"designatorId": "nope"}, "unknown_id"),
        ):
            refused = await sim.call(tool, **arguments)
            assert (refused["success"], refused["code"]) == (False, code), tool
            assert refused["godMode"] is False, tool
            assert refused["state"]["hasCurrentGame"] is True, tool
            assert "devModeEnabled" in refused, tool
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        menu = await sim.call("rimworld/list_zones")
        assert (menu["code"], menu["message"]) == ("no_game", "No game is currently loaded.")
        assert menu["state"]["hasCurrentGame"] is False


async def test_mod_configuration_status_lists_the_active_and_loaded_mods(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/set_mod_enabled", modId="sim.prettywalls", enabled=True)
        status = await sim.call("rimworld/get_mod_configuration_status")
        active = [m["modId"] for m in status["activeMods"]]
        loaded = [m["modId"] for m in status["loadedSessionMods"]]
        assert status["currentActiveModIds"] == active
        assert status["loadedSessionModIds"] == loaded
        assert len(active) == status["activeModCount"] == len(loaded) + 1
        assert status["activeMods"][-1]["packageId"] == "sim.prettywalls"


async def test_refusals_about_a_resolved_mod_name_it(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        far = await sim.call("rimworld/reorder_mod", modId=_TIDY, targetIndex=99)
        assert far["success"] is False
        assert far["mod"]["packageId"] == _TIDY
        core = await sim.call("rimworld/set_mod_enabled", modId="ludeon.rimworld", enabled=False)
        assert (core["success"], core["mod"]["isCoreMod"]) == (False, True)
        for values in ({}, {"nope.x": 3}):
            bad = await sim.call("rimworld/update_mod_settings", modId=_TIDY, values=values)
            assert bad["success"] is False
            assert bad["mod"]["packageId"] == _TIDY


async def test_set_debug_setting_reports_its_effects(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.call(
            "rimworld/set_debug_setting", path="Settings/God mode", enabled=True
        )
        assert result["success"] is True
        assert result["effects"].keys() >= {"logCount", "logs", "windowCountDelta"}
        refused = await sim.call("rimworld/set_debug_setting", path="Actions", enabled=True)
        assert refused["node"]["path"] == "Actions"
        assert refused["state"]["hasCurrentGame"] is True


async def test_a_pawn_debug_action_without_its_pawn_names_the_target_kind(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        missing = await sim.call("rimworld/execute_debug_action", path="Actions/Pawns/Heal")
        assert (missing["success"], missing["requiredTargetKind"]) == (False, "pawn")
        assert missing["node"]["path"] == "Actions/Pawns/Heal"
        unknown = await sim.call(
            "rimworld/execute_debug_action", path="Actions/Pawns/Heal", pawnName="Nobody"
        )
        assert (unknown["requiredTargetKind"], unknown["code"]) == ("pawn", "unknown_id")
        assert "state" in unknown


async def test_cell_info_answers_carry_the_state_snapshot(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        one = await sim.call("rimworld/get_cell_info", x=2, z=2)
        rect = await sim.call("rimworld/get_cells_info", x=2, z=2, width=2, height=2)
        assert one["state"]["hasCurrentGame"] is True
        assert rect["state"].keys() == one["state"].keys()
