"""A script definition as the runner reads it: keys matched without regard to case, the mod's
defaults filled in, statements checked for a known type, and the budgets checked before a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from rimbridge_sim.scripting.expressions import ScriptError

__all__ = ["NO_STEPS", "count_statements", "limit_error", "normalize_definition"]

_DEFINITION_KEYS = (
    "name",
    "continueOnError",
    "maxDurationMs",
    "maxExecutedStatements",
    "maxControlDepth",
    "steps",
)
_STEP_KEYS = (
    "type",
    "id",
    "message",
    "call",
    "arguments",
    "continueUntil",
    "name",
    "value",
    "condition",
    "body",
    "elseBody",
    "collection",
    "itemName",
    "indexName",
    "maxIterations",
)
_POLICY_KEYS = ("timeoutMs", "pollIntervalMs", "timeoutMessage", "condition")


def _keyed(raw: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """Match keys case-insensitively to their canonical spelling (as the mod's JSON reader
    does); unknown keys are kept as they are."""
    canonical = {k.lower(): k for k in keys}
    return {canonical.get(str(k).lower(), str(k)): v for k, v in raw.items()}


_TRIMMED: Final = ("id", "message", "call", "name", "itemName", "indexName")
"""The text members the mod trims before running (``NormalizeStatements``)."""


def _trim(raw: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        if isinstance(raw.get(key), str):
            raw[key] = raw[key].strip()


def _step(raw: Any) -> dict[str, Any] | None:
    """A statement with canonical keys; ``None`` stays, for the runner to record as the
    failed step the mod makes of a ``null`` statement."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ScriptError("script.invalid_step", f"a statement is an object, got {raw!r}")
    step = _keyed(raw, _STEP_KEYS)
    _trim(step, _TRIMMED)
    for key in ("body", "elseBody"):
        if step.get(key) is None:  # the mod reads a missing or null body as an empty one
            step.pop(key, None)
        elif not isinstance(step[key], list):
            raise ScriptError("script.invalid_step", f"{key} must be a list of statements")
        else:
            step[key] = [_step(s) for s in step[key]]
    if isinstance(step.get("continueUntil"), Mapping):
        step["continueUntil"] = _keyed(step["continueUntil"], _POLICY_KEYS)
        _trim(step["continueUntil"], ("timeoutMessage",))
    # an unknown type is the runner's to report, as a failed step when it is reached
    step["type"] = str(step.get("type") or ("call" if step.get("call") else "")).strip().lower()
    return step


NO_STEPS: Final = "The script must contain at least one step."
_LIMITS: Final = ("maxDurationMs", "maxExecutedStatements", "maxControlDepth")


def limit_error(definition: Mapping[str, Any]) -> ScriptError | None:
    """The mod's check of a definition's budgets before it runs: the first one that is not
    positive halts the script before any step."""
    for key in _LIMITS:
        if definition[key] <= 0:
            return ScriptError(
                "script.invalid_definition",
                f"The script must declare a positive {key} value.",
                {key: definition[key]},
            )
    return None


def normalize_definition(raw: Any) -> dict[str, Any]:
    """A script definition with canonical keys and defaults (``script.invalid_*`` errors)."""
    if not isinstance(raw, Mapping):
        raise ScriptError("script.invalid_definition", "the script must be a JSON object")
    definition = _keyed(raw, _DEFINITION_KEYS)
    if definition.get("name") is None:
        definition["name"] = ""
    _trim(definition, ("name",))
    definition.setdefault("continueOnError", False)
    for key, default in (
        ("maxDurationMs", 60000),
        ("maxExecutedStatements", 1000),
        ("maxControlDepth", 32),
    ):
        value = definition.setdefault(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScriptError("script.invalid_definition", f"{key} must be an integer")
    steps = definition.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ScriptError("script.invalid_definition", NO_STEPS)
    definition["steps"] = [_step(s) for s in steps]
    return definition


def count_statements(steps: Sequence[dict[str, Any] | None]) -> int:
    """Every statement of a definition, nested ones included (the report's ``stepCount``; a
    ``null`` statement counts as one)."""
    return sum(
        1
        if s is None
        else 1 + count_statements(s.get("body", [])) + count_statements(s.get("elseBody", []))
        for s in steps
    )
