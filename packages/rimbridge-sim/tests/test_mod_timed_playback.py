"""``rimworld/play_for`` against what the mod's ``TimedPlaybackControllerTests`` pin: a duration
of 0 starts nothing; a full run reports the ticks from the start of play to the pause; a pause
from elsewhere, a different game or a game that can no longer play ends the run at the probe
that sees it, each with its own message."""

from __future__ import annotations

from typing import Any

import anyio

_EARLY = "ms, before the requested 3000ms elapsed."


async def _play_while(sim: Any, interfere: Any, **arguments: Any) -> dict[str, Any]:
    """Run ``play_for`` and, 0.3 s into the run, ``interfere(sim)``; the run's answer."""
    answers: dict[str, Any] = {}

    async def play() -> None:
        answers["play"] = await sim.call("rimworld/play_for", durationMs=3000, **arguments)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(play)
            await anyio.sleep(0.3)
            await interfere(sim)
    played: dict[str, Any] = answers["play"]
    return played


async def test_a_duration_of_zero_is_refused_and_leaves_the_game_paused(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        before = await sim.call("rimworld/get_game_info")
        refused = await sim.call("rimworld/play_for", durationMs=0, speed="Fast")
        assert (refused["success"], refused["message"]) == (
            False,
            "durationMs must be greater than 0.",
        )
        assert refused["state"]["paused"] is True
        after = await sim.call("rimworld/get_game_info")
        assert after["tick"] == before["tick"]


async def test_a_full_run_starts_from_a_paused_game_and_ends_paused(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        played = await sim.call("rimworld/play_for", durationMs=100)
        assert played["success"] is True
        assert (played["initiallyPaused"], played["paused"]) == (True, True)
        assert played["advancedTicks"] == played["endTick"] - played["startTick"] > 0
        assert played["message"] == "Game played for 100ms and is now paused."


async def test_a_pause_from_elsewhere_ends_the_run_with_the_time_it_had_played(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=240.0) as sim:

        async def pause(sim: Any) -> None:
            await sim.call("rimworld/pause_game", pause=True)

        played = await _play_while(sim, pause)
        assert played["success"] is False
        assert played["message"].startswith("Game was paused externally after ")
        assert played["message"].endswith(_EARLY)
        assert played["paused"] is True


async def test_a_different_game_ends_the_run_as_a_changed_session(open_sim: Any) -> None:
    # a long interval between probes, so the load is over before the next probe looks: the
    # probe finds another game (paused, as a loaded game is), and the session check comes first
    async with open_sim(tick_rate=240.0) as sim:
        await sim.call("rimworld/save_game", saveName="other")

        async def load(sim: Any) -> None:
            await sim.call("rimworld/load_game", saveName="other")

        played = await _play_while(sim, load, pollIntervalMs=1500)
        assert played["success"] is False
        assert played["message"].startswith("Game session changed after ")
        assert played["message"].endswith(_EARLY)
        assert played["endTick"] >= 0


async def test_a_long_event_ends_the_run_with_the_probes_message(open_sim: Any) -> None:
    async with open_sim(tick_rate=240.0) as sim:

        async def switch(sim: Any) -> None:
            queued = await sim.call("rimworld/switch_language", language="German")
            assert queued["success"] is True

        played = await _play_while(sim, switch)
        assert played["success"] is False
        assert played["message"] == "RimWorld is busy with a long event."
        assert played["elapsedMs"] < 2500
        assert played["paused"] is True


async def test_a_trip_to_the_main_menu_ends_the_run_with_the_probes_message(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=240.0) as sim:

        async def leave(sim: Any) -> None:
            await sim.call("rimworld/go_to_main_menu")

        played = await _play_while(sim, leave)
        assert played["success"] is False
        assert played["message"] == "RimWorld returned to the main menu."
        assert played["endTick"] == 0
        assert played["elapsedMs"] < 2500
