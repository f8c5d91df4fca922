"""A GABP game that answers with the C# runtime's (Lib.GAB 1.0.3) wire output, quirks included.

Written on raw asyncio sockets (no lib_gab), because the quirks are what it is for: every
response carries both ``result`` and ``error`` (one ``null``, an error with ``"data": null``),
tool descriptors carry ``parameters`` and ``requiresAuth`` and a tool without a description
has ``"description": null``, an output schema built from response fields marks a member
``"nullable": true``, a parameter with a default has ``"default"`` and no description,
results are written by Newtonsoft (``5.0``, ``1E-07``, ``1E+16``, keys in the order of the
C# object), and the hello offers the never-used ``system/log`` and ``system/status`` channels
and no ``concurrency`` capability. Descriptors and bodies are copied from a Lib.GAB 1.0.3 game
built with Mono. Requests are answered one at a time, each reply written whole.

Environment (as every GABS bridge hands it over): ``GABP_SERVER_PORT``, ``GABP_TOKEN``,
``GABS_GAME_ID``. With ``COMPAT_GAME_DIR`` set it writes its process id to
``<dir>/<gameId>.pid``. Tools:

* ``wire/mixed`` -> characters Go's JSON escapes and floats in Newtonsoft's notation;
* ``wire/nullable {label, count = 7}`` -> ``{"name": null, "count": count}``;
* ``wire/nodesc`` (no description) -> ``{"ok": true}``;
* ``wire/throw`` -> ``-32603`` with the exception text, as Lib.GAB answers a throwing tool.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from raw_game import launch_environment, read_message, run_game, serve_game

_NO_PARAMETERS = {"type": "object", "properties": {}, "additionalProperties": False}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "wire/mixed",
        "title": "Wire Mixed",
        "description": "Characters and numbers.",
        "inputSchema": _NO_PARAMETERS,
        "parameters": [],
        "outputSchema": {},
        "requiresAuth": True,
    },
    {
        "name": "wire/nullable",
        "title": "Wire Nullable",
        "description": "Nullable fields.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "label": {"type": "string", "description": "A label"},
                "count": {"type": "integer", "default": 7},
            },
            "required": ["label"],
            "additionalProperties": False,
        },
        "parameters": [
            {"name": "label", "type": "String", "description": "A label", "required": True},
            {"name": "count", "type": "Int32", "required": False, "defaultValue": 7},
        ],
        "outputSchema": {
            "description": "A name that may be null and a count.",
            "type": "object",
            "properties": {
                "name": {"type": "string", "nullable": True, "description": "The name"},
                "count": {"type": "integer", "description": "How many"},
            },
            "required": ["name"],
        },
        "requiresAuth": True,
    },
    {
        "name": "wire/nodesc",
        "title": "Wire Nodesc",
        "description": None,
        "inputSchema": _NO_PARAMETERS,
        "parameters": [],
        "outputSchema": {},
        "requiresAuth": True,
    },
    {
        "name": "wire/throw",
        "title": "Wire Throw",
        "description": "Throws.",
        "inputSchema": _NO_PARAMETERS,
        "parameters": [],
        "outputSchema": {},
        "requiresAuth": True,
    },
]

#: ``wire/mixed``'s result exactly as Newtonsoft writes it.
MIXED_RESULT = '{"zeta":"<a&b>","alpha":5.0,"small":1E-07,"big":1E+21,"mid":1E+16,"text2":"x"}'
THROW_MESSAGE = (
    "Tool execution failed: Error calling tool 'Throw': Exception has been thrown by the "
    "target of an invocation."
)


def _body(request_id: Any, result: str = "null", error: str = "null") -> bytes:
    """A response in Lib.GAB's member order, with both ``result`` and ``error``."""
    rid = json.dumps(request_id)
    text = f'{{"type":"response","result":{result},"error":{error},"v":"gabp/1","id":{rid}}}'
    return text.encode("utf-8")


def _error(code: int, message: str) -> str:
    return json.dumps({"code": code, "message": message, "data": None}, separators=(",", ":"))


def answer(message: dict[str, Any], token: str, authenticated: bool) -> bytes:
    method = message.get("method")
    params = message.get("params") or {}
    rid = message.get("id")
    if method == "session/hello":
        if params.get("token") != token:
            return _body(rid, error=_error(-31000, "Invalid authentication token"))
        hello = {
            "agentId": "gabp-server",
            "app": {"name": "LibGabWireGame", "version": "1.0.0"},
            "capabilities": {
                "methods": [
                    "session/hello",
                    "tools/list",
                    "tools/call",
                    "events/subscribe",
                    "events/unsubscribe",
                ],
                "events": ["system/log", "system/status"],
                "resources": [],
            },
            "schemaVersion": "1.0",
        }
        return _body(rid, result=json.dumps(hello, separators=(",", ":")))
    if not authenticated:
        return _body(rid, error=_error(-31001, "Session not established"))
    if method == "tools/list":
        return _body(rid, result=json.dumps({"tools": TOOLS}, separators=(",", ":")))
    if method == "events/subscribe":
        return _body(rid, result='{"subscribed":[]}')
    if method != "tools/call":
        return _body(rid, error=_error(-32601, f"Method not found: {method}"))
    name = params.get("name")
    arguments = params.get("parameters") or params.get("arguments") or {}
    if name == "wire/mixed":
        return _body(rid, result=MIXED_RESULT)
    if name == "wire/nullable":
        count = arguments.get("count", 7)
        return _body(rid, result=json.dumps({"name": None, "count": count}))
    if name == "wire/nodesc":
        return _body(rid, result='{"ok":true}')
    if name == "wire/throw":
        return _body(rid, error=_error(-32603, THROW_MESSAGE))
    return _body(rid, error=_error(-31002, f"Tool '{name}' not found"))


async def serve_connection(
    token: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    authenticated = False
    try:
        while True:
            message = await read_message(reader)
            if message is None:
                return
            body = answer(message, token, authenticated)
            if message.get("method") == "session/hello":
                authenticated = (message.get("params") or {}).get("token") == token
            writer.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        return
    finally:
        writer.close()


async def main() -> None:
    port, token, game_id = launch_environment("wire")

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await serve_connection(token, reader, writer)

    await serve_game(serve, port, game_id, "Lib.GAB wire game")


if __name__ == "__main__":
    run_game(main)
