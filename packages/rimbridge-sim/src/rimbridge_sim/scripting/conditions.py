"""Condition objects (``continueUntil``, ``if``, ``while``, ``assert``) read as the mod's
runner reads them: a group (``all`` / ``any``) or one leaf that selects a value by ``path``
and tests it. Each test that does not hold says why, in the mod's words; an ``assert`` adds
that reason to its message and a ``continueUntil`` that runs out of time adds its last one.

As in the mod, a path that does not resolve fails the leaf (unless ``exists`` asks about
it), a path alone only asks that it resolves, ``allItems`` over no items does not hold, a
numeric test on something that is not a number does not hold (numeric text is a number), and
``equals`` compares numbers by value and anything against text as text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from rimbridge_sim.scripting.expressions import MISSING, Scope, ScriptError, evaluate, resolve_path
from rimbridge_sim.scripting.values import compare_numbers as _compare_numbers
from rimbridge_sim.scripting.values import equal as _equal
from rimbridge_sim.scripting.values import items as _items
from rimbridge_sim.scripting.values import number as _number
from rimbridge_sim.scripting.values import text as _text

__all__ = ["check", "matches"]

_COMPARISONS: Final[tuple[tuple[str, str, frozenset[int]], ...]] = (
    # (key, its words in the reason, the comparisons -1/0/1 that hold)
    ("greaterThan", "greater than", frozenset({1})),
    ("greaterThanOrEqual", "greater than or equal to", frozenset({0, 1})),
    ("lessThan", "less than", frozenset({-1})),
    ("lessThanOrEqual", "less than or equal to", frozenset({-1, 0})),
)
_KEYS: Final = {
    "all",
    "any",
    "path",
    "value",
    "exists",
    "allItems",
    "anyItem",
    "countEquals",
    "equals",
    "notEquals",
    "in",
    "notIn",
    *(key for key, _, _ in _COMPARISONS),
}

Refs = Callable[[str], Any]


def matches(condition: Any, root: Any, scope: Scope, refs: Refs) -> bool:
    """Whether a condition holds against ``root``."""
    return check(condition, root, scope, refs)[0]


def check(condition: Any, root: Any, scope: Scope, refs: Refs) -> tuple[bool, str]:
    """Whether a condition holds against ``root``, and the mod's sentence saying so."""
    if not isinstance(condition, Mapping):
        message = "contains a continue condition node that is not an object."
        raise ScriptError("script.invalid_condition", message, scoped=True)
    if not condition:
        message = "contains an empty continue condition."
        raise ScriptError("script.invalid_condition", message, scoped=True)
    unknown = set(condition) - _KEYS
    if unknown:
        raise ScriptError("script.invalid_condition", f"unknown condition keys {sorted(unknown)}")
    if "all" in condition:
        for child in _group(condition, "all"):
            held, message = check(child, root, scope, refs)
            if not held:
                return False, message
        return True, "All continue conditions were satisfied."
    if "any" in condition:
        last = ""
        for child in _group(condition, "any"):
            held, message = check(child, root, scope, refs)
            if held:
                return True, message or "At least one continue condition was satisfied."
            last = message
        return False, last or "No continue condition in the 'any' group was satisfied."
    return _leaf(condition, root, scope, refs)


def _leaf(condition: Mapping[str, Any], root: Any, scope: Scope, refs: Refs) -> tuple[bool, str]:
    def value(key: str) -> Any:
        return evaluate(condition[key], scope, refs)

    path = ""
    if "value" in condition:  # ours: the selected value by expression instead of by path
        subject = value("value")
    else:
        raw = value("path") if "path" in condition else ""
        path = _text(raw).strip()
        subject = resolve_path(root, path) if path else root
    exists = subject is not MISSING
    if "exists" in condition:
        wanted = _to_bool(value("exists"))
        if exists != wanted:
            if not path:
                return False, (
                    f"Continue condition expected existence={_text(wanted)}, but the current "
                    f"value existence was {_text(exists)}."
                )
            return False, (
                f"Continue condition expected path '{path}' existence to be {_text(wanted)}, "
                f"but it was {_text(exists)}."
            )
    elif not exists:
        if not path:
            return False, "Continue condition could not resolve the current value."
        return False, f"Continue condition could not resolve path '{path}'."
    if subject is MISSING:
        subject = None
    if "allItems" in condition:
        items = _items(subject)
        if items is None:
            return (
                False,
                f"Continue condition path '{path}' did not resolve to a collection for allItems.",
            )
        if not items:
            return (
                False,
                f"Continue condition path '{path}' resolved to an empty collection for allItems.",
            )
        for item in items:
            held, message = check(condition["allItems"], item, scope, refs)
            if not held:
                return False, message
    if "anyItem" in condition:
        items = _items(subject)
        if items is None:
            return (
                False,
                f"Continue condition path '{path}' did not resolve to a collection for anyItem.",
            )
        last = ""
        for item in items:
            held, message = check(condition["anyItem"], item, scope, refs)
            if held:
                break
            last = message
        else:
            return (
                False,
                last or f"Continue condition path '{path}' did not contain any matching items.",
            )
    if "countEquals" in condition:
        items = _items(subject)
        if items is None:
            return False, f"Continue condition path '{path}' did not resolve to a countable value."
        expected = value("countEquals")
        if isinstance(expected, float | str) and _number(expected) is not None:
            expected = round(_number(expected) or 0)  # the mod reads it as a whole number
        if len(items) != expected:
            return False, (
                f"Continue condition expected count {_text(expected)} at path '{path}', "
                f"but found {len(items)}."
            )
    if "equals" in condition and not _equal(subject, value("equals")):
        return False, f"Continue condition expected path '{path}' to equal the requested value."
    if "notEquals" in condition and _equal(subject, value("notEquals")):
        return False, (
            f"Continue condition expected path '{path}' to differ from the requested value."
        )
    if "in" in condition and not _contains(value("in"), subject):
        return False, f"Continue condition expected path '{path}' to be in the requested set."
    if "notIn" in condition and _contains(value("notIn"), subject):
        return False, f"Continue condition expected path '{path}' not to be in the requested set."
    for key, words, holds in _COMPARISONS:
        if key in condition:
            comparison = _compare_numbers(subject, value(key))
            if comparison not in holds:
                return (
                    False,
                    f"Continue condition expected path '{path}' to be {words} the requested value.",
                )
    if not path:
        return True, "Continue condition satisfied."
    return True, f"Continue condition satisfied for path '{path}'."


def _group(condition: Mapping[str, Any], key: str) -> list[Any]:
    children = condition[key]
    if not isinstance(children, list):
        raise ScriptError(
            "script.invalid_condition",
            f"Continue condition key '{key}' must contain an array of condition objects.",
        )
    return children


def _contains(collection: Any, subject: Any) -> bool:
    items = _items(collection)
    if items is None:
        raise ScriptError(
            "script.invalid_condition",
            "Continue condition 'in'/'notIn' requires a collection value.",
        )
    return any(_equal(item, subject) for item in items)


def _to_bool(value: Any) -> bool:
    if isinstance(value, str):
        if value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise ScriptError("script.invalid_condition", f"'{value}' is not a boolean.")
    if isinstance(value, int | float):
        return value != 0
    return bool(value) and value is not MISSING
