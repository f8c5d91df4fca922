"""Selection, drafting, orders through right clicks and float menus, gizmos."""

from __future__ import annotations

from typing import Any


async def _colonist(sim: Any, index: int = 0) -> dict[str, Any]:
    return (await sim.call("rimworld/list_colonists"))["colonists"][index]


async def test_a_colonist_is_selected_by_name_case_and_part_ignored(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        by_name = await sim.call("rimworld/select_pawn", pawnName=pawn["name"].upper())
        assert (by_name["selected"]["pawnId"], by_name["selectedCount"]) == (pawn["pawnId"], 1)
        by_full = await sim.call("rimworld/select_pawn", pawnName=pawn["fullName"], append=True)
        assert by_full["selectedCount"] == 1
        other = await _colonist(sim, 1)
        appended = await sim.call("rimworld/select_pawn", pawnId=other["pawnId"], append=True)
        assert appended["selectedCount"] == 2
        gone = await sim.call("rimworld/deselect_pawn", pawnName=pawn["name"])
        assert (gone["deselected"], gone["selectedCount"]) == (pawn["name"], 1)
        assert (await sim.call("rimworld/clear_selection"))["selectedCount"] == 0


async def test_a_drafted_colonist_goes_where_the_right_click_says(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        drafted = await sim.call("rimworld/set_draft", pawnName=pawn["name"])
        assert (drafted["drafted"], drafted["pawnInfo"]["job"]) == (True, None)
        target = {"x": pawn["position"]["x"] + 2, "z": pawn["position"]["z"]}
        request_id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
        click = await sim.call("rimworld/right_click_cell", request_id=request_id, **target)
        assert (click["actionKind"], click["selectedPawns"]) == ("click_dispatched", [pawn["name"]])
        moving = await _colonist(sim)
        assert (moving["job"], moving["jobTarget"], moving["jobOperationId"]) == (
            "Goto",
            target,
            request_id,
        )
        await sim.call("rimworld/step_game_ticks", ticks=60)
        assert (await _colonist(sim))["position"] == target


async def test_an_undrafted_colonist_takes_orders_from_the_float_menu(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        spot = {"x": pawn["position"]["x"], "z": pawn["position"]["z"] - 3}
        spawned = await sim.call("rimworld/spawn_thing", defName="Steel", stackCount=30, **spot)
        assert spawned["stackCount"] == 30
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        menu = await sim.call("rimworld/open_context_menu", **spot)
        labels = [o["label"] for o in menu["options"]]
        assert "Prioritize hauling steel" in labels
        assert menu["menuId"] > 0
        listed = await sim.call("rimworld/get_context_menu_options")
        assert [o["label"] for o in listed["options"]] == labels
        chosen = await sim.call("rimworld/execute_context_menu_option", label="hauling")
        assert (chosen["success"], chosen["label"]) == (True, "Prioritize hauling steel")
        assert (await _colonist(sim))["job"] == "HaulToCell"
        closed = await sim.call("rimworld/get_context_menu_options")
        assert closed["success"] is False
        bad = await sim.call("rimworld/execute_context_menu_option", optionIndex=3)
        assert bad == {**bad, "success": False, "message": "No debug context menu is available."}


async def test_map_clicks_need_a_selection_and_a_cell_on_the_map(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        nobody = await sim.call("rimworld/right_click_cell", x=1, z=1)
        assert (nobody["success"], nobody["message"]) == (False, "No pawns are currently selected.")
        pawn = await _colonist(sim)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        outside = await sim.call("rimworld/right_click_cell", x=999, z=1)
        assert outside["message"] == "Cell (999, 1) is out of bounds for the current map."
        bad_modifier = await sim.call("rimworld/right_click_cell", x=1, z=1, modifiers="hyper")
        assert "Unsupported modifier 'hyper'" in bad_modifier["message"]


async def test_left_clicks_and_drags_select_what_is_there(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        click = await sim.call("rimworld/click_cell", **pawn["position"])
        assert click["selectionAfter"]["selectedObjects"][0]["id"] == pawn["pawnId"]
        x, z = pawn["position"]["x"], pawn["position"]["z"]
        drag = await sim.call("rimworld/drag_cell", fromX=x - 3, fromZ=z - 1, toX=x + 3, toZ=z + 1)
        assert drag["selectionAfter"]["selectedCount"] == 3
        assert drag["selectionBefore"]["selectedCount"] == 1


async def test_gizmos_draft_the_selection_and_stale_ids_are_refused(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = await _colonist(sim)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        gizmos = await sim.call("rimworld/list_selected_gizmos")
        draft = next(g for g in gizmos["gizmos"] if g["label"] == "Draft")
        assert draft["id"].startswith(f"selection-gizmo:{gizmos['selectionFingerprint']}:")
        pressed = await sim.call("rimworld/execute_gizmo", gizmoId=draft["id"])
        assert pressed["success"] is True
        assert (await _colonist(sim))["drafted"] is True
        await sim.call("rimworld/select_pawn", pawnId=(await _colonist(sim, 1))["pawnId"])
        stale = await sim.call("rimworld/execute_gizmo", gizmoId=draft["id"])
        assert (stale["success"], stale["code"]) == (False, "stale_id")


async def test_the_inspect_pane_and_inventory_describe_the_selected_colonist(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        none = await sim.call("rimworld/get_selected_pawn_inventory_state")
        assert none == {**none, "success": False, "error": "No single pawn is selected."}
        pawn = await _colonist(sim)
        await sim.call("rimworld/select_pawn", pawnName=pawn["name"])
        semantics = await sim.call("rimworld/get_selection_semantics")
        selected = semantics["selectedObjects"][0]
        assert (semantics["selectedKinds"], selected["id"]) == (["pawn"], pawn["pawnId"])
        assert selected["inspectStringLines"][0] == "Undrafted"
        assert "RimWorld.ITab_Pawn_Health" in selected["inspectTabTypes"]
        inventory = await sim.call("rimworld/get_selected_pawn_inventory_state")
        assert (inventory["pawnId"], inventory["carriedThing"]) == (pawn["pawnId"], None)
