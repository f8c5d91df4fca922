"""Values as the mod's script runner compares and converts them (.NET's rules): numbers by
value, numeric text counting as a number; text against anything as text; arithmetic in
.NET's decimal, a whole result written as an integer."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, DivisionByZero, InvalidOperation
from typing import Any, Final

__all__ = [
    "MISSING",
    "arithmetic",
    "compare_numbers",
    "equal",
    "items",
    "nests_deeper",
    "number",
    "text",
    "whole_or_fraction",
]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
"""What a path that selects nothing resolves to."""

# .NET's NumberStyles.Number: blanks, a leading or trailing sign, thousands commas, a point
_NUMERIC_TEXT: Final = re.compile(r"\s*([-+]?)(\d[\d,]*(?:\.\d*)?|\.\d+)([-+]?)\s*")


def number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        except InvalidOperation:
            return None
    if isinstance(value, str):
        found = _NUMERIC_TEXT.fullmatch(value)
        if found is None or (found.group(1) and found.group(3)):
            return None
        sign = "-" if "-" in (found.group(1) + found.group(3)) else ""
        return Decimal(sign + found.group(2).replace(",", ""))
    return None


def compare_numbers(left: Any, right: Any) -> int | None:
    a, b = number(left), number(right)
    if a is None or b is None:
        return None
    return (a > b) - (a < b)


def equal(left: Any, right: Any) -> bool:
    comparison = compare_numbers(left, right)
    if comparison is not None:
        return comparison == 0
    if isinstance(left, str) or isinstance(right, str):
        return text(left) == text(right)
    if isinstance(left, bool) != isinstance(right, bool):
        return False
    return bool(left == right)


def text(value: Any) -> str:
    """A value as .NET's Convert.ToString writes it (True, False, nothing for null)."""
    if value is None or value is MISSING:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def whole_or_fraction(value: Decimal) -> int | float:
    """A decimal result as the mod writes it: a whole number as an integer."""
    return int(value) if value == value.to_integral_value() else float(value)


def arithmetic(operator: str, numbers: list[Decimal]) -> int | float:
    """``$add``, ``$subtract``, ``$multiply``, ``$divide`` or ``$mod`` in decimal arithmetic
    (a remainder takes the sign of the dividend, as in .NET); ``ValueError`` with the mod's
    message when the operands do not fit."""
    if operator in ("$add", "$multiply"):
        if not numbers:
            raise ValueError("Arithmetic expressions require at least one operand.")
        result = numbers[0]
        for item in numbers[1:]:
            result = result + item if operator == "$add" else result * item
        return whole_or_fraction(result)
    if len(numbers) != 2:
        raise ValueError(f"Arithmetic expression '{operator}' requires exactly two operands.")
    left, right = numbers
    if operator == "$subtract":
        return whole_or_fraction(left - right)
    if right == 0:
        raise ValueError("Attempted to divide by zero.")
    try:
        return whole_or_fraction(left / right if operator == "$divide" else left % right)
    except (DivisionByZero, InvalidOperation) as error:
        raise ValueError("Attempted to divide by zero.") from error


def items(value: Any) -> list[Any] | None:
    """A collection's items as the mod enumerates them (an object's are its entries)."""
    if isinstance(value, list):
        return value
    if isinstance(value, Mapping):
        return [{"Key": key, "Value": item} for key, item in value.items()]
    return None


def nests_deeper(value: Any, limit: int) -> bool:
    """Whether ``value`` holds lists and objects more than ``limit`` deep (itself one level).

    Without recursion, and it stops at the first path past ``limit``: a script can build a
    value of any depth, one wrapping statement per level, and such a value cannot be written."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
