"""Inputs at the edges, answered as the mod answers them: cell searches whose footprint or
radius is far larger than the map, the flood fill's limit, the bounds of a settings tree, a
pawn named by its thing id."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from gabp import RemoteError
from rimbridge_sim.world import World, _cell_search
from rimbridge_sim.world._cell_search import Criteria
from rimbridge_sim.world._pathing import find_path, reachable_from
from rimbridge_sim.world.errors import argument_out_of_range
from rimbridge_sim.world.model import Cell

TIDY = "sim.tidystockpiles"
WALL = "architect-designator:structure:build-wall"


async def test_cell_searches_answer_quickly_whatever_the_footprint_or_radius(
    open_sim: Any,
) -> None:
    # The mod's footprint check stops at the first cell off the map and its search looks
    # only at cells on the map: none of these may hold the main loop.
    calls: list[tuple[str, dict[str, Any]]] = [
        (
            "rimworld/find_random_cell_near",
            {"x": 25, "z": 25, "width": 100000, "height": 100000, "maxSearchRadius": 5},
        ),
        (
            "rimworld/find_random_cell_near",
            {"x": 25, "z": 25, "width": 60, "maxSearchRadius": 3000},
        ),
        (
            "rimworld/find_random_cell_near",
            {"x": 25, "z": 25, "width": 60, "requireWalkable": True, "maxSearchRadius": 10**9},
        ),
        (
            "rimworld/flood_fill_cells",
            {"x": 25, "z": 25, "width": 100000, "height": 100000, "maxCellsToProcess": 10**6},
        ),
        (
            "rimworld/flood_fill_cells",
            {"x": 0, "z": 0, "footprintAnchor": "center", "width": 100000, "height": 3},
        ),
    ]
    async with open_sim(tick_rate=0) as sim:
        for tool, arguments in calls:
            started = time.monotonic()
            answer = await sim.call(tool, **arguments)
            assert time.monotonic() - started < 3, (tool, arguments)
            assert answer["success"] is False, answer
        pong = await sim.call("rimbridge/ping")
        assert pong["message"] == "pong"


def test_a_footprint_is_walked_one_cell_at_a_time() -> None:
    huge = Criteria(width=10**9, height=10**9)
    cells = huge.cells(Cell(3, 4))
    assert [next(cells), next(cells)] == [Cell(3, 4), Cell(4, 4)]
    assert huge.inside(Cell(0, 0), 50, 50) is False
    centred = Criteria(width=3, height=3, anchor="center")
    assert centred.inside(Cell(1, 1), 50, 50) is True
    assert centred.inside(Cell(0, 1), 50, 50) is False


def test_the_reachable_set_is_what_find_path_reaches() -> None:
    # the searches ask once for every cell a pawn can reach instead of one path per cell
    rng = random.Random(7)
    width, height = 12, 9
    blocked = {Cell(rng.randrange(width), rng.randrange(height)) for _ in range(40)}

    def passable(cell: Cell) -> bool:
        return cell not in blocked

    start = next(Cell(x, z) for z in range(height) for x in range(width) if passable(Cell(x, z)))
    reachable = reachable_from(start, passable, width, height)
    for z in range(height):
        for x in range(width):
            cell = Cell(x, z)
            path = find_path(start, [cell], passable, width, height)
            assert (path is not None) == (cell in reachable), cell


@pytest.mark.parametrize(
    "options",
    [
        {"width": 9, "height": 8, "standable": True},
        {"width": 13, "height": 5, "walkable": True, "not_fogged": True, "anchor": "center"},
        {"width": 8, "height": 9, "no_impassable_things": True, "designator_id": WALL},
    ],
)
def test_a_large_footprint_is_judged_as_cell_by_cell(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    # a footprint of more than _WALK_LIMIT cells is counted from a table over the map; the
    # answer must be the one the walk over its cells gives
    world = World(7, log=lambda record: None)
    world.start_debug_game(seed=7, map_size=(40, 40), colonists=3)
    request: dict[str, Any] = {
        "anchor": "top_left",
        "walkable": False,
        "standable": False,
        "not_fogged": False,
        "no_impassable_things": False,
        "pawn_name": None,
        "pawn_id": None,
        "designator_id": None,
        **options,
    }
    criteria = world.cell_search.criteria(**request)
    assert criteria.width * criteria.height > _cell_search._WALK_LIMIT
    anchors = [Cell(x, z) for z in range(-2, 42) for x in range(-2, 42)]
    counted = world.cell_search.probe(criteria)
    by_table = [counted.satisfies(anchor) for anchor in anchors]
    monkeypatch.setattr(_cell_search, "_WALK_LIMIT", 10**9)
    walked = world.cell_search.probe(criteria)
    assert by_table == [walked.satisfies(anchor) for anchor in anchors]
    assert True in by_table and False in by_table


async def test_flood_fill_echoes_the_requested_processing_limit(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        fill = await sim.call(
            "rimworld/flood_fill_cells", x=25, z=25, maxCellsToProcess=1000000, maxReturnedCells=0
        )
        assert fill["maxCellsToProcess"] == 1000000
        # the whole 50x50 map, well short of the limit
        assert (fill["visitedCellCount"], fill["hitCellProcessingLimit"]) == (2500, False)


@pytest.mark.parametrize(
    ("bounds", "parameter"),
    [
        ({"maxDepth": -1, "maxCollectionEntries": 0}, "MaxDepth"),  # the depth first
        ({"maxCollectionEntries": 0}, "MaxCollectionEntries"),
        ({"maxCollectionEntries": -4}, "MaxCollectionEntries"),
    ],
)
@pytest.mark.parametrize(
    "tool",
    ["rimworld/get_mod_settings", "rimworld/update_mod_settings", "rimworld/reload_mod_settings"],
)
async def test_settings_tools_fail_on_out_of_range_tree_bounds(
    open_sim: Any, tool: str, bounds: dict[str, int], parameter: str
) -> None:
    # SemanticValueGraph throws ArgumentOutOfRangeException(nameof(options.<bound>)); the
    # settings tools do not catch it, so the call fails
    extra = {"values": {"fillPercent": 50}} if tool.endswith("update_mod_settings") else {}
    async with open_sim(tick_rate=0) as sim:
        with pytest.raises(RemoteError) as caught:
            await sim.call(tool, modId=TIDY, **extra, **bounds)
        error = caught.value
        assert (error.code, error.message) == (
            -32000,
            f"{tool} failed: {argument_out_of_range(parameter)}",
        )
        assert (error.data["code"], error.data["exception"]) == (
            "invalid_argument",
            "InvalidArgumentError",
        )


async def test_out_of_range_tree_bounds_change_no_settings(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        path = sim.bridge.data_dir / "Config"
        with pytest.raises(RemoteError):
            await sim.call(
                "rimworld/update_mod_settings", modId=TIDY, values={"fillPercent": 50}, maxDepth=-1
            )
        assert not list(path.glob("Mod_sim.tidystockpiles_*.xml"))  # nothing written
        unsaved = await sim.call(
            "rimworld/update_mod_settings", modId=TIDY, values={"fillPercent": 40}, write=False
        )
        assert unsaved["changed"] is True
        with pytest.raises(RemoteError):
            await sim.call("rimworld/reload_mod_settings", modId=TIDY, maxCollectionEntries=0)
        read = await sim.call("rimworld/get_mod_settings", modId=TIDY, maxDepth=1)
        fill = next(n for n in read["root"]["children"] if n["name"] == "fillPercent")
        assert fill["value"] == 40  # neither the refused update nor the refused reload ran
        await sim.call("rimworld/update_mod_settings", modId=TIDY, values={"fillPercent": 30})
        assert len(list(path.glob("Mod_sim.tidystockpiles_*.xml"))) == 1  # where a write goes


@pytest.mark.parametrize(
    "tool",
    ["rimworld/get_mod_settings", "rimworld/update_mod_settings", "rimworld/reload_mod_settings"],
)
async def test_top_level_setting_count_is_the_roots_children(open_sim: Any, tool: str) -> None:
    extra = {"values": {"fillPercent": 50}, "write": False} if "update" in tool else {}
    async with open_sim(tick_rate=0) as sim:
        cut = await sim.call(tool, modId=TIDY, maxDepth=0, **extra)
        assert cut["success"] is True
        assert (cut["root"]["truncated"], cut["root"]["children"]) == (True, [])
        assert cut["topLevelSettingCount"] == 0
        full = await sim.call(tool, modId=TIDY, maxDepth=1, **extra)
        assert full["topLevelSettingCount"] == len(full["root"]["children"]) > 0


async def test_map_target_info_resolves_a_pawn_by_its_thing_id(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        colonist = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        by_pawn = await sim.call("rimworld/get_map_target_info", pawnId=colonist["pawnId"])
        by_thing = await sim.call("rimworld/get_map_target_info", thingId=f" {colonist['pawnId']} ")
        assert by_thing["success"] is True
        assert (by_thing["kind"], by_thing["pawnId"], by_thing["thingId"]) == (
            "pawn",
            colonist["pawnId"],
            colonist["pawnId"],
        )
        assert {k: v for k, v in by_thing.items() if k != "operation"} == {
            k: v for k, v in by_pawn.items() if k != "operation"
        }
