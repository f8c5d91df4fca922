"""Tool metadata the way Lib.GAB describes it, and the decorators that attach it.

* :class:`ToolInfo`, :class:`ToolParameterInfo` and :class:`ToolResponseFieldInfo` are the
  counterparts of Lib.GAB's ``ToolInfo``, ``ToolParameterInfo`` and ``ToolResponseFieldInfo``:
  what ``GabpServer.register_tool`` takes beside a plain handler, and what every registered tool
  reports (``Tool.info``).
* :func:`tool`, :func:`tool_response` and :class:`ToolParameter` are the counterparts of the
  ``[Tool]``, ``[ToolResponse]`` and ``[ToolParameter]`` attributes: they only attach metadata;
  ``GabpServer.register_tools_from(obj)`` finds the decorated methods and registers them.

::

    class ColonyTools:
        @tool("colony/set_speed", description="Set the game speed.",
              result_description="The speed now in effect.")
        @tool_response("speed", type="integer", description="0 paused, 1 to 4 faster")
        def set_speed(self, speed: Annotated[int, ToolParameter(description="0 to 4")]) -> dict:
            ...

    server.register_tools_from(ColonyTools())
"""

from __future__ import annotations

import re
import types
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Final, TypeVar, Union, get_args, get_origin

from gabp.messages import TOOL_NAME_PATTERN, schema_regex

__all__ = [
    "JSON_TYPES",
    "TOOL_NAME_PATTERN",
    "ToolInfo",
    "ToolParameter",
    "ToolParameterInfo",
    "ToolResponseFieldInfo",
    "check_tool_name",
    "is_valid_tool_name",
    "json_type_of",
    "lib_gab_type_name",
    "tool",
    "tool_info_of",
    "tool_response",
    "tool_title",
]

F = TypeVar("F", bound=Callable[..., Any])

JSON_TYPES: Final = ("string", "integer", "number", "boolean", "array", "object")
_TOOL_NAME = schema_regex(TOOL_NAME_PATTERN)
_MARK = "__lib_gab_tool__"
_RESPONSES = "__lib_gab_tool_responses__"
_NO_DEFAULT: Any = object()


def is_valid_tool_name(name: object) -> bool:
    """Whether ``name`` is a canonical GABP tool name (Lib.GAB's ``ToolNameValidator.IsValid``).

    The pattern is read as JSON Schema reads it (:func:`gabp.messages.schema_regex`): a name
    ending in a line break is not one (.NET's and Python's ``$`` allow one before the end).
    """
    return isinstance(name, str) and _TOOL_NAME.match(name) is not None


def check_tool_name(name: str) -> str:
    """``name`` if it is a canonical GABP tool name, else a ``ValueError`` that says why
    (Lib.GAB's ``ToolNameValidator.EnsureValid``)."""
    if not is_valid_tool_name(name):
        raise ValueError(
            f"tool name {name!r} must match {TOOL_NAME_PATTERN} (for example 'inventory/get'): "
            "lowercase segments joined by '/', at least two; dotted names such as "
            "'inventory.get' are not GABP tool names"
        )
    return name


def tool_title(name: str) -> str:
    """Lib.GAB's title for a tool name: ``inventory/get_all`` -> ``Inventory Get All``.

    The name is split at ``/``, ``_`` and ``-``, and each part is title-cased by the rules of
    .NET's ``TextInfo.ToTitleCase``: digits belong to the word they stand in (``get_v2view``
    -> ``Get V2view``, where ``str.title`` would give ``V2View``), and a word written all in
    capitals is kept as it is.
    """
    parts = [_title_case(part) for part in re.split(r"[/_-]+", name) if part]
    return " ".join(parts) if parts else name


_LETTERS: Final = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo"))
_WORD_SEPARATORS: Final = frozenset(
    ("Zs", "Zl", "Zp", "Cc", "Cf", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So")
)
"""The Unicode categories that end a word for .NET's title case; marks, digits and other
numbers do not."""


def _title_case(text: str) -> str:
    """``text`` in title case as .NET's ``TextInfo.ToTitleCase`` writes it (invariant culture):
    a word starts at a letter; its first letter is upper-cased and the rest of it lower-cased
    unless it has no lower-case letter at all (an acronym); an apostrophe inside a word starts a
    part that is lower-cased; anything else is copied."""
    out: list[str] = []
    i, end = 0, len(text)
    while i < end:
        first = text[i]
        kind = unicodedata.category(first)
        i += 1
        if kind not in _LETTERS:
            out.append(first)
            continue
        titled = first.title()  # .NET maps one character to one: no 'ß' -> 'Ss'
        out.append(titled if len(titled) == 1 else first)
        start, has_lower = i, kind == "Ll"
        while i < end:
            char = text[i]
            kind = unicodedata.category(char)
            if kind in _LETTERS:
                has_lower = has_lower or kind == "Ll"
            elif char == "'":
                i += 1
                out.append(text[start:i].lower() if has_lower else text[start:i])
                start, has_lower = i, True
                continue
            elif kind in _WORD_SEPARATORS:
                break
            i += 1
        out.append(text[start:i].lower() if has_lower else text[start:i])
    return "".join(out)


def json_type_of(kind: Any) -> str:
    """The JSON Schema type of a parameter type, as Lib.GAB maps .NET types.

    A JSON type name passes through; ``str`` is ``string``, ``bool`` ``boolean``, ``int``
    ``integer``, ``float`` and ``Decimal`` ``number``, other collections ``array``, anything else
    ``object``. ``Annotated`` metadata is looked through, and ``X | None`` is described as ``X``
    (as Lib.GAB describes ``int?`` as ``integer``).
    """
    if isinstance(kind, str):
        if kind not in JSON_TYPES:
            raise ValueError(f"unknown JSON type {kind!r}; one of {', '.join(JSON_TYPES)}")
        return kind
    kind = _underlying(kind)
    origin = get_origin(kind) or kind
    if origin is str:
        return "string"
    if origin is bool:
        return "boolean"
    if origin is int:
        return "integer"
    if origin is float or getattr(origin, "__name__", "") == "Decimal":
        return "number"
    if origin in (list, tuple, set, frozenset) or (
        isinstance(origin, type) and issubclass(origin, Sequence) and origin is not str
    ):
        return "array"
    return "object"


_JSON_TYPE_NAMES: Final = {
    "string": "String",
    "integer": "Int64",
    "number": "Double",
    "boolean": "Boolean",
    "array": "List`1",
    "object": "Object",
}
_VALUE_TYPES: Final = {bool: "Boolean", int: "Int64", float: "Double"}


def lib_gab_type_name(kind: Any) -> str:
    """The type name Lib.GAB writes in a ``tools/list`` entry's ``parameters`` list.

    Lib.GAB writes the .NET type's name there (``String``, ``Int32``, ``Nullable`1``,
    ``List`1``), not a JSON type; a bridge that builds a schema from that list maps those
    names. The Python types map to their nearest .NET names: ``int`` is ``Int64`` (a Python
    ``int`` is not limited to 32 bits), ``float`` ``Double``, ``int | None`` (and any other
    nullable number, flag or enum) ``Nullable`1``, while ``str | None`` stays ``String``, as a
    nullable reference type has no wrapper in .NET. A sequence is ``List`1``, a mapping
    ``Dictionary`2``, a class (a model, an enum) its own name, anything else ``Object``. A
    JSON type name maps the same way.
    """
    if isinstance(kind, str):
        return _JSON_TYPE_NAMES.get(kind, "Object")
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    if get_origin(kind) in (Union, types.UnionType):
        members = [member for member in get_args(kind) if member is not type(None)]
        if len(members) != 1:
            return "Object"
        inner = _underlying(members[0])
        name = lib_gab_type_name(inner)
        value_type = name in ("Boolean", "Int64", "Double", "Decimal") or (
            isinstance(inner, type) and issubclass(inner, Enum)
        )
        return "Nullable`1" if value_type else name
    origin = get_origin(kind) or kind
    if origin is str:
        return "String"
    if origin in _VALUE_TYPES:
        return _VALUE_TYPES[origin]
    if getattr(origin, "__name__", "") == "Decimal":
        return "Decimal"
    if isinstance(origin, type) and issubclass(origin, Mapping):
        return "Dictionary`2"
    if origin in (list, tuple, set, frozenset) or (
        isinstance(origin, type) and issubclass(origin, Sequence) and origin is not str
    ):
        return "List`1"
    if isinstance(origin, type) and origin not in (object, Any):
        return origin.__name__
    return "Object"


def _underlying(kind: Any) -> Any:
    """``kind`` without ``Annotated`` metadata, and ``X`` for ``X | None``."""
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    if get_origin(kind) in (Union, types.UnionType):
        members = [member for member in get_args(kind) if member is not type(None)]
        if len(members) == 1:
            return _underlying(members[0])
    return kind


def plain_parameter_type(annotation: Any) -> Any:
    """A parameter's type as :class:`ToolParameterInfo` reports it: the annotation without the
    :class:`ToolParameter` marker (other ``Annotated`` metadata, such as constraints, stays)."""
    if get_origin(annotation) is not Annotated:
        return annotation
    inner, *extras = get_args(annotation)
    kept = [extra for extra in extras if not isinstance(extra, ToolParameter)]
    return Annotated[(inner, *kept)] if kept else inner


@dataclass(frozen=True)
class ToolParameterInfo:
    """One parameter: its name, type, description, whether it is required and its default."""

    name: str
    type: Any = object
    """A Python type (``int``, ``list[str]``, a model) or a JSON type name (``"integer"``)."""
    description: str | None = None
    required: bool = True
    default_value: Any = None
    """Used when the argument is left out (``None``: no default)."""


@dataclass(frozen=True)
class ToolResponseFieldInfo:
    """One member of a tool's (object) result, for its ``outputSchema``."""

    name: str
    type: str = "string"
    """A JSON type name: string, integer, number, boolean, array or object."""
    description: str | None = None
    always: bool = True
    """The member is always present (it is listed as required)."""
    nullable: bool = False
    """The member may be null."""

    def __post_init__(self) -> None:
        if not self.name or not self.name.strip():
            raise ValueError("a response field needs a name")
        json_type_of(self.type)


@dataclass(frozen=True)
class ToolInfo:
    """What a tool is, for ``tools/list``: Lib.GAB's ``ToolInfo``."""

    name: str = ""
    description: str | None = None
    title: str | None = None
    """Falls back to :func:`tool_title` of the name."""
    result_description: str | None = None
    """What a successful result means or holds; the root ``description`` of ``outputSchema``."""
    tags: tuple[str, ...] = ()
    parameters: tuple[ToolParameterInfo, ...] = ()
    response_fields: tuple[ToolResponseFieldInfo, ...] = ()
    requires_auth: bool = True
    """Lib.GAB's flag, kept as metadata (every GABP call is authenticated by the session)."""
    deprecated: bool = False
    version: str | None = None

    def with_name(self, name: str) -> ToolInfo:
        return ToolInfo(**{**self.__dict__, "name": name})


def normalize_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Lib.GAB's tag rule: blanks dropped, trimmed, duplicates (any letter case) once."""
    seen: dict[str, str] = {}
    for tag in tags:
        if isinstance(tag, str) and tag.strip():
            seen.setdefault(tag.strip().lower(), tag.strip())
    return tuple(seen.values())


@dataclass(frozen=True)
class ToolParameter:
    """Parameter metadata, put in ``Annotated[...]``: Lib.GAB's ``[ToolParameter]``.

    ``required=False`` or a ``default`` makes the parameter optional (as does a Python
    default); the default is what the tool receives when the argument is left out. With
    ``required=False`` and no default, the tool receives ``None`` when the argument is left
    out or sent as ``null``.
    """

    description: str | None = None
    required: bool = True
    default: Any = field(default=_NO_DEFAULT)

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT


def tool(
    name: str,
    *,
    description: str | None = None,
    title: str | None = None,
    result_description: str | None = None,
    tags: Iterable[str] = (),
    requires_auth: bool = True,
    deprecated: bool = False,
    version: str | None = None,
) -> Callable[[F], F]:
    """Mark a function or method as the tool ``name`` (metadata only; nothing is registered)."""
    check_tool_name(name)

    def mark(function: F) -> F:
        info = ToolInfo(
            name=name,
            description=description,
            title=title,
            result_description=result_description,
            tags=normalize_tags(tags),
            requires_auth=requires_auth,
            deprecated=deprecated,
            version=version,
        )
        setattr(_target(function), _MARK, info)
        return function

    return mark


def tool_response(
    name: str,
    *,
    type: str = "string",
    description: str | None = None,
    always: bool = True,
    nullable: bool = False,
) -> Callable[[F], F]:
    """Document one member of a tool's result (apply once per member, in any order)."""
    response = ToolResponseFieldInfo(name, type, description, always, nullable)

    def mark(function: F) -> F:
        target = _target(function)
        # decorators apply bottom-up: prepend, so the members read in source order
        setattr(target, _RESPONSES, (response, *getattr(target, _RESPONSES, ())))
        return function

    return mark


def _target(function: Any) -> Any:
    return getattr(function, "__func__", function)  # staticmethod / classmethod objects


def tool_info_of(function: Any) -> ToolInfo | None:
    """The metadata :func:`tool` and :func:`tool_response` attached, or None if not a tool."""
    target = _target(function)
    info: ToolInfo | None = getattr(target, _MARK, None)
    if info is None:
        return None
    responses: tuple[ToolResponseFieldInfo, ...] = getattr(target, _RESPONSES, ())
    return ToolInfo(**{**info.__dict__, "response_fields": responses}) if responses else info
