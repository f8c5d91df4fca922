"""The members of objects inside a tool's arguments, treated as the arguments themselves are.

A parameter typed as a pydantic model, a dataclass or a TypedDict (directly, or inside a list,
a tuple, a set, a dict's values or an optional) has its members checked by that type. pydantic
silently drops a member such a type does not know when the type ignores extra members (a
model's default), so ``{"pos": {"X": 3}}`` for ``pos: Point`` would run the tool with
``x = 0``. Here the unknown members are found first, with their JSON path:

* refused (``unknown="refuse"``): each is reported as ``-32602`` with its path and the members
  known there, unless the type allows extra members (``extra="allow"``: it keeps them);
* ignored (``unknown="ignore"``, Lib.GAB's choice): a member that differs from a known one only
  in letter case is taken as it (Newtonsoft matches members so), anything else is dropped
  (kept, where the type allows extra members); each with a warning naming its path.

The shape of the objects is worked out once, when the tool is registered, from the types'
public description (``model_fields``, ``model_config``, dataclass fields, type hints); a tool
without object parameters has none, and its calls pay nothing for this.
"""

from __future__ import annotations

import dataclasses
import logging
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, RootModel, TypeAdapter
from pydantic.fields import FieldInfo

__all__ = ["ObjectShape", "Shape", "arguments_shape", "ignore_nested", "unknown_nested"]

logger = logging.getLogger("lib_gab.tools")

_SEQUENCES = (list, tuple, set, frozenset)
_REQUIRED = {typing.Required, typing.NotRequired} | (
    {typing.ReadOnly} if hasattr(typing, "ReadOnly") else set()
)
_WRAPPERS = {Annotated, *_REQUIRED}


class ObjectShape:
    """An object's members: the known wire names, each one's shape, whether others are kept."""

    __slots__ = ("allow_extra", "by_case", "known", "members")

    def __init__(self) -> None:
        self.known: list[str] = []
        self.members: dict[str, Shape] = {}
        self.by_case: dict[str, str] = {}
        self.allow_extra = False

    def describe(self) -> str:
        return ", ".join(self.known) or "none"


@dataclasses.dataclass(frozen=True, slots=True)
class ItemsShape:
    """Items of a list, a tuple or a set (``index=True``), or a dict's values, each of ``item``."""

    item: Shape
    index: bool


Shape = ObjectShape | ItemsShape


def _unwrapped(annotation: Any) -> Any:
    while get_origin(annotation) in _WRAPPERS:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(kept) == 1:
            return _unwrapped(kept[0])
    return annotation


def _alias(metadata: Any) -> str | None:
    for extra in metadata:
        if isinstance(extra, FieldInfo) and isinstance(extra.alias, str):
            return extra.alias
    return None


def _is_typeddict(cls: Any) -> bool:
    """A TypedDict of ``typing`` or of ``typing_extensions`` (which pydantic wants before 3.12)."""
    return isinstance(cls, type) and issubclass(cls, dict) and hasattr(cls, "__required_keys__")


def _own_extra(cls: Any) -> Any:
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        return cls.model_config.get("extra") or "ignore"
    config = getattr(cls, "__pydantic_config__", None)  # set by pydantic's ``with_config``
    return config.get("extra") if isinstance(config, Mapping) else None


_REWRITING = ("function-before", "function-wrap", "function-plain")


def _rewrites_its_input(cls: type) -> bool:
    """Whether a validator of the type's own sees its input before its members are read (it
    may take other member names): such a type is left to itself."""
    try:
        schema: Any = TypeAdapter(cls).core_schema
    except Exception:  # a type pydantic cannot describe alone: left to the model
        return True
    if schema.get("type") == "definitions":
        schema = schema.get("schema", {})
    if schema.get("type") in ("model", "dataclass"):
        schema = schema.get("schema", {})
    return schema.get("type") in _REWRITING


def _wire_names(cls: type[BaseModel], name: str, field: FieldInfo) -> list[str]:
    alias = field.validation_alias if isinstance(field.validation_alias, str) else field.alias
    if alias in (None, name):
        return [name]
    config = cls.model_config
    by_name = config.get("populate_by_name") or config.get("validate_by_name")
    return [alias, name] if by_name else [alias]


def _members_of(cls: Any) -> list[tuple[str, Any]] | None:
    """``(wire name, annotation)`` of each member of an object type, or None for another type
    (or for a type with a validator of its own that sees the input first)."""
    if not isinstance(cls, type) or (
        (issubclass(cls, BaseModel) or dataclasses.is_dataclass(cls)) and _rewrites_its_input(cls)
    ):
        return None
    if issubclass(cls, BaseModel):
        return [
            (wire, field.annotation)
            for name, field in cls.model_fields.items()
            for wire in _wire_names(cls, name, field)
        ]
    if dataclasses.is_dataclass(cls):
        hints = get_type_hints(cls, include_extras=True)
        members = []
        for item in dataclasses.fields(cls):
            annotation = hints.get(item.name, Any)
            alias = _alias(get_args(annotation)[1:] if get_origin(annotation) is Annotated else ())
            if isinstance(item.default, FieldInfo) and isinstance(item.default.alias, str):
                alias = item.default.alias
            members.append((alias or item.name, annotation))
        return members
    if _is_typeddict(cls):
        hints = get_type_hints(cls, include_extras=True)
        members = []
        for name, annotation in hints.items():
            plain = annotation
            while get_origin(plain) in _REQUIRED:
                plain = get_args(plain)[0]
            alias = _alias(get_args(plain)[1:] if get_origin(plain) is Annotated else ())
            members.append((alias or name, annotation))
        return members
    return None


def _shape(annotation: Any, extra: Any, seen: dict[tuple[Any, Any], ObjectShape]) -> Shape | None:
    """The shape of what ``annotation`` takes, or None when it holds no object type;
    ``extra`` is what a dataclass or TypedDict without a config of its own inherits."""
    annotation = _unwrapped(annotation)
    origin = get_origin(annotation)
    if origin in _SEQUENCES or origin is dict:
        args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
        if not args:
            return None
        if origin is tuple and len(set(args)) != 1:
            return None  # a tuple of different types: left to the model
        item = _shape(args[-1], extra, seen)
        return None if item is None else ItemsShape(item, origin is not dict)
    if isinstance(annotation, type) and issubclass(annotation, RootModel):
        root = annotation.model_fields["root"].annotation
        return None if _rewrites_its_input(annotation) else _shape(root, extra, seen)
    members = _members_of(annotation)
    if members is None:
        return None
    own = _own_extra(annotation)
    extra = own or extra
    key = (annotation, extra)
    if key in seen:
        return seen[key]  # a type that contains itself
    shape = seen[key] = ObjectShape()
    shape.allow_extra = extra == "allow"
    for name, member in members:
        shape.known.append(name)
        shape.by_case.setdefault(name.lower(), name)
        inner = _shape(member, extra, seen)
        if inner is not None:
            shape.members[name] = inner
    return shape


def arguments_shape(model: type[BaseModel]) -> ObjectShape | None:
    """The shape of a tool's arguments, or None when no argument holds an object type (then
    nothing is walked at call time)."""
    shape = _shape(model, model.model_config.get("extra"), {})
    return shape if isinstance(shape, ObjectShape) and shape.members else None


def _at(path: str, key: Any, index: bool) -> str:
    return f"{path}[{key}]" if index else f"{path}.{key}"


def unknown_nested(shape: ObjectShape, data: Mapping[str, Any]) -> list[dict[str, str]]:
    """The problems of the unknown members below the top level of ``data`` (refused)."""
    problems: list[dict[str, str]] = []
    for name, inner in shape.members.items():
        if name in data:
            _refuse(inner, data[name], f"$.{name}", problems)
    return problems


def _refuse(shape: Shape, value: Any, path: str, problems: list[dict[str, str]]) -> None:
    if isinstance(shape, ItemsShape):
        items = _items(shape, value)
        for key, item in items:
            _refuse(shape.item, item, _at(path, key, shape.index), problems)
        return
    if not isinstance(value, dict):
        return  # not an object: the model says what is wrong with it
    for key, member in value.items():
        inner = shape.members.get(key)
        if inner is not None:
            _refuse(inner, member, f"{path}.{key}", problems)
        elif key not in shape.known and not shape.allow_extra:
            problems.append(
                {
                    "path": f"{path}.{key}",
                    "message": f"unknown member (known here: {shape.describe()})",
                    "rule": "extra_forbidden",
                }
            )


def _items(shape: ItemsShape, value: Any) -> list[tuple[Any, Any]]:
    if shape.index:
        return list(enumerate(value)) if isinstance(value, list) else []
    return list(value.items()) if isinstance(value, dict) else []


def ignore_nested(tool: str, shape: ObjectShape, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with each unknown member below the top level taken in its known letter case or
    dropped, with a warning (Lib.GAB's choice); a copy where anything changed."""
    changed: dict[str, Any] = {}
    for name, inner in shape.members.items():
        if name in data:
            value = _ignore(tool, inner, data[name], f"$.{name}")
            if value is not data[name]:
                changed[name] = value
    return {**data, **changed} if changed else data


def _ignore(tool: str, shape: Shape, value: Any, path: str) -> Any:
    if isinstance(shape, ItemsShape):
        changed = {}
        for key, item in _items(shape, value):
            new = _ignore(tool, shape.item, item, _at(path, key, shape.index))
            if new is not item:
                changed[key] = new
        if not changed:
            return value
        if shape.index:
            return [changed.get(index, item) for index, item in enumerate(value)]
        return {**value, **changed}
    if not isinstance(value, dict):
        return value
    kept: dict[str, Any] = {}
    different = False
    for key, member in value.items():
        name = key
        if key not in shape.known:
            match = shape.by_case.get(key.lower()) if isinstance(key, str) else None
            if match is not None and match not in value:
                logger.warning(
                    "%s: member %s taken as %r (letter case differs)", tool, f"{path}.{key}", match
                )
                name = match
                different = True
            elif shape.allow_extra:
                kept[key] = member
                continue
            else:
                logger.warning(
                    "%s: unknown member %s ignored; known here: %s",
                    tool,
                    f"{path}.{key}",
                    shape.describe(),
                )
                different = True
                continue
        inner = shape.members.get(name)
        new = member if inner is None else _ignore(tool, inner, member, f"{path}.{name}")
        different |= new is not member
        kept[name] = new
    return kept if different else value
