"""Starting, waiting for, saving, loading and leaving games; time control."""

from __future__ import annotations

from typing import Any

import pytest

from gabp import RemoteError


async def test_a_debug_game_started_ready_from_the_main_menu_is_visual_and_paused(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        result = await sim.call(
            "rimworld/start_debug_game_ready", readiness="visual", pauseIfNeeded=True
        )
        assert (result["success"], result["entry"]["success"], result["start"]["status"]) == (
            True,
            True,
            "queued",
        )
        state = result["state"]
        assert (state["programState"], state["visualReady"], state["paused"]) == (
            "Playing",
            True,
            True,
        )
        assert result["wait"]["targetReadiness"] == "visual"
        assert result["wait"]["attempts"] > 1  # it waited for the map and for the fade
        colonists = await sim.call("rimworld/list_colonists")
        assert colonists["count"] == 3


async def test_readiness_levels_are_reached_in_order(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        queued = await sim.call("rimworld/start_debug_game")
        assert (queued["success"], queued["state"]["longEventPending"]) == (True, True)
        game_data = await sim.call("rimbridge/wait_for_game_loaded", readiness="gameData")
        state = game_data["state"]
        assert (state["gameDataReady"], state["mapDataReady"]) == (True, False)
        playable = await sim.call("rimbridge/wait_for_game_loaded", targetReadiness="playable")
        assert (playable["state"]["playable"], playable["state"]["screenFading"]) == (True, True)
        visual = await sim.call(
            "rimbridge/wait_for_game_loaded", readiness="gameData", waitForVisualReady=True
        )
        assert (visual["targetReadiness"], visual["state"]["visualReady"]) == ("visual", True)


async def test_a_debug_game_cannot_start_over_a_loaded_one(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        refused = await sim.call("rimworld/start_debug_game")
        assert refused["success"] is False
        assert "only supported from the main menu" in refused["message"]
        ready = await sim.call("rimworld/start_debug_game_ready", timeoutMs=200)
        assert ready["success"] is False
        assert ready["entry"]["blockingReason"] == "A game is already loaded."


async def test_the_main_menu_is_queued_once_and_a_no_op_after(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        first = await sim.call("rimworld/go_to_main_menu")
        second = await sim.call("rimworld/go_to_main_menu")
        assert (first["status"], second["status"]) == ("queued", "noop")
        assert second["state"]["inEntryScene"] is True


async def test_saves_keep_non_ascii_names_and_load_ready_by_save_name(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = (await sim.call("rimworld/get_game_info"))["mapId"]
        saved = await sim.call("rimworld/save_game", saveName="Kolonie Ärger")
        assert (saved["success"], saved["saveName"], saved["exists"]) == (
            True,
            "Kolonie Ärger",
            True,
        )
        assert saved["path"].endswith("Saves/Kolonie Ärger.rws")
        listed = await sim.call("rimworld/list_saves")
        assert [s["name"] for s in listed["saves"]] == ["Kolonie Ärger"]
        loaded = await sim.call(
            "rimworld/load_game_ready", saveName="Kolonie Ärger", readiness="playable"
        )
        assert (loaded["success"], loaded["load"]["status"]) == (True, "queued")
        assert loaded["state"]["currentMapId"] != before
        logs = await sim.call("rimbridge/list_logs", minimumLevel="info", limit=20)
        assert "Game loaded: Kolonie Ärger" in [e["Message"] for e in logs["logs"]]
        missing = await sim.call("rimworld/load_game", saveName="nope")
        assert (missing["success"], missing["message"]) == (False, "Save 'nope' does not exist.")


async def test_saving_without_a_game_is_a_payload_failure(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        result = await sim.call("rimworld/save_game", saveName="x")
        assert (result["success"], result["code"]) == (False, "no_game")


async def test_pause_speed_and_stepping_drive_game_time(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        fast = await sim.call("rimworld/set_time_speed", speed="Fast")
        assert (fast["timeSpeed"], fast["paused"]) == ("Fast", False)
        paused = await sim.call("rimworld/pause_game", pause=True)
        assert paused == {**paused, "success": True, "paused": True, "message": "Game paused"}
        resumed = await sim.call("rimworld/pause_game", pause=False)
        assert resumed["paused"] is False
        assert (await sim.call("rimworld/get_game_info"))["timeSpeed"] == "Fast"
        step = await sim.call("rimworld/step_game_ticks", ticks=30)
        assert (step["status"], step["advancedTicks"], step["advancedFrames"]) == (
            "completed",
            30,
            30,
        )
        assert step["state"]["paused"] is True
        with pytest.raises(RemoteError, match=r"\$\.speed"):
            await sim.call("rimworld/set_time_speed", speed="fast")


async def test_play_for_runs_at_the_speed_then_pauses(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        played = await sim.call("rimworld/play_for", durationMs=500, speed="Fast")
        assert (played["success"], played["paused"], played["initiallyPaused"]) == (
            True,
            True,
            True,
        )
        assert played["advancedTicks"] == 30 * 3  # 30 frames at 3 ticks per frame
        refused = await sim.call("rimworld/play_for", durationMs=0)
        assert refused["success"] is False


async def test_waiting_for_the_long_event_to_end(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/save_game", saveName="s")
        await sim.call("rimworld/load_game", saveName="s")
        idle = await sim.call("rimbridge/wait_for_long_event_idle")
        assert (idle["success"], idle["state"]["longEventPending"]) == (True, False)
