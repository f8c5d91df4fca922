"""A GABP game that breaks the way the C# runtime (Lib.GAB 1.0.3) breaks when requests overlap.

Written on raw asyncio sockets (no lib_gab), because what it reproduces is a defect: every
request is dispatched at once in a task of its own, and each reply is written as two writes,
the ``Content-Length`` header and then the body, with a yield to the other tasks in between.
Two replies in flight therefore interleave on the socket, and the bridge reads garbage. A bridge
must send such a game one request at a time.

The game also records what it saw: the most requests it ever had in flight at once
(``maxInFlight``) and how many requests arrived while another one was running (``overlaps``),
reported by the tool ``interleave/stats``. ``INTERLEAVE_DECLARE=N`` makes it declare
``capabilities.extensions.concurrency.maxConcurrentRequests = N`` in its hello reply; a game
that declares that writes each reply in one piece (it can take overlapping requests).

Environment (as every GABS bridge hands it over): ``GABP_SERVER_PORT``, ``GABP_TOKEN``,
``GABS_GAME_ID``. With ``COMPAT_GAME_DIR`` set it writes its process id to
``<dir>/<gameId>.pid``. Tools:

* ``interleave/echo {text}`` -> ``{"text": text}``;
* ``interleave/big {size}`` -> ``{"text": <size characters>, "size": size}``;
* ``interleave/wait {ms}`` -> ``{"waited": ms}`` after ``ms`` milliseconds;
* ``interleave/stats`` -> ``{"maxInFlight", "overlaps", "requests", "declared"}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from typing import Any

from raw_game import launch_environment, read_message, run_game, serve_game

TOOLS = [
    {
        "name": "interleave/echo",
        "title": "Echo",
        "description": "Return the given text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "interleave/big",
        "title": "Big result",
        "description": "Return a large text result of the given size.",
        "inputSchema": {
            "type": "object",
            "properties": {"size": {"type": "integer"}},
            "required": ["size"],
        },
    },
    {
        "name": "interleave/wait",
        "title": "Wait",
        "description": "Answer after the given number of milliseconds.",
        "inputSchema": {
            "type": "object",
            "properties": {"ms": {"type": "integer"}},
            "required": ["ms"],
        },
    },
    {
        "name": "interleave/stats",
        "title": "Stats",
        "description": "What the game saw: the most requests in flight at once and overlaps.",
        "inputSchema": {"type": "object", "properties": {}},
        "tags": ["status", "read-only"],
    },
]


class Game:
    def __init__(self, token: str, agent_id: str, declared: int | None) -> None:
        self.token = token
        self.agent_id = agent_id
        self.declared = declared
        self.in_flight = 0
        self.max_in_flight = 0
        self.overlaps = 0
        self.requests = 0
        self.write_lock = asyncio.Lock()

    def hello_result(self) -> dict[str, Any]:
        capabilities: dict[str, Any] = {
            "methods": ["session/hello", "tools/list", "tools/call"],
            "events": [],
            "resources": [],
        }
        if self.declared is not None:
            capabilities["extensions"] = {"concurrency": {"maxConcurrentRequests": self.declared}}
        return {
            "agentId": self.agent_id,
            "app": {"name": "interleaving game", "version": "1.0.0"},
            "capabilities": capabilities,
            "schemaVersion": "1.0",
        }

    async def call(self, name: str, arguments: dict[str, Any]) -> Any:
        if name == "interleave/echo":
            return {"text": str(arguments.get("text", ""))}
        if name == "interleave/big":
            size = int(arguments.get("size", 0))
            return {"text": ("0123456789abcdef" * (size // 16 + 1))[:size], "size": size}
        if name == "interleave/wait":
            ms = int(arguments.get("ms", 0))
            await asyncio.sleep(ms / 1000)
            return {"waited": ms}
        if name == "interleave/stats":
            return {
                "maxInFlight": self.max_in_flight,
                "overlaps": self.overlaps,
                "requests": self.requests,
                "declared": self.declared,
            }
        raise LookupError(name)

    async def answer(self, message: dict[str, Any], authenticated: bool) -> dict[str, Any]:
        method = message.get("method")
        params = message.get("params") or {}
        reply: dict[str, Any] = {"v": "gabp/1", "id": message.get("id"), "type": "response"}
        if method == "session/hello":
            if params.get("token") != self.token:
                reply["error"] = {"code": -31000, "message": "authentication failed"}
            else:
                reply["result"] = self.hello_result()
            return reply
        if not authenticated:
            reply["error"] = {"code": -31001, "message": "session not established"}
        elif method == "tools/list":
            reply["result"] = {"tools": TOOLS}
        elif method == "tools/call":
            arguments = params.get("parameters") or params.get("arguments") or {}
            try:
                reply["result"] = await self.call(str(params.get("name")), arguments)
            except LookupError:
                reply["error"] = {
                    "code": -31002,
                    "message": f"tool not found: {params.get('name')}",
                }
        else:
            reply["error"] = {"code": -32601, "message": f"method not found: {method}"}
        return reply

    async def write(self, writer: asyncio.StreamWriter, reply: dict[str, Any]) -> None:
        body = json.dumps(reply, separators=(",", ":")).encode("utf-8")
        header = (f"Content-Length: {len(body)}\r\nContent-Type: application/json\r\n\r\n").encode(
            "ascii"
        )
        if self.declared is not None:
            async with self.write_lock:  # a game that declares concurrency writes whole frames
                writer.write(header + body)
                await writer.drain()
            return
        # The defect: two unlocked writes with a yield between them.
        writer.write(header)
        await writer.drain()
        await asyncio.sleep(0)
        writer.write(body)
        await writer.drain()

    async def handle(
        self, message: dict[str, Any], writer: asyncio.StreamWriter, authenticated: bool
    ) -> None:
        self.requests += 1
        if self.in_flight > 0:
            self.overlaps += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = await self.answer(message, authenticated)
            await self.write(writer, reply)
        except (ConnectionError, OSError):
            pass
        finally:
            self.in_flight -= 1

    async def serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        authenticated = False
        tasks: set[asyncio.Task[None]] = set()
        try:
            while True:
                message = await read_message(reader)
                if message is None:
                    return
                if message.get("method") == "session/hello":
                    # the hello is answered before anything else is read
                    await self.handle(message, writer, authenticated)
                    authenticated = message.get("params", {}).get("token") == self.token
                    continue
                task = asyncio.ensure_future(self.handle(message, writer, authenticated))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            return
        finally:
            for task in tasks:
                task.cancel()
            writer.close()


async def main() -> None:
    port, token, game_id = launch_environment("interleave")
    declared = os.environ.get("INTERLEAVE_DECLARE")
    game = Game(token, game_id, int(declared) if declared else None)
    await serve_game(game.serve_connection, port, game_id, f"interleaving game {uuid.uuid4()}")


if __name__ == "__main__":
    run_game(main)
