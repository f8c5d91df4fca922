"""The Architect, zones and areas, and the map queries."""

from __future__ import annotations

from typing import Any

WALL = "architect-designator:structure:build-wall"
MINE = "architect-designator:orders:label-mine"
STOCKPILE = "architect-designator:zone:dropdown-label-stockpile-zone:label-stockpile-zone"
ALLOWED = "architect-designator:zone:label-expand-allowed-area"


async def _open_cell(sim: Any) -> dict[str, int]:
    pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]["position"]
    found = await sim.call(
        "rimworld/find_random_cell_near",
        x=pawn["x"],
        z=pawn["z"],
        startingSearchRadius=4,
        width=3,
        height=1,
        requireStandable=True,
        requireNoImpassableThings=True,
        designatorId=WALL,
    )
    assert found["success"] is True, found
    return found["cell"]


async def test_categories_and_designators_have_stable_ids_and_dropdowns_are_flattened(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        categories = await sim.call("rimworld/list_architect_categories")
        ids = [c["id"] for c in categories["categories"]]
        assert ids[:3] == [
            "architect-category:orders",
            "architect-category:zone",
            "architect-category:structure",
        ]
        assert "architect-category:power" not in ids  # empty unless asked for
        with_empty = await sim.call("rimworld/list_architect_categories", includeEmpty=True)
        assert "architect-category:power" in [c["id"] for c in with_empty["categories"]]
        zone = await sim.call("rimworld/list_architect_designators", categoryId="Zone")
        by_id = {d["id"]: d for d in zone["designators"]}
        dropdown = by_id["architect-designator:zone:dropdown-label-stockpile-zone"]
        assert (dropdown["kind"], dropdown["actionable"], dropdown["childCount"]) == (
            "dropdown",
            False,
            2,
        )
        assert by_id[STOCKPILE]["parentId"] == dropdown["id"]
        selected = await sim.call("rimworld/select_architect_designator", designatorId=WALL)
        assert selected["designatorState"]["selectedDesignatorId"] == WALL


async def test_a_wall_rectangle_is_designated_then_built_under_the_calls_operation(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        cell = await _open_cell(sim)
        dry = await sim.call(
            "rimworld/apply_architect_designator", designatorId=WALL, width=3, dryRun=True, **cell
        )
        assert (dry["acceptedCellCount"], dry["appliedCellCount"]) == (3, 0)
        info = await sim.call("rimworld/get_cell_info", **cell)
        assert info["cell"]["blueprintBuildDefs"] == []
        request_id = "12345678-1234-4234-8234-123456789abc"
        applied = await sim.call(
            "rimworld/apply_architect_designator",
            request_id=request_id,
            designatorId=WALL,
            width=3,
            keepSelected=False,
            **cell,
        )
        assert (applied["success"], applied["appliedCellCount"]) == (True, 3)
        assert applied["designatorState"]["hasSelection"] is False
        info = (await sim.call("rimworld/get_cell_info", **cell))["cell"]
        assert info["blueprintBuildDefs"] == ["Wall"]
        # the order is a blueprint thing on the cell, not a designation
        assert (info["designationCount"], info["designations"]) == (0, [])
        [blueprint] = [t for t in info["things"] if t["isBlueprint"]]
        assert (blueprint["defName"], blueprint["className"]) == (
            "Blueprint_Wall",
            "RimWorld.Blueprint_Build",
        )
        assert info["thingCount"] == len(info["things"])
        await sim.call("rimworld/step_game_ticks", ticks=3000)
        built = await sim.call("rimworld/get_cell_info", **cell)
        assert "Wall" in built["cell"]["solidThingDefs"]
        logs = await sim.call("rimbridge/list_logs", rootOperationId=request_id, limit=100)
        assert any("built Wall" in e["Message"] for e in logs["logs"])


async def test_cells_a_designator_cannot_take_are_rejected_with_the_reason(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        result = await sim.call(
            "rimworld/apply_architect_designator", designatorId=MINE, x=48, z=0, width=4
        )
        reasons = {(c["x"], c["z"]): c["reason"] for c in result["rejectedCells"]}
        assert reasons[(50, 0)] == "Cell is out of bounds."
        assert result["requestedCellCount"] == 4
        unknown = await sim.call(
            "rimworld/apply_architect_designator", designatorId="architect-designator:x:y", x=1, z=1
        )
        assert unknown["success"] is False
        assert (
            unknown["message"] == "Could not find architect designator 'architect-designator:x:y'."
        )


async def test_god_mode_builds_at_once(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        cell = await _open_cell(sim)
        mode = await sim.call("rimworld/set_god_mode", enabled=True)
        assert (mode["changed"], mode["godMode"]) == (True, True)
        await sim.call("rimworld/apply_architect_designator", designatorId=WALL, **cell)
        info = await sim.call("rimworld/get_cell_info", **cell)
        assert "Wall" in info["cell"]["solidThingDefs"]


async def test_stockpiles_grow_into_a_targeted_zone_and_can_be_deleted(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        cell = await _open_cell(sim)
        await sim.call("rimworld/apply_architect_designator", designatorId=STOCKPILE, **cell)
        zones = (await sim.call("rimworld/list_zones"))["zones"]
        assert [(z["label"], z["cellCount"]) for z in zones] == [("Stockpile zone 1", 1)]
        target = await sim.call(
            "rimworld/set_zone_target", designatorId=STOCKPILE, zoneId=zones[0]["id"]
        )
        assert target["zone"]["id"] == zones[0]["id"]
        await sim.call(
            "rimworld/apply_architect_designator",
            designatorId=STOCKPILE,
            x=cell["x"] + 1,
            z=cell["z"],
            width=2,
        )
        zones = (await sim.call("rimworld/list_zones"))["zones"]
        assert [(z["id"], z["cellCount"]) for z in zones] == [(target["zone"]["id"], 3)]
        info = await sim.call("rimworld/get_cell_info", **cell)
        assert info["cell"]["zone"]["id"] == zones[0]["id"]
        deleted = await sim.call("rimworld/delete_zone", zoneId=zones[0]["id"])
        assert deleted["deletedZone"]["cellCount"] == 3
        assert (await sim.call("rimworld/list_zones"))["count"] == 0


async def test_allowed_areas_are_created_grown_cleared_and_deleted(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        areas = await sim.call("rimworld/list_areas")
        assert "Home" in [a["label"] for a in areas["areas"]]
        no_target = await sim.call(
            "rimworld/apply_architect_designator", designatorId=ALLOWED, x=1, z=1
        )
        assert "No allowed area is selected" in no_target["rejectedCells"][0]["reason"]
        created = await sim.call("rimworld/create_allowed_area", label="Kitchen")
        area_id = created["area"]["id"]
        assert created["selectedAllowedArea"]["id"] == area_id
        await sim.call(
            "rimworld/apply_architect_designator", designatorId=ALLOWED, x=1, z=1, width=2, height=2
        )
        listed = {a["id"]: a for a in (await sim.call("rimworld/list_areas"))["areas"]}
        assert listed[area_id]["cellCount"] == 4
        cleared = await sim.call("rimworld/clear_area", areaId=area_id)
        assert cleared["area"]["cellCount"] == 0
        home = next(a for a in listed.values() if a["label"] == "Home")
        refused = await sim.call("rimworld/delete_area", areaId=home["id"])
        assert (refused["success"], refused["code"]) == (False, "refused")
        deleted = await sim.call("rimworld/delete_area", areaId=area_id)
        assert deleted["selectedAllowedArea"] is None


async def test_map_queries_describe_cells_targets_and_contiguous_ground(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        rect = await sim.call("rimworld/get_cells_info", x=0, z=0, width=4, height=3)
        assert (rect["cellCount"], rect["rect"]) == (12, {"x": 0, "z": 0, "width": 4, "height": 3})
        too_big = await sim.call("rimworld/get_cells_info", x=0, z=0, width=40, height=40)
        assert too_big["success"] is False
        target = await sim.call("rimworld/get_map_target_info", pawnName=pawn["name"])
        assert (target["kind"], target["position"]) == ("pawn", pawn["position"])
        both = await sim.call("rimworld/get_map_target_info")
        assert both["message"] == "Provide either thingId or pawnName/pawnId."
        fill = await sim.call(
            "rimworld/flood_fill_cells",
            maxCellsToProcess=50,
            requireWalkable=True,
            reachablePawnName=pawn["name"],
            **pawn["position"],
        )
        assert (fill["success"], fill["visitedCellCount"], fill["hitCellProcessingLimit"]) == (
            True,
            50,
            True,
        )
        assert fill["criteria"]["reachablePawnName"] == pawn["name"]
