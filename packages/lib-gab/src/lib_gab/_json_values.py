"""Values a game hands over without a declared type, in the JSON form they take on the wire.

A tool whose result has no type of its own (a handler registered with ``register_tool``, a
function without a return annotation) and an event's payload may hold values JSON has no
type for: a ``datetime`` (Lib.GAB's README samples put ``DateTime.UtcNow`` in both), a
``UUID``, an ``Enum``, a tuple, a dataclass or a pydantic model. They are written as pydantic
writes them for a tool with a declared result type: a moment as ISO 8601 (``Z`` for UTC), a
UUID as its text, an enum as its value, a tuple as an array, a model by its aliases. A value
no serializer can write (a lone surrogate, an arbitrary object) still fails the call.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

__all__ = ["ANY_VALUE", "json_value"]

ANY_VALUE: TypeAdapter[Any] = TypeAdapter(Any)
"""The serializer of a value whose type is known only when it is written."""


def json_value(value: Any) -> Any:
    """``value`` as plain JSON data (dicts, lists, strings, numbers, booleans, None)."""
    return ANY_VALUE.dump_python(value, mode="json", by_alias=True)
