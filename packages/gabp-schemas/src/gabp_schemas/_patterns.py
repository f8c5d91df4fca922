"""``pattern`` and ``patternProperties`` with the regular-expression rules JSON Schema asks for.

JSON Schema patterns are ECMA-262 regular expressions, and GABP's own validator (ajv, in its npm
package) runs them as such. Python's ``re``, which ``jsonschema`` uses as is, reads the same
text differently in ways that change verdicts of GABP's patterns:

* ``$`` also matches before a final newline, so ``"rimworld/pause_game\\n"`` would pass the
  tool-name pattern ``^...$``; in ECMA-262 ``$`` is the end of the input only;
* ``\\d``, ``\\w`` and ``\\b`` cover every Unicode digit or letter, so ``"1.\\u0663"`` would
  pass ``schemaVersion``'s ``^1\\.\\d+...$``; in ECMA-262 they are ASCII only;
* ``.`` also matches ``\\r``, U+2028 and U+2029, which are ECMA-262 line terminators;
* ``\\s`` differs slightly in which spaces it covers;
* ``[]`` (matches nothing) and ``[^]`` (matches anything) are not valid Python.

``ecma_search`` translates those constructs and searches with the result; everything else is
passed to ``re`` unchanged (the two languages agree on the rest of what the schemas use).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any, Final, cast

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend

__all__ = ["Draft7EcmaValidator", "additional_properties", "ecma_search", "to_python"]

_SPACES: Final = (
    "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
"""ECMA-262 ``\\s``: WhiteSpace and LineTerminator."""
_LINE_TERMINATORS: Final = "\\n\\r\\u2028\\u2029"


def to_python(pattern: str) -> str:
    """The Python ``re`` pattern (used with ``re.ASCII``) that means what ``pattern`` does."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i + 1]
            if escape == "s":
                out.append(_SPACES if in_class else f"[{_SPACES}]")
            elif escape == "S" and not in_class:
                out.append(f"[^{_SPACES}]")
            else:
                out.append(char + escape)
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
            out.append(char)
        elif char == "[":
            if pattern.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            if pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                continue
            in_class = True
            out.append(char)
            if pattern.startswith("[^", i):
                out.append("^")
                i += 1
        elif char == "$":
            out.append("\\Z")
        elif char == ".":
            out.append(f"[^{_LINE_TERMINATORS}]")
        else:
            out.append(char)
        i += 1
    return "".join(out)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(to_python(pattern), re.ASCII)


def ecma_search(pattern: str, text: str) -> bool:
    """Whether the ECMA-262 ``pattern`` matches somewhere in ``text``, as JSON Schema's does."""
    return _compiled(pattern).search(text) is not None


def additional_properties(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Members of ``instance`` that neither ``properties`` nor ``patternProperties`` covers."""
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in properties and not any(ecma_search(p, key) for p in patterns)
    ]


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if ecma_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = additional_properties(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras))
        verb = "was" if len(extras) == 1 else "were"
        yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


Draft7EcmaValidator: Final = cast(
    "type[Draft7Validator]",
    extend(  # type: ignore[no-untyped-call]
        Draft7Validator,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    ),
)
"""Draft-07 validation with ECMA-262 ``pattern`` and ``patternProperties``."""
