"""Lib.GAB's lossless argument conversions, for servers that receive as Lib.GAB does.

Lib.GAB 1.0.3 converts each argument to its parameter's type with .NET's ``Convert`` and
Newtonsoft.Json, and a value it cannot convert silently becomes the parameter's default. Of
what it converts, the conversions that neither lose nor invent anything are taken here,
wherever the value sits (an argument, an item of a list, a member of an object):

* a string holding a whole number (``"5"``, ``" 5 "``) where an integer is wanted;
* a string holding a decimal number (``"2.5"``, ``"1e3"``) where a number is wanted;
* ``1`` or ``0``, and ``"true"`` or ``"false"`` in any letter case, where a boolean is wanted;
* an enum member's value in another letter case or with spaces around it (``"fast"``), when
  that matches one member only;
* a whole number where a string is wanted, as its decimal text (``5`` → ``"5"``).

Everything else Lib.GAB does to a value (``2.5`` → ``2``, ``"yes"`` → ``false``, ``2`` →
``true``, an enum by its position, ``"1,5"`` → ``15``, a number out of range → ``0``) loses or
invents data, and stays refused.
"""

from __future__ import annotations

import math
import re
import types
from enum import Enum
from typing import Annotated, Any, Literal, TypeAlias, Union, get_args, get_origin

from pydantic import BaseModel

__all__ = ["MAX_EXACT_INTEGER", "ArgumentValues", "converted", "enum_at", "integral", "is_nothing"]

ArgumentValues: TypeAlias = Literal["exact", "convert"]

MAX_EXACT_INTEGER = 2**53
"""Beyond this a float holds no exact whole number a sender could have meant (``1e300``)."""

_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOTHING = object()


def integral(value: Any) -> Any:
    """The int an integral float stands for, exactly; ``_NOTHING`` if there is none."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_EXACT_INTEGER:
        return int(value)
    return _NOTHING


def _unwrapped(annotation: Any) -> Any:
    """``annotation`` without ``Annotated`` and without ``None`` in an optional one."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
            continue
        if origin in (Union, types.UnionType):
            kept = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(kept) == 1:
                annotation = kept[0]
                continue
        return annotation


def enum_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[Enum] | None:
    """The enum type the model wants at ``loc`` (an argument, a list's item, a member of a
    nested model), or None."""
    annotation: Any = model
    for part in loc:
        annotation = _unwrapped(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            fields = annotation.model_fields
            field = fields.get(str(part)) or next(
                (info for info in fields.values() if info.alias == part), None
            )
            if field is None:
                return None
            annotation = field.annotation
        elif isinstance(part, int) and get_origin(annotation) in (list, tuple, set, frozenset):
            annotation = get_args(annotation)[0] if get_args(annotation) else Any
        elif isinstance(part, str) and get_origin(annotation) is dict:
            annotation = get_args(annotation)[1] if get_args(annotation) else Any
        else:
            return None
    annotation = _unwrapped(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, Enum) else None


def _enum_value(value: str, enum: type[Enum] | None) -> Any:
    if enum is None:
        return _NOTHING
    wanted = value.strip().casefold()
    matches = [
        member.value
        for member in enum
        if isinstance(member.value, str) and member.value.casefold() == wanted
    ]
    return matches[0] if len(matches) == 1 else _NOTHING


def _convert(rule: str, value: Any, enum: type[Enum] | None) -> Any:
    if rule in ("int_type", "int_parsing") and isinstance(value, str):
        text = value.strip()
        if not _WHOLE.fullmatch(text):
            return _NOTHING
        try:
            return int(text)
        except ValueError:  # more digits than Python reads from text
            return _NOTHING
    if rule in ("float_type", "float_parsing") and isinstance(value, str):
        text = value.strip()
        if _DECIMAL.fullmatch(text) and math.isfinite(number := float(text)):
            return number
        return _NOTHING
    if rule in ("bool_type", "bool_parsing"):
        if type(value) is int or (isinstance(value, float) and value in (0.0, 1.0)):
            return bool(value) if value in (0, 1) else _NOTHING
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return _NOTHING
    if rule == "string_type" and type(value) is int:
        return str(value)
    if rule == "enum" and isinstance(value, str):
        return _enum_value(value, enum)
    return _NOTHING


def converted(error: Any, convert: bool, enum: type[Enum] | None = None) -> Any:
    """The value to put in place of ``error``'s input, or ``_NOTHING``.

    Always: an integral float for an integer (``5.0`` → ``5``, as the advertised JSON Schema
    calls it an integer). With ``convert``: Lib.GAB's lossless conversions listed above;
    ``enum`` is the enum type wanted where the error is one of an enum's."""
    value = error["input"]
    if error["type"] == "int_type" and isinstance(value, float):
        return integral(value)
    if not convert:
        return _NOTHING
    return _convert(error["type"], value, enum)


def is_nothing(value: Any) -> bool:
    return value is _NOTHING
