"""The ``inputSchema`` and ``outputSchema`` of a tool, and the model arguments are checked with.

Two sources: a function's type hints (pydantic builds the schemas), or Lib.GAB-style metadata
(:class:`~lib_gab.tool_info.ToolParameterInfo` and ``ToolResponseFieldInfo``), from which the
schemas are built as Lib.GAB builds them. Either way a result that is not a JSON object is
described as the ``value`` member of an object, the shape MCP bridges give such a result
(an MCP ``outputSchema`` must describe an object).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from lib_gab.tool_info import ToolParameterInfo, ToolResponseFieldInfo, json_type_of

__all__ = [
    "described",
    "function_input_schema",
    "input_schema_from_infos",
    "model_from_infos",
    "model_name",
    "object_output_schema",
    "output_schema_from_fields",
]

_PYTHON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list[Any],
    "object": Any,
}


def model_name(tool_name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[/_-]", tool_name)) + "Arguments"


def input_schema_from_infos(parameters: Iterable[ToolParameterInfo]) -> dict[str, Any]:
    """Lib.GAB's ``inputSchema``: each parameter's JSON type, description and default."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in parameters:
        prop: dict[str, Any] = {"type": json_type_of(parameter.type)}
        if parameter.description and parameter.description.strip():
            prop["description"] = parameter.description
        if parameter.default_value is not None:
            prop["default"] = parameter.default_value
        properties[parameter.name] = prop
        if parameter.required:
            required.append(parameter.name)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


class _ArgumentsSchema(GenerateJsonSchema):
    """pydantic's JSON Schema of a tool's arguments, with two changes:

    * no title made up from a member's name (``Count`` for ``count``; Lib.GAB's schemas have
      none); a title given with ``Field(title=...)`` stays;
    * ``additionalProperties: false`` on each model, dataclass and TypedDict that does not
      allow extra members: the arguments refuse or drop a member such an object does not know
      (see :mod:`lib_gab._nested_members`), and the schema says so (pydantic leaves it out for
      a model that ignores extra members)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    @staticmethod
    def _closed(result: JsonSchemaValue) -> JsonSchemaValue:
        if result.get("type") == "object" and "additionalProperties" not in result:
            result["additionalProperties"] = False
        return result

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        return self._closed(super().model_schema(schema))

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        return self._closed(super().dataclass_schema(schema))

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        return self._closed(super().typed_dict_schema(schema))


def function_input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The ``inputSchema`` of a function's arguments model, with each optional parameter
    (``int | None = None``) described by its own type, as Lib.GAB describes a nullable one
    (``{"type": "integer"}``, no ``null`` default): a bridge that shows a parameter's
    ``type`` then shows ``integer``, not nothing. A ``null`` sent for it is still taken.

    The titles pydantic makes up (the model's name at the root, ``Count`` for ``count``) are
    left out, as Lib.GAB's schemas have none; a title given explicitly (``Field(title=...)``)
    stays. Objects inside the arguments are closed as the arguments are
    (``additionalProperties: false``) unless their type allows extra members."""
    schema = model.model_json_schema(schema_generator=_ArgumentsSchema)
    if schema.get("title") == (model.model_config.get("title") or model.__name__):
        del schema["title"]  # the arguments model's name, made up too
    for name, prop in (schema.get("properties") or {}).items():
        choices = prop.get("anyOf")
        optional = "default" in prop and prop["default"] is None
        if not optional or not isinstance(choices, list) or len(choices) != 2:
            continue
        kept = [choice for choice in choices if choice != {"type": "null"}]
        if len(kept) != 1:
            continue
        plain = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
        schema["properties"][name] = {**kept[0], **plain}
    if not schema.get("required"):
        schema.pop("required", None)  # Lib.GAB writes none when no parameter is required
    schema["additionalProperties"] = False
    return schema


def model_from_infos(tool_name: str, parameters: Iterable[ToolParameterInfo]) -> type[BaseModel]:
    """The model that checks arguments against Lib.GAB-style parameter metadata."""
    fields: dict[str, Any] = {}
    for parameter in parameters:
        kind = parameter.type
        annotation = _PYTHON_TYPES[kind] if isinstance(kind, str) else kind
        if annotation is object:
            annotation = Any
        if parameter.required:
            fields[parameter.name] = (annotation, Field(description=parameter.description))
        else:
            fields[parameter.name] = (
                annotation | None,
                Field(default=parameter.default_value, description=parameter.description),
            )
    name = model_name(tool_name)
    model: type[BaseModel] = create_model(
        name, __config__=ConfigDict(extra="forbid", title=name), **fields
    )
    return model


def output_schema_from_fields(
    result_description: str | None, fields: Iterable[ToolResponseFieldInfo]
) -> dict[str, Any]:
    """Lib.GAB's ``outputSchema``: ``{}``, the result description alone, or an object with the
    documented members (a nullable member's type includes ``null``; Lib.GAB writes
    ``"nullable": true``, which JSON Schema does not know)."""
    fields = list(fields)
    schema: dict[str, Any] = {}
    if result_description and result_description.strip():
        schema["description"] = result_description
    if not fields:
        return schema
    properties: dict[str, Any] = {}
    required: list[str] = []
    for member in fields:
        prop: dict[str, Any] = {"type": [member.type, "null"] if member.nullable else member.type}
        if member.description:
            prop["description"] = member.description
        properties[member.name] = prop
        if member.always:
            required.append(member.name)
    schema["type"] = "object"
    schema["properties"] = properties
    if required:
        schema["required"] = required
    return schema


def _is_object(schema: Mapping[str, Any]) -> bool:
    if schema.get("type") == "object":
        return True
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {})
        return isinstance(target, Mapping) and target.get("type") == "object"
    return False


def object_output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` if it describes an object, else an object whose ``value`` member it describes.

    A ``timedelta`` is written in .NET's ``TimeSpan`` form (``1.02:03:04.5000000``), not as the
    ISO 8601 duration ``"format": "duration"`` stands for, so that format is left out."""
    schema = _without_duration_format(schema)
    if _is_object(schema):
        return schema
    inner = {key: value for key, value in schema.items() if key != "$defs"}
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"value": inner},
        "required": ["value"],
    }
    if "$defs" in schema:
        wrapped["$defs"] = schema["$defs"]
    return wrapped


def _without_duration_format(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_without_duration_format(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: _without_duration_format(value)
        for key, value in schema.items()
        if not (key == "format" and value == "duration")
    }


def described(schema: dict[str, Any], result_description: str | None) -> dict[str, Any]:
    """``schema`` with ``result_description`` as its root ``description`` (first key)."""
    if not result_description:
        return schema
    return {
        "description": result_description,
        **{key: value for key, value in schema.items() if key != "description"},
    }
