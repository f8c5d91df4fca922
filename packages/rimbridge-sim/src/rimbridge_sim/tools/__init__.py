"""The RimBridge tool surface: annotated methods grouped by what they reach.

Every tool the real mod has is declared exactly as the mod declares it (names, parameters,
defaults, value sets and tags come from :mod:`rimbridge_sim.contract` at registration); the
methods here give the behaviour and the descriptions. Test tools (``sim/*``, tag ``test``)
are registered only when the bridge is built with test tools.
"""

from __future__ import annotations

from rimbridge_sim.host import ToolHost
from rimbridge_sim.tools.architect import ArchitectTools
from rimbridge_sim.tools.camera import CameraTools
from rimbridge_sim.tools.debug import DebugTools
from rimbridge_sim.tools.diagnostics import DiagnosticsTools
from rimbridge_sim.tools.faults import FaultTools
from rimbridge_sim.tools.lifecycle import LifecycleTools
from rimbridge_sim.tools.map_info import MapInfoTools
from rimbridge_sim.tools.map_input import MapInputTools
from rimbridge_sim.tools.mods import ModTools
from rimbridge_sim.tools.notifications import NotificationTools
from rimbridge_sim.tools.profiling import ProfilingTools
from rimbridge_sim.tools.screenshots import ScreenshotTools
from rimbridge_sim.tools.scripting import ScriptingTools
from rimbridge_sim.tools.selection import SelectionTools
from rimbridge_sim.tools.time_control import TimeTools
from rimbridge_sim.tools.ui import UiTools
from rimbridge_sim.tools.ui_targets import UiTargetTools

__all__ = [
    "ArchitectTools",
    "CameraTools",
    "DebugTools",
    "DiagnosticsTools",
    "FaultTools",
    "LifecycleTools",
    "MapInfoTools",
    "MapInputTools",
    "ModTools",
    "NotificationTools",
    "ProfilingTools",
    "ScreenshotTools",
    "ScriptingTools",
    "SelectionTools",
    "TimeTools",
    "UiTargetTools",
    "UiTools",
    "tool_namespaces",
]


def tool_namespaces(host: ToolHost, *, test_tools: bool) -> list[object]:
    """One instance of every tool group, bound to ``host`` (test tools only if asked)."""
    groups: list[object] = [
        DiagnosticsTools(host),
        LifecycleTools(host),
        TimeTools(host),
        SelectionTools(host),
        MapInputTools(host),
        ArchitectTools(host),
        MapInfoTools(host),
        CameraTools(host),
        ScreenshotTools(host),
        UiTools(host),
        UiTargetTools(host),
        NotificationTools(host),
        ModTools(host),
        DebugTools(host),
        ScriptingTools(host),
        ProfilingTools(host),
    ]
    if test_tools:
        groups.append(FaultTools(host))
    return groups
