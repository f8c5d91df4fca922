"""A game's tools as the bridge mirrors them (:class:`MirroredTool`) and the MCP names they are
exposed under (:func:`mcp_tool_name`, the Go bridge's naming rule)."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from typing import Any, Final

from gabp import MessageError
from gabs.go_format import go_numbers

__all__ = [
    "MAX_TOOL_NAME_LENGTH",
    "MirroredTool",
    "mcp_tool_name",
    "mcp_tool_name_with_suffix",
    "read_tool_list",
]

logger = logging.getLogger("gabs.session")

#: The longest MCP tool name (what strict hosts accept).
MAX_TOOL_NAME_LENGTH: Final = 64
_INVALID_RUN = re.compile(r"[^A-Za-z0-9_-]+")


def _name_hash(game_id: str, tool: str) -> str:
    return hashlib.sha1(f"{game_id}/{tool}".encode()).hexdigest()[:8]


def _shorten(name: str, suffix: str, max_length: int) -> str:
    keep = max_length - len(suffix)
    if keep <= 0:
        return suffix.lstrip("_")[:max_length]
    return name[:keep].rstrip("_-") + suffix


def mcp_tool_name(game_id: str, tool: str, max_length: int = MAX_TOOL_NAME_LENGTH) -> str:
    """The MCP name of a mirrored game tool, by the Go bridge's rule.

    ``<gameId>_<tool>`` with every run of characters outside ``[A-Za-z0-9_-]`` turned into one
    ``_``, outer ``_`` trimmed, ``tool_`` put first unless it starts with a letter or ``_``;
    a name longer than ``max_length`` is cut and ends in ``_`` and 8 hex digits of the SHA-1 of
    ``<gameId>/<tool>``. ``("rimworld", "rimworld/get_game_info")`` ->
    ``rimworld_rimworld_get_game_info``.
    """
    name = _INVALID_RUN.sub("_", f"{game_id}_{tool}").strip("_") or "tool"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "tool_" + name
    if len(name) <= max_length:
        return name
    return _shorten(name, "_" + _name_hash(game_id, tool), max_length)


def mcp_tool_name_with_suffix(
    game_id: str, tool: str, max_length: int = MAX_TOOL_NAME_LENGTH
) -> str:
    """:func:`mcp_tool_name` with the hash suffix always on: the name of a tool whose plain
    name another game's tool already has."""
    base = mcp_tool_name(game_id, tool, max_length)
    suffix = "_" + _name_hash(game_id, tool)
    if len(base) + len(suffix) <= max_length:
        return base + suffix
    return _shorten(base, suffix, max_length)


@dataclass(frozen=True)
class MirroredTool:
    """A game tool as the bridge knows it."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    tags: tuple[str, ...] = ()
    deprecated: bool = False
    version: str | None = None
    output_schema_sent: bool = True
    """The game sent an ``outputSchema`` object (a detail shows ``null`` when it did not)."""

    @property
    def result_description(self) -> str | None:
        description = self.output_schema.get("description")
        return description if isinstance(description, str) else None

    @classmethod
    def from_descriptor(cls, raw: dict[str, Any]) -> MirroredTool:
        """Read a tools/list entry leniently (the C# runtime's older shape included)."""
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise MessageError("a tool descriptor without a name")
        input_schema = raw.get("inputSchema")
        if not isinstance(input_schema, dict) or not input_schema:
            # as the Go bridge: an absent or empty inputSchema is built from ``parameters``
            input_schema = _schema_from_parameters(raw.get("parameters"))
        output_schema = raw.get("outputSchema")
        tags = raw.get("tags") or []
        return cls(
            name=name,
            title=str(raw.get("title") or name),
            description=str(raw.get("description") or ""),
            # whole floats as the Go bridge writes them (``"minimum": 1.0`` is ``1``)
            input_schema=go_numbers(input_schema),
            output_schema=go_numbers(output_schema) if isinstance(output_schema, dict) else {},
            tags=tuple(str(tag) for tag in tags if isinstance(tag, str)),
            deprecated=bool(raw.get("deprecated", False)),
            version=raw.get("version") if isinstance(raw.get("version"), str) else None,
            output_schema_sent=isinstance(output_schema, dict),
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "tags": list(self.tags),
        }
        if self.result_description:
            data["resultDescription"] = self.result_description
        if self.deprecated:
            data["deprecated"] = True
        if self.version:
            data["version"] = self.version
        return data


#: The Go bridge's mapping of the C# runtime's parameter type names (``mapTypeToJSONSchema``),
#: lower-cased; any other name is ``string``, as there. Two kept differences: a name is matched
#: in any letter case (``Bool``), and JSON Schema's own names are kept (``integer``, ``object``,
#: ``array``), where the Go bridge makes both ``string`` and the game would be sent strings.
_PARAMETER_TYPES: Final = {
    "string": "string",
    **dict.fromkeys(("int32", "int64", "int", "long", "integer"), "integer"),
    **dict.fromkeys(("single", "double", "float", "number"), "number"),
    **dict.fromkeys(("boolean", "bool"), "boolean"),
    "object": "object",
    "array": "array",
}


def _schema_from_parameters(parameters: Any) -> dict[str, Any]:
    """An input schema from the older ``parameters: [{name, type, description, required,
    defaultValue}]``, as the Go bridge builds it: C# type names mapped (``Int32`` is
    ``integer``, an unknown one ``string``), ``defaultValue`` as ``default``, ``required``
    only when a parameter is required."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if isinstance(parameters, list):
        for parameter in parameters:
            if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
                continue
            kind = parameter.get("type")
            kind = kind.lower() if isinstance(kind, str) else ""
            schema: dict[str, Any] = {"type": _PARAMETER_TYPES.get(kind, "string")}
            description = parameter.get("description")
            if isinstance(description, str) and description:
                schema["description"] = description
            if parameter.get("defaultValue") is not None:
                schema["default"] = parameter["defaultValue"]
            properties[parameter["name"]] = schema
            if parameter.get("required"):
                required.append(parameter["name"])
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


def read_tool_list(game_id: str, reply: Any) -> dict[str, MirroredTool]:
    """The tools of a ``tools/list`` answer by name; a descriptor without a name is dropped
    (with a warning), and of two with one name the last is kept."""
    tools: dict[str, MirroredTool] = {}
    for raw in reply.get("tools", []) if isinstance(reply, dict) else []:
        try:
            tool = MirroredTool.from_descriptor(raw)
        except MessageError as exc:
            logger.warning("%s: skipping a tool: %s", game_id, exc)
            continue
        tools[tool.name] = tool
    return tools
