"""The script language's values: expressions (``$ref``, ``$var``, arithmetic, comparisons,
logic); conditions are in :mod:`rimbridge_sim.scripting.conditions`.

Truthiness is Lua's: only ``null`` and ``false`` are false (``0`` and ``""`` are true).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

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


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
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


def _number(operator: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScriptError("script.invalid_expression", f"{operator} needs numbers, got {value!r}")
    return value


def _arith(operator: str, operands: list[Any]) -> Any:
    numbers = [_number(operator, v) for v in operands]
    if operator == "$add":
        result: float = sum(numbers)
    elif operator == "$multiply":
        result = math.prod(numbers)
    elif len(numbers) != 2:
        raise ScriptError("script.invalid_expression", f"{operator} takes two operands")
    elif operator == "$subtract":
        result = numbers[0] - numbers[1]
    elif numbers[1] == 0:
        raise ScriptError("script.invalid_expression", f"{operator}: division by zero")
    elif operator == "$divide":
        result = numbers[0] / numbers[1]
    else:
        result = numbers[0] % numbers[1]
    # as the mod, a whole result (a quotient too) is an integer: 6 / 3 is 2, 7 / 2 is 3.5
    return int(result) if float(result).is_integer() else result


def _compare(operator: str, left: Any, right: Any) -> bool:
    if operator == "$equals":
        return _equal(left, right)
    if operator == "$notEquals":
        return not _equal(left, right)
    a, b = _number(operator, left), _number(operator, right)
    return {
        "$greaterThan": a > b,
        "$greaterThanOrEqual": a >= b,
        "$lessThan": a < b,
        "$lessThanOrEqual": a <= b,
    }[operator]


def _equal(left: Any, right: Any) -> bool:
    left = None if left is MISSING else left
    right = None if right is MISSING else right
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


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
        result: Any = None
        for item in raw if isinstance(raw, list) else [raw]:
            result = evaluate(item, scope, refs)
            if truthy(result) == (operator == "$or"):
                return result
        return result
    value = evaluate(raw, scope, refs)
    if operator == "$negate":
        return -_number(operator, value)
    if operator == "$not":
        return not truthy(value)
    if not isinstance(value, list):
        raise ScriptError("script.invalid_expression", f"{operator} takes a list of operands")
    if operator in ("$add", "$subtract", "$multiply", "$divide", "$mod"):
        return _arith(operator, value)
    if len(value) != 2:
        raise ScriptError("script.invalid_expression", f"{operator} takes two operands")
    return _compare(operator, value[0], value[1])


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
