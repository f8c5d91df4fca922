"""Send a GABP server what the Go bridge sends, and print every answer.

Side check, not a test: point it at any running GABP server (the C# runtime, or lib_gab) to
compare how each answers the same traffic::

    python scripts/probe_gabp_server.py --port 5174 --token <token> > answers.json

It speaks raw frames (no runtime of ours between it and the server), sends ``parameters`` as
the Go bridge does, and expects the server to offer ``game/repeat {count: int, word: string}``
and ``game/status``; when it also offers ``game/fail`` (a tool that opens a blocking attention
item ``attn_mono_<n>``, a new one on each call), the attention surface is walked too.
``--twin`` instead starts such a server with lib_gab in this process (``--lib-gab-choices`` for
Lib.GAB's protocol choices) and probes it.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import uuid
from typing import Annotated, Any

from lib_gab import GabpServer, ProtocolOptions, ToolParameter

TIMEOUT = 10.0


class RawClient:
    """Content-Length frames over a plain socket, one answer awaited at a time."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buffer = b""

    def close(self) -> None:
        self.sock.close()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.sock.sendall(
            f"Content-Length: {len(body)}\r\nContent-Type: application/json\r\n\r\n".encode() + body
        )

    def receive(self) -> dict[str, Any] | None:
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                headers = self.buffer[:end].decode("ascii", "replace").split("\r\n")
                length = next(
                    int(h.split(":", 1)[1])
                    for h in headers
                    if h.lower().startswith("content-length:")
                )
                if len(self.buffer) >= end + 4 + length:
                    body = self.buffer[end + 4 : end + 4 + length]
                    self.buffer = self.buffer[end + 4 + length :]
                    message: dict[str, Any] = json.loads(body)
                    return message
            try:
                chunk = self.sock.recv(65536)
            except (TimeoutError, OSError):
                return None
            if not chunk:
                return None
            self.buffer += chunk

    def request(
        self, method: str, params: Any = None, *, with_params: bool = True
    ) -> dict[str, Any]:
        request_id = str(uuid.uuid4())
        message: dict[str, Any] = {
            "v": "gabp/1",
            "id": request_id,
            "type": "request",
            "method": method,
        }
        if with_params:
            message["params"] = params
        self.send(message)
        events: list[dict[str, Any]] = []
        while True:
            answer = self.receive()
            if answer is None:
                return {"closed": True, "events": events}
            if answer.get("type") == "event":
                events.append(
                    {k: answer.get(k) for k in ("channel", "seq", "payload", "timestamp")}
                )
                continue
            if answer.get("id") == request_id:
                return {k: v for k, v in answer.items() if k not in ("v", "id", "type")} | (
                    {"events": events} if events else {}
                )


def hello(token: str, platform: str = "linux") -> dict[str, Any]:
    return {
        "token": token,
        "bridgeVersion": "1.1.0",
        "platform": platform,
        "launchId": str(uuid.uuid4()),
        "clientInfo": {"name": "gabs", "version": "1.1.0"},
    }


def probe(port: int, token: str) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    early = RawClient(port)
    answers["tools/list before hello"] = early.request("tools/list", {})
    answers["hello with a wrong token"] = early.request("session/hello", hello("0" * 64))
    answers["tools/list after the wrong token"] = early.request("tools/list", {})
    early.close()

    client = RawClient(port)
    answers["hello (darwin, as the Go bridge on macOS)"] = client.request(
        "session/hello", hello(token, "darwin")
    )
    answers["hello again"] = client.request("session/hello", hello(token))
    listed = client.request("tools/list", {})
    tools = {t["name"]: t for t in listed.get("result", {}).get("tools", [])}
    answers["tools/list: game/repeat and game/status"] = {
        name: tools.get(name) for name in ("game/repeat", "game/status")
    }
    calls = {
        "parameters: null": {"name": "game/repeat", "parameters": None},
        "parameters {count: 5.0, word}": {
            "name": "game/repeat",
            "parameters": {"count": 5.0, "word": "hi"},
        },
        "parameters {count: 2.5, word}": {
            "name": "game/repeat",
            "parameters": {"count": 2.5, "word": "hi"},
        },
        "parameters and arguments both": {
            "name": "game/repeat",
            "parameters": {"count": 1, "word": "from-parameters"},
            "arguments": {"count": 1, "word": "from-arguments"},
        },
        "an unknown argument {paused: false}": {
            "name": "game/repeat",
            "parameters": {"count": 1, "word": "x", "paused": False},
        },
        "a name in another letter case {Count}": {
            "name": "game/repeat",
            "parameters": {"Count": 2, "word": "y"},
        },
        "an unknown tool": {"name": "game/nothing", "parameters": None},
    }
    for label, params in calls.items():
        answers[f"tools/call, {label}"] = client.request("tools/call", params)
    answers["events/subscribe with an unknown channel"] = client.request(
        "events/subscribe", {"channels": ["attention/opened", "colony/nothing"]}
    )
    answers["events/unsubscribe with an unknown channel"] = client.request(
        "events/unsubscribe", {"channels": ["attention/opened", "colony/nothing"]}
    )
    answers["attention/current with {}"] = client.request("attention/current", {})
    answers["attention/current without params"] = client.request(
        "attention/current", None, with_params=False
    )
    answers["attention/ack of nothing"] = client.request("attention/ack", {"attentionId": "none"})
    answers["an unknown method"] = client.request("colony/teleport", {})
    if "game/fail" in tools:
        answers |= attention_walk(client)
    client.close()
    return answers


def attention_walk(client: RawClient) -> dict[str, Any]:
    """An item opened, replaced by a new one, acknowledged: the answers and the events (each
    step is followed by ``attention/current``, which also collects late events)."""
    answers: dict[str, Any] = {}
    channels = ["attention/opened", "attention/updated", "attention/cleared"]
    answers["attention: subscribe"] = client.request("events/subscribe", {"channels": channels})
    answers["attention: game/fail opens an item"] = client.request(
        "tools/call", {"name": "game/fail", "parameters": {}}
    )
    answers["attention: current with the item open"] = client.request("attention/current", {})
    answers["attention: game/fail again, a new id"] = client.request(
        "tools/call", {"name": "game/fail", "parameters": {}}
    )
    current = client.request("attention/current", {})
    answers["attention: current after the second item"] = current
    open_id = ((current.get("result") or {}).get("attention") or {}).get("attentionId", "")
    first_id = open_id[:-1] + "1" if open_id else ""
    answers["attention: ack of the replaced id"] = client.request(
        "attention/ack", {"attentionId": first_id}
    )
    answers["attention: ack of the open id"] = client.request(
        "attention/ack", {"attentionId": open_id}
    )
    answers["attention: current after the ack"] = client.request("attention/current", {})
    return answers


def twin(lib_gab_choices: bool) -> tuple[Any, int, str]:
    """A lib_gab server with the probed tools, serving in a thread; (thread, port, token)."""
    import threading

    import anyio

    token = uuid.uuid4().hex * 2
    server = GabpServer(
        app_name="MonoLibGabGame",
        app_version="1.0.0",
        agent_id="gabp-server",
        token=token,
        options=ProtocolOptions.lib_gab() if lib_gab_choices else None,
    )
    server.enable_attention()

    @server.tool("game/status", description="Say that the game is alive.")
    def status() -> dict[str, Any]:
        return {"text": "lib_gab game running", "tick": 4242}

    @server.tool("game/repeat", description="Repeat a word a number of times.")
    def repeat(
        count: Annotated[int, ToolParameter(description="How many times")],
        word: Annotated[str, ToolParameter(description="The word to repeat")],
    ) -> dict[str, Any]:
        return {"text": " ".join([word] * count), "count": count, "word": word}

    @server.tool("game/world", description="Dump the whole world (a large object).")
    def world() -> dict[str, Any]:
        cells = [{"index": i, "label": f"cell-{i}-" + "x" * 40} for i in range(4000)]
        return {"text": "world snapshot", "count": len(cells), "cells": cells}

    failures = [0]

    @server.tool("game/fail", description="Make an operation fail: opens a blocking item.")
    async def fail() -> dict[str, Any]:
        failures[0] += 1
        number = failures[0]
        attention_id = f"attn_mono_{number}"
        await server.publish_attention(
            {
                "attentionId": attention_id,
                "severity": "error",
                "blocking": True,
                "stateInvalidated": True,
                "summary": "game/fail was called: the simulated operation failed",
                "causalMethod": "game/fail",
                "openedAtSequence": 100 + number,
                "latestSequence": 100 + number,
                "totalUrgentEntries": 1,
                "sample": [
                    {
                        "level": "error",
                        "message": "simulated failure",
                        "repeatCount": 1,
                        "latestSequence": 100 + number,
                    }
                ],
            }
        )
        return {"text": "failure recorded", "attentionId": attention_id}

    ready = threading.Event()
    found: list[int] = []

    async def serve() -> None:
        async with server.running() as address:
            found.append(address.port or 0)
            ready.set()
            await anyio.sleep_forever()

    thread = threading.Thread(target=anyio.run, args=(serve,), daemon=True)
    thread.start()
    if not ready.wait(TIMEOUT):
        raise SystemExit("the lib_gab twin did not start")
    return thread, found[0], token


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int)
    parser.add_argument("--token")
    parser.add_argument("--twin", action="store_true", help="probe a lib_gab twin started here")
    parser.add_argument("--lib-gab-choices", action="store_true")
    args = parser.parse_args(argv)
    if args.twin:
        _, port, token = twin(args.lib_gab_choices)
    elif args.port and args.token:
        port, token = args.port, args.token
    else:
        parser.error("give --port and --token, or --twin")
    json.dump(probe(port, token), sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
