"""The mod's core unit tests (``Tests/RimBridgeServer.Core.Tests``: the log journal, the
operation journal, the capability registry, readiness) read one by one against what a tool
caller sees; this file holds the cases where the simulation did not yet answer as the mod."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.anyio


async def _levels(sim: Any, **arguments: Any) -> list[str]:
    page = await sim.call("rimbridge/list_logs", limit=500, **arguments)
    return [entry["Level"] for entry in page["logs"]]


@pytest.mark.parametrize("blank", ["", "   "])
async def test_a_blank_minimum_level_lists_every_level_debug_included(
    open_sim: Any, blank: str
) -> None:
    # the mod's LogJournal.GetEntries filters by level only when minimumLevel is not blank
    async with open_sim(enable_test_tools=True) as sim:
        await sim.call("sim/inject_log", level="debug", message="pathing grid rebuilt")

        assert "debug" in await _levels(sim, minimumLevel=blank)
        assert "debug" not in await _levels(sim)  # the default is still info
        assert "debug" not in await _levels(sim, minimumLevel="verbose")  # unknown: info
