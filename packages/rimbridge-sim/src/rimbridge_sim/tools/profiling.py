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
_PRESETS: Final = {
    # the mod's target presets: name -> "Type:Method" targets
    "general_tick": [
        "Verse.TickManager:DoSingleTick",
        "Verse.TickList:Tick",
        "Verse.Pawn:Tick",
        "Verse.Pawn:TickInterval",
    ],
    "general_update": [
        "Verse.Root_Play:Update",
        "Verse.Map:MapUpdate",
        "Verse.Pawn:ProcessPostTickVisuals",
    ],
    "general_pawn_ai_methods": [
        "Verse.AI.Pawn_JobTracker:JobTrackerTick",
        "Verse.AI.Pawn_JobTracker:JobTrackerTickInterval",
        "Verse.AI.Pawn_PathFollower:PatherTick",
        "Verse.AI.Pawn_PathFollower:CostToPayThisTick",
        "Verse.Pawn_HealthTracker:HealthTick",
        "Verse.Pawn_HealthTracker:HealthTickInterval",
        "Verse.AI.AttackTargetsCache:GetPotentialTargetsFor",
        "RimWorld.Building_TurretGun:Tick",
        "RimWorld.WorkGiver_Scanner:PotentialWorkCellsGlobal",
        "RimWorld.WorkGiver_Scanner:PotentialWorkThingsGlobal",
    ],
}
_TYPE_CHECKS: Final = (
    "analyzer",
    "windowAnalyzer",
    "modbase",
    "guiController",
    "panelDevOptions",
    "currentInput",
    "category",
    "profileController",
    "settings",
    "utility",
    "profiler",
)
_MEMBER_CHECKS: Final = (
    "windowAnalyzerPreOpen",
    "analyzerEndProfiling",
    "analyzerCleanup",
    "resetProfilers",
    "resetToSettings",
    "executePatch",
    "getMethods",
    "getTypeMethods",
    "profiles",
    "disableThreadedPatching",
    "profilerFields",
)
_WHY = (
    "Dubs Performance Analyzer is not available in the simulation: there are no game methods "
    "to patch or profile."
)


def _dpa(host: ToolHost) -> dict[str, Any]:
    """The mod's description of the analyzer's runtime: nothing found, nothing running."""
    return {
        "available": False,
        "packageActive": False,
        "packageId": "Dubwise.DubsPerformanceAnalyzer.steam",
        "typeChecks": dict.fromkeys(_TYPE_CHECKS, False),
        "memberChecks": dict.fromkeys(_MEMBER_CHECKS, False),
        "currentlyProfiling": False,
        "currentlyCleaningUp": False,
        "currentlyPaused": False,
        "currentLogCount": 0,
        "isPatched": False,
        "activePackageIds": list(host.world.mods.loaded),
    }


def _unavailable(host: ToolHost, action: str, **extra: Any) -> dict[str, Any]:
    """The mod's not-available answer (``success, action, message, dpa``), then the sim's
    ``code``, ``dpaAvailable`` and the echoed arguments."""
    return {
        "success": False,
        "action": action,
        "message": _WHY,
        "dpa": _dpa(host),
        "code": NOT_AVAILABLE,
        "dpaAvailable": False,
        **extra,
    }


_NOT_AVAILABLE_SHAPE: Final = (
    "{success: false, action, message, dpa {available: false, packageActive, packageId, "
    "typeChecks, memberChecks, currentlyProfiling, currentlyCleaningUp, currentlyPaused, "
    "currentLogCount, isPatched, activePackageIds}, code: 'not_available_in_simulation', "
    "dpaAvailable: false}."
)


class ProfilingTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimworld/dpa_status",
        "Report whether Dubs Performance Analyzer is available (in the simulation it never is).",
        title="DPA status",
        result_description="{success: true, dpa (as in the not-available answers), presets "
        "({general_tick, general_update, general_pawn_ai_methods}: their Type:Method targets; "
        "null without includePresets)}.",
    )
    @parameter("include_presets", "List the built-in target presets.")
    async def dpa_status(self, include_presets: bool = True) -> dict[str, Any]:
        return {
            "success": True,
            "dpa": _dpa(self.host),
            "presets": {k: list(v) for k, v in _PRESETS.items()} if include_presets else None,
        }

    @tool(
        "rimworld/dpa_patch_methods",
        "Patch methods or a preset into Dubs Performance Analyzer; not available in the "
        "simulation.",
        title="DPA patch methods",
        result_description=_NOT_AVAILABLE_SHAPE,
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
        return _unavailable(
            self.host, "patch", category=category, inputMode=input_mode, preset=preset
        )

    @tool(
        "rimworld/dpa_snapshot",
        "Read the profiler's rows; not available in the simulation.",
        title="DPA snapshot",
        result_description=_NOT_AVAILABLE_SHAPE,
    )
    @parameter("sort_by", "average, max, total, calls, callsPerEntry or label.")
    @parameter("limit", "Most rows to return.")
    async def dpa_snapshot(self, sort_by: str = "average", limit: int = 30) -> dict[str, Any]:
        return _unavailable(self.host, "snapshot", sortBy=sort_by, limit=limit)

    @tool(
        "rimworld/dpa_reset",
        "Reset the profiler buffers; not available in the simulation.",
        title="DPA reset",
        result_description=_NOT_AVAILABLE_SHAPE,
    )
    async def dpa_reset(self) -> dict[str, Any]:
        return _unavailable(self.host, "reset")

    @tool(
        "rimworld/dpa_stop",
        "Stop profiling; not available in the simulation.",
        title="DPA stop",
        result_description=_NOT_AVAILABLE_SHAPE,
    )
    async def dpa_stop(self) -> dict[str, Any]:
        return _unavailable(self.host, "stop")

    @tool(
        "rimworld/dpa_cleanup",
        "Clean up after profiling; not available in the simulation.",
        title="DPA cleanup",
        result_description=_NOT_AVAILABLE_SHAPE,
    )
    async def dpa_cleanup(self) -> dict[str, Any]:
        return _unavailable(self.host, "cleanup")
