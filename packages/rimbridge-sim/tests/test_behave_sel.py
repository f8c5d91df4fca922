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
