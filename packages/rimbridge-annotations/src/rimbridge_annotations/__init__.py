"""Metadata-only decorators for game tool authors.

``@tool``, ``@parameter`` and ``@response_field`` attach a description of a tool to a plain
function and change nothing about how it runs: the function is returned as it is, with one
attribute added. An integration reads the metadata back with :func:`tool_info` (one function)
or :func:`collect` (every annotated function of a module, an object or a list) and registers
the functions with whatever runtime it uses.

Everything here is optional and additive: a tool without a result description or response
fields is still a complete tool.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "TOOL_NAME_PATTERN",
    "ParameterInfo",
    "ResponseField",
    "ToolInfo",
    "collect",
    "parameter",
    "response_field",
    "tool",
    "tool_info",
]

TOOL_NAME_PATTERN = r"^[a-z][a-z0-9_-]*(/[a-z][a-z0-9_-]*)+$"
"""What a tool name looks like: lowercase segments separated by ``/``, at least two."""

_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)
_ATTRIBUTE = "__rimbridge_tool__"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ParameterInfo:
    """What one parameter of a tool means."""

    name: str
    description: str

    def __post_init__(self) -> None:
        _require_text("parameter name", self.name)
        _require_text(f"description of parameter {self.name!r}", self.description)


@dataclass(frozen=True)
class ResponseField:
    """What one field of a tool's result means (documentation only; never checked)."""

    name: str
    description: str

    def __post_init__(self) -> None:
        _require_text("response field name", self.name)
        _require_text(f"description of response field {self.name!r}", self.description)


@dataclass(frozen=True)
class ToolInfo:
    """Everything the decorators say about one tool."""

    name: str
    description: str
    title: str | None = None
    result_description: str | None = None
    tags: tuple[str, ...] = ()
    parameters: tuple[ParameterInfo, ...] = ()
    response_fields: tuple[ResponseField, ...] = ()
    deprecated: bool = False
    version: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _TOOL_NAME.match(self.name):
            raise ValueError(
                f"tool name {self.name!r} must match {TOOL_NAME_PATTERN} "
                "(lowercase segments separated by '/', at least two)"
            )
        _require_text(f"description of tool {self.name}", self.description)
        for label, value in (
            ("title", self.title),
            ("result_description", self.result_description),
        ):
            if value is not None:
                _require_text(f"{label} of tool {self.name}", value)
        if isinstance(self.tags, str):
            raise TypeError(f"tags of tool {self.name} must be a sequence of strings, not a str")
        for tag in self.tags:
            _require_text(f"tag of tool {self.name}", tag)
        object.__setattr__(self, "tags", tuple(dict.fromkeys(self.tags)))
        _reject_duplicates(self.name, "parameter", [p.name for p in self.parameters])
        _reject_duplicates(self.name, "response field", [f.name for f in self.response_fields])

    def parameter_descriptions(self) -> dict[str, str]:
        """Parameter name to description, the shape runtimes such as ``lib_gab`` take."""
        return {p.name: p.description for p in self.parameters}


@dataclass(frozen=True)
class _Annotations:
    """What is stored on a function: the ``@tool`` part may come before or after the rest."""

    tool: ToolInfo | None = None
    parameters: tuple[ParameterInfo, ...] = ()
    response_fields: tuple[ResponseField, ...] = ()


def tool(
    name: str,
    description: str,
    *,
    title: str | None = None,
    result_description: str | None = None,
    tags: Iterable[str] = (),
    deprecated: bool = False,
    version: str | None = None,
) -> Callable[[F], F]:
    """Describe ``function`` as the tool ``name``; the function itself is left unchanged.

    Raises ``ValueError`` at once when the name does not match :data:`TOOL_NAME_PATTERN`, the
    description is empty, or the function is already described as a tool.
    """
    if isinstance(tags, str):
        raise TypeError(f"tags of tool {name} must be a sequence of strings, not a str")
    info = ToolInfo(
        name=name,
        description=description,
        title=title,
        result_description=result_description,
        tags=tuple(tags),
        deprecated=deprecated,
        version=version,
    )

    def decorate(function: F) -> F:
        current = _stored(function)
        if current.tool is not None:
            raise ValueError(
                f"{_qualname(function)} is already described as tool {current.tool.name}; "
                f"cannot describe it again as {name}"
            )
        _store(function, dataclasses.replace(current, tool=info))
        return function

    return decorate


def parameter(name: str, description: str) -> Callable[[F], F]:
    """Describe the parameter ``name`` of a tool function; stack one per parameter.

    Raises ``ValueError`` when the function has no such parameter (checked against its
    signature now when it can be read, otherwise by :func:`tool_info`) or when the parameter
    is already described.
    """
    info = ParameterInfo(name=name, description=description)

    def decorate(function: F) -> F:
        current = _stored(function)
        if any(p.name == name for p in current.parameters):
            raise ValueError(f"{_qualname(function)}: parameter {name!r} is described twice")
        _check_parameter_exists(function, name)
        # Decorators apply bottom-up: prepending keeps the order in which they are written.
        _store(function, dataclasses.replace(current, parameters=(info, *current.parameters)))
        return function

    return decorate


def response_field(name: str, description: str) -> Callable[[F], F]:
    """Describe one field of a tool's result (documentation only); stack one per field."""
    info = ResponseField(name=name, description=description)

    def decorate(function: F) -> F:
        current = _stored(function)
        if any(f.name == name for f in current.response_fields):
            raise ValueError(f"{_qualname(function)}: response field {name!r} is described twice")
        _store(
            function,
            dataclasses.replace(current, response_fields=(info, *current.response_fields)),
        )
        return function

    return decorate


def tool_info(function: object) -> ToolInfo | None:
    """The metadata of an annotated tool function (or bound method), or ``None``.

    ``None`` also when the function carries ``@parameter`` or ``@response_field`` but no
    ``@tool``. Parameters are listed in the order of the function's signature.
    """
    stored = getattr(function, _ATTRIBUTE, None)
    if not isinstance(stored, _Annotations) or stored.tool is None:
        return None
    parameters = stored.parameters
    signature = _signature(function)
    if signature is not None:
        for info in parameters:
            _check_parameter_exists(function, info.name, signature)
        order = {name: index for index, name in enumerate(signature.parameters)}
        parameters = tuple(sorted(parameters, key=lambda p: order.get(p.name, len(order))))
    return dataclasses.replace(
        stored.tool, parameters=parameters, response_fields=stored.response_fields
    )


def collect(namespace: object | Iterable[object]) -> list[tuple[ToolInfo, Callable[..., Any]]]:
    """Every annotated tool in ``namespace``, in definition order, with its callable.

    ``namespace`` is a module (its annotated functions), a class instance (its annotated
    methods, bound to it; base-class methods first), a class (its annotated functions,
    unbound) or an iterable of functions (each one must be annotated). Raises ``ValueError``
    when two different callables claim the same tool name.
    """
    if isinstance(namespace, str | bytes):
        raise TypeError("collect() takes a module, an object or an iterable of functions")
    candidates: list[object]
    explicit = False
    if isinstance(namespace, types.ModuleType):
        candidates = list(vars(namespace).values())
    elif isinstance(namespace, type):
        candidates = [getattr(namespace, name) for name in _annotated_member_names(namespace)]
    elif _annotated_member_names(type(namespace)) or not isinstance(namespace, Iterable):
        names = _annotated_member_names(type(namespace))
        candidates = [getattr(namespace, name) for name in names]
    else:
        candidates = list(namespace)
        explicit = True

    found: list[tuple[ToolInfo, Callable[..., Any]]] = []
    seen: dict[str, object] = {}
    for candidate in candidates:
        info = tool_info(candidate) if callable(candidate) else None
        if info is None:
            if explicit:
                raise ValueError(f"{candidate!r} is not annotated with @tool")
            continue
        if info.name in seen:
            if _same_callable(seen[info.name], candidate):
                continue
            raise ValueError(f"two callables are annotated as tool {info.name}")
        seen[info.name] = candidate
        assert callable(candidate)
        found.append((info, candidate))
    return found


def _require_text(label: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{label} must be a non-empty string, got {value!r}")


def _reject_duplicates(tool_name: str, label: str, names: list[str]) -> None:
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"tool {tool_name}: {label} described more than once: {duplicates}")


def _target(function: object) -> object:
    """Where the metadata lives: the function under a staticmethod or classmethod."""
    if isinstance(function, staticmethod | classmethod):
        return function.__func__
    return function


def _stored(function: object) -> _Annotations:
    stored = getattr(_target(function), _ATTRIBUTE, None)
    return stored if isinstance(stored, _Annotations) else _Annotations()


def _store(function: object, annotations: _Annotations) -> None:
    target = _target(function)
    if isinstance(target, types.MethodType):
        raise TypeError(
            f"{_qualname(function)} is a bound method: annotate the function in its class instead"
        )
    try:
        setattr(target, _ATTRIBUTE, annotations)
    except (AttributeError, TypeError):
        raise TypeError(
            f"{_qualname(function)} cannot carry tool metadata (it accepts no attributes)"
        ) from None


def _signature(function: object) -> inspect.Signature | None:
    target = _target(function)
    if not callable(target):
        return None
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def _check_parameter_exists(
    function: object, name: str, signature: inspect.Signature | None = None
) -> None:
    signature = signature or _signature(function)
    if signature is None:
        return
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    if name not in signature.parameters and not accepts_any:
        raise ValueError(
            f"{_qualname(function)} has no parameter {name!r} "
            f"(its parameters: {list(signature.parameters)})"
        )


def _qualname(function: object) -> str:
    target = _target(function)
    return str(getattr(target, "__qualname__", None) or repr(target))


def _annotated_member_names(cls: type) -> list[str]:
    """Names of the annotated attributes of ``cls`` in definition order, base classes first.

    Reads class dictionaries only, so properties and other descriptors are never evaluated.
    """
    names: dict[str, None] = {}
    for klass in reversed(cls.__mro__):
        for name in vars(klass):
            names.setdefault(name, None)
    annotated = []
    for name in names:
        raw = next(vars(k)[name] for k in cls.__mro__ if name in vars(k))
        if isinstance(getattr(_target(raw), _ATTRIBUTE, None), _Annotations):
            annotated.append(name)
    return annotated


def _same_callable(a: object, b: object) -> bool:
    if a is b:
        return True
    return getattr(a, "__func__", a) is getattr(b, "__func__", b) and getattr(
        a, "__self__", None
    ) is getattr(b, "__self__", None)
