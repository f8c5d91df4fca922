"""The script language's values: expressions (``$ref``, ``$var``, arithmetic, comparisons,
logic); conditions are in :mod:`rimbridge_sim.scripting.conditions`.

Truthiness is Lua's: only ``null`` and ``false`` are false (``0`` and ``""`` are true).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Final

from rimbridge_sim.scripting.values import (
    MISSING,
    arithmetic,
    compare_numbers,
    equal,
    number,
    whole_or_fraction,
)

__all__ = [
    "MISSING",
    "OPERATORS",
    "SCRIPT_EXCEPTION_TYPE",
    "Scope",
    "ScriptError",
    "evaluate",
    "operation_error",
    "resolve_path",
    "truthy",
]


class ScriptError(Exception):
    """A script failed; ``code`` is one of the documented ``script.*`` failure codes."""

    def __init__(
        self, code: str, message: str, details: Any = None, *, scoped: bool = False
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.scoped = scoped
        """The message goes on from "Step '<id>' ", as the mod names the statement first."""

    def message_at(self, statement_id: str) -> str:
        """The message as the statement ``statement_id`` reports it."""
        return f"Step '{statement_id}' {self.message}" if self.scoped else self.message

    def to_wire(self) -> dict[str, Any]:
        return operation_error(self.code, self.message, details=self.details)


SCRIPT_EXCEPTION_TYPE: Final = "System.InvalidOperationException"
"""The exception type the mod names in the errors its script runner makes itself."""


def operation_error(
    code: str,
    message: str,
    *,
    exception_type: str | None = SCRIPT_EXCEPTION_TYPE,
    details: Any = None,
) -> dict[str, Any]:
    """A script's or a step's ``error`` as the mod writes it: its ``OperationError`` class in
    Newtonsoft's default casing (``Code``, ``Message``, ``ExceptionType``, ``Details``)."""
    return {"Code": code, "Message": message, "ExceptionType": exception_type, "Details": details}


_SEGMENT: Final = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class Scope:
    """Variables, block by block: ``let`` declares in the innermost block, ``set`` assigns
    where the name lives."""

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.values: dict[str, Any] = {}

    def child(self) -> Scope:
        return Scope(self)

    def find(self, name: str) -> Scope | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return scope
            scope = scope.parent
        return None

    def get(self, name: str) -> Any:
        found = self.find(name)
        return MISSING if found is None else found.values[name]

    def flatten(self) -> dict[str, Any]:
        chain = []
        scope: Scope | None = self
        while scope is not None:
            chain.append(scope.values)
            scope = scope.parent
        merged: dict[str, Any] = {}
        for values in reversed(chain):
            merged.update(values)
        return merged


def resolve_path(root: Any, path: str) -> Any:
    """``result.colonists[0].name`` in ``root``; :data:`MISSING` when it is not there. An
    empty path is the root itself."""
    value = root
    for field, index in _SEGMENT.findall(path or ""):
        if field:
            if not isinstance(value, Mapping):
                return MISSING
            if field not in value:  # as the mod: then the first key equal ignoring case
                folded = field.casefold()
                field = next((k for k in value if str(k).casefold() == folded), None)
                if field is None:
                    return MISSING
            value = value[field]
        else:
            position = int(index)
            if not isinstance(value, list) or position >= len(value):
                return MISSING
            value = value[position]
    return value


def truthy(value: Any) -> bool:
    return value is not None and value is not False and value is not MISSING


def _numbers(operator: str, value: Any) -> list[Decimal]:
    if not isinstance(value, list):
        raise ScriptError(
            "script.invalid_expression", "Arithmetic expressions require an array of operands."
        )
    numbers = [number(item) for item in value]
    if any(item is None for item in numbers):
        raise ScriptError(
            "script.invalid_expression", "Arithmetic expressions require numeric operands."
        )
    return [item for item in numbers if item is not None]


def _arith(operator: str, operands: Any) -> Any:
    try:
        return arithmetic(operator, _numbers(operator, operands))
    except ValueError as error:
        raise ScriptError("script.invalid_expression", str(error)) from error


def _compare(operator: str, operands: Any) -> bool:
    if not isinstance(operands, list) or len(operands) != 2:
        message = "Comparison expressions require an array of exactly two operands."
        raise ScriptError("script.invalid_expression", message)
    left, right = operands
    if operator == "$equals":
        return equal(left, right)
    if operator == "$notEquals":
        return not equal(left, right)
    comparison = compare_numbers(left, right)
    if comparison is None:
        message = f"Logical expression '{operator}' requires numeric operands."
        raise ScriptError("script.invalid_expression", message)
    return {
        "$greaterThan": comparison > 0,
        "$greaterThanOrEqual": comparison >= 0,
        "$lessThan": comparison < 0,
        "$lessThanOrEqual": comparison <= 0,
    }[operator]


Lookup = Callable[[str, str, bool], Any]
"""``lookup(kind, name_or_step, path_required)`` for ``$ref`` / ``$var``."""

OPERATORS: Final = (
    "$add",
    "$subtract",
    "$multiply",
    "$divide",
    "$mod",
    "$negate",
    "$not",
    "$and",
    "$or",
    "$equals",
    "$notEquals",
    "$greaterThan",
    "$greaterThanOrEqual",
    "$lessThan",
    "$lessThanOrEqual",
)


def evaluate(expression: Any, scope: Scope, refs: Callable[[str], Any]) -> Any:
    """The value of an expression; ``refs(step_id)`` gives a step's reference root."""
    if isinstance(expression, list):
        return [evaluate(item, scope, refs) for item in expression]
    if not isinstance(expression, Mapping):
        return expression
    if "$ref" in expression:
        step = _name(expression["$ref"])
        if not step:
            message = "contains a script reference without a valid '$ref' target."
            raise ScriptError("script.invalid_reference", message, scoped=True)
        path = _name(expression.get("path", "result"))
        found = _select(refs(step), expression, path)
        if found is MISSING:
            where = f" path '{path}'" if path else ""
            message = f"could not resolve script reference '{step}'{where}."
            raise ScriptError("script.invalid_reference", message, scoped=True)
        return found
    if "$var" in expression:
        name = _name(expression["$var"])
        if not name:
            message = "contains a variable expression without a valid '$var' name."
            raise ScriptError("script.invalid_variable", message, scoped=True)
        value = scope.get(name)
        if value is MISSING:
            message = (
                f"cannot resolve variable '{name}' because it is not declared in any active scope."
            )
            raise ScriptError("script.invalid_variable", message, scoped=True)
        path = _name(expression.get("path", ""))
        found = _select(value, expression, path) if path else value
        if found is MISSING:
            message = f"could not resolve variable '{name}' path '{path}'."
            raise ScriptError("script.invalid_variable", message, scoped=True)
        return found
    # as the mod: an operator is an object with that one key; any other object (an unknown
    # "$name" included) is a value whose members are resolved
    operator = next(iter(expression)) if len(expression) == 1 else None
    if operator not in OPERATORS:
        operator = None
    if operator is None:
        return {k: evaluate(v, scope, refs) for k, v in expression.items()}
    raw = expression[operator]
    if operator in ("$and", "$or"):
        if not isinstance(raw, list):
            message = "Logical expressions require an array of operands."
            raise ScriptError("script.invalid_expression", message)
        if not raw:
            message = "Logical expressions require at least one operand."
            raise ScriptError("script.invalid_expression", message)
        result: Any = None
        for item in raw:
            result = evaluate(item, scope, refs)
            if truthy(result) == (operator == "$or"):
                return result
        return result
    value = evaluate(raw, scope, refs)
    if operator == "$negate":
        negated = number(value)
        if negated is None:
            message = "Logical expression '$negate' requires a numeric operand."
            raise ScriptError("script.invalid_expression", message)
        return whole_or_fraction(-negated)
    if operator == "$not":
        return not truthy(value)
    if operator in ("$add", "$subtract", "$multiply", "$divide", "$mod"):
        return _arith(operator, value)
    return _compare(operator, value)


def _name(value: Any) -> str:
    """A name or path as the mod reads one: its text, trimmed (nothing for null)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value).strip()


def _select(root: Any, expression: Mapping[str, Any], path: str) -> Any:
    """What ``path`` selects in ``root``; null when it is not there and the expression says
    ``required: false``, else :data:`MISSING`."""
    value = resolve_path(root, path)
    if value is MISSING and not truthy(expression.get("required", True)):
        return None
    return value
