"""Capabilities: the bridge's registered tools described as the real mod's capability
registry describes them (id, provider, category, aliases, parameters).

The id, provider and category are the mod's (:mod:`rimbridge_sim.contract.capabilities`); the
tool name is the capability's one alias. The same id names the tool's operations in the
journal, its log lines and its script steps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from lib_gab.tools import Tool
from rimbridge_sim.contract.capabilities import capability_of
from rimbridge_sim.host import ToolHost

__all__ = ["describe_capability", "find_capability", "matches"]


_MSCORLIB: Final = "mscorlib, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089"
_CLR_TYPES: Final = {
    "string": "System.String",
    "integer": "System.Int32",
    "number": "System.Single",
    "boolean": "System.Boolean",
    "object": f"System.Collections.Generic.Dictionary`2[[System.String, {_MSCORLIB}],"
    f"[System.Object, {_MSCORLIB}]]",
}
_LONG_PARAMETERS: Final = frozenset({"afterSequence"})
"""The mod's parameters declared ``long`` rather than ``int``."""
_EXECUTION_KINDS: Final = {
    # the mod's BuiltInCapabilityModuleProvider.ResolveExecutionKind; any other is MainThread
    **dict.fromkeys(
        (
            "rimbridge/ping",
            "rimbridge/get_bridge_status",
            "rimbridge/get_operation",
            "rimbridge/list_operations",
            "rimbridge/list_operation_events",
            "rimbridge/list_logs",
            "rimbridge/wait_for_operation",
            "rimbridge/wait_for_game_loaded",
            "rimbridge/wait_for_long_event_idle",
            "rimbridge/get_script_reference",
            "rimbridge/get_lua_reference",
            "rimbridge/run_script",
            "rimbridge/run_lua",
            "rimbridge/run_lua_file",
            "rimbridge/compile_lua",
            "rimbridge/compile_lua_file",
        ),
        "Immediate",
    ),
    **dict.fromkeys(
        (
            "rimworld/go_to_main_menu",
            "rimworld/start_debug_game",
            "rimworld/load_game",
            "rimworld/switch_language",
        ),
        "LongEventBound",
    ),
    **dict.fromkeys(
        (
            "rimworld/start_debug_game_ready",
            "rimworld/load_game_ready",
            "rimworld/play_for",
            "rimworld/step_game_ticks",
            "rimworld/take_screenshot",
            "rimworld/frame_cell_rect",
            "rimworld/screenshot_cell_rect",
            "rimworld/get_ui_layout",
            "rimworld/click_ui_target",
            "rimworld/scroll_ui_target",
            "rimworld/set_hover_target",
            "rimworld/clear_hover_target",
            "rimworld/open_context_menu",
            "rimworld/right_click_cell",
            "rimworld/click_cell",
            "rimworld/drag_cell",
        ),
        "BackgroundObserved",
    ),
}


def _clr_type(name: str, prop: Mapping[str, Any], required: bool) -> str:
    """The .NET type name the mod reports for a parameter (``Type.FullName``)."""
    kind = prop.get("type", "object")
    if isinstance(kind, list):  # ["integer", "null"]
        kind = next((k for k in kind if k != "null"), "object")
    if kind == "integer" and name in _LONG_PARAMETERS:
        return "System.Int64"
    clr = _CLR_TYPES.get(kind, "System.Object")
    if kind in ("integer", "number") and not required and prop.get("default") is None:
        return f"System.Nullable`1[[{clr}, {_MSCORLIB}]]"  # int? / float?
    return clr


def describe_capability(host: ToolHost, tool: Tool, include_parameters: bool) -> dict[str, Any]:
    """The mod's capability descriptor (``DiagnosticsCapabilityModule.DescribeCapability``),
    then the sim's ``tags``."""
    capability = capability_of(tool.name)
    extension = capability.source == "extension"
    schema = tool.input_schema
    required = set(schema.get("required", []))
    parameters = None
    if include_parameters:
        parameters = [
            {
                "name": name,
                "parameterType": _clr_type(name, prop, name in required),
                "description": prop.get("description") or "",
                # the tool's real required set; the mod's descriptors take Required from each
                # parameter's ToolParameter attribute, which defaults to true (see the README)
                "required": name in required,
                "defaultValue": prop.get("default"),
            }
            for name, prop in schema.get("properties", {}).items()
        ]
    return {
        "id": capability.id,
        "providerId": capability.provider_id,
        "category": capability.category,
        "title": tool.title,
        "summary": tool.description,
        "source": capability.source.capitalize(),
        "executionKind": "FrameBound"
        if extension
        else _EXECUTION_KINDS.get(tool.name, "MainThread"),
        "supportedModes": ["Wait", "Queue"],
        "defaultRequestedMode": "Wait",
        "emitsEvents": True,
        "resultType": "System.Object",
        "aliases": [tool.name],
        "parameters": parameters,
        "tags": list(tool.tags),
    }


def find_capability(host: ToolHost, wanted: str) -> dict[str, Any] | None:
    # the mod resolves an id or an alias, ignoring case but not surrounding spaces
    key = wanted.lower()
    for tool in host.tool_list():
        if key in (tool.name.lower(), capability_of(tool.name).id.lower()):
            return describe_capability(host, tool, True)
    return None


def matches(
    capability: dict[str, Any],
    provider: str | None,
    category: str | None,
    source: str | None,
    query: str | None,
) -> bool:
    # as the mod: a blank filter is no filter, a given one is compared untrimmed
    if provider and provider.strip() and capability["providerId"] != provider:
        return False
    if category and category.strip() and capability["category"].lower() != category.lower():
        return False
    if source and source.strip() and capability["source"].lower() != source.lower():
        return False
    if query and query.strip():
        needle = query.strip().lower()
        texts = [
            capability["id"],
            capability["providerId"],
            capability["category"],
            capability["title"],
            capability["summary"],
            *capability["aliases"],
            *(p["name"] for p in capability["parameters"] or []),
            *(p["description"] for p in capability["parameters"] or []),
        ]
        return any(needle in (t or "").lower() for t in texts)
    return True
