"""A scriptable GABP game for the session setup: how a bridge sets up a session with a game
that varies or misbehaves at ``session/hello`` and ``tools/list``.

Written on raw asyncio sockets (no lib_gab), so that it can answer what a real runtime never
would. Environment: ``GABP_SERVER_PORT``, ``GABP_TOKEN``, ``GABS_GAME_ID`` (as every bridge
hands them over); with ``COMPAT_GAME_DIR`` set it writes its process id to
``<dir>/<gameId>.pid`` and appends every frame it reads, byte for byte, to
``<dir>/<gameId>.wire`` (one JSON line per frame: ``{"raw": <the frame as text>}``).

``HANDSHAKE_MODE`` (comma-separated words) chooses the behaviour:

* ``hello-error``: ``session/hello`` answered with ``HANDSHAKE_ERROR_CODE`` (default
  ``-31000``) and ``HANDSHAKE_ERROR_MESSAGE``;
* ``hello-silent``: ``session/hello`` never answered; ``hello-close``: the connection closed
  when the hello arrives; ``event-first``: an event written before the welcome;
* ``drop-<member>``: the welcome without ``capabilities``, ``agentId``, ``app`` or
  ``schemaVersion``; ``extra``: the welcome with members no schema has;
* ``schema-<v>``: ``schemaVersion`` ``<v>``; ``schema-absent`` drops it (same as
  ``drop-schemaVersion``);
* ``no-tools-list``, ``no-events``: capabilities without ``tools/list`` or without events;
* ``observed``: the welcome carries the launch context the game received (``observed``:
  ``argv``, ``cwd``, the values of the names ``GABS_FORWARD_ENV`` lists as ``envValues``, with
  any name ``GABS_ABSENT_ENV`` lists that is set, and the ones that are unset as
  ``envAbsent``), so a bridge verifies it; ``observed-script``: the same, with the script as
  ``argv[0]`` (a game whose program is the script, started by its ``#!`` line);
  ``observed-null``: the same report with ``GABS_GAME_ID`` null and a null argument added;
* ``tools-error``: ``tools/list`` answered ``-32603``; ``tools-empty``; ``tools-noname``,
  ``tools-dup``, ``tools-badschema``: one malformed descriptor beside ``hs/echo``;
  ``tools-many``: 3,000 tools ``hs/t0000`` ... ``hs/t2999``; ``tools-late``: every
  ``tools/list`` after the first also lists ``hs/late`` (a tool the game registered after the
  bridge connected; with ``tools-empty``, the first list is empty and the later ones have only
  ``hs/late``); ``tools-error-late``: every ``tools/list`` after the first answered ``-32603``;
  ``tools-exit-late``: the process ends, unanswered, at the second ``tools/list`` (a game that
  dies under a bridge's re-list).

Tools (unless the mode replaces them): ``hs/echo {text}`` -> ``{"text": text}`` (``hs/echo
{result}`` -> ``result``, an object, as it is). Two more
calls, answered like ``hs/echo``, act on the connection after the answer is written:
``hs/close`` closes this connection and keeps listening (a game that hangs up); ``hs/restart
{seconds, port?, token?}`` closes every connection and the listening socket and listens again
after ``seconds`` (default 2), on the same port with the same token unless ``port`` and
``token`` give new ones: a game restarted behind the bridge.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from raw_game import write_pid_file

ECHO = {
    "name": "hs/echo",
    "title": "Echo",
    "description": "Echoes the text.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "additionalProperties": False,
    },
}

CLOSE = {
    "name": "hs/close",
    "description": "Answers, then hangs up.",
    "inputSchema": {"type": "object"},
}
LATE = {
    "name": "hs/late",
    "description": "A tool registered after the first tools/list.",
    "inputSchema": {"type": "object"},
}
RESTART = {
    "name": "hs/restart",
    "description": "Answers, then stops listening and listens again after `seconds`.",
    "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
}


def modes() -> set[str]:
    return {word.strip() for word in os.environ.get("HANDSHAKE_MODE", "").split(",") if word}


def tools(mode: set[str], answered: int = 0) -> list[dict[str, Any]]:
    """The tool list of the ``answered + 1``-th ``tools/list`` answer."""
    late = [LATE] if "tools-late" in mode and answered > 0 else []
    if "tools-empty" in mode:
        return late
    if "tools-many" in mode:
        return [
            {"name": f"hs/t{i:04d}", "description": f"Tool {i}.", "inputSchema": {"type": "object"}}
            for i in range(3000)
        ]
    listed: list[dict[str, Any]] = [ECHO, CLOSE, RESTART]
    if "tools-noname" in mode:
        listed.append({"description": "No name.", "inputSchema": {"type": "object"}})
    if "tools-dup" in mode:
        listed.append({**ECHO, "description": "A second echo."})
    if "tools-badschema" in mode:
        listed.append({"name": "hs/bad", "description": "Bad schema.", "inputSchema": "text"})
    return listed + late


def names(variable: str) -> list[str]:
    return [name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()]


def observed(script: bool = False) -> dict[str, Any]:
    """The delivery report, raw: what this process was handed (its command line from the
    interpreter on, or from the script on when ``script``)."""
    values = {name: os.environ[name] for name in names("GABS_FORWARD_ENV") if name in os.environ}
    absent = names("GABS_ABSENT_ENV")
    values.update({name: os.environ[name] for name in absent if name in os.environ})
    return {
        "argv": list(sys.argv) if script else [sys.executable, *sys.argv],
        "cwd": os.getcwd(),
        "envValues": values,
        "envAbsent": [name for name in absent if name not in os.environ],
    }


def welcome(game_id: str, mode: set[str]) -> dict[str, Any]:
    methods = ["session/hello", "tools/list", "tools/call", "events/subscribe"]
    if "no-tools-list" in mode:
        methods.remove("tools/list")
    result: dict[str, Any] = {
        "agentId": game_id,
        "app": {"name": "HandshakeGame", "version": "1.0.0"},
        "capabilities": {
            "methods": methods,
            "events": [] if "no-events" in mode else ["system/log"],
            "resources": [],
        },
        "schemaVersion": "1.0",
    }
    for word in mode:
        if word.startswith("drop-"):
            result.pop(word[5:], None)
        elif word == "schema-absent":
            result.pop("schemaVersion", None)
        elif word.startswith("schema-"):
            result["schemaVersion"] = word[7:]
    if "observed" in mode or "observed-script" in mode:
        result["observed"] = observed(script="observed-script" in mode)
    if "observed-null" in mode:  # the bridge's id reported as null, and an argument too
        result["observed"] = observed()
        result["observed"]["envValues"]["GABS_GAME_ID"] = None
        result["observed"]["argv"].append(None)
    if "extra" in mode:
        result["serverInfo"] = {"name": "hs", "version": "9"}
        result["unexpected"] = {"x": 1}
    return result


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    head = f"Content-Length: {len(body)}\r\nContent-Type: application/json\r\n\r\n"
    return head.encode("ascii") + body


def response(rid: Any, *, result: Any = None, error: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"v": "gabp/1", "id": rid, "type": "response"}
    if error is not None:
        message["error"] = error
    else:
        message["result"] = result
    return frame(message)


async def read_raw(reader: asyncio.StreamReader) -> bytes | None:
    """One whole frame as read (headers and body), or ``None`` at the end of the stream."""
    head = b""
    length = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        head += line
        text = line.decode("ascii", "replace").strip()
        if not text:
            break
        name, _, value = text.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return None
    return head + await reader.readexactly(length)


class Game:
    def __init__(self, game_id: str, token: str) -> None:
        self.game_id = game_id
        self.token = token
        self.mode = modes()
        self.writers: set[asyncio.StreamWriter] = set()
        self.restart: asyncio.Event = asyncio.Event()
        self.restart_after = 2.0
        self.next_port: int | None = None
        self.lists_answered = 0
        folder = os.environ.get("COMPAT_GAME_DIR")
        self.wire = Path(folder) / f"{game_id.replace('/', '_')}.wire" if folder else None

    def record(self, raw: bytes) -> None:
        if self.wire is not None:
            with self.wire.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"raw": raw.decode("utf-8", "replace")}) + "\n")

    def answer(self, message: dict[str, Any]) -> bytes | None:
        method = message.get("method")
        rid = message.get("id")
        params = message.get("params") or {}
        if method == "session/hello":
            if "hello-silent" in self.mode:
                return None
            if "hello-error" in self.mode:
                code = int(os.environ.get("HANDSHAKE_ERROR_CODE", "-31000"))
                text = os.environ.get("HANDSHAKE_ERROR_MESSAGE", "Invalid authentication token")
                return response(rid, error={"code": code, "message": text})
            if params.get("token") != self.token:
                return response(rid, error={"code": -31000, "message": "Invalid token"})
            return response(rid, result=welcome(self.game_id, self.mode))
        if method == "tools/list":
            if "tools-exit-late" in self.mode and self.lists_answered > 0:
                os._exit(0)
            if "tools-error" in self.mode or (
                "tools-error-late" in self.mode and self.lists_answered > 0
            ):
                return response(rid, error={"code": -32603, "message": "tools exploded"})
            listed = tools(self.mode, self.lists_answered)
            self.lists_answered += 1
            return response(rid, result={"tools": listed})
        if method == "events/subscribe":
            return response(rid, result={"subscribed": params.get("channels") or []})
        if method == "tools/call":
            arguments = params.get("arguments") or params.get("parameters") or {}
            if isinstance(arguments.get("result"), dict):  # answered as given
                return response(rid, result=arguments["result"])
            return response(rid, result={"text": str(arguments.get("text", ""))})
        return response(rid, error={"code": -32601, "message": f"Method not found: {method}"})

    def hang_up(self, message: dict[str, Any]) -> bool:
        """Whether a call asked to end this connection (``hs/close``, ``hs/restart``)."""
        if message.get("method") != "tools/call":
            return False
        params = message.get("params") or {}
        name = params.get("name")
        if name == "hs/restart":
            arguments = params.get("arguments") or params.get("parameters") or {}
            self.restart_after = float(arguments.get("seconds", 2))
            self.next_port = int(arguments.get("port", 0)) or None
            self.token = str(arguments.get("token") or self.token)
            self.restart.set()
            return True
        return bool(name == "hs/close")

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        try:
            while True:
                raw = await read_raw(reader)
                if raw is None:
                    return
                self.record(raw)
                message = json.loads(raw.split(b"\r\n\r\n", 1)[1])
                if message.get("method") == "session/hello":
                    if "hello-close" in self.mode:
                        return
                    if "event-first" in self.mode:
                        event = {
                            "v": "gabp/1",
                            "id": str(uuid.uuid4()),
                            "type": "event",
                            "channel": "system/log",
                            "seq": 0,
                            "payload": {"message": "before the welcome"},
                        }
                        writer.write(frame(event))
                reply = self.answer(message)
                if reply is not None:
                    writer.write(reply)
                    await writer.drain()
                if self.hang_up(message):
                    return
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            return
        finally:
            self.writers.discard(writer)
            writer.close()


async def main() -> None:
    port = int(os.environ["GABP_SERVER_PORT"])
    game = Game(os.environ.get("GABS_GAME_ID", "hs"), os.environ["GABP_TOKEN"])
    server = await asyncio.start_server(game.serve, "127.0.0.1", port)
    print(f"handshake game listening on 127.0.0.1:{port}", file=sys.stderr)
    write_pid_file(game.game_id)
    while True:
        await game.restart.wait()
        game.restart.clear()
        await asyncio.sleep(0.2)
        server.close()
        for writer in list(game.writers):
            writer.close()
        await server.wait_closed()
        print("handshake game down for a restart", file=sys.stderr)
        await asyncio.sleep(game.restart_after)
        port = game.next_port or port
        server = await asyncio.start_server(game.serve, "127.0.0.1", port, reuse_address=True)
        print(f"handshake game listening again on 127.0.0.1:{port}", file=sys.stderr)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
