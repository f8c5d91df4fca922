"""The bridge's 13 core tools: names, titles, descriptions, input and output schemas.

:data:`BRIDGE_TOOLS` maps each tool name (the Go bridge's names) to a :class:`BridgeTool`,
which holds the SDK :class:`~mcp_types.Tool` to list, the input schema (``additionalProperties:
false``, its required fields) and a ready Draft 2020-12 validator for it. :data:`ToolHandler`
is the shape of a core tool's handler; :data:`CALL_OUTPUT_SCHEMA` is the output schema of
``games_call_tool`` and of the mirrored game tools.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Final

import mcp_types as types
from jsonschema import Draft202012Validator, FormatChecker
from mcp.server.context import ServerRequestContext

from gabs.mcp.lifecycle_schemas import LIFECYCLE_SCHEMAS

__all__ = ["BRIDGE_TOOLS", "CALL_OUTPUT_SCHEMA", "LIFECYCLE_TOOLS", "BridgeTool", "ToolHandler"]

ToolHandler = Callable[
    [ServerRequestContext[Any, Any], dict[str, Any]], Awaitable[types.CallToolResult]
]
"""A core tool's handler: the request context and the (validated) arguments."""

_GAME_ID: Final[dict[str, Any]] = {
    "type": "string",
    "minLength": 1,
    "description": "The game's id as configured (see games_list).",
}
_GAME_ID_OPTIONAL: Final[dict[str, Any]] = {
    **_GAME_ID,
    "description": "The game's id; optional when exactly one connected game fits.",
}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _out(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A permissive output schema: the documented keys, more allowed."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


_ANY_OBJECT: Final[dict[str, Any]] = {"type": "object"}
_NULLABLE_OBJECT: Final[dict[str, Any]] = {"type": ["object", "null"]}
_STATUS_OUT: Final = _out(
    {
        "gameId": {"type": "string"},
        "status": {"type": "string"},
        "process": _NULLABLE_OBJECT,
        "connection": _NULLABLE_OBJECT,
        "attention": _ANY_OBJECT,
        "games": {"type": "array", "items": _ANY_OBJECT},
    }
)
CALL_OUTPUT_SCHEMA: Final[dict[str, Any]] = {
    # Kept small on purpose: clients validate every successful result against it.
    "type": "object",
    "description": (
        "How a game call ended. executed: true (the game answered), false (not sent: "
        'refused before reaching the game) or "unknown" (lost before the answer). status: ok, '
        "error (the game's in-band error, in error {code, message}), blocked_by_attention or "
        "attention_unavailable (with code, attentionId, attention, nextActions), unknown. "
        "Also gameId, tool, operationId, result (the game's result when ok), attention and "
        "attentionRelation (the item the call caused, met or saw open) and durationMs."
    ),
    "required": ["executed", "status"],
}


class BridgeTool:
    """One of the bridge's own tools: name, schemas, description, annotations."""

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        input_schema: dict[str, Any],
        output_schema: dict[str, Any],
        *,
        read_only: bool = False,
        destructive: bool = False,
        open_world: bool = False,
    ) -> None:
        self.name = name
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.validator = Draft202012Validator(input_schema, format_checker=FormatChecker())
        self.patterns = {
            name: re.compile(schema["pattern"])
            for name, schema in input_schema["properties"].items()
            if "pattern" in schema
        }
        self.tool = types.Tool(
            name=name,
            title=title,
            description=description,
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=types.ToolAnnotations(
                title=title,
                read_only_hint=read_only,
                destructive_hint=destructive if not read_only else None,
                open_world_hint=open_world,
            ),
        )


LIFECYCLE_TOOLS: Final = [
    BridgeTool(
        name,
        title,
        description,
        schema,
        {"type": "object"},
        read_only=name in ("games_list", "games_show", "games_status"),
        destructive=name in ("games_stop", "games_kill"),
    )
    for name, (title, description, schema) in LIFECYCLE_SCHEMAS.items()
]

BRIDGE_TOOLS: Final[dict[str, BridgeTool]] = {
    tool.name: tool
    for tool in [
        *LIFECYCLE_TOOLS,
        BridgeTool(
            "games_tool_names",
            "Find game tools",
            "List the tools of connected games by name (a page at a time), optionally "
            "filtered by words in the name, title or description (query) or by a name prefix. "
            "Use brief=false for titles, first description lines and tags.",
            _schema(
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "query": {"type": "string", "maxLength": 200},
                    "prefix": {"type": "string", "maxLength": 200},
                    "offset": {"type": "integer", "minimum": 0},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500},
                    "brief": {"type": "boolean"},
                }
            ),
            _out(
                {
                    "total": {"type": "integer"},
                    "offset": {"type": "integer"},
                    "tools": {"type": "array", "items": _ANY_OBJECT},
                    "nextOffset": {"type": ["integer", "null"]},
                },
                ("total", "tools"),
            ),
            read_only=True,
        ),
        BridgeTool(
            "games_tool_detail",
            "Describe a game tool",
            "One game tool in full: input and output schemas, tags, the result description and "
            "its direct MCP name. Read this before calling a tool you have not used yet.",
            _schema(
                {"tool": {"type": "string", "minLength": 1}, "gameId": _GAME_ID_OPTIONAL}, ("tool",)
            ),
            _out(
                {
                    "gameId": {"type": "string"},
                    "name": {"type": "string"},
                    "mcpName": {"type": "string"},
                    "inputSchema": _ANY_OBJECT,
                    "outputSchema": _ANY_OBJECT,
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                ("gameId", "name"),
            ),
            read_only=True,
        ),
        BridgeTool(
            "games_tools",
            "List game tools in full",
            "Every tool of one game (or of all connected games) with schemas and descriptions. "
            "Verbose: prefer games_tool_names, then games_tool_detail.",
            _schema({"gameId": _GAME_ID_OPTIONAL}),
            _out({"tools": {"type": "array", "items": _ANY_OBJECT}}, ("tools",)),
            read_only=True,
        ),
        BridgeTool(
            "games_call_tool",
            "Call a game tool",
            "Call one of a game's tools with its arguments (see games_tool_detail for the "
            "schema). The result says whether the call ran: executed true means the game "
            "answered (its result, or its in-band error with isError); any attention item the "
            "call opened or met is attached to the result. executed false means the call was "
            "NOT sent: a blocking attention item is open in that game (status "
            "blocked_by_attention, with attentionId and nextActions). Inspect it with "
            "games_get_attention, acknowledge it with games_ack_attention {gameId, "
            "attentionId}, then retry; retrying without the ack is refused the same way. "
            'executed "unknown" means the connection or time ran out before the answer: the '
            "call may have run, so check the game's state before repeating it.",
            _schema(
                {
                    "tool": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The game tool's name (e.g. colony/draft).",
                    },
                    "gameId": _GAME_ID_OPTIONAL,
                    "arguments": {
                        "type": "object",
                        "description": "The tool's arguments, as its input schema says.",
                    },
                    "timeout": {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": 3600,
                        "description": "Seconds to wait for the answer (default: the game's).",
                    },
                },
                ("tool",),
            ),
            CALL_OUTPUT_SCHEMA,
            open_world=True,
        ),
        BridgeTool(
            "games_get_attention",
            "Inspect attention",
            "The game's current attention item, if any: summary, severity, whether it blocks "
            "game calls and whether it invalidated state, counts, a small sample and a cursor "
            "into the game's diagnostics, with the causal call and the triggering log lines "
            "assembled within a token budget. Never blocked. refresh=true asks the game instead "
            "of the bridge's event-fed cache; detail='trace' also returns how the context was "
            "assembled.",
            _schema(
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "refresh": {"type": "boolean"},
                    "detail": {"type": "string", "enum": ["summary", "trace"]},
                }
            ),
            _out(
                {
                    "gameId": {"type": "string"},
                    "supported": {"type": "boolean"},
                    "mode": {"type": "string"},
                    "attention": _NULLABLE_OBJECT,
                },
                ("gameId", "supported"),
            ),
            read_only=True,
        ),
        BridgeTool(
            "games_ack_attention",
            "Acknowledge attention",
            "Acknowledge the open attention item by its attentionId once you have taken it "
            "into account; this clears it and lets game calls through again. A stale or wrong "
            "id is refused and the item stays open (the answer shows the current one). New "
            "problems after an ack open a new item.",
            _schema(
                {"attentionId": {"type": "string", "minLength": 1}, "gameId": _GAME_ID_OPTIONAL},
                ("attentionId",),
            ),
            _out(
                {
                    "gameId": {"type": "string"},
                    "acknowledged": {"type": "boolean"},
                    "attentionId": {"type": "string"},
                    "currentAttention": _NULLABLE_OBJECT,
                },
                ("acknowledged",),
            ),
        ),
    ]
}
