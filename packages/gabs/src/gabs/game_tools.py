"""A game's tools as the bridge mirrors them (:class:`MirroredTool`) and the MCP names they are
listed under (:func:`mcp_tool_name`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gabp import MessageError

__all__ = ["MirroredTool", "mcp_tool_name"]

_TOOL_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def mcp_tool_name(game_id: str, tool: str) -> str:
    """The MCP name of a mirrored game tool: ``<gameId>_<tool with other chars as _>``."""
    return _TOOL_NAME_CHARS.sub("_", f"{game_id}_{tool}")[:64]


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
        if not isinstance(input_schema, dict):
            input_schema = _schema_from_parameters(raw.get("parameters"))
        output_schema = raw.get("outputSchema")
        tags = raw.get("tags") or []
        return cls(
            name=name,
            title=str(raw.get("title") or name),
            description=str(raw.get("description") or ""),
            input_schema=input_schema,
            output_schema=output_schema if isinstance(output_schema, dict) else {},
            tags=tuple(str(tag) for tag in tags if isinstance(tag, str)),
            deprecated=bool(raw.get("deprecated", False)),
            version=raw.get("version") if isinstance(raw.get("version"), str) else None,
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


def _schema_from_parameters(parameters: Any) -> dict[str, Any]:
    """An input schema from the older ``parameters: [{name, type, description, required}]``."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if isinstance(parameters, list):
        for parameter in parameters:
            if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
                continue
            schema: dict[str, Any] = {}
            kind = parameter.get("type")
            if isinstance(kind, str):
                schema["type"] = {"int": "integer", "float": "number", "bool": "boolean"}.get(
                    kind.lower(), kind.lower()
                )
            if isinstance(parameter.get("description"), str):
                schema["description"] = parameter["description"]
            properties[parameter["name"]] = schema
            if parameter.get("required"):
                required.append(parameter["name"])
    return {"type": "object", "properties": properties, "required": required}
