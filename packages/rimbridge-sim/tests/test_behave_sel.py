"""Selection, camera zoom, time and lifecycle tools refuse, default and change the game as the
mod's code does."""

from __future__ import annotations

from typing import Any

import pytest

from gabp import RemoteError


async def test_start_debug_game_in_a_running_game_says_it_only_starts_from_the_main_menu(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        refused = await sim.call("rimworld/start_debug_game")
        assert refused["success"] is False
        assert refused["message"] == (
            "Debug game start is only supported from the main menu entry scene."
        )


async def test_clearing_the_selection_or_reading_the_inventory_at_the_main_menu_throws(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        for tool in ("rimworld/clear_selection", "rimworld/get_selected_pawn_inventory_state"):
            with pytest.raises(RemoteError) as caught:
                await sim.call(tool)
            assert (caught.value.code, caught.value.data["code"]) == (-32000, "no_game"), tool


async def test_pawn_lookups_name_where_they_looked_as_the_mod_does(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        for tool in ("rimworld/select_pawn", "rimworld/set_draft"):
            by_name = await sim.call(tool, pawnName="Nobody")
            assert by_name["message"] == "Could not find player-controlled colonist 'Nobody'."
            by_id = await sim.call(tool, pawnId=" Thing_Nope ")
            assert (
                by_id["message"] == "Could not find player-controlled colonist id ' Thing_Nope '."
            )
        unselected = await sim.call("rimworld/deselect_pawn", pawnName="Nobody")
        assert unselected["message"] == "Could not find selected pawn 'Nobody'."
        with pytest.raises(RemoteError) as blank:
            await sim.call("rimworld/deselect_pawn")
        assert blank.value.message.endswith(": A selected pawn name or id is required.")
        jump = await sim.call("rimworld/jump_camera_to_pawn", pawnId="Thing_Nope")
        assert jump["message"] == "Could not find current-map pawn id 'Thing_Nope'."


async def test_setting_the_speed_to_paused_leaves_the_speed_unpausing_returns_to(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/set_time_speed", speed="Superfast")
        await sim.call("rimworld/pause_game", pause=True)
        resumed = await sim.call("rimworld/pause_game", pause=False)
        assert (resumed["paused"], resumed["message"]) == (False, "Game unpaused")
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == "Superfast"
        await sim.call("rimworld/set_time_speed", speed="Fast")
        paused = await sim.call("rimworld/set_time_speed", speed="Paused")
        assert (paused["timeSpeed"], paused["paused"]) == ("Paused", True)
        await sim.call("rimworld/pause_game", pause=False)
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == "Superfast"


async def test_select_and_draft_at_the_main_menu_throw_the_colonist_lookup_text(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        for tool in ("rimworld/select_pawn", "rimworld/set_draft"):
            for arguments, text, code in (
                (
                    {"pawnName": "Flint"},
                    "Could not find player-controlled colonist 'Flint'.",
                    "no_game",
                ),
                (
                    {"pawnId": "Thing_Human1"},
                    "Could not find player-controlled colonist id 'Thing_Human1'.",
                    "no_game",
                ),
                ({}, "A player-controlled colonist name or id is required.", "invalid_argument"),
            ):
                with pytest.raises(RemoteError) as caught:
                    await sim.call(tool, **arguments)
                assert caught.value.message == f"{tool} failed: {text}"
                assert caught.value.data["code"] == code


async def test_load_game_ready_during_a_long_event_loads_once_the_event_ends(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/save_game", saveName="before")
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimworld/start_debug_game")
        assert (await sim.call("rimworld/get_game_info"))["phase"] == "loading"
        loaded = await sim.call("rimworld/load_game_ready", saveName="before", timeoutMs=5000)
        assert loaded["success"] is True, loaded["message"]
        assert (loaded["saveName"], loaded["load"]["status"]) == ("before", "queued")
        missing = await sim.call("rimworld/load_game_ready", saveName="nowhere")
        assert missing == {
            "success": False,
            "message": "Save 'nowhere' does not exist.",
            "path": missing["path"],
            "code": "unknown_id",
            "operation": missing["operation"],
        }
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimworld/start_debug_game")
        late = await sim.call("rimworld/load_game_ready", saveName="before", timeoutMs=0)
        assert late["success"] is False
        assert late["message"] == (
            "Timed out waiting for RimWorld main thread before queueing save load."
        )
        assert (late["saveName"], late["queue"]["success"]) == ("before", False)
