"""The bridge's MCP surface: 13 tools by the Go bridge's names, over stdio or Streamable HTTP.

:func:`build_server` turns a :class:`~gabs.games.GameManager` into a low-level
:class:`mcp.server.lowlevel.Server` (mcp 2.x: handlers are constructor arguments). What it adds
on top of the manager:

* **Strict tools.** Each bridge tool has an input schema with ``additionalProperties: false``
  and its required fields; arguments are checked here (Draft 2020-12, formats on) and refused
  with an ``isError`` result naming the field and the rule before anything runs.
* **Results the model can read and a program can parse.** Every result has compact text and
  ``structuredContent``. ``isError`` is set for refused lookups (``status: "refused"``), invalid
  arguments (``"invalid_arguments"``), calls the gate blocked (``"blocked_by_attention"``,
  ``executed: false``), in-band game errors (``"error"``) and calls lost in transit
  (``"unknown"``, ``executed: "unknown"``).
* **Mirrored tools** (per game ``exposeGameTools``) are listed under
  :func:`~gabs.session.mcp_tool_name` and called through the gate like ``games_call_tool``.
* **Tool-list changes** reach clients of both protocol eras (:class:`ToolListNotifier`): the
  handshake era's ``notifications/tools/list_changed`` on each connection's standalone
  channel, and the ``subscriptions/listen`` bus of the 2026-07-28 era.

Concurrency is the SDK's: its dispatcher runs every request in a task of its own (only
``initialize`` is inline), so a slow game call never holds up ``games_status`` or the attention
tools, and a client's ``notifications/cancelled`` cancels that task's scope, which cancels the
bridge's wait on the game. ``games_start`` reports progress when the client sends a progress
token. Logging goes to stderr only; stdout belongs to the protocol.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import mcp_types as types
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import (
    ValidationError as SchemaError,
)
from mcp.server.connection import Connection as McpConnection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gabp.messages import Attention
from gabs._version import __version__
from gabs.config import GabsConfig
from gabs.context import trace_json
from gabs.games import GameError, GameManager
from gabs.lifecycle_tools import LIFECYCLE_SCHEMAS, LifecycleTools, with_progress
from gabs.results import attention_text, outcome_structured, outcome_text

__all__ = [
    "BRIDGE_TOOLS",
    "ToolListNotifier",
    "build_server",
    "initialization_options",
    "serve_http",
    "serve_stdio",
]

logger = logging.getLogger("gabs.server")

SERVER_NAME: Final = "gabs"
INSTRUCTIONS: Final = (
    "GABS bridges you to running games. Find games with games_list, start one with "
    "games_start, discover its tools with games_tool_names / games_tool_detail and call them "
    "with games_call_tool. A game may open an attention item (an error or a state change that "
    "matters): it is attached to the result of the call that caused it, and while a blocking "
    "item is open further game calls are refused (executed: false) until you inspect it "
    "(games_get_attention) and acknowledge it (games_ack_attention with its attentionId). A "
    'call reported executed: "unknown" may have run: check the game state before repeating it.'
)

# ---------------------------------------------------------------------------------------------
# Tool definitions

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
_CALL_OUT: Final[dict[str, Any]] = {
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


_LIFECYCLE_TOOLS: Final = [
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
        *_LIFECYCLE_TOOLS,
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
            _CALL_OUT,
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


# ---------------------------------------------------------------------------------------------
# Tool-list change notifications for both protocol eras


class ToolListNotifier:
    """Tells connected MCP clients that the tool list changed.

    Call it (``await notifier()``): it publishes :class:`ToolsListChanged` on the
    ``subscriptions/listen`` bus (2026-07-28 clients) and sends
    ``notifications/tools/list_changed`` on the standalone channel of every handshake-era
    connection it has seen (registered by :meth:`middleware` on their first message). Pass it
    as ``GameManager(on_tools_changed=...)``.
    """

    SEND_TIMEOUT: Final = 2.0

    def __init__(self, bus: InMemorySubscriptionBus | None = None) -> None:
        self.bus = bus or InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus)
        self._legacy: dict[int, McpConnection] = {}
        self.sent = 0

    @property
    def legacy_connections(self) -> int:
        return len(self._legacy)

    def _register(self, ctx: ServerRequestContext[Any, Any]) -> None:
        connection = getattr(ctx.session, "_connection", None)
        if not isinstance(connection, McpConnection) or "gabs.notifier" in connection.state:
            return
        connection.state["gabs.notifier"] = True
        if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # per-request connections; change events ride subscriptions/listen
        if not connection.has_standalone_channel:
            return
        key = id(connection)
        self._legacy[key] = connection
        connection.exit_stack.callback(self._legacy.pop, key, None)

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        self._register(ctx)
        return await call_next(ctx)

    async def __call__(self) -> None:
        self.sent += 1
        await self.bus.publish(ToolsListChanged())
        for connection in list(self._legacy.values()):
            if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
                continue
            if not connection.initialized.is_set():
                continue
            with anyio.move_on_after(self.SEND_TIMEOUT):
                await connection.send_tool_list_changed()


# ---------------------------------------------------------------------------------------------
# Results


def _text_result(text: str, data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=error,
    )


def _compact(value: Any, limit: int = 6000) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _refused(error: GameError, *, call: bool = False) -> types.CallToolResult:
    data: dict[str, Any] = {"status": "refused", **error.to_json()}
    if call:
        data = {"executed": False, **data}
    text = f"Refused ({error.code}): {error.message}"
    if call:
        text = "NOT EXECUTED. " + text
    return _text_result(text, data, error=True)


_QUICK_TYPES: Final[dict[str, Callable[[Any], bool]]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
}
_QUICK_KEYWORDS: Final = frozenset(
    {
        "type",
        "description",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
    }
)


def _quick_valid(tool: BridgeTool, arguments: Any) -> bool:
    """A fast check of the bridge's own (flat) schemas; False means "ask jsonschema".

    Never more lenient than the schema: any keyword it does not know sends the arguments to
    the full validator, which also words the problems."""
    if not isinstance(arguments, dict):
        return False
    properties: dict[str, Any] = tool.input_schema["properties"]
    for name in tool.input_schema.get("required", ()):
        if name not in arguments:
            return False
    for name, value in arguments.items():
        schema = properties.get(name)
        if schema is None or not _QUICK_KEYWORDS.issuperset(schema):
            return False
        check = _QUICK_TYPES.get(schema.get("type", ""))
        if check is None or not check(value):
            return False
        if isinstance(value, str):
            if len(value) < schema.get("minLength", 0):
                return False
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                return False
            if "pattern" in schema and tool.patterns[name].search(value) is None:
                return False
        elif not isinstance(value, bool | dict):
            if "minimum" in schema and value < schema["minimum"]:
                return False
            if "maximum" in schema and value > schema["maximum"]:
                return False
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                return False
    return True


def _schema_problems(tool: BridgeTool, arguments: Any) -> list[dict[str, str]]:
    if _quick_valid(tool, arguments):
        return []
    validator = tool.validator
    problems = []
    errors: list[SchemaError] = sorted(
        validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path))
    )
    for err in errors:
        base = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in err.absolute_path
        )
        if err.validator == "required" and isinstance(err.instance, dict):
            required = err.validator_value if isinstance(err.validator_value, list) else []
            for name in required:
                if name not in err.instance:
                    problems.append(
                        {
                            "field": f"${base}.{name}",
                            "rule": "required",
                            "message": f"{name} is required",
                        }
                    )
        elif err.validator == "additionalProperties" and isinstance(err.instance, dict):
            schema = err.schema if isinstance(err.schema, Mapping) else {}
            known = set(schema.get("properties", {}))
            for name in err.instance:
                if name not in known:
                    problems.append(
                        {
                            "field": f"${base}.{name}",
                            "rule": "additionalProperties",
                            "message": f"{name} is not a known argument"
                            + (f" (known: {', '.join(sorted(known))})" if known else " (none)"),
                        }
                    )
        else:
            problems.append(
                {
                    "field": f"${base}" if base else "$",
                    "rule": str(err.validator),
                    "message": err.message,
                }
            )
    return problems


def _invalid(tool: str, problems: list[dict[str, str]], *, call: bool) -> types.CallToolResult:
    data: dict[str, Any] = {
        "status": "invalid_arguments",
        "code": "invalid_arguments",
        "tool": tool,
        "errors": problems,
    }
    if call:
        data = {"executed": False, **data}
    lines = [f"Invalid arguments for {tool} (nothing was run):"]
    lines += [f"  {p['field']}: {p['message']} (rule: {p['rule']})" for p in problems]
    return _text_result("\n".join(lines), data, error=True)


def _attention_from_wire(raw: Any) -> Attention | None:
    if not isinstance(raw, dict):
        return None
    try:
        return Attention.model_validate(raw)
    except ValueError:
        return None


def _status_line(status: Mapping[str, Any]) -> str:
    parts = [f"{status['gameId']}: {status.get('gameStatus') or status['status']}"]
    connection = status.get("connection")
    if connection:
        parts.append(f"port {connection.get('port')}, {connection.get('tools')} tools")
    process = status.get("process")
    if process and process.get("pid"):
        alive = "running" if process.get("running") else f"exited {process.get('exitCode')}"
        parts.append(f"pid {process['pid']} {alive}")
    attention = status.get("attention") or {}
    if not attention.get("supported"):
        parts.append("attention: not supported" if connection else "")
    elif attention.get("open"):
        kind = "BLOCKING" if attention.get("blocking") else "advisory"
        parts.append(
            f"attention {attention.get('attentionId')} open ({kind}, mode "
            f"{attention.get('mode')}): {attention.get('summary')}"
        )
    else:
        parts.append(f"attention: none open (mode {attention.get('mode')})")
    if status.get("lastError"):
        parts.append(f"last error: {status['lastError']}")
    return "; ".join(p for p in parts if p)


# ---------------------------------------------------------------------------------------------
# The server

ToolHandler = Callable[
    [ServerRequestContext[Any, Any], dict[str, Any]], Awaitable[types.CallToolResult]
]


class _Bridge:
    """The handlers, bound to one manager."""

    def __init__(self, manager: GameManager, notifier: ToolListNotifier) -> None:
        self.manager = manager
        self.notifier = notifier
        self.lifecycle = LifecycleTools(manager)
        self.handlers: dict[str, ToolHandler] = {
            **self.lifecycle.handlers(),
            "games_start": self.games_start,
            "games_tool_names": self.games_tool_names,
            "games_tool_detail": self.games_tool_detail,
            "games_tools": self.games_tools,
            "games_call_tool": self.games_call_tool,
            "games_get_attention": self.games_get_attention,
            "games_ack_attention": self.games_ack_attention,
        }
        assert set(self.handlers) == set(BRIDGE_TOOLS)

    # -- listing --

    def exposed(self) -> dict[str, tuple[str, str, types.Tool]]:
        """Mirrored game tools by MCP name: (gameId, game tool name, MCP tool)."""
        found: dict[str, tuple[str, str, types.Tool]] = {}
        for name, runtime, tool in self.manager.exposed_tools():
            if name in BRIDGE_TOOLS or name in found:
                logger.warning(
                    "not exposing %s of %s: the name %s is taken", tool.name, runtime.id, name
                )
                continue
            schema = dict(tool.input_schema) if tool.input_schema else {"type": "object"}
            schema.setdefault("type", "object")
            description = tool.description or tool.title
            found[name] = (
                runtime.id,
                tool.name,
                types.Tool(
                    name=name,
                    title=f"{tool.title} ({runtime.id})",
                    description=f"[game {runtime.id}, tool {tool.name}] {description} "
                    "Called through the bridge like games_call_tool: refused while a "
                    "blocking attention item is open.",
                    input_schema=schema,
                    output_schema=_CALL_OUT,
                ),
            )
        return found

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = [tool.tool for tool in BRIDGE_TOOLS.values()]
        tools += [tool for _, _, tool in self.exposed().values()]
        return types.ListToolsResult(tools=tools)

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        if name in BRIDGE_TOOLS:
            return BRIDGE_TOOLS[name].input_schema
        exposed = self.exposed().get(name)
        return exposed[2].input_schema if exposed else None

    # -- calling --

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name = params.name
        arguments: Any = params.arguments if params.arguments is not None else {}
        bridge_tool = BRIDGE_TOOLS.get(name)
        call = name == "games_call_tool"
        try:
            if bridge_tool is not None:
                problems = _schema_problems(bridge_tool, arguments)
                if problems:
                    return _invalid(name, problems, call=call)
                return await self.handlers[name](ctx, arguments)
            exposed = self.exposed().get(name)
            if exposed is not None:
                game_id, tool, _ = exposed
                call = True
                return await self._call(tool, game_id, arguments, None)
            known = sorted(BRIDGE_TOOLS)
            return _text_result(
                f"Unknown tool {name!r}. The bridge's tools: {', '.join(known)}; game tools are "
                "called with games_call_tool.",
                {"status": "refused", "code": "unknown_tool", "tool": name, "candidates": known},
                error=True,
            )
        except GameError as exc:
            return _refused(exc, call=call)
        except Exception as exc:  # the boundary: a bug must become an answer, not a hang
            logger.exception("%s failed", name)
            data: dict[str, Any] = {
                "status": "internal_error",
                "code": "internal_error",
                "message": f"{type(exc).__name__}: {exc}",
            }
            if call:
                data = {"executed": "unknown", **data}
            return _text_result(f"The bridge failed on {name}: {data['message']}", data, error=True)

    async def _call(
        self,
        tool: str,
        game_id: str | None,
        arguments: dict[str, Any] | None,
        timeout: float | None,
    ) -> types.CallToolResult:
        runtime, outcome = await self.manager.call_tool(
            tool, game_id=game_id, arguments=arguments, timeout=timeout
        )
        data = outcome_structured(runtime.id, outcome, arguments)
        context: str | None = None
        if outcome.attention is not None:
            purpose: Literal["blocked_call", "attached_result"] = (
                "blocked_call" if outcome.status == "blocked_by_attention" else "attached_result"
            )
            assembled = await self.manager.assemble(
                runtime,
                purpose,
                attention=outcome.attention,
                tool=outcome.tool,
                arguments=arguments,
            )
            if assembled.ok and assembled.context_text:
                context = assembled.context_text
                data["context"] = {
                    "templateId": assembled.template_id,
                    "contextHash": assembled.context_hash,
                    "tokens": assembled.budget_used.tokens,
                }
        text = outcome_text(
            runtime.id,
            outcome,
            arguments,
            context=context,
            gated=runtime.config is None or runtime.config.attention.mode == "gate",
        )
        return _text_result(text, data, error=outcome.status != "ok")

    # -- the tools --

    async def games_start(
        self, ctx: ServerRequestContext[Any, Any], args: dict[str, Any]
    ) -> types.CallToolResult:
        return await with_progress(
            ctx, lambda progress: self.lifecycle.games_start(ctx, args, progress)
        )

    async def games_tool_names(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.tool_names(
            args.get("gameId"),
            query=args.get("query"),
            prefix=args.get("prefix"),
            offset=int(args.get("offset", 0)),
            limit=int(args.get("limit", 50)),
            brief=args.get("brief", True),
        )
        several = len({t["gameId"] for t in data["tools"]}) > 1
        lines = []
        for entry in data["tools"]:
            line = f"{entry['gameId']}:{entry['name']}" if several else entry["name"]
            if entry.get("description"):
                line += f" - {entry['description']}"
            if entry.get("tags"):
                line += f" [{', '.join(entry['tags'])}]"
            lines.append(line)
        shown = f"{len(data['tools'])} of {data['total']} tools"
        if data.get("nextOffset") is not None:
            shown += f" (more: offset {data['nextOffset']})"
        return _text_result("\n".join([shown, *lines]), data)

    async def games_tool_detail(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.tool_detail(args["tool"], args.get("gameId"))
        return _text_result(_compact(data), data)

    async def games_tools(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        tools = self.manager.tools(args.get("gameId"))
        return _text_result(_compact(tools, 20000), {"tools": tools})

    async def games_call_tool(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self._call(
            args["tool"], args.get("gameId"), args.get("arguments"), args.get("timeout")
        )

    async def games_get_attention(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = await self.manager.get_attention(
            args.get("gameId"), refresh=args.get("refresh", False)
        )
        game_id = data["gameId"]
        if not data["supported"]:
            text = f"Game {game_id} does not support attention (supported: false); nothing to ack."
        else:
            item = _attention_from_wire(data.get("attention"))
            if item is None:
                text = f"No attention item is open in game {game_id} (mode {data.get('mode')})."
            else:
                runtime = self.manager.runtime(game_id)
                assembled = await self.manager.assemble(runtime, "inspection", attention=item)
                if assembled.ok and assembled.context_text:
                    text = assembled.context_text
                else:
                    text = attention_text(item, game_id=game_id)
                if args.get("detail") == "trace":
                    data["trace"] = trace_json(assembled)
                if item.blocking and data.get("mode") == "gate":
                    text += (
                        "\nGame calls are refused until you acknowledge it: games_ack_attention "
                        f'{{"gameId": "{game_id}", "attentionId": "{item.attention_id}"}}'
                    )
        return _text_result(text, data)

    async def games_ack_attention(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = await self.manager.ack_attention(args["attentionId"], args.get("gameId"))
        game_id = data["gameId"]
        current = _attention_from_wire(data.get("currentAttention"))
        if data.get("acknowledged"):
            text = f"Acknowledged {args['attentionId']} in game {game_id}."
            if current is not None:
                text += "\nStill open:\n" + attention_text(current, game_id=game_id)
            else:
                text += " No attention item is open now; game calls go through again."
            return _text_result(text, {"status": "acknowledged", **data})
        if current is not None:
            text = (
                f"NOT acknowledged: {args['attentionId']} is not the open item of game {game_id}. "
                f"The open item is {current.attention_id}:\n"
                + attention_text(current, game_id=game_id)
            )
        else:
            text = (
                f"NOT acknowledged: {args['attentionId']} is not open in game {game_id}; no item "
                "is open now."
            )
        return _text_result(text, {"status": "not_acknowledged", **data}, error=True)


def initialization_options(server: Server[Any]) -> Any:
    """The initialize options of a server built here (``tools.listChanged`` on)."""
    return server.create_initialization_options(NotificationOptions(tools_changed=True))


def build_server(manager: GameManager, *, notifier: ToolListNotifier | None = None) -> Server[Any]:
    """The MCP server for ``manager``'s games.

    Pass the same ``notifier`` the manager was built with (``on_tools_changed=notifier``); if
    none is given, one is made and, when the manager has no ``on_tools_changed`` callback yet,
    attached to it. The notifier is reachable as ``server.gabs_notifier``.
    """
    if notifier is None:
        notifier = ToolListNotifier()
        manager.set_tools_changed_callback(notifier)
    bridge = _Bridge(manager, notifier)
    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="GABS game bridge",
        description="One MCP server for many games, talking GABP to each.",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=bridge.input_schema,
        on_list_tools=bridge.list_tools,
        on_call_tool=bridge.call_tool,
        on_subscriptions_listen=notifier.listen_handler,
    )
    if os.environ.get("GABS_OTEL") != "1":
        # The SDK's default OpenTelemetry middleware costs ~10% per call and is a no-op
        # without an exporter; GABS_OTEL=1 keeps it.
        server.middleware[:] = [
            m for m in server.middleware if type(m).__name__ != "OpenTelemetryMiddleware"
        ]
    server.middleware.append(notifier.middleware)
    server.gabs_notifier = notifier  # type: ignore[attr-defined]
    server.gabs_bridge = bridge  # type: ignore[attr-defined]
    # Server.run() (stdio, in-memory) takes its init options from the caller; the HTTP session
    # manager builds them itself: make the default carry tools.listChanged either way.
    original = server.create_initialization_options

    def with_list_changed(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return original(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )

    server.create_initialization_options = with_list_changed  # type: ignore[method-assign]
    return server


# ---------------------------------------------------------------------------------------------
# Running


def _bridge_path() -> str | None:
    found = shutil.which("gabs")
    if found:
        return found
    argv0 = Path(sys.argv[0])
    return str(argv0.resolve()) if argv0.name == "gabs" and argv0.exists() else None


async def serve_stdio(config_dir: str | os.PathLike[str] | None = None) -> None:
    """Serve MCP over this process's stdin and stdout until stdin closes."""
    from mcp.server.stdio import stdio_server

    config = GabsConfig.load(config_dir)
    notifier = ToolListNotifier()
    async with GameManager(
        config, bridge_path=_bridge_path(), on_tools_changed=notifier
    ) as manager:
        server = build_server(manager, notifier=notifier)
        logger.info(
            "gabs %s serving MCP on stdio (%d games configured)", __version__, len(config.games)
        )
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, initialization_options(server))


LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
DEFAULT_HTTP_PORT: Final = 8765
TOKEN_FILE_NAME: Final = "http-token"


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def serve_http(
    config_dir: str | os.PathLike[str] | None = None,
    *,
    host: str | None = None,
    port: int | None = None,
    token: str | None = None,
    allow_remote: bool = False,
    show_token: bool = False,
) -> None:
    """Serve MCP over Streamable HTTP with a bearer token (see :mod:`gabs.http`)."""
    from gabs.http import serve_http as _serve_http

    await _serve_http(
        config_dir,
        host=host,
        port=port,
        token=token,
        allow_remote=allow_remote,
        show_token=show_token,
    )
