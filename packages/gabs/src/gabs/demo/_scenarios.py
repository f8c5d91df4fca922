"""The demo's scenarios as data: name, one-line summary, the flow that plays it, and whether
it needs the attention-less ``lib_gab`` game. ``gabs demo --scenario all`` runs them in this
order."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from gabs.demo._agent import DemoAgent
from gabs.demo._attention_scenarios import scenario_advisory, scenario_gating, scenario_invalidated
from gabs.demo._fault_scenarios import scenario_crash, scenario_no_attention, scenario_spam

__all__ = ["DEFAULT_SCENARIO", "SCENARIOS", "Scenario"]

DEFAULT_SCENARIO: Final = "gating"


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    run: Callable[[DemoAgent], Awaitable[None]]
    needs_legacy: bool = False


SCENARIOS: Final[dict[str, Scenario]] = {
    scenario.name: scenario
    for scenario in [
        Scenario(
            "gating",
            "an error opens blocking attention: the next call is refused until it is "
            "inspected and acknowledged, then the retry runs",
            scenario_gating,
        ),
        Scenario(
            "advisory",
            "a warning opens advisory attention: shown with results, never blocking",
            scenario_advisory,
        ),
        Scenario(
            "invalidated",
            "a load replaces the map: the item says the state is invalidated, old ids are stale",
            scenario_invalidated,
        ),
        Scenario(
            "spam",
            "500 identical errors: one item, a bounded number of events",
            scenario_spam,
        ),
        Scenario(
            "no-attention",
            "a game without attention: calls work, supported false",
            scenario_no_attention,
            needs_legacy=True,
        ),
        Scenario(
            "crash",
            "stalls and crashes mid-call: executed unknown, never 'not executed'",
            scenario_crash,
        ),
    ]
}
