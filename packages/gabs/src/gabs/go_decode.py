"""Whether decoded JSON has the types a Go struct gives its fields.

The Go bridge reads its files (``runtime.json``, the track record) with ``json.Unmarshal``
into structs: a member of the wrong JSON type at any depth fails the whole decode, ``null`` is
the zero value of every type, members the struct does not name are ignored, and a member name
matches a field exactly or else in another letter case. :func:`go_type_problem` answers what
that decode would refuse, described by a :data:`GoType` table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, TypeAlias

from gabs.config import json_kind

__all__ = [
    "BOOL",
    "INT",
    "STRING",
    "STRINGS",
    "STRING_MAP",
    "TIME",
    "UINT",
    "GoType",
    "go_type_problem",
]

# A Go type: a scalar's name, ("list", item) for a slice, ("map", value) for a map with string
# keys, or a mapping of JSON member names to types for a struct.
GoType: TypeAlias = "str | tuple[str, GoType] | Mapping[str, GoType]"

STRING: Final = "string"
INT: Final = "int64"
UINT: Final = "uint64"
BOOL: Final = "bool"
TIME: Final = "time"
STRINGS: Final = ("list", STRING)
STRING_MAP: Final = ("map", STRING)

_BOUNDS: Final = {INT: (-(2**63), 2**63 - 1), UINT: (0, 2**64 - 1)}
_SCALAR_PROBLEMS: Final = {
    STRING: "must be a string",
    INT: "must be a 64-bit integer",
    UINT: "must be an unsigned 64-bit integer",
    BOOL: "must be true or false",
    TIME: "must be an RFC 3339 time",
}
_RFC3339: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))"
)


def _fold(name: str) -> str:
    # Go's decoder folds case as Unicode's simple folding does: the long s and the Kelvin sign
    # fold to s and k (``lower`` already handles the Kelvin sign); nothing folds to two letters.
    return name.lower().replace("\u017f", "s")


def _rfc3339(value: str) -> bool:
    match = _RFC3339.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    offset = match.group(7)
    return offset is None or (int(offset) < 24 and int(match.group(8)) < 60)


def _scalar_fits(value: Any, kind: str) -> bool:
    if kind == STRING:
        return isinstance(value, str)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == TIME:
        return isinstance(value, str) and _rfc3339(value)
    low, high = _BOUNDS[kind]
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _field(fields: Mapping[str, GoType], name: str) -> GoType | None:
    exact = fields.get(name)
    if exact is not None:
        return exact
    folded = _fold(name)
    for field, kind in fields.items():
        if _fold(field) == folded:
            return kind
    return None


def _problem(value: Any, kind: GoType, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(kind, str):
        if _scalar_fits(value, kind):
            return None
        said = _SCALAR_PROBLEMS[kind]
        return f"{where}: {said}" + (f", not {json_kind(value)}" if kind in (STRING, BOOL) else "")
    if isinstance(kind, tuple):
        container, item = kind
        if container == "list":
            if not isinstance(value, list):
                return f"{where}: must be an array, not {json_kind(value)}"
            for index, element in enumerate(value):
                found = _problem(element, item, f"{where}[{index}]")
                if found is not None:
                    return found
            return None
        if not isinstance(value, dict):
            return f"{where}: must be an object, not {json_kind(value)}"
        for key in sorted(value):
            found = _problem(value[key], item, f"{where}.{key}")
            if found is not None:
                return found
        return None
    if not isinstance(value, dict):
        return f"{where}: must be an object, not {json_kind(value)}"
    return _members(value, kind, f"{where}.")


def _members(data: dict[str, Any], fields: Mapping[str, GoType], prefix: str) -> str | None:
    for name in sorted(data):
        kind = _field(fields, name)
        if kind is None:
            continue
        found = _problem(data[name], kind, prefix + name)
        if found is not None:
            return found
    return None


def go_type_problem(data: Any, fields: Mapping[str, GoType]) -> str | None:
    """The first member of ``data`` (a decoded JSON object), at any depth and in sorted order,
    whose type ``fields`` refuses, as ``path: problem`` (``endpoint.port: must be a 64-bit
    integer``); None when Go's decode would succeed."""
    if data is None:
        return None
    if not isinstance(data, dict):
        return f"must be an object, not {json_kind(data)}"
    return _members(data, fields, "")
