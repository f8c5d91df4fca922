"""Capabilities: the bridge's registered tools described as the real mod's capability
registry describes them (id, provider, category, aliases, parameters).

The id, provider and category are the mod's (:mod:`rimbridge_sim.contract.capabilities`); the
tool name is the capability's one alias. The same id names the tool's operations in the
journal, its log lines and its script steps."""

from __future__ import annotations

from typing import Any

from lib_gab.tools import Tool
from rimbridge_sim.contract.capabilities import capability_of
from rimbridge_sim.host import ToolHost

__all__ = ["describe_capability", "find_capability", "matches"]


def describe_capability(host: ToolHost, tool: Tool, include_parameters: bool) -> dict[str, Any]:
    capability = capability_of(tool.name)
    schema = tool.input_schema
    required = set(schema.get("required", []))
    parameters = None
    if include_parameters:
        parameters = [
            {
                "name": name,
                "parameterType": prop.get("type", "any"),
                "description": prop.get("description"),
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
        "source": capability.source,
        "executionKind": "Immediate",
        "supportedModes": ["Wait"],
        "defaultRequestedMode": "Wait",
        "emitsEvents": False,
        "resultType": "object",
        "aliases": [tool.name],
        "parameters": parameters,
        "tags": list(tool.tags),
    }


def find_capability(host: ToolHost, wanted: str) -> dict[str, Any] | None:
    # the mod resolves an id or an alias, ignoring case
    key = wanted.strip().lower()
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
    if provider and capability["providerId"] != provider:
        return False
    if category and capability["category"].lower() != category.strip().lower():
        return False
    if source and capability["source"].lower() != source.strip().lower():
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
        ]
        return any(needle in (t or "").lower() for t in texts)
    return True
