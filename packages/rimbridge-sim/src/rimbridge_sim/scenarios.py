"""Named fault scenarios for demos and tests (``rimbridge-sim --scenario NAME``).

A scenario hooks into the bridge at start (``on_start``, right after the debug game started)
and on every main-loop frame (``on_frame``, with the world lock held). Both write through
:meth:`ToolHost.log` or the world, exactly as a misbehaving mod or game system would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rimbridge_sim.host import ToolHost

__all__ = ["SCENARIOS", "Scenario", "get_scenario"]

STARTUP_ERROR = (
    "Exception while loading mod settings: NullReferenceException: Object reference not set "
    "to an instance of an object"
)
SPAM_ERROR = "NullReferenceException in ColonistBar.ColonistBarOnGUI"
SPAM_EVERY_FRAMES = 6
WARNING_EVERY_FRAMES = 60
NOISE_EVERY_FRAMES = 30
MAP_LOSS_AFTER_FRAMES = 120


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    on_start: Callable[[ToolHost], None] | None = None
    on_frame: Callable[[ToolHost, int], None] | None = None


def _startup_error(bridge: ToolHost) -> None:
    bridge.log("error", STARTUP_ERROR, "mod")


def _spam(bridge: ToolHost, frame: int) -> None:
    if frame % SPAM_EVERY_FRAMES == 0:
        bridge.log("error", SPAM_ERROR, "ui")


def _warnings(bridge: ToolHost, frame: int) -> None:
    if frame % WARNING_EVERY_FRAMES == 0:
        bridge.log("warning", "Colony wealth tracker is behind by 3 ticks", "mod")


def _noise(bridge: ToolHost, frame: int) -> None:
    if frame % NOISE_EVERY_FRAMES == 0:
        bridge.log("warning", "Could not find a path from (3, 3) to (40, 40)", "pathing")
        bridge.log("error", "Texture Things/Item/Resource/Unknown not found", "graphics")


def _map_loss(bridge: ToolHost, frame: int) -> None:
    if frame == MAP_LOSS_AFTER_FRAMES:
        bridge.remove_map(None)


SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario
    for scenario in (
        Scenario("quiet", "No injected faults: only what the colony itself logs."),
        Scenario(
            "startup-error",
            f"One error right after start (source mod, no operation): {STARTUP_ERROR!r}.",
            on_start=_startup_error,
        ),
        Scenario(
            "spam",
            f"Continuous error spam: {SPAM_ERROR!r} (source ui) every "
            f"{SPAM_EVERY_FRAMES} frames, for as long as the process runs.",
            on_frame=_spam,
        ),
        Scenario(
            "warnings",
            f"A warning every {WARNING_EVERY_FRAMES} frames: advisory under recommended, "
            "nothing under faithful.",
            on_frame=_warnings,
        ),
        Scenario(
            "noise",
            f"Known noise every {NOISE_EVERY_FRAMES} frames: a 'Could not find a path' warning "
            "and a 'Texture ... not found' error (ignored by recommended; the error blocks "
            "under faithful).",
            on_frame=_noise,
        ),
        Scenario(
            "map-loss",
            f"The map is removed after {MAP_LOSS_AFTER_FRAMES} frames ('Map removed: <map>', "
            "then the main menu).",
            on_frame=_map_loss,
        ),
    )
}


def get_scenario(name: str | None) -> Scenario | None:
    """The scenario called ``name`` (``None`` for none); ``ValueError`` naming the known ones."""
    if name is None:
        return None
    try:
        return SCENARIOS[name]
    except KeyError:
        known = ", ".join(SCENARIOS)
        raise ValueError(f"unknown scenario {name!r} (known: {known})") from None
