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
