"""A script definition as the mod writes it back (``rimbridge/compile_lua``'s ``script`` and
``scriptJson``): its ``CapabilityScriptDefinition`` class under Newtonsoft's default settings,
so PascalCase property names, every property present, defaults filled in. The runner reads
these names too (it matches keys ignoring case, as the mod's reader does), so a compiled
script's ``scriptJson`` runs as it is through ``rimbridge/run_script``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["definition_wire"]

_STEP_DEFAULTS: Final[tuple[tuple[str, str, Any], ...]] = (
    # (wire name, the runner's key, default), in the class's declaration order
    ("Type", "type", ""),
    ("Id", "id", ""),
    ("Message", "message", ""),
    ("Call", "call", ""),
    ("Arguments", "arguments", {}),
    ("ContinueUntil", "continueUntil", None),
    ("Name", "name", ""),
    ("Value", "value", None),
    ("Condition", "condition", {}),
    ("Body", "body", []),
    ("ElseBody", "elseBody", []),
    ("Collection", "collection", None),
    ("ItemName", "itemName", ""),
    ("IndexName", "indexName", ""),
    ("MaxIterations", "maxIterations", 100),
)
_POLICY_DEFAULTS: Final[tuple[tuple[str, str, Any], ...]] = (
    ("TimeoutMs", "timeoutMs", 10000),
    ("PollIntervalMs", "pollIntervalMs", 100),
    ("TimeoutMessage", "timeoutMessage", ""),
    ("Condition", "condition", {}),
)


def _fill(raw: Mapping[str, Any], fields: tuple[tuple[str, str, Any], ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for wire, key, default in fields:
        value = raw.get(key, default)
        out[wire] = (type(default)() if value is None else value) if default in ({}, []) else value
    return out


def _step_wire(step: Mapping[str, Any]) -> dict[str, Any]:
    out = _fill(step, _STEP_DEFAULTS)
    out["Body"] = [_step_wire(s) for s in out["Body"]]
    out["ElseBody"] = [_step_wire(s) for s in out["ElseBody"]]
    if isinstance(out["ContinueUntil"], Mapping):
        out["ContinueUntil"] = _fill(out["ContinueUntil"], _POLICY_DEFAULTS)
    return out


def definition_wire(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A normalized definition (the runner's camelCase keys) in the mod's written form."""
    return {
        "Name": definition.get("name", ""),
        "ContinueOnError": definition.get("continueOnError", False),
        "MaxDurationMs": definition.get("maxDurationMs", 60000),
        "MaxExecutedStatements": definition.get("maxExecutedStatements", 1000),
        "MaxControlDepth": definition.get("maxControlDepth", 32),
        "Steps": [_step_wire(step) for step in definition.get("steps", [])],
    }
