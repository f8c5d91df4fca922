""":class:`BridgeConfig`: everything a simulated RimBridge is built from (the CLI maps onto it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from rimbridge_sim.policy import Policy

__all__ = [
    "APP_NAME",
    "APP_VERSION",
    "MOD_VERSION",
    "SERVER_NAME",
    "SERVER_VERSION",
    "BridgeConfig",
]

APP_NAME: Final = "RimBridgeServer"
"""The welcome's ``app.name``: the mod names itself (``UseAppInfo``), not the game."""
MOD_VERSION: Final = "2.0.0"
"""The mod release the simulation follows (its ``ModVersion``)."""
APP_VERSION: Final = f"{MOD_VERSION}.0"
"""The welcome's ``app.version``: the mod's assembly version, four parts as .NET writes it."""
SERVER_NAME: Final = "rimbridge-sim"
SERVER_VERSION: Final = "0.2.0"


@dataclass(frozen=True)
class BridgeConfig:
    """Everything a :class:`~rimbridge_sim.integration.RimBridge` is configured with."""

    token: str = field(repr=False)
    port: int = 0
    agent_id: str = "rimworld"
    seed: int = 0
    policy: str | Path | Mapping[str, Any] | Policy = "recommended"
    tick_rate: float = 60.0
    """Main-loop frames per second; 0 stops the tick loop (game time then passes only through
    ``rimworld/step_game_ticks``, ``rimworld/play_for`` and :meth:`RimBridge.advance_frames`,
    and the tools that wait for the main loop run the frames they wait for themselves)."""
    scenario: str | None = None
    enable_test_tools: bool = False
    data_dir: Path | None = None
    """RimWorld's user data folder (saves, screenshots, config); a fresh temp dir if ``None``."""
    start_game: bool = True
    """Start a debug game at launch (generated at once, already visual-ready)."""
    log_capacity: int = 2000
    journal_capacity: int = 1000
    """Operations the journal keeps, as the mod's (its event stream keeps 5000 events)."""
    sample_limit: int = 5
    message_limit: int = 500
    update_interval: float = 0.25
    main_loop_timeout: float = 30.0
    """Seconds a game tool waits for the main loop before it fails with ``timed_out``."""
    attribute_to: Literal["root", "operation"] = "root"
    launched_by_gabs: bool = False
    """GABS launched the process (its port and token in the environment): the startup log line
    says ``connected to GABS`` instead of ``running standalone``, as the mod's does."""
    map_size: int = 50
    """Side of the square map a debug game generates (the real game uses 250)."""
