"""Dubs Performance Analyzer tools. They drive a profiler that patches the game's methods
at run time; the simulation has no such methods to patch, so it reports the analyzer as not
installed and every profiling action as not available in the simulation."""

from __future__ import annotations

from typing import Any, Final

from rimbridge_annotations import parameter, tool
from rimbridge_sim.host import ToolHost

__all__ = ["NOT_AVAILABLE", "UNAVAILABLE", "ProfilingTools"]

NOT_AVAILABLE: Final = "not_available_in_simulation"
UNAVAILABLE: Final = frozenset(
    {
        "rimworld/dpa_status",
        "rimworld/dpa_patch_methods",
        "rimworld/dpa_snapshot",
        "rimworld/dpa_reset",
        "rimworld/dpa_stop",
        "rimworld/dpa_cleanup",
    }
)
"""The real tools the simulation answers as not available (``dpa_status`` reports the
analyzer as missing; the others refuse with :data:`NOT_AVAILABLE`)."""
_PRESETS: Final = ("general_tick", "general_update", "general_pawn_ai_methods")
_WHY = (
    "Dubs Performance Analyzer is not available in the simulation: there are no game methods "
    "to patch or profile."
)


def _unavailable(**extra: Any) -> dict[str, Any]:
    return {
        "success": False,
        "message": _WHY,
        "code": NOT_AVAILABLE,
        "dpaAvailable": False,
        **extra,
    }


class ProfilingTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimworld/dpa_status",
        "Report whether Dubs Performance Analyzer is available (in the simulation it never is).",
        title="DPA status",
        result_description="{success: true, dpaInstalled: false, dpaActive: false, "
        "dpaAvailable: false, code, message, presets}.",
    )
    @parameter("include_presets", "List the built-in target presets.")
    async def dpa_status(self, include_presets: bool = True) -> dict[str, Any]:
        return {
            "success": True,
            "dpaInstalled": False,
            "dpaActive": False,
            "dpaAvailable": False,
            "code": NOT_AVAILABLE,
            "message": _WHY,
            "presets": list(_PRESETS) if include_presets else None,
        }

    @tool(
        "rimworld/dpa_patch_methods",
        "Patch methods or a preset into Dubs Performance Analyzer; not available in the "
        "simulation.",
        title="DPA patch methods",
        result_description="{success: false, code: 'not_available_in_simulation', message}.",
    )
    @parameter("category", "Tick or Update.")
    @parameter("input_mode", "Method or Type.")
    @parameter("preset", "general_tick, general_update, general_pawn_ai_methods or none.")
    @parameter("targets", "Method or type targets, separated by new lines, ; | or commas.")
    @parameter("initialize", "Initialize profiling first.")
    @parameter("reset_after_patch", "Reset the profiler buffers after patching.")
    @parameter("preview_limit", "Most resolved methods to preview per target.")
    async def dpa_patch_methods(
        self,
        category: str = "Tick",
        input_mode: str = "Method",
        preset: str = "none",
        targets: str = "",
        initialize: bool = True,
        reset_after_patch: bool = True,
        preview_limit: int = 8,
    ) -> dict[str, Any]:
        return _unavailable(category=category, inputMode=input_mode, preset=preset)

    @tool(
        "rimworld/dpa_snapshot",
        "Read the profiler's rows; not available in the simulation.",
        title="DPA snapshot",
        result_description="{success: false, code: 'not_available_in_simulation', message}.",
    )
    @parameter("sort_by", "average, max, total, calls, callsPerEntry or label.")
    @parameter("limit", "Most rows to return.")
    async def dpa_snapshot(self, sort_by: str = "average", limit: int = 30) -> dict[str, Any]:
        return _unavailable(sortBy=sort_by, limit=limit)

    @tool(
        "rimworld/dpa_reset",
        "Reset the profiler buffers; not available in the simulation.",
        title="DPA reset",
        result_description="{success: false, code: 'not_available_in_simulation', message}.",
    )
    async def dpa_reset(self) -> dict[str, Any]:
        return _unavailable()

    @tool(
        "rimworld/dpa_stop",
        "Stop profiling; not available in the simulation.",
        title="DPA stop",
        result_description="{success: false, code: 'not_available_in_simulation', message}.",
    )
    async def dpa_stop(self) -> dict[str, Any]:
        return _unavailable()

    @tool(
        "rimworld/dpa_cleanup",
        "Clean up after profiling; not available in the simulation.",
        title="DPA cleanup",
        result_description="{success: false, code: 'not_available_in_simulation', message}.",
    )
    async def dpa_cleanup(self) -> dict[str, Any]:
        return _unavailable()
