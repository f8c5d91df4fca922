"""RimWorld's pause: ``TickManager.Paused`` is true while the chosen speed is Paused or an
open window has ``forcePause``; the mod reads that flag and toggles it (``TogglePaused``)."""

from __future__ import annotations

from typing import Any

from rimbridge_sim.world import TimeSpeed, World


def playing() -> World:
    world = World(7)
    world.start_debug_game(seed=7, map_size=(30, 30), colonists=1)
    world.set_time_speed(TimeSpeed.NORMAL)
    return world


def test_a_force_pausing_window_stops_the_clock_and_reads_as_paused() -> None:
    world = playing()
    tick = world.get_game_info().tick
    window = world.windows.open("Verse.Dialog_MessageBox", "Letter", force_pause=True)
    assert world.advance_realtime(5).ticks == 0
    info = world.get_game_info()
    assert info.tick == tick and info.paused is True and info.time_speed == 1
    assert world.state_snapshot()["paused"] is True
    world.windows.close(window)
    assert world.advance_realtime(5).ticks == 5
    assert world.get_game_info().paused is False


def test_unpausing_under_a_forced_pause_toggles_the_speed_to_paused() -> None:
    world = playing()
    world.windows.open("Verse.Dialog_MessageBox", "Letter", force_pause=True)
    info = world.pause(False)
    assert info.paused is True and info.time_speed == int(TimeSpeed.PAUSED)


async def test_the_mod_settings_dialog_forces_a_pause_the_tools_report(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/set_time_speed", speed="Normal")
        await sim.call("rimworld/open_mod_settings", modId="Tidy Stockpiles")
        ui = await sim.call("rimworld/get_ui_state")
        assert ui["windowsForcePause"] is True and ui["anyWindowAbsorbingAllInput"] is True
        unpaused = await sim.call("rimworld/pause_game", pause=False)
        assert unpaused["paused"] is True
        await sim.call("rimworld/set_time_speed", speed="Normal")
        info = await sim.call("rimworld/get_game_info")
        assert (info["timeSpeed"], info["paused"]) == ("Normal", True)


async def test_playing_under_a_forced_pause_ends_as_paused_externally(open_sim: Any) -> None:
    async with open_sim(tick_rate=240.0) as sim:
        await sim.call("rimworld/open_mod_settings", modId="Tidy Stockpiles")
        played = await sim.call("rimworld/play_for", durationMs=100)
        assert played["success"] is False and played["advancedTicks"] == 0
        assert played["message"].startswith("Game was paused externally")


async def test_stepping_under_a_forced_pause_still_runs_the_ticks(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/set_time_speed", speed="Fast")
        await sim.call("rimworld/open_mod_settings", modId="Tidy Stockpiles")
        stepped = await sim.call("rimworld/step_game_ticks", ticks=2)
        assert (stepped["success"], stepped["initialTimeSpeed"]) == (True, "Paused")
        assert stepped["advancedTicks"] == 2
