"""Tool registration: functions or plain handlers in, validated GABP tools out.

A tool is a sync or async function, registered with its metadata. Its parameters' type hints
become the ``inputSchema`` (a pydantic model with ``additionalProperties: false``), its return
annotation the ``outputSchema`` (with the result description as the schema's root
``description``). Arguments are validated against that model before the function runs, with the
same rules the schema states, so a bridge's view of a tool and the tool's behaviour never drift
apart. A parameter annotated with :class:`ToolContext` is not an argument: it receives the
call's context (the operation, the tool's name, a way to emit events).

A tool can also be a plain handler that takes the arguments as one mapping, registered with a
:class:`~lib_gab.tool_info.ToolInfo` (Lib.GAB's ``RegisterTool(name, handler, info)``); its
schemas are built from that metadata the way Lib.GAB builds them.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from gabp import ErrorCode, ProtocolError
from gabp.messages import ToolDescriptor
from gabp.wirejson import EncodedJson, decode
from lib_gab._argument_conversion import ArgumentValues
from lib_gab._arguments import InvalidArguments, UnknownArguments, check_arguments, known_names
from lib_gab._json_values import ANY_VALUE, may_hold_time_values, wire_json
from lib_gab._nested_members import ObjectShape, arguments_shape
from lib_gab._plain_arguments import plain_values
from lib_gab._tool_schemas import (
    described,
    function_input_schema,
    input_schema_from_infos,
    model_from_infos,
    model_name,
    object_output_schema,
    output_schema_from_fields,
)
from lib_gab.operation import Operation
from lib_gab.tool_info import (
    ToolInfo,
    ToolParameter,
    ToolParameterInfo,
    ToolResponseFieldInfo,
    check_tool_name,
    lib_gab_type_name,
    plain_parameter_type,
    tool_info_of,
    tool_title,
)

__all__ = [
    "InvalidArguments",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolNotFound",
    "build_handler_tool",
    "build_tool",
]

ToolHandler = Callable[[dict[str, Any]], Any]
"""A plain handler: takes the arguments as one mapping, returns the result (or an awaitable)."""


class ToolError(ProtocolError):
    """Raise from a tool to fail the call with a message meant for the caller.

    Unlike any other exception (which becomes a sanitized internal error), the message and
    ``data`` reach the bridge as they are. The code defaults to ``-32000``.
    """

    def __init__(self, message: str, data: Any = None, *, code: int = ErrorCode.SERVER_ERROR):
        super().__init__(code, message, data)


class ToolNotFound(ProtocolError, LookupError):
    """No tool of that name is registered (``-31002``)."""

    def __init__(self, name: str) -> None:
        super().__init__(ErrorCode.TOOL_NOT_FOUND, f"tool not found: {name}", {"tool": name})
        self.name = name


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
    parameters: tuple[ToolParameterInfo, ...] = ()
    """Each parameter: name, type, description, whether required, default."""
    response_fields: tuple[ToolResponseFieldInfo, ...] = ()
    requires_auth: bool = True
    call_style: Literal["keywords", "mapping"] = "keywords"
    """``keywords``: ``function(**arguments)``; ``mapping``: a handler, ``function(arguments)``."""
    inline: bool | None = None
    """For a sync function: ``True`` runs it on the server's event loop, ``False`` in a worker
    thread, ``None`` as the server's ``inline_sync_tools`` says. Inline saves a thread handoff
    per call (most of a quick tool's cost) but blocks every connection while it runs: only for
    tools that return quickly and never block. Async functions always run on the loop."""
    _descriptor: dict[bool, dict[str, Any]] = field(default_factory=dict, repr=False)
    _field_names: tuple[str, ...] | None = field(default=None, repr=False, compare=False)
    _time_values: bool | None = field(default=None, repr=False, compare=False)
    _shape: ObjectShape | None = field(init=False, default=None, repr=False, compare=False)
    """The objects inside the arguments, worked out once here; None when there are none."""

    def __post_init__(self) -> None:
        self._shape = arguments_shape(self.input_model)

    @property
    def info(self) -> ToolInfo:
        """The tool's metadata, as Lib.GAB's ``ToolInfo``."""
        return ToolInfo(
            name=self.name,
            description=self.description,
            title=self.title,
            result_description=self.result_description,
            tags=self.tags,
            parameters=self.parameters,
            response_fields=self.response_fields,
            requires_auth=self.requires_auth,
            deprecated=self.deprecated,
            version=self.version,
        )

    def descriptor(self, *, extras: bool = False) -> dict[str, Any]:
        """The ``tools/list`` entry of this tool.

        ``extras`` adds what Lib.GAB puts beside GABP's members (``parameters``,
        ``requiresAuth``), which GABP's tool schema does not admit.
        """
        cached = self._descriptor.get(extras)
        if cached is None:
            optional: dict[str, Any] = {}
            if self.tags:
                optional["tags"] = list(self.tags)
            if self.deprecated:
                optional["deprecated"] = True
            if self.version is not None:
                optional["version"] = self.version
            cached = ToolDescriptor(
                name=self.name,
                title=self.title,
                description=self.description,
                input_schema=self.input_schema,
                output_schema=self.output_schema,
                **optional,
            ).to_wire()
            if extras:
                cached["parameters"] = [
                    {
                        "name": p.name,
                        "type": lib_gab_type_name(p.type),
                        "description": p.description,
                        "required": p.required,
                        "defaultValue": p.default_value,
                    }
                    for p in self.parameters
                ]
                cached["requiresAuth"] = self.requires_auth
            self._descriptor[extras] = cached
        return cached

    def validate_arguments(
        self,
        arguments: Mapping[str, Any] | None,
        *,
        unknown: UnknownArguments = "refuse",
        argument_values: ArgumentValues = "exact",
    ) -> dict[str, Any]:
        """Check arguments against the input schema; what the function is called with.

        For a function: its keyword arguments. For a handler: the arguments mapping, checked,
        with the defaults of parameters left out; with ``unknown="ignore"`` (Lib.GAB's
        choice), the names it does not declare are passed on unchecked, as Lib.GAB does;
        with ``argument_values="convert"`` (Lib.GAB's choice), values Lib.GAB converts without loss
        are converted (see :class:`~lib_gab.ProtocolOptions`).
        """
        quick = unknown == "refuse" and self.call_style == "keywords"  # the common case
        if quick and (plain := plain_values(self.input_model, arguments)) is not None:
            return plain
        undeclared: dict[str, Any] = {}
        if unknown == "ignore" and self.call_style == "mapping" and isinstance(arguments, Mapping):
            # Lib.GAB hands a RegisterTool handler the arguments as they came: the names the
            # tool does not declare go to the handler unchecked, not dropped
            undeclared, arguments = _split_undeclared(self.input_model, arguments)
        model = check_arguments(
            self.name,
            self.input_model,
            arguments,
            unknown=unknown,
            argument_values=argument_values,
            shape=self._shape,
        )
        if self.call_style == "mapping":
            values = model.model_dump(by_alias=True, exclude_unset=True)
            for parameter in self.parameters:
                if parameter.name not in values and parameter.default_value is not None:
                    values[parameter.name] = parameter.default_value
            values.update(undeclared)
            return values
        names = self._field_names
        if names is None:
            names = self._field_names = tuple(self.input_model.model_fields)
        return {name: getattr(model, name) for name in names}

    def encode_result(self, result: Any) -> Any:
        """The JSON form of a result: by its declared type, else by the value's own."""
        return decode(self.encode_result_json(result).data)

    def encode_result_json(self, result: Any) -> Any:
        """:meth:`encode_result` for the wire, as JSON bytes (:class:`~gabp.wirejson.EncodedJson`):
        time values in Lib.GAB's forms (see ``_json_values``). Raises what the serializer raises
        for a value it cannot write."""
        scan = self._time_values
        if scan is None:
            scan = self._time_values = may_hold_time_values(self.output_adapter)
        adapter = self.output_adapter or ANY_VALUE
        return EncodedJson(wire_json(adapter, result, scan))


def _context_parameter(hints: Mapping[str, Any], signature: inspect.Signature) -> str | None:
    for parameter in signature.parameters.values():
        if hints.get(parameter.name) is ToolContext:
            return parameter.name
    return None


def _metadata(annotation: Any) -> ToolParameter | None:
    for extra in getattr(annotation, "__metadata__", ()):
        if isinstance(extra, ToolParameter):
            return extra
    return None


def _parameter(
    tool_name: str, parameter: inspect.Parameter, hints: Mapping[str, Any], description: str | None
) -> tuple[Any, Any, ToolParameterInfo]:
    """The pydantic field and the parameter info of one function parameter."""
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
        raise ValueError(f"tool {tool_name}: *args and **kwargs cannot be described as a schema")
    if parameter.kind is parameter.POSITIONAL_ONLY:
        raise ValueError(f"tool {tool_name}: positional-only parameters cannot be named arguments")
    if parameter.name not in hints:
        raise ValueError(f"tool {tool_name}: parameter {parameter.name!r} needs a type hint")
    annotation = checked = hints[parameter.name]
    marked = _metadata(annotation)
    default = ... if parameter.default is parameter.empty else parameter.default
    if marked is not None:
        description = description or marked.description
        if default is ... and marked.has_default:
            default = marked.default
        elif default is ... and not marked.required:  # None, left out or sent as null
            default, checked = None, annotation | None
    info = Field(default=default, description=description)
    field_info = (checked, info)
    wire_name = parameter.name
    for extra in getattr(annotation, "__metadata__", ()):
        alias = getattr(extra, "alias", None)
        if isinstance(alias, str):
            wire_name = alias
    return (
        field_info,
        default,
        ToolParameterInfo(
            name=wire_name,
            type=plain_parameter_type(annotation),
            description=description,
            required=default is ...,
            default_value=None if default is ... else default,
        ),
    )


def _function_output(
    returns: Any, result_description: str | None, fields: Sequence[ToolResponseFieldInfo]
) -> tuple[TypeAdapter[Any] | None, dict[str, Any]]:
    adapter: TypeAdapter[Any] | None = None
    if returns not in (inspect.Signature.empty, Any):
        adapter = TypeAdapter(type(None) if returns is None else returns)
    if fields:
        return adapter, output_schema_from_fields(result_description, fields)
    if adapter is None:
        return None, output_schema_from_fields(result_description, ())
    schema = object_output_schema(adapter.json_schema(mode="serialization"))
    return adapter, described(schema, result_description)


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
    response_fields: Iterable[ToolResponseFieldInfo] = (),
    requires_auth: bool = True,
    inline: bool | None = None,
) -> Tool:
    """Make a :class:`Tool` from a function and its metadata (checked here, not at call time).

    ``inline``: see :attr:`Tool.inline`.
    """
    check_tool_name(name)
    if not description or not description.strip():
        raise ValueError(f"tool {name} needs a non-empty description")
    signature = inspect.signature(function)
    hints = get_type_hints(function, include_extras=True)
    context_parameter = _context_parameter(hints, signature)
    descriptions = dict(parameter_descriptions or {})
    fields: dict[str, Any] = {}
    infos: list[ToolParameterInfo] = []
    for parameter in signature.parameters.values():
        if parameter.name == context_parameter:
            continue
        field_info, _, info = _parameter(
            name, parameter, hints, descriptions.pop(parameter.name, None)
        )
        fields[parameter.name] = field_info
        infos.append(info)
    if descriptions:
        raise ValueError(f"tool {name}: descriptions for unknown parameters {sorted(descriptions)}")
    title_name = model_name(name)
    input_model = create_model(
        title_name, __config__=ConfigDict(extra="forbid", title=title_name), **fields
    )
    input_schema = function_input_schema(input_model)
    fields_out = tuple(response_fields)
    output_adapter, output_schema = _function_output(
        hints.get("return", inspect.Signature.empty), result_description, fields_out
    )
    return Tool(
        name=name,
        function=function,
        title=title or tool_title(name),
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
        parameters=tuple(infos),
        response_fields=fields_out,
        requires_auth=requires_auth,
        inline=inline,
    )


def build_from_marked(function: Callable[..., Any], info: ToolInfo) -> Tool:
    """A tool from a function marked with :func:`~lib_gab.tool_info.tool`."""
    title = info.title or tool_title(info.name)
    return build_tool(
        function,
        name=info.name,
        description=_description(info, function, title),
        title=title,
        tags=info.tags,
        result_description=info.result_description,
        deprecated=info.deprecated,
        version=info.version,
        response_fields=info.response_fields,
        requires_auth=info.requires_auth,
    )


def _split_undeclared(
    model: type[BaseModel], arguments: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(undeclared, declared)``: the arguments whose names match no parameter, not even in
    letter case, and the rest."""
    known = {name.lower() for name in known_names(model)}
    undeclared: dict[str, Any] = {}
    declared: dict[str, Any] = {}
    for key, value in arguments.items():
        if isinstance(key, str) and key.lower() in known:
            declared[key] = value
        else:
            undeclared[key] = value
    return undeclared, declared


def _description(info: ToolInfo, function: Any, title: str) -> str:
    if info.description and info.description.strip():
        return info.description
    doc = inspect.getdoc(function) if function is not None else None
    return doc.strip().splitlines()[0] if doc else title


def build_handler_tool(
    name: str, handler: ToolHandler, info: ToolInfo | None = None, *, inline: bool | None = None
) -> Tool:
    """A tool from a plain handler and Lib.GAB-style metadata (``RegisterTool``).

    The handler takes the arguments as one mapping. The metadata's name is replaced by
    ``name``; a missing description falls back to the title (GABP requires one).
    ``inline``: see :attr:`Tool.inline`.
    """
    check_tool_name(name)
    if not callable(handler):
        raise TypeError(f"tool {name}: the handler must be callable")
    info = (info or ToolInfo()).with_name(name)
    title = info.title or tool_title(name)
    fields = tuple(info.response_fields)
    return Tool(
        name=name,
        function=handler,
        title=title,
        description=_description(info, None, title),
        tags=tuple(info.tags),
        result_description=info.result_description,
        input_model=model_from_infos(name, info.parameters),
        output_adapter=None,
        input_schema=input_schema_from_infos(info.parameters),
        output_schema=output_schema_from_fields(info.result_description, fields),
        is_async=inspect.iscoroutinefunction(handler),
        context_parameter=None,
        deprecated=info.deprecated,
        version=info.version,
        parameters=tuple(info.parameters),
        response_fields=fields,
        requires_auth=info.requires_auth,
        call_style="mapping",
        inline=inline,
    )


def marked_tools(target: object) -> list[Tool]:
    """The tools marked with :func:`~lib_gab.tool_info.tool` on ``target``.

    An instance: its bound methods (as Lib.GAB's ``RegisterToolsFromInstance``). A class: its
    static and class methods. A module, the counterpart of an assembly: its functions, then
    the static and class methods of each class defined in it (Lib.GAB's
    ``RegisterToolsFromAssembly`` scans every type of the assembly for static tools).
    """
    found: list[Tool] = []
    is_module = inspect.ismodule(target)
    module_name = getattr(target, "__name__", None) if is_module else None
    owner = target if is_module or inspect.isclass(target) else type(target)
    classes: list[type] = []
    for attribute in sorted(dir(owner)):
        raw = inspect.getattr_static(owner, attribute, None)
        info = tool_info_of(raw)
        if info is None:
            if is_module and inspect.isclass(raw) and raw.__module__ == module_name:
                classes.append(raw)
            continue
        static_like = isinstance(raw, staticmethod | classmethod)
        if is_module:
            function = raw
        elif inspect.isclass(target):
            if not static_like:
                continue  # an instance method needs an instance
            function = getattr(target, attribute)
        else:
            if static_like:
                continue  # Lib.GAB skips static methods when scanning an instance
            function = getattr(target, attribute)
        found.append(build_from_marked(function, info))
    for cls in classes:
        found.extend(marked_tools(cls))
    return found
