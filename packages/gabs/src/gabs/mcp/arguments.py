"""Checking a core tool's arguments against its input schema before anything runs.

In the order the dispatcher applies them:

* :func:`unknown_argument_refusal`: arguments the tool does not declare are refused the Go
  bridge's way (``code: unknown_argument``, ``path``, ``unknown``, ``allowed``; see
  :func:`gabs.mcp.envelope.unknown_argument_result`), before anything else is looked at.
* :func:`go_lenient`: what the Go bridge accepts besides the declared types is read as it
  reads it: an integer given as a decimal string (``"10"``), a boolean given as
  ``"true"``/``"false"``, a ``cursor`` given as an integer; string arguments are trimmed and an
  empty one counts as not given (an empty or blank string for an integer or a boolean is a
  ``type`` problem, as the Go bridge refuses it). A whole float (``10.0``, ``1e3``) is read as
  the integer it is, as JSON Schema counts it an integer (the Go bridge refuses it: a kept
  difference). An integer outside the signed 64-bit range is a ``type`` problem, as the Go
  bridge refuses it as "must be an integer" (:func:`integer_problems`).
* :func:`schema_problems` lists what is still wrong (``field``, ``rule``, ``message`` per
  problem; an empty list means valid). A fast path covers the bridge's own flat schemas;
  anything it does not know goes to the full Draft 2020-12 validator, which also words the
  problems. :func:`invalid_arguments` is the refusal a client gets for them.

Before :func:`schema_problems`, :func:`non_finite_problems` refuses a number JSON cannot carry
anywhere in the arguments, a game tool's included (for a game tool called by its own name,
:meth:`gabs.mcp.calls.CallTools.call` applies it once the tool is found): ``NaN`` and
``Infinity`` (which Python's and the SDK's JSON readers take, though JSON has no such tokens)
and a number past a 64-bit float's range (``1e400``, read as infinity). None of them can be sent
on to a game: the GABP request could not be written. (The Go bridge drops a request with ``NaN``
or ``Infinity`` unanswered and passes ``1e400`` to the game as written.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

import mcp_types as types
from jsonschema.exceptions import ValidationError as SchemaError

from gabs.mcp.envelope import (
    CAUSE_CALL,
    failure_next_actions,
    track_record_line,
    unknown_argument_result,
    unknown_arguments,
)
from gabs.mcp.rendering import text_result
from gabs.mcp.schemas import BridgeTool

__all__ = [
    "go_lenient",
    "invalid_arguments",
    "non_finite_problems",
    "schema_problems",
    "unknown_argument_refusal",
]


def unknown_argument_refusal(tool: BridgeTool, arguments: Any) -> types.CallToolResult | None:
    """The Go bridge's ``unknown_argument`` refusal, when ``arguments`` has undeclared keys."""
    if not isinstance(arguments, dict):
        return None
    allowed = tool.input_schema.get("properties", {})
    unknown = unknown_arguments(arguments, allowed)
    if not unknown:
        return None
    game_id = arguments.get("gameId")
    return unknown_argument_result(
        unknown, allowed, game_id=game_id if isinstance(game_id, str) else None
    )


def _has_non_finite(arguments: Any) -> bool:
    stack = [arguments]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return True
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def non_finite_problems(arguments: Any) -> list[dict[str, str]]:
    """A ``type`` problem for each ``NaN`` or infinite number in ``arguments``, at any depth
    (see the module doc); an empty list when there is none (the common case, checked without
    building a path)."""
    if not _has_non_finite(arguments):
        return []
    problems = []
    stack: list[tuple[str, Any]] = [("$", arguments)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            what = "NaN" if math.isnan(item) else "an infinite number (or one past 1.8e308)"
            message = f"{what} is not a JSON number and cannot be sent to a game"
            problems.append({"field": where, "rule": "type", "message": message})
        elif isinstance(item, dict):
            stack.extend((f"{where}.{key}", value) for key, value in item.items())
        elif isinstance(item, list):
            stack.extend((f"{where}[{index}]", value) for index, value in enumerate(item))
    return sorted(problems, key=lambda problem: problem["field"])


def _lenient_value(name: str, schema: Mapping[str, Any], value: Any) -> tuple[bool, Any]:
    """(keep, value) for one argument, read as the Go bridge reads it."""
    kind = schema.get("type")
    if isinstance(value, str):
        if not value.strip() and kind in ("integer", "boolean"):
            return True, value  # the Go bridge: "must be an integer" / "a boolean"
        value = value.strip()
        if not value:
            return False, None
        if kind == "integer":
            try:
                return True, int(value)
            except ValueError:
                return True, value
        if kind == "boolean" and value.lower() in ("true", "false"):
            return True, value.lower() == "true"
        return True, value
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return True, int(value)
    if name == "cursor" and isinstance(value, int) and not isinstance(value, bool):
        return True, str(value)
    return True, value


def go_lenient(tool: BridgeTool, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with what the Go bridge also accepts read as it reads it (see above)."""
    properties: Mapping[str, Any] = tool.input_schema.get("properties", {})
    result: dict[str, Any] = {}
    for name, value in arguments.items():
        schema = properties.get(name)
        if not isinstance(schema, Mapping) or value is None:
            if value is not None:
                result[name] = value
            continue
        keep, value = _lenient_value(name, schema, value)
        if keep:
            result[name] = value
    return result


_QUICK_TYPES: Final[dict[str, Callable[[Any], bool]]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
}
_QUICK_KEYWORDS: Final = frozenset(
    {
        "type",
        "description",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
    }
)


def _quick_valid(tool: BridgeTool, arguments: Any) -> bool:
    """A fast check of the bridge's own (flat) schemas; False means "ask jsonschema".

    Never more lenient than the schema: any keyword it does not know sends the arguments to
    the full validator, which also words the problems."""
    if not isinstance(arguments, dict):
        return False
    properties: dict[str, Any] = tool.input_schema["properties"]
    for name in tool.input_schema.get("required", ()):
        if name not in arguments:
            return False
    for name, value in arguments.items():
        schema = properties.get(name)
        if schema is None or not _QUICK_KEYWORDS.issuperset(schema):
            return False
        check = _QUICK_TYPES.get(schema.get("type", ""))
        if check is None or not check(value):
            return False
        if isinstance(value, str):
            if len(value) < schema.get("minLength", 0):
                return False
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                return False
            if "pattern" in schema and tool.patterns[name].search(value) is None:
                return False
        elif not isinstance(value, bool | dict):
            if "minimum" in schema and value < schema["minimum"]:
                return False
            if "maximum" in schema and value > schema["maximum"]:
                return False
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                return False
    return True


_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


def integer_problems(tool: BridgeTool, arguments: Any) -> list[dict[str, str]]:
    """The integer arguments the Go bridge refuses as "must be an integer" though JSON Schema
    takes them: an integer that does not fit a signed 64-bit integer. (A float still here is not
    whole: :func:`go_lenient` has read a whole one as its integer.)"""
    if not isinstance(arguments, dict):
        return []
    properties: Mapping[str, Any] = tool.input_schema.get("properties", {})
    problems = []
    for name, value in arguments.items():
        schema = properties.get(name)
        if not isinstance(schema, Mapping) or schema.get("type") != "integer":
            continue
        if isinstance(value, float):
            message = f"{value!r} is not of type 'integer'"
        elif isinstance(value, int) and not isinstance(value, bool):
            if _INT64_MIN <= value <= _INT64_MAX:
                continue
            message = f"{value} does not fit a 64-bit integer"
        else:
            continue
        problems.append({"field": f"$.{name}", "rule": "type", "message": message})
    return problems


def schema_problems(tool: BridgeTool, arguments: Any) -> list[dict[str, str]]:
    if _quick_valid(tool, arguments):
        return integer_problems(tool, arguments)
    if integers := integer_problems(tool, arguments):
        fields = {p["field"] for p in integers}
        others = [p for p in _validator_problems(tool, arguments) if p["field"] not in fields]
        return sorted(integers + others, key=lambda p: p["field"])
    return _validator_problems(tool, arguments)


def _validator_problems(tool: BridgeTool, arguments: Any) -> list[dict[str, str]]:
    validator = tool.validator
    problems = []
    errors: list[SchemaError] = sorted(
        validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path))
    )
    for err in errors:
        base = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in err.absolute_path
        )
        if err.validator == "required" and isinstance(err.instance, dict):
            required = err.validator_value if isinstance(err.validator_value, list) else []
            for name in required:
                if name not in err.instance:
                    problems.append(
                        {
                            "field": f"${base}.{name}",
                            "rule": "required",
                            "message": f"{name} is required",
                        }
                    )
        elif err.validator == "additionalProperties" and isinstance(err.instance, dict):
            schema = err.schema if isinstance(err.schema, Mapping) else {}
            known = set(schema.get("properties", {}))
            for name in err.instance:
                if name not in known:
                    problems.append(
                        {
                            "field": f"${base}.{name}",
                            "rule": "additionalProperties",
                            "message": f"{name} is not a known argument"
                            + (f" (known: {', '.join(sorted(known))})" if known else " (none)"),
                        }
                    )
        else:
            problems.append(
                {
                    "field": f"${base}" if base else "$",
                    "rule": str(err.validator),
                    "message": err.message,
                }
            )
    return problems


def invalid_arguments(
    tool: str, problems: list[dict[str, str]], *, call: bool, game_id: Any = None
) -> types.CallToolResult:
    """The refusal of arguments that break the tool's input schema: ``code:
    invalid_arguments``, ``errors`` (``field``, ``rule``, ``message`` each), and the Go bridge's
    call-class attribution (``causeClass``, the neutral ``trackRecord``, ``games_show`` as next
    action), which it gives a ``games_call_tool`` without a usable ``tool``; ``gameId`` when
    the call named one (``game_id``, a string that is not blank)."""
    named = game_id.strip() if isinstance(game_id, str) else ""
    data: dict[str, Any] = {
        "status": "invalid_arguments",
        "code": "invalid_arguments",
        "tool": tool,
        "errors": problems,
        "causeClass": CAUSE_CALL,
        "trackRecord": track_record_line(),
        "nextActions": [a.to_json() for a in failure_next_actions(named, CAUSE_CALL)],
    }
    if named:
        data["gameId"] = named
    if call:
        data = {"executed": False, **data}
    lines = [f"Invalid arguments for {tool} (nothing was run):"]
    lines += [f"  {p['field']}: {p['message']} (rule: {p['rule']})" for p in problems]
    return text_result("\n".join(lines), data, error=True)
