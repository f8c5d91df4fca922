"""A GABP game that misbehaves on request, to see what a bridge makes of a game failing a call.

Written on raw asyncio sockets (no lib_gab), because most of its faults are ones a runtime
library would never let a game commit: malformed frames, answers with the wrong id or type, two
answers for one request. Requests are answered one at a time, in order.

Environment (as every GABS bridge hands it over): ``GABP_SERVER_PORT``, ``GABP_TOKEN``,
``GABS_GAME_ID``. With ``COMPAT_GAME_DIR`` set it writes its process id to
``<dir>/<gameId>.pid``. Tools:

* ``fault/echo {text}`` -> ``{"text": text}`` (the call that shows whether the game still
  answers after a fault);
* ``fault/act {mode, ...}`` -> the fault ``mode`` names:

  - ``error`` ``{code, message, data?}``: a GABP error with exactly those members (``data``
    left out when the argument is absent);
  - ``result`` ``{value}``: ``value`` as the result, whatever JSON it is;
  - ``close`` ``{pause?}``: the connection closed without an answer (the process lives on);
    for ``pause`` seconds after it, a new connection's hello is answered only when they end
    (a game busy for a moment: a bridge that reconnects by itself is not back at once);
  - ``exit`` ``{status}``: the process ends with that status without an answer;
  - ``kill``: the process kills itself with SIGKILL;
  - ``frame`` ``{frame}``: these raw bytes (latin-1) written in place of the answer (the
    next requests are answered as usual);
  - ``reply`` ``{members, drop}``: a response to the request with ``members`` added (or
    replacing ``v``, ``id``, ``type``) and the members named in ``drop`` left out;
  - ``sized`` ``{bytes}``: a good answer whose body is exactly ``bytes`` bytes long;
  - ``raw`` ``{result}``: an answer whose ``result`` is the text ``result`` as it is, each
    character a byte (latin-1: bytes that are not UTF-8 can be sent);
  - ``nested`` ``{depth}``: ``{"deep": [[...depth]]}``, the number ``depth`` inside ``depth``
    arrays;
  - ``stray`` ``{then}``: an answer with another id, then (``then: true``) the real one;
  - ``twice``: two answers for the request (``{"answer": 1}`` then ``{"answer": 2}``);
  - ``typed`` ``{type, then}``: an answer of message type ``type`` with the request's id,
    then (``then: true``) the real one.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from typing import Any

from raw_game import launch_environment, read_message, run_game, serve_game

TOOLS: list[dict[str, Any]] = [
    {
        "name": "fault/echo",
        "title": "Echo",
        "description": "Return the given text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "fault/act",
        "title": "Act up",
        "description": "Answer this call the faulty way mode names.",
        "inputSchema": {
            "type": "object",
            "properties": {"mode": {"type": "string"}},
            "required": ["mode"],
        },
    },
]

HELLO = {
    "app": {"name": "faulty game", "version": "1.0.0"},
    "capabilities": {
        "methods": ["session/hello", "tools/list", "tools/call"],
        "events": [],
        "resources": [],
    },
    "schemaVersion": "1.0",
}


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def sized_body(rid: Any, size: int) -> bytes:
    """A response to ``rid`` whose UTF-8 body is exactly ``size`` bytes."""
    empty = json.dumps(
        {"v": "gabp/1", "id": rid, "type": "response", "result": {"text": ""}},
        separators=(",", ":"),
    )
    pad = max(0, size - len(empty.encode("utf-8")))
    return empty.replace('"text":""', '"text":"' + "x" * pad + '"').encode("utf-8")


class Game:
    def __init__(self, token: str, agent_id: str) -> None:
        self.token = token
        self.agent_id = agent_id
        self.hold_until = 0.0
        """The loop time before which a hello waits (``close`` with ``pause``)."""

    def reply(self, rid: Any, **members: Any) -> dict[str, Any]:
        return {"v": "gabp/1", "id": rid, "type": "response", **members}

    async def act(self, rid: Any, arguments: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        """Answer ``fault/act``; ``False`` when the connection must stay silent from now on."""
        mode = arguments.get("mode")
        if mode == "error":
            error: dict[str, Any] = {
                "code": arguments.get("code", -32603),
                "message": arguments.get("message", ""),
            }
            if "data" in arguments:
                error["data"] = arguments["data"]
            writer.write(frame(self.reply(rid, error=error)))
        elif mode == "result":
            writer.write(frame(self.reply(rid, result=arguments.get("value"))))
        elif mode == "nested":
            depth = int(arguments.get("depth", 1))
            value = "[" * depth + str(depth) + "]" * depth
            head = f'{{"v":"gabp/1","id":{json.dumps(rid)},"type":"response"'
            body = f'{head},"result":{{"deep":{value}}}}}'
            writer.write(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
        elif mode == "raw":
            result = str(arguments.get("result", "null")).encode("latin-1")
            head = f'{{"v":"gabp/1","id":{json.dumps(rid)},"type":"response","result":'.encode()
            body = head + result + b"}"
            writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        elif mode == "close":
            pause = float(arguments.get("pause", 0))
            self.hold_until = asyncio.get_running_loop().time() + pause
            writer.close()
            return False
        elif mode == "exit":
            os._exit(int(arguments.get("status", 0)))
        elif mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif mode == "frame":
            writer.write(str(arguments.get("frame", "")).encode("latin-1"))
        elif mode == "reply":
            message = {"v": "gabp/1", "id": rid, "type": "response", **arguments.get("members", {})}
            for name in arguments.get("drop", []):
                message.pop(name, None)
            writer.write(frame(message))
        elif mode == "sized":
            body = sized_body(rid, int(arguments.get("bytes", 0)))
            writer.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        elif mode == "stray":
            writer.write(frame(self.reply(str(uuid.uuid4()), result={"stray": True})))
            if arguments.get("then"):
                writer.write(frame(self.reply(rid, result={"text": "real"})))
        elif mode == "twice":
            writer.write(frame(self.reply(rid, result={"answer": 1})))
            writer.write(frame(self.reply(rid, result={"answer": 2})))
        elif mode == "typed":
            message = {"v": "gabp/1", "id": rid, "type": arguments.get("type", "event")}
            message.update({"result": {"typed": True}, "method": "tools/call"})
            writer.write(frame(message))
            if arguments.get("then"):
                writer.write(frame(self.reply(rid, result={"text": "real"})))
        else:
            writer.write(frame(self.reply(rid, error={"code": -32602, "message": "bad mode"})))
        await writer.drain()
        return True

    async def serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        authenticated = False
        try:
            while True:
                message = await read_message(reader)
                if message is None:
                    return
                rid = message.get("id")
                method = message.get("method")
                params = message.get("params") or {}
                if method == "session/hello":
                    held = self.hold_until - asyncio.get_running_loop().time()
                    if held > 0:
                        await asyncio.sleep(held)
                    authenticated = params.get("token") == self.token
                    if authenticated:
                        answer = self.reply(rid, result={"agentId": self.agent_id, **HELLO})
                    else:
                        answer = self.reply(
                            rid, error={"code": -31000, "message": "authentication failed"}
                        )
                elif not authenticated:
                    answer = self.reply(
                        rid, error={"code": -31001, "message": "session not established"}
                    )
                elif method == "tools/list":
                    answer = self.reply(rid, result={"tools": TOOLS})
                elif method == "tools/call" and params.get("name") == "fault/act":
                    arguments = params.get("parameters") or params.get("arguments") or {}
                    if not await self.act(rid, arguments, writer):
                        await reader.read()  # silent until the bridge closes
                        return
                    continue
                elif method == "tools/call" and params.get("name") == "fault/echo":
                    arguments = params.get("parameters") or params.get("arguments") or {}
                    answer = self.reply(rid, result={"text": str(arguments.get("text", ""))})
                elif method == "tools/call":
                    answer = self.reply(
                        rid, error={"code": -31002, "message": f"Tool '{params.get('name')}'"}
                    )
                else:
                    answer = self.reply(rid, error={"code": -32601, "message": "not found"})
                writer.write(frame(answer))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            return
        finally:
            writer.close()


async def main() -> None:
    port, token, game_id = launch_environment("faulty")
    await serve_game(Game(token, game_id).serve_connection, port, game_id, "faulty game")


if __name__ == "__main__":
    run_game(main)
