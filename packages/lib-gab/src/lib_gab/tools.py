"""Tool registration: plain functions in, validated GABP tools out.

A tool is a sync or async function. Its parameters' type hints become the ``inputSchema``
(a pydantic model with ``additionalProperties: false``), its return annotation the
``outputSchema`` (with the result description as the schema's root ``description``).
Arguments are validated against that model before the function runs, with the same rules the
schema states, so a bridge's view of a tool and the tool's behaviour never drift apart.

A parameter annotated with :class:`ToolContext` is not an argument: it receives the call's
context (the operation, the tool's name, a way to emit events).
"""

from __future__ import annotations

import fnmatch
import inspect
import json
import re
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from gabp import ErrorCode, ProtocolError
from gabp.messages import TOOL_NAME_PATTERN, ToolDescriptor
from lib_gab.operation import Operation

__all__ = [
    "InvalidArguments",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
]

_TOOL_NAME = re.compile(TOOL_NAME_PATTERN)


class ToolError(ProtocolError):
    """Raise from a tool to fail the call with a message meant for the caller.

    Unlike any other exception (which becomes a sanitized internal error), the message and
    ``data`` reach the bridge as they are. The code defaults to ``-32000``.
    """

    def __init__(self, message: str, data: Any = None, *, code: int = ErrorCode.SERVER_ERROR):
        super().__init__(code, message, data)


class InvalidArguments(ProtocolError):
    """The arguments of a tools/call do not match the tool's input schema (``-32602``)."""

    def __init__(self, tool: str, problems: list[dict[str, str]]) -> None:
        listed = "; ".join(f"{p['path']}: {p['message']}" for p in problems)
        super().__init__(
            ErrorCode.INVALID_PARAMS,
            f"invalid arguments for {tool}: {listed}",
            {"tool": tool, "errors": problems},
        )


@dataclass(frozen=True)
class ToolContext:
    """What a tool may ask about the call it serves."""

    tool: str
    operation: Operation
    emit: Callable[[str, Any], Awaitable[int]]
    """Emit an event on a registered channel to every subscribed bridge; returns how many."""
    close_after_response: Callable[[str], None] = field(default=lambda reason: None, repr=False)
    """Ask for the calling bridge's connection to be closed, with ``reason``, once this call's
    answer is sent (for integrations that simulate or enforce a disconnect)."""


@dataclass
class Tool:
    """A registered tool: its descriptor and how to call it."""

    name: str
    function: Callable[..., Any]
    title: str
    description: str
    tags: tuple[str, ...]
    result_description: str | None
    input_model: type[BaseModel]
    output_adapter: TypeAdapter[Any] | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    is_async: bool
    context_parameter: str | None
    deprecated: bool = False
    version: str | None = None
    _descriptor: dict[str, Any] = field(default_factory=dict, repr=False)

    def descriptor(self) -> dict[str, Any]:
        """The ``tools/list`` entry of this tool."""
        if not self._descriptor:
            optional: dict[str, Any] = {}
            if self.tags:
                optional["tags"] = list(self.tags)
            if self.deprecated:
                optional["deprecated"] = True
            if self.version is not None:
                optional["version"] = self.version
            descriptor = ToolDescriptor(
                name=self.name,
                title=self.title,
                description=self.description,
                input_schema=self.input_schema,
                output_schema=self.output_schema,
                **optional,
            )
            self._descriptor = descriptor.to_wire()
        return self._descriptor

    def validate_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Check arguments against the input schema; the keyword arguments for the function."""
        try:
            model = self.input_model.model_validate_json(json.dumps(arguments), strict=True)
        except ValidationError as exc:
            raise InvalidArguments(self.name, _problems(exc)) from None
        return {name: getattr(model, name) for name in type(model).model_fields}

    def encode_result(self, result: Any) -> Any:
        """The JSON form of a result, as the output schema describes it."""
        if self.output_adapter is None:
            return result
        return self.output_adapter.dump_python(result, mode="json", by_alias=True)


def _problems(exc: ValidationError) -> list[dict[str, str]]:
    problems = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        path = "$" + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc)
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown argument"
        elif error["type"] == "missing":
            message = "required argument is missing"
        problems.append({"path": path, "message": message, "rule": error["type"]})
    return problems


def _title_from_name(name: str) -> str:
    last = name.rsplit("/", 1)[-1]
    return last.replace("_", " ").replace("-", " ").capitalize()


def _context_parameter(hints: Mapping[str, Any], signature: inspect.Signature) -> str | None:
    for parameter in signature.parameters.values():
        if hints.get(parameter.name) is ToolContext:
            return parameter.name
    return None


def build_tool(
    function: Callable[..., Any],
    *,
    name: str,
    description: str,
    title: str | None = None,
    tags: Iterable[str] = (),
    result_description: str | None = None,
    parameter_descriptions: Mapping[str, str] | None = None,
    deprecated: bool = False,
    version: str | None = None,
) -> Tool:
    """Make a :class:`Tool` from a function and its metadata (checked here, not at call time)."""
    if not _TOOL_NAME.match(name):
        raise ValueError(
            f"tool name {name!r} must match {TOOL_NAME_PATTERN} "
            "(lowercase segments separated by '/', at least two, no dots)"
        )
    if not description or not description.strip():
        raise ValueError(f"tool {name} needs a non-empty description")
    signature = inspect.signature(function)
    hints = get_type_hints(function, include_extras=True)
    context_parameter = _context_parameter(hints, signature)
    descriptions = dict(parameter_descriptions or {})
    fields: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.name == context_parameter:
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ValueError(f"tool {name}: *args and **kwargs cannot be described as a schema")
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise ValueError(f"tool {name}: positional-only parameters cannot be named arguments")
        if parameter.name not in hints:
            raise ValueError(f"tool {name}: parameter {parameter.name!r} needs a type hint")
        annotation = hints[parameter.name]
        default = ... if parameter.default is parameter.empty else parameter.default
        info = Field(default=default, description=descriptions.pop(parameter.name, None))
        fields[parameter.name] = (annotation, info)
    if descriptions:
        raise ValueError(f"tool {name}: descriptions for unknown parameters {sorted(descriptions)}")
    model_name = "".join(part.capitalize() for part in re.split(r"[/_-]", name)) + "Arguments"
    input_model = create_model(
        model_name, __config__=ConfigDict(extra="forbid", title=model_name), **fields
    )
    input_schema = input_model.model_json_schema()
    input_schema.setdefault("required", [])
    input_schema["additionalProperties"] = False

    returns = hints.get("return", inspect.Signature.empty)
    output_adapter: TypeAdapter[Any] | None
    if returns in (inspect.Signature.empty, Any):
        output_adapter = None
        output_schema: dict[str, Any] = {}
    else:
        output_adapter = TypeAdapter(type(None) if returns is None else returns)
        output_schema = output_adapter.json_schema(mode="serialization")
    if result_description:
        output_schema = {
            "description": result_description,
            **{k: v for k, v in output_schema.items() if k != "description"},
        }
    return Tool(
        name=name,
        function=function,
        title=title or _title_from_name(name),
        description=description.strip(),
        tags=tuple(dict.fromkeys(tags)),
        result_description=result_description,
        input_model=input_model,
        output_adapter=output_adapter,
        input_schema=input_schema,
        output_schema=output_schema,
        is_async=inspect.iscoroutinefunction(function),
        context_parameter=context_parameter,
        deprecated=deprecated,
        version=version,
    )


class ToolRegistry:
    """The tools a server offers, by name."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name} is already registered")
        self._tools[tool.name] = tool
        return tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> typing.Iterator[Tool]:
        return iter(self._tools.values())

    def names(self) -> list[str]:
        return list(self._tools)

    def list(
        self, *, tags: Sequence[str] | None = None, name_pattern: str | None = None
    ) -> list[dict[str, Any]]:
        """Descriptors of the tools that carry every tag in ``tags`` and whose name matches the
        glob ``name_pattern`` (``*`` and ``?``, e.g. ``rimworld/*``)."""
        wanted = set(tags or ())
        selected = []
        for tool in self._tools.values():
            if wanted and not wanted.issubset(tool.tags):
                continue
            if name_pattern and not fnmatch.fnmatchcase(tool.name, name_pattern):
                continue
            selected.append(tool.descriptor())
        return selected
