"""Selection, camera, map, architect, time and lifecycle tools do what the mod's code does:
the same refusals and messages, the same clamping and the same side effects."""

from __future__ import annotations

import os
from typing import Any

import anyio
import pytest

from gabp import RemoteError


async def test_moving_the_camera_by_nothing_after_framing_keeps_it_on_the_same_cell(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        framed = await sim.call(
            "rimworld/frame_cell_rect", x=10, z=10, width=10, height=10, rootSize=30
        )
        assert framed["camera"]["mapPosition"] == {"x": 15, "z": 15}
        moved = await sim.call("rimworld/move_camera", deltaX=0, deltaZ=0)
        assert moved["cell"] == {"x": 15, "z": 15}
        assert moved["camera"]["mapPosition"] == {"x": 15, "z": 15}
        nudged = await sim.call("rimworld/move_camera", deltaX=0.6, deltaZ=-0.6)
        assert nudged["cell"] == {"x": 16, "z": 14}


async def test_an_explicit_frame_size_is_held_to_the_zoom_range_the_mod_configures(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        wide = await sim.call("rimworld/frame_cell_rect", x=10, z=10, rootSize=120)
        assert (wide["appliedRootSize"], wide["camera"]["rootSize"]) == (100.0, 100.0)
        close = await sim.call("rimworld/frame_cell_rect", x=10, z=10, rootSize=3)
        assert (close["appliedRootSize"], close["fullyVisible"]) == (3.0, False)
        assert close["requestedRootSize"] == 3.0


async def test_stepping_ticks_without_a_game_answers_with_a_failed_step(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        refused = await sim.call("rimworld/step_game_ticks", ticks=5)
        assert refused["success"] is False
        assert refused["message"] == "No playable game is currently loaded."
        assert (refused["status"], refused["stepId"], refused["requestedTicks"]) == (
            "failed",
            None,
            0,
        )
        assert (refused["startTicksGame"], refused["endTicksGame"]) == (0, 0)


async def test_stepping_checks_its_arguments_before_looking_for_a_game(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        refused = await sim.call("rimworld/step_game_ticks", ticks=0)
        assert refused["message"] == "ticks must be greater than 0."
        negative = await sim.call("rimworld/step_game_ticks", timeoutMs=-1)
        assert negative["message"] == "timeoutMs cannot be negative."


async def test_stepping_a_running_game_without_pause_first_is_a_failed_step(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/step_game_ticks", ticks=4)
        await sim.call("rimworld/set_time_speed", speed="Fast")
        refused = await sim.call("rimworld/step_game_ticks", ticks=2, pauseFirst=False)
        assert refused["success"] is False
        assert refused["message"] == (
            "RimWorld must be paused before deterministic tick stepping. Pass pauseFirst=true "
            "or pause the game first."
        )
        assert (refused["status"], refused["startTicksGame"], refused["endTicksGame"]) == (
            "failed",
            4,
            4,
        )
        assert refused["state"]["timeSpeed"] == "Fast"


async def test_a_step_reports_the_paused_speed_it_ran_at_and_the_frames_it_took(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        await sim.call("rimworld/set_time_speed", speed="Superfast")
        stepped = await sim.call("rimworld/step_game_ticks", ticks=3)
        assert stepped["initialTimeSpeed"] == "Paused"
        assert stepped["message"] == "Advanced 3 game tick(s) across 3 Unity update frame(s)."


async def test_playing_without_a_game_answers_every_field_and_says_where_the_game_is(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        refused = await sim.call("rimworld/play_for", durationMs=50, speed="Fast")
        assert refused["success"] is False
        assert refused["message"] == "RimWorld returned to the main menu."
        assert (refused["timeSpeed"], refused["attempts"], refused["elapsedMs"]) == ("Fast", 0, 0)
        assert (refused["startTick"], refused["endTick"], refused["advancedTicks"]) == (0, 0, 0)
        assert (refused["finalTimeSpeed"], refused["paused"]) == (None, False)


async def test_playing_says_the_game_played_and_is_now_paused(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        played = await sim.call("rimworld/play_for", durationMs=100)
        assert played["success"] is True
        assert played["message"] == "Game played for 100ms and is now paused."


async def test_a_pause_from_elsewhere_ends_play_early_and_is_reported(open_sim: Any) -> None:
    async with open_sim(tick_rate=240.0) as sim:
        answers: dict[str, Any] = {}

        async def play() -> None:
            answers["play"] = await sim.call("rimworld/play_for", durationMs=3000)

        async with anyio.create_task_group() as group:
            group.start_soon(play)
            await anyio.sleep(0.3)
            await sim.call("rimworld/pause_game", pause=True)
        played = answers["play"]
        assert played["success"] is False
        assert played["message"].startswith("Game was paused externally after ")
        assert played["message"].endswith("ms, before the requested 3000ms elapsed.")
        assert played["elapsedMs"] < 2500


async def test_a_downed_colonist_can_be_drafted_as_the_games_draft_setter_allows(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        pawn = (await sim.call("rimworld/list_colonists"))["colonists"][0]
        await sim.call(
            "rimworld/execute_debug_action", path="Actions/Pawns/Down", pawnName=pawn["name"]
        )
        await sim.call("rimworld/step_game_ticks", ticks=2)
        drafted = await sim.call("rimworld/set_draft", pawnId=pawn["pawnId"], drafted=True)
        assert (drafted["success"], drafted["drafted"]) == (True, True)
        assert drafted["pawnInfo"]["downed"] is True
        await sim.call("rimworld/step_game_ticks", ticks=5)
        after = (await sim.call("rimworld/list_colonists"))["colonists"]
        assert next(p for p in after if p["pawnId"] == pawn["pawnId"])["drafted"] is True


async def test_a_wait_with_a_negative_timeout_or_poll_interval_throws(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        with pytest.raises(RemoteError) as timeout:
            await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=-1)
        # ArgumentOutOfRangeException's message as RimWorld's Mono writes it (checked with
        # Mono 6.8), not .NET Core's one-line "... values. (Parameter 'TimeoutMs')"
        range_text = "Specified argument was out of the range of valid values."
        assert timeout.value.message == (
            f"rimbridge/wait_for_game_loaded failed: {range_text}{os.linesep}"
            "Parameter name: TimeoutMs"
        )
        with pytest.raises(RemoteError) as poll:
            await sim.call("rimbridge/wait_for_long_event_idle", pollIntervalMs=-1)
        assert poll.value.message == (
            f"rimbridge/wait_for_long_event_idle failed: {range_text}{os.linesep}"
            "Parameter name: PollIntervalMs"
        )


async def test_a_timed_out_wait_says_only_what_it_waited_for(open_sim: Any) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        waited = await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=20)
        assert waited["satisfied"] is False
        assert waited["message"] == "Timed out waiting for RimWorld readiness 'mapData'."
        assert waited["blockingReason"] == "No current game is loaded."


async def test_waiting_for_the_entry_scene_during_generation_names_the_program_state(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        await sim.call("rimworld/start_debug_game")
        ready = await sim.call("rimworld/start_debug_game_ready", timeoutMs=0)
        assert ready["entry"]["blockingReason"] == (
            "RimWorld programState is MapInitializing, not Entry."
        )
        idle = await sim.call("rimbridge/wait_for_long_event_idle", timeoutMs=0)
        assert idle["message"] == "Timed out waiting for RimWorld long events to finish."


async def test_architect_tools_at_the_main_menu_answer_that_no_game_is_loaded(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0, start_game=False) as sim:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("rimworld/list_architect_categories", {}),
            ("rimworld/list_architect_designators", {"categoryId": "Orders"}),
            ("rimworld/select_architect_designator", {"designatorId": "x"}),
            ("rimworld/apply_architect_designator", {"designatorId": "x", "x": 1, "z": 1}),
            ("rimworld/set_zone_target", {"designatorId": "x"}),
        ]
        for name, arguments in calls:
            refused = await sim.call(name, **arguments)
            assert refused["success"] is False, name
            assert refused["message"] == "No game is currently loaded.", name
            assert "godMode" in refused and "devModeEnabled" in refused, name


async def test_unknown_architect_ids_are_refused_in_the_mods_words(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        category = await sim.call("rimworld/list_architect_designators", categoryId="Nope")
        assert category["message"] == "Could not find architect category 'Nope'."
        blank = await sim.call("rimworld/select_architect_designator", designatorId=" ")
        assert blank["message"] == "A designator id is required."
        designators = await sim.call("rimworld/list_architect_designators", categoryId="Orders")
        mine = designators["designators"][0]["id"]
        refused = await sim.call("rimworld/set_zone_target", designatorId=mine)
        assert refused["message"] == (
            f"Architect designator '{mine}' does not support explicit existing-zone targeting."
        )


async def test_pawn_lookups_refuse_in_the_mods_words(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        by_name = await sim.call("rimworld/select_pawn", pawnName="Nobody")
        by_id = await sim.call("rimworld/select_pawn", pawnId="Thing_Nope")
        assert (by_name["message"], by_id["message"]) == (
            "Could not find player-controlled colonist 'Nobody'.",
            "Could not find player-controlled colonist id 'Thing_Nope'.",
        )
        with pytest.raises(RemoteError) as missing:
            await sim.call("rimworld/select_pawn")
        assert missing.value.message.endswith(
            "A player-controlled colonist name or id is required."
        )
        await sim.call("rimworld/go_to_main_menu")
        await sim.call("rimbridge/wait_for_long_event_idle")
        with pytest.raises(RemoteError) as no_map:
            await sim.call("rimworld/select_pawn", pawnName="Flint")
        assert no_map.value.message == (
            "rimworld/select_pawn failed: Could not find player-controlled colonist 'Flint'."
        )
