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

# No ``minLength``: these six tools read a blank ``gameId`` as not given, as the Go bridge
# does (whose schema has no bound either), so a client that checks the advertised schema must
# let ``"gameId": ""`` through.
_GAME_ID_OPTIONAL: Final[dict[str, Any]] = {
    "type": "string",
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
# Portable schemas have no ``["object", "null"]`` type unions (some model providers reject
# them) and no untyped subschemas: an optional value is left out of the result when there is
# none, and a key whose value may be null is not declared (the output schemas allow more keys).
_LIMIT: Final[dict[str, Any]] = {
    "type": "integer",
    "minimum": 1,
    "description": "The most entries to return.",
}
_CURSOR: Final[dict[str, Any]] = {
    "type": "string",
    "description": "The nextCursor of the previous page (an offset).",
}


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _timeout(description: str) -> dict[str, Any]:
    """A timeout in whole seconds, as the Go bridge takes it (0 or less: the default)."""
    return {"type": "integer", "description": description}


_STATUS_OUT: Final = _out(
    {
        "gameId": {"type": "string"},
        "status": {"type": "string"},
        "attention": _ANY_OBJECT,
        "games": {"type": "array", "items": _ANY_OBJECT},
    }
)
CALL_OUTPUT_SCHEMA: Final[dict[str, Any]] = {
    # Any object: clients validate every successful result against it, and a successful
    # result is the game's own result object.
    "type": "object",
    "description": (
        "The game's own result object (a result that is not an object comes as {value}). "
        "What the bridge adds is in _meta['gabs/call']: executed (true: the game answered, "
        'false: not sent, "unknown": lost before the answer), status, gameId, tool, '
        "operationId, durationMs and the attention item attached to the call."
    ),
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
            "List compact names of the connected games' tools, a page at a time (default 50; "
            "cursor is the nextCursor of the previous page). Use this first for low-token "
            "discovery, then games_tool_detail for one tool. query matches words of the name "
            "(or a substring when it holds . / _ - or a space), prefix the start of the name; "
            "brief=true adds a one-line summary per tool.",
            _schema(
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "query": _text("Case-insensitive filter on the tool names."),
                    "prefix": _text("Case-insensitive prefix of the full, original or local name."),
                    "limit": _LIMIT,
                    "cursor": _CURSOR,
                    "brief": {
                        "type": "boolean",
                        "description": "Add a one-line summary per tool (default false).",
                    },
                }
            ),
            _out(
                {
                    "availableTotal": {"type": "integer"},
                    "total": {"type": "integer"},
                    "returned": {"type": "integer"},
                    "tools": {"type": "array", "items": _ANY_OBJECT},
                    "nextCursor": {"type": "string"},
                },
                ("total", "returned", "tools", "nextCursor"),
            ),
            read_only=True,
        ),
        BridgeTool(
            "games_tool_detail",
            "Describe a game tool",
            "One game tool in full: its names, input and output schemas, tags and result "
            "description. The tool may be named by any name games_tool_names shows (the MCP "
            "name such as example_core_ping, example.core.ping, "
            "core/ping). Read this before calling a tool you have not used yet.",
            _schema(
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "tool": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The tool's name as games_tool_names returns it.",
                    },
                },
                ("tool",),
            ),
            _out(
                {
                    "gameId": {"type": "string"},
                    "name": {"type": "string"},
                    "localName": {"type": "string"},
                    "gabpName": {"type": "string"},
                    "inputSchema": _ANY_OBJECT,
                    # null when the game's descriptor had none, as the Go bridge shows it
                    "outputSchema": {"anyOf": [_ANY_OBJECT, {"type": "null"}]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                ("gameId", "name"),
            ),
            read_only=True,
        ),
        BridgeTool(
            "games_tools",
            "List game tools in full",
            "The connected games' tools with schemas and descriptions, a page at a time (all "
            "by default). Verbose: prefer games_tool_names, then games_tool_detail.",
            _schema(
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "query": _text("Case-insensitive filter on the tool names."),
                    "prefix": _text("Case-insensitive prefix of the full, original or local name."),
                    "limit": _LIMIT,
                    "cursor": _CURSOR,
                }
            ),
            _out(
                {
                    "total": {"type": "integer"},
                    "returned": {"type": "integer"},
                    "tools": {"type": "array", "items": _ANY_OBJECT},
                    "nextCursor": {"type": "string"},
                },
                ("tools",),
            ),
            read_only=True,
        ),
        BridgeTool(
            "games_call_tool",
            "Call a game tool",
            "Call one of a game's tools with its arguments (see games_tool_detail for the "
            "schema); the tool may be named by any name games_tool_names shows. A call the "
            "game answered returns the game's own result (its text, and the result object as "
            "structured content); any attention item the call opened or met is attached as one "
            "more text block. A call that was NOT sent says NOT EXECUTED with isError: a "
            "blocking attention item is open in that game (status blocked_by_attention, with "
            "attentionId and nextActions). Inspect it with games_get_attention, acknowledge it "
            "with games_ack_attention {gameId, attentionId}, then retry; retrying without the "
            'ack is refused the same way. UNKNOWN (executed "unknown") means the connection '
            "or time ran out before the answer: the call may have run, so check the game's "
            "state before repeating it.",
            _schema(
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "tool": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The game tool's name as games_tool_names returns it "
                        "(e.g. example_core_ping or core/ping).",
                    },
                    "arguments": {
                        "type": "object",
                        "description": "The tool's arguments, as its input schema says.",
                    },
                    "timeout": _timeout(
                        "Seconds to wait for the answer (default: the game's call timeout, "
                        "30 s). A tool's own timeoutMs (+5 s) or timeout argument raises it."
                    ),
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
                    "timeout": _timeout("Seconds to wait when the game is asked (default 10)."),
                    "refresh": {"type": "boolean"},
                    "detail": {"type": "string", "enum": ["summary", "trace"]},
                }
            ),
            _out(
                {
                    "gameId": {"type": "string"},
                    "supported": {"type": "boolean"},
                    "blocking": {"type": "boolean"},
                    "mode": {"type": "string"},
                    "attention": _ANY_OBJECT,
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
                {
                    "gameId": _GAME_ID_OPTIONAL,
                    "attentionId": {"type": "string", "minLength": 1},
                    "timeout": _timeout("Seconds to wait for the game (default 10)."),
                },
                ("attentionId",),
            ),
            _out(
                {
                    "gameId": {"type": "string"},
                    "supported": {"type": "boolean"},
                    "acknowledged": {"type": "boolean"},
                    "attentionId": {"type": "string"},
                    "currentAttention": _ANY_OBJECT,
                },
                ("acknowledged",),
            ),
        ),
    ]
}
