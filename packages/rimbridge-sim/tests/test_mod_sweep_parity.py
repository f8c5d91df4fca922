"""Failure answers and their neighbours, against the mod's source: the map gestures
(``ContextMenuCapabilityModule.cs``, ``RimBridgeMapClickInjector.cs``), the zone and area
tools (``RimWorldArchitect.cs``) and the language list (``RimWorldLanguages.cs``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

STOCKPILE = "architect-designator:zone:dropdown-label-stockpile-zone:label-stockpile-zone"
GROWING = "architect-designator:zone:label-growing-zone"
_ARCHITECT_FAILURE = ["success", "message", "devModeEnabled", "godMode", "state", "code"]


def _fields(result: dict[str, Any]) -> list[str]:
    return [key for key in result if key != "operation"]


async def _open_cells(sim: Any, width: int) -> dict[str, int]:
    pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]["position"]
    found = await sim.call(
        "rimworld/find_random_cell_near",
        x=pawn["x"],
        z=pawn["z"],
        startingSearchRadius=4,
        width=width,
        requireStandable=True,
        requireNoImpassableThings=True,
    )
    return dict(found["cell"])


async def test_map_gestures_answer_with_the_mods_completion_text(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        click = await sim.call("rimworld/click_cell", x=1, z=1)
        assert click["message"] == (
            "Dispatched a live left-click through RimWorld's play UI. No context menu "
            "remained open after the click."
        )
        drag = await sim.call(
            "rimworld/drag_cell",
            fromX=1,
            fromZ=1,
            toX=3,
            toZ=2,
            button="middle",
            holdDurationMs=250,
        )
        assert drag["message"] == (
            "Dispatched a live middle-drag held for 250ms through RimWorld's play UI. No "
            "context menu remained open after the drag."
        )
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        opened = await sim.call("rimworld/right_click_cell", **spot)
        assert (opened["actionKind"], opened["provider"]) == ("menu_opened", "ui_event")
        assert opened["message"] == (
            "Dispatched a live right-click through RimWorld's play UI and a context menu "
            "remained open."
        )
        listed = await sim.call("rimworld/get_context_menu_options")
        assert (listed["menuId"], listed["provider"]) == (opened["menuId"], "ui_event")
        menu = await sim.call("rimworld/open_context_menu", mode="auto", **spot)
        assert (menu["provider"], menu["message"]) == ("ui_event", opened["message"])


async def test_a_cell_outside_the_map_is_an_invalid_cell_in_every_map_tool(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        off = await sim.call("rimworld/click_cell", x=-1, z=0, holdDurationMs=-5)
        assert _fields(off) == ["success", "message", "code"]
        assert (off["success"], off["message"], off["code"]) == (
            False,
            "Cell (-1, 0) is out of bounds for the current map.",
            "invalid_cell",
        )
        end = await sim.call("rimworld/drag_cell", fromX=1, fromZ=1, toX=1, toZ=9999)
        assert (end["message"], end["code"]) == (
            "Cell (1, 9999) is out of bounds for the current map.",
            "invalid_cell",
        )
        held = await sim.call("rimworld/click_cell", x=1, z=1, holdDurationMs=-5)
        assert (held["message"], held["code"]) == (
            "holdDurationMs must be zero or greater.",
            "refused",
        )
        for tool, arguments in (
            ("rimworld/jump_camera_to_cell", {"x": -3, "z": 2}),
            ("rimworld/find_random_cell_near", {"x": -3, "z": 2}),
            ("rimworld/flood_fill_cells", {"x": -3, "z": 2}),
            ("rimworld/set_hover_target", {"x": -3, "z": 2}),
            ("rimworld/get_cells_info", {"x": -3, "z": 2}),
        ):
            result = await sim.call(tool, **arguments)
            assert (result["success"], result["code"]) == (False, "invalid_cell"), tool
            assert result["message"] == "Cell (-3, 2) is out of bounds for the current map."


async def test_zone_ids_resolve_by_label_and_refuse_in_the_mods_words(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        blank = await sim.call("rimworld/delete_zone", zoneId=" ")
        assert _fields(blank) == _ARCHITECT_FAILURE
        assert (blank["message"], blank["code"]) == ("An id is required.", "invalid_argument")
        missing = await sim.call("rimworld/delete_zone", zoneId=" nope ")
        assert (missing["message"], missing["code"]) == ("Could not find ' nope '.", "unknown_id")
        cell = await _open_cells(sim, 3)
        for dx in (0, 2):  # two stockpiles, a cell apart
            await sim.call(
                "rimworld/apply_architect_designator",
                designatorId=STOCKPILE,
                x=cell["x"] + dx,
                z=cell["z"],
            )
        zones = (await sim.call("rimworld/list_zones"))["zones"]
        assert [z["label"] for z in zones] == ["Stockpile zone 1", "Stockpile zone 2"]
        both = await sim.call("rimworld/delete_zone", zoneId="stockpile zone")
        assert (both["message"], both["code"]) == (
            "'stockpile zone' matched multiple entries. Use the exact unique id instead.",
            "refused",
        )
        deleted = await sim.call("rimworld/delete_zone", zoneId="STOCKPILE ZONE 2")
        assert deleted["deletedZone"]["id"] == zones[1]["id"]
        growing = await sim.call(
            "rimworld/set_zone_target", designatorId=GROWING, zoneId=zones[0]["id"]
        )
        assert (growing["message"], growing["code"]) == (
            f"Zone '{zones[0]['id']}' is not compatible with architect designator '{GROWING}'.",
            "refused",
        )
        # the mod selects the designator before it looks at the zone
        state = await sim.call("rimworld/get_designator_state")
        assert state["designatorState"]["selectedDesignatorId"] == GROWING
        cleared = await sim.call("rimworld/set_zone_target", designatorId=STOCKPILE)
        assert _fields(cleared) == ["success", "cleared", "designator", "designatorState", "state"]
        assert cleared["designatorState"]["selectedDesignatorId"] == STOCKPILE
        by_label = await sim.call(
            "rimworld/set_zone_target", designatorId=STOCKPILE, zoneId="stockpile zone"
        )
        assert by_label["zone"]["id"] == zones[0]["id"]


async def test_zones_are_listed_by_base_label_then_id(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        cell = await _open_cells(sim, 3)
        for designator, dx in ((STOCKPILE, 0), (GROWING, 2)):
            applied = await sim.call(
                "rimworld/apply_architect_designator",
                designatorId=designator,
                x=cell["x"] + dx,
                z=cell["z"],
            )
            assert applied["success"] is True, applied["rejectedCells"]
        zones = (await sim.call("rimworld/list_zones"))["zones"]
        assert [z["baseLabel"] for z in zones] == ["Growing zone", "Stockpile zone"]


async def test_area_refusals_name_the_area_as_asked(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool, verb in (("rimworld/clear_area", "cleared"), ("rimworld/delete_area", "deleted")):
            home = await sim.call(tool, areaId="home")
            assert _fields(home) == _ARCHITECT_FAILURE
            assert (home["message"], home["code"]) == (
                f"Area 'home' is not mutable and cannot be {verb} through this helper.",
                "refused",
            )
        chosen = await sim.call("rimworld/select_allowed_area", areaId="Home")
        assert (chosen["message"], chosen["code"]) == (
            "Area 'Home' cannot be used as an allowed area.",
            "refused",
        )


async def test_new_allowed_areas_take_the_first_free_number_and_stop_at_ten(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        first = await sim.call("rimworld/create_allowed_area")
        second = await sim.call("rimworld/create_allowed_area", select=False)
        assert [first["area"]["label"], second["area"]["label"]] == ["Area 1", "Area 2"]
        await sim.call("rimworld/delete_area", areaId=first["area"]["id"])
        again = await sim.call("rimworld/create_allowed_area", select=False)
        assert again["area"]["label"] == "Area 1"
        chosen = await sim.call("rimworld/select_allowed_area", areaId="area 2")
        assert _fields(chosen) == [
            "success",
            "selectedAllowedArea",
            "area",
            "designatorState",
            "state",
        ]
        assert chosen["area"]["id"] == second["area"]["id"]
        for _ in range(8):
            assert (await sim.call("rimworld/create_allowed_area"))["success"] is True
        full = await sim.call("rimworld/create_allowed_area")
        assert _fields(full) == _ARCHITECT_FAILURE
        assert full["message"] == (
            "RimWorld could not create a new allowed area for the current map."
        )


async def test_list_languages_gives_the_mods_usage_hint(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        listed = await sim.call("rimworld/list_languages")
        assert listed["usageHint"] == (
            "Prefer recommendedQuery when calling rimworld/switch_language. It uses the most "
            "stable ASCII-safe query when one is available."
        )


async def test_an_open_float_menu_does_not_block_saving(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        opened = await sim.call("rimworld/right_click_cell", **spot)
        assert opened["actionKind"] == "menu_opened"
        ui = await sim.call("rimworld/get_ui_state")
        assert (ui["floatMenuOpen"], ui["windowsPreventSave"]) == (True, False)
        saved = await sim.call("rimworld/save_game", saveName="with-menu")
        assert saved["success"] is True


async def test_a_cell_rect_screenshot_that_does_not_fit_is_refused_before_the_capture(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = _fields(await sim.call("rimworld/get_camera_state"))
        camera = await sim.call("rimworld/get_camera_state")
        refused = await sim.call(
            "rimworld/screenshot_cell_rect", x=10, z=10, width=30, height=30, rootSize=5
        )
        assert _fields(refused) == [
            "success",
            "message",
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
            "code",
        ]
        assert (refused["success"], refused["fullyVisible"], refused["code"]) == (
            False,
            False,
            "refused",
        )
        assert refused["message"] == (
            "Requested cell rectangle does not fit in the viewport at the selected camera "
            "root size."
        )
        after = await sim.call("rimworld/get_camera_state")
        assert {k: after[k] for k in before} == {k: camera[k] for k in before}
        kept = await sim.call(
            "rimworld/screenshot_cell_rect",
            x=10,
            z=10,
            width=30,
            height=30,
            rootSize=5,
            doNotResetCamera=True,
        )
        assert kept["success"] is False
        moved = await sim.call("rimworld/get_camera_state")
        assert moved["rootSize"] == 5


async def test_settings_path_errors_name_dotnet_types_and_a_negative_index_as_the_mod(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        prefix = "Updating mod settings for 'sim.tidystockpiles' failed: "
        for values, reason in (
            ({"enabled.x": "1"}, "Could not resolve field 'x' on 'System.Boolean'."),
            (
                {"allowedDefs[-1]": "Steel"},
                # RimWorld runs on Unity's Mono: the parameter's name on a line of its own
                f"Specified argument was out of the range of valid values.{os.linesep}"
                "Parameter name: index",
            ),
            (
                {"enabled[0]": "1"},
                "Path segment '[0]' requires an IList-compatible container but found "
                "'System.Boolean'.",
            ),
        ):
            refused = await sim.call(
                "rimworld/update_mod_settings", modId="sim.tidystockpiles", values=values
            )
            assert (refused["success"], refused["message"]) == (False, prefix + reason)


async def test_a_lua_file_path_is_made_absolute_without_resolving_links(
    open_sim: Any, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "noop.lua").write_text("return 1\n", encoding="utf-8")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    wanted = tmp_path / "linked" / "sub" / ".." / "noop.lua"
    (real / "sub").mkdir()
    async with open_sim(tick_rate=0) as sim:
        ran = await sim.call("rimbridge/compile_lua_file", scriptPath=str(wanted))
        assert ran["success"] is True, ran
        assert ran["resolvedScriptPath"] == str(tmp_path / "linked" / "noop.lua")
