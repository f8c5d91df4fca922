"""Capabilities: the bridge's registered tools described as the real mod's capability
registry describes them (id, provider, category, aliases, parameters)."""

from __future__ import annotations

from typing import Any

from lib_gab.tools import Tool
from rimbridge_sim.host import ToolHost

__all__ = ["capability_id", "describe_capability", "find_capability", "matches"]

_CORE = "rimbridge.sim"
_TEST = "rimbridge.sim.test"


def capability_id(host: ToolHost, tool: Tool) -> str:
    contract = host.contract.get(tool.name)
    category = contract.category if contract is not None else "test"
    provider = _CORE if contract is not None else _TEST
    return f"{provider}/{category}/{tool.name.rsplit('/', 1)[-1]}"


def describe_capability(host: ToolHost, tool: Tool, include_parameters: bool) -> dict[str, Any]:
    contract = host.contract.get(tool.name)
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
    optional = contract is not None and contract.category == "profiling"
    return {
        "id": capability_id(host, tool),
        "providerId": _CORE if contract is not None else _TEST,
        "category": contract.category if contract is not None else "test",
        "title": tool.title,
        "summary": tool.description,
        "source": "optional" if optional else "core" if contract is not None else "extension",
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
    key = wanted.strip()
    for tool in host.tool_list():
        if key in (tool.name, capability_id(host, tool)):
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
