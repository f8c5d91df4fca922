"""Small details of the mod's answers the sim matches: the map-click tools' text without a
game, the Lua reference's pitfall entries, the main tabs' rects, the job-logging hint, the
Architect refusals' codes and the cell-rectangle limit of rimworld/get_cells_info."""

from __future__ import annotations

from typing import Any


async def test_the_map_click_tools_without_a_game_answer_with_the_mods_text(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("rimworld/open_context_menu", {"x": 1, "z": 1}),
            ("rimworld/right_click_cell", {"x": 1, "z": 1}),
            ("rimworld/click_cell", {"x": 1, "z": 1}),
            ("rimworld/drag_cell", {"fromX": 1, "fromZ": 1, "toX": 2, "toZ": 2}),
        ]
        for tool, arguments in calls:
            result = await sim.call(tool, **arguments)
            answer = (result["success"], result["message"], result["code"])
            assert answer == (False, "No game is currently loaded.", "no_game"), tool


async def test_the_lua_pitfalls_say_why_they_fail_and_the_preferred_form(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        reference = await sim.call("rimbridge/get_lua_reference")
        pitfalls = reference["commonPitfalls"]
        assert pitfalls
        for pitfall in pitfalls:
            assert set(pitfall) == {"pattern", "whyItFails", "preferredForm"}, pitfall
        for pitfall in pitfalls:
            # the preferred form compiles where the pattern does not
            form = pitfall["preferredForm"]
            if form.startswith("local"):
                compiled = await sim.call("rimbridge/compile_lua", luaSource=form)
                assert compiled["success"] is True, form


async def test_listed_main_tabs_carry_the_open_windows_rect_or_zeros(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        zeros = {"x": 0, "y": 0, "width": 0, "height": 0}
        closed = await sim.call("rimworld/list_main_tabs")
        assert closed["tabs"]
        assert all(tab["rect"] == zeros for tab in closed["tabs"])
        await sim.call("rimworld/open_main_tab", mainTabId="Research")
        listed = await sim.call("rimworld/list_main_tabs")
        state = await sim.call("rimworld/get_ui_state")
        window = next(w for w in state["windows"] if w["type"].endswith("_Research"))
        for tab in listed["tabs"]:
            expected = window["rect"] if tab["defName"] == "Research" else zeros
            assert tab["rect"] == expected, tab["defName"]
        assert window["rect"] != zeros


async def test_job_logging_hints_with_the_mods_consume_logs_keys(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        on = await sim.call("rimworld/set_colonist_job_logging", pawnName=pawn["name"])
        consume = on["consumeLogs"]
        keys = {"tool", "recommendedArguments", "expectedBehavior", "usageHint"}
        assert set(consume) == keys
        assert consume["recommendedArguments"] == {
            "afterSequence": on["logCursor"],
            "minimumLevel": "info",
            "limit": 200,
        }
        assert "written to the bridge log" in consume["expectedBehavior"]
        off = await sim.call(
            "rimworld/set_colonist_job_logging", pawnName=pawn["name"], enabled=False
        )
        assert "no longer logged" in off["consumeLogs"]["expectedBehavior"]
        assert off["consumeLogs"]["usageHint"] != consume["usageHint"]


async def test_every_architect_refusal_carries_a_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        apply = "rimworld/apply_architect_designator"
        calls: list[tuple[str, dict[str, Any], str]] = [
            ("rimworld/list_architect_designators", {"categoryId": "nope"}, "unknown_id"),
            ("rimworld/select_architect_designator", {"designatorId": "nope"}, "unknown_id"),
            (apply, {"designatorId": "nope", "x": 1, "z": 1}, "unknown_id"),
            (apply, {"designatorId": "nope", "x": 1, "z": 1, "width": 0}, "refused"),
            (
                apply,
                {"designatorId": "nope", "x": 1, "z": 1, "width": 101, "height": 100},
                "refused",
            ),
        ]
        for tool, arguments, code in calls:
            refused = await sim.call(tool, **arguments)
            assert (refused["success"], refused["code"]) == (False, code), arguments
            assert {"message", "devModeEnabled", "godMode", "state"} <= refused.keys()


async def test_get_cells_info_refuses_more_than_1024_cells_with_the_mods_text(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        fits = await sim.call("rimworld/get_cells_info", x=0, z=0, width=32, height=32)
        assert (fits["success"], fits["cellCount"]) == (True, 1024)
        refused = await sim.call("rimworld/get_cells_info", x=0, z=0, width=33, height=32)
        assert (refused["success"], refused["code"]) == (False, "refused")
        assert refused["message"] == (
            "Requested rectangle contains 1056 cells, which exceeds the limit of 1024."
        )
