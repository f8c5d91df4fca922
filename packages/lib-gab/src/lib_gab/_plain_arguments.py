"""A quick path for the common tool call: arguments that are already exactly what a model of
plain parameters (``str``, ``int``, ``float``, ``bool``) would give back.

Such arguments are taken as they are, with the model's defaults for the rest; the model is not
run. Anything else (a missing or unknown name, another type, an integral float for an integer,
a string JSON cannot carry, a non-finite number, a model with constraints, aliases, validators
or other configuration) returns ``None``, and the caller checks the arguments the full way, so
every result and every error is the one that way gives.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any
from weakref import WeakKeyDictionary

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

__all__ = ["plain_values"]

_PLAIN_TYPES = (str, int, float, bool)
_DEFAULT_TYPES = (str, int, float, bool, type(None))
_MISSING = object()
_NOT_PLAIN: dict[str, tuple[type, Any]] = {}
_fields: WeakKeyDictionary[type[BaseModel], dict[str, tuple[type, Any]]] = WeakKeyDictionary()


def _plain_fields(model: type[BaseModel]) -> dict[str, tuple[type, Any]] | None:
    """Each field's type and default, or None if the model is not a plain one."""
    config = model.model_config
    if set(config) - {"extra", "title"} or config.get("extra") != "forbid":
        return None
    if model.__bases__ != (BaseModel,) or {"__init__", "model_post_init"} & set(vars(model)):
        return None
    decorators = model.__pydantic_decorators__
    if any(getattr(decorators, item.name) for item in dataclasses.fields(decorators)):
        return None
    fields: dict[str, tuple[type, Any]] = {}
    for name, info in model.model_fields.items():
        kind = info.annotation
        plain = kind in _PLAIN_TYPES and not info.metadata and info.default_factory is None
        named = info.alias in (None, name) and info.validation_alias in (None, name)
        default = info.default
        if not (plain and named) or (
            default is not PydanticUndefined and type(default) not in _DEFAULT_TYPES
        ):
            return None
        fields[name] = (kind, default)  # type: ignore[assignment]
    return fields


def plain_values(model: type[BaseModel], arguments: Any) -> dict[str, Any] | None:
    """The keyword arguments ``model`` would give for ``arguments``, or None to check them
    the full way."""
    fields = _fields.get(model)
    if fields is None:
        plain = _plain_fields(model)
        fields = _fields[model] = _NOT_PLAIN if plain is None else plain
    if fields is _NOT_PLAIN or type(arguments) is not dict or len(arguments) > len(fields):
        return None
    values: dict[str, Any] = {}
    taken = 0
    for name, (kind, default) in fields.items():
        value: Any = arguments.get(name, _MISSING)
        if value is _MISSING:
            if default is PydanticUndefined:
                return None
            values[name] = default
            continue
        if type(value) is not kind:
            return None
        taken += 1
        if isinstance(value, str) and not value.isascii():
            try:
                value.encode()
            except UnicodeEncodeError:  # a lone surrogate: not JSON text
                return None
        elif isinstance(value, float) and not math.isfinite(value):
            return None
        values[name] = value
    # every name known: as many values taken as the arguments hold
    return values if taken == len(arguments) else None
