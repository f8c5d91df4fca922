"""The sim against the mod's generated tool reference (``docs/tool-reference.md``), which comes
from the same ``[Tool]`` annotations as the contract: the parameters, defaults and value sets
are checked by ``test_contract.py``; these tests pin what its parameter texts promise beyond
the schema, where the mod's source (its ``ConditionWaiter``) gives the exact rule."""

from __future__ import annotations

from typing import Any


async def test_a_game_wait_polls_at_the_requested_interval_of_real_time(
    open_sim: Any,
) -> None:
    # "pollIntervalMs: Polling interval in milliseconds": the mod sleeps that long between
    # probes and probes once more when the timeout has passed, at any frame rate
    async with open_sim(tick_rate=240.0, start_game=False) as sim:
        waited = await sim.call("rimbridge/wait_for_game_loaded", timeoutMs=250, pollIntervalMs=100)
    assert waited["success"] is False
    assert 3 <= waited["attempts"] <= 4  # probes at 0, 100, 200 and 300 ms
    assert waited["elapsedMs"] >= 250


async def test_a_game_wait_sleeps_its_whole_last_poll_interval_before_the_final_probe(
    open_sim: Any,
) -> None:
    # 40 frames/s: the map's 20 frames take about 0.5 s, so the first probe sees the long
    # event even on a loaded machine, and the probe after the whole 1000 ms interval (past
    # the 250 ms timeout: the mod sleeps the interval whole) sees it finished
    async with open_sim(tick_rate=40.0, start_game=False) as sim:
        waited = await sim.call(
            "rimbridge/wait_for_long_event_idle", timeoutMs=0, pollIntervalMs=400
        )
        assert (waited["success"], waited["attempts"]) == (True, 1)
        await sim.call("rimworld/start_debug_game")
        waited = await sim.call(
            "rimbridge/wait_for_long_event_idle", timeoutMs=250, pollIntervalMs=1000
        )
    assert (waited["success"], waited["attempts"]) == (True, 2)
    assert waited["elapsedMs"] >= 1000


async def load_operation(sim: Any) -> str:
    await sim.call("rimworld/save_game", saveName="doc_wait")
    queued = await sim.call("rimworld/load_game", saveName="doc_wait")
    return str(queued["loadOperationId"])


async def test_wait_for_operation_sees_an_operation_that_ends_during_its_last_poll_interval(
    open_sim: Any,
) -> None:
    # 40 frames/s: the load's 30 frames take about 0.75 s (a timeout of 1 ms would end the
    # wait after its first probe whenever that probe takes a millisecond, as in the mod)
    async with open_sim(tick_rate=40.0) as sim:
        operation_id = await load_operation(sim)
        waited = await sim.call(
            "rimbridge/wait_for_operation",
            operationId=operation_id,
            timeoutMs=250,
            pollIntervalMs=1000,
        )
    assert waited["success"] is True
    assert waited["attempts"] == 2
    assert waited["message"] == f"Operation '{operation_id}' reached status Completed."
    assert waited["elapsedMs"] >= 1000


async def test_wait_for_operation_probes_once_more_after_its_timeout_has_passed(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=240.0) as sim:
        waited = await sim.call(
            "rimbridge/wait_for_operation", operationId="nope", timeoutMs=50, pollIntervalMs=300
        )
    assert (waited["success"], waited["attempts"]) == (False, 2)
    assert waited["message"] == "Timed out waiting for operation 'nope'."
    assert waited["elapsedMs"] >= 300


async def test_play_for_plays_until_its_first_probe_at_or_after_the_duration(
    open_sim: Any,
) -> None:
    # "pollIntervalMs: How often to poll playback state while waiting to repause": the mod
    # probes at 0 ms, pauses the interval, and repauses at the first probe past durationMs
    async with open_sim(tick_rate=240.0) as sim:
        played = await sim.call("rimworld/play_for", durationMs=50, pollIntervalMs=400)
        assert (played["success"], played["attempts"]) == (True, 2)
        assert played["elapsedMs"] >= 400
        assert played["message"] == "Game played for 50ms and is now paused."
        assert played["paused"] is True
        played = await sim.call("rimworld/play_for", durationMs=200, pollIntervalMs=100)
        assert played["success"] is True
        assert 3 <= played["attempts"] <= 4  # probes at 0, 100, 200 ms (a late one: 3)
