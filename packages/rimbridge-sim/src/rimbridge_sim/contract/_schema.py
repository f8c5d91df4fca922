"""From a reference parameter to the Python type ``lib_gab`` turns into exactly that schema.

``lib_gab`` builds a tool's ``inputSchema`` from the function signature with pydantic. For a
tool the mod has, the simulation does not write that signature by hand: :func:`signature_for`
makes it from the contract, so the advertised schema is what
:func:`~rimbridge_sim.contract.expected_property` says, and arguments are validated by the same
rules. Each parameter becomes keyword ``python_name(wire name)`` with the wire name as alias.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from rimbridge_sim.contract import MISSING, ParamContract, ToolContract, expected_property

__all__ = ["annotation_for", "check_body", "default_for", "signature_for"]

_PYTHON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict[str, Any],
    "array": list[Any],
}


def default_for(param: ParamContract) -> Any:
    """The Python default: the mod's, ``None`` when it has none, ``empty`` if required."""
    if param.required:
        return inspect.Parameter.empty
    return None if param.default is MISSING else param.default


def _drop_null_default(schema: dict[str, Any]) -> None:
    if "default" in schema and schema["default"] is None:
        del schema["default"]


def annotation_for(param: ParamContract) -> Any:
    """The annotated type whose schema is ``expected_property(param)`` (plus title)."""
    base: Any = _PYTHON_TYPES[param.wire_type]
    if param.enum is not None and param.enum_enforced:
        base = Literal[tuple(param.enum)]
    optional_without_default = not param.required and default_for(param) is None
    if optional_without_default:
        base = base | None
    schema = {k: v for k, v in expected_property(param).items() if k != "default"}
    return Annotated[
        base,
        WithJsonSchema(schema),
        Field(
            alias=param.name,
            title=param.name,
            json_schema_extra=_drop_null_default if optional_without_default else None,
        ),
    ]


def signature_for(contract: ToolContract) -> tuple[inspect.Signature, dict[str, Any]]:
    """The keyword-only signature (and its annotations) of a tool's contract."""
    parameters = [
        inspect.Parameter(
            param.python_name,
            inspect.Parameter.KEYWORD_ONLY,
            default=default_for(param),
            annotation=annotation_for(param),
        )
        for param in contract.params
    ]
    annotations = {p.name: p.annotation for p in parameters}
    annotations["return"] = dict[str, Any]
    return inspect.Signature(parameters, return_annotation=dict[str, Any]), annotations


def _same_default(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


def check_body(function: Callable[..., Any], contract: ToolContract) -> None:
    """Refuse a tool body whose keywords or defaults differ from the contract, so the body
    and the advertised schema cannot drift apart."""
    body = inspect.signature(function).parameters
    expected = {p.python_name: p for p in contract.params}
    problems = []
    extra = sorted(set(body) - set(expected))
    missing = sorted(set(expected) - set(body))
    if extra or missing:
        problems.append(f"keywords differ from the contract (extra {extra}, missing {missing})")
    for name, param in expected.items():
        if name not in body:
            continue
        actual = body[name].default
        wanted = default_for(param)
        if wanted is inspect.Parameter.empty:
            if actual is not inspect.Parameter.empty:
                problems.append(f"{name} is required by the contract but has a default")
        elif actual is inspect.Parameter.empty or not _same_default(actual, wanted):
            problems.append(f"{name} defaults to {actual!r}, the contract says {wanted!r}")
    if problems:
        raise ValueError(f"tool {contract.name}: " + "; ".join(problems))
