"""Field paths into a mod's settings values (``limits.meals``, ``allowedDefs[1]``), read and
set the way the mod's ``ObjectPathUpdater`` does: a field name matches exactly or else ignoring
case, an index past the end of a list grows the list, and a value is converted to the type the
field holds."""

from __future__ import annotations

import re
from typing import Any, Final

from rimbridge_sim.world.errors import (
    MissingArgumentError,
    RefusedError,
    argument_exception,
    argument_out_of_range,
)

__all__ = ["convert", "locate"]

_INDEX: Final = re.compile(r"\s*[+-]?[0-9]+\s*")


def _segments(path: str) -> list[str | int]:
    """Member names and list indexes, split as the mod splits a path."""
    text = path.strip()
    found: list[str | int] = []
    buffer = ""
    position = 0
    while position < len(text):
        char = text[position]
        if char == ".":
            if not buffer:
                raise RefusedError(f"Invalid empty member segment in path '{text}'.")
            found.append(buffer)
            buffer = ""
        elif char == "[":
            if buffer:
                found.append(buffer)
                buffer = ""
            closing = text.find("]", position + 1)
            if closing < 0:
                raise RefusedError(f"Unclosed index segment in path '{text}'.")
            index_text = text[position + 1 : closing]
            if _INDEX.fullmatch(index_text) is None:
                raise RefusedError(
                    f"Index segment '{index_text}' in path '{text}' is not a valid integer."
                )
            found.append(int(index_text))
            position = closing
        else:
            buffer += char
        position += 1
    if buffer:
        found.append(buffer)
    return found


def _field(node: dict[str, Any], name: str, type_name: str) -> str:
    if name in node:
        return name
    folded = [key for key in node if key.lower() == name.lower()]
    if folded:
        return folded[0]
    raise RefusedError(f"Could not resolve field '{name}' on '{type_name}'.")


def _element_default(items: list[Any]) -> Any:
    """What a list grows by: the default of its element type (as known from its items)."""
    sample = next((item for item in items if item is not None), None)
    if isinstance(sample, bool):
        return False
    if isinstance(sample, int | float):
        return type(sample)()
    return None


def locate(settings: dict[str, Any], path: str, type_name: str) -> tuple[Any, Any, bool]:
    """The container and key ``path`` names, growing lists to reach an index; True when the
    last step grew its list (the value there did not exist before)."""
    if not path.strip():  # the mod's ArgumentException, before the path is parsed
        raise MissingArgumentError(argument_exception("An object path is required.", "path"))
    segments = _segments(path)
    if not segments:
        raise RefusedError("The root object cannot be replaced directly.")
    node: Any = settings
    parent: Any = None
    key: Any = None
    created = False
    for segment in segments:
        if parent is not None:
            node = parent[key]
        created = False
        if isinstance(segment, str):
            if not isinstance(node, dict):
                raise RefusedError(f"Could not resolve field '{segment}' on '{_type(node)}'.")
            parent, key = node, _field(node, segment, type_name if node is settings else "object")
        else:
            if not isinstance(node, list):
                raise RefusedError(
                    f"Path segment '[{segment}]' requires an IList-compatible container but "
                    f"found '{_type(node)}'."
                )
            if segment < 0:
                # the mod's list growth throws ArgumentOutOfRangeException(nameof(index))
                raise RefusedError(argument_out_of_range("index"))
            created = len(node) <= segment
            while len(node) <= segment:
                node.append(_element_default(node))
            parent, key = node, segment
    return parent, key, created


_NET_TYPES: Final = {
    "bool": "System.Boolean",
    "int": "System.Int32",
    "float": "System.Single",
    "str": "System.String",
    "list": "System.Collections.Generic.List`1",
}


def _type(value: Any) -> str:
    """The .NET type name the mod's path errors give (``Type.FullName``), as the settings
    tree names them; a nested settings object is ``object``, its class being unknown here."""
    if value is None:
        return "null"
    return _NET_TYPES.get(type(value).__name__, "object")


def convert(path: str, previous: Any, value: Any) -> Any:
    """``value`` as the type of ``previous`` (.NET's ``Convert.ChangeType`` for scalars: a
    number from a numeric string, a whole number from a fraction by rounding half to even, a
    string from any scalar, a flag from ``true``/``false``); refused when it cannot be."""
    wanted = {"str": "string", "NoneType": "string", "dict": "object"}.get(
        type(previous).__name__, type(previous).__name__
    )
    try:
        if previous is None or isinstance(previous, str):
            if isinstance(value, bool):
                return "True" if value else "False"
            if isinstance(value, int | float | str):
                return str(value)
        elif isinstance(previous, bool):
            if isinstance(value, bool):
                return value
            if isinstance(value, int | float):
                return value != 0
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower() == "true"
        elif isinstance(previous, int):
            if isinstance(value, bool):
                return int(value)
            if isinstance(value, int):
                return value
            if isinstance(value, float):
                return round(value)
            if isinstance(value, str):
                return int(value.strip())
        elif isinstance(previous, float):
            if isinstance(value, int | float):
                return float(value)
            if isinstance(value, str):
                return float(value.strip())
        elif isinstance(previous, list) and isinstance(value, list):
            return list(value)
    except (ValueError, OverflowError):
        pass
    raise RefusedError(f"Settings path '{path}' holds a {wanted}; cannot set it to {value!r}.")
