"""The game lifecycle both front ends share (``gabs games ...`` and the MCP tools): start
(stages 1 to 4), status from the claim, stop and kill, with the Go bridge's outcome codes."""

from .codes import (
    LifecycleError,
    cause_class,
    environment_actions,
    next_action,
    stale_bridge_credential,
)
from .core import Lifecycle, Superseded
from .history import TrackRecord, context_hash, summary_line, track_record_summary
from .observe import Observation, observe
from .start import Started, exited_during_start, start_game
from .stop import StopOutcome, stop_game

__all__ = [
    "Lifecycle",
    "LifecycleError",
    "Observation",
    "Started",
    "StopOutcome",
    "Superseded",
    "TrackRecord",
    "cause_class",
    "context_hash",
    "environment_actions",
    "exited_during_start",
    "next_action",
    "observe",
    "stale_bridge_credential",
    "start_game",
    "stop_game",
    "summary_line",
    "track_record_summary",
]
