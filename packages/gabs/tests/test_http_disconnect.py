"""A POST whose client disconnects before its body is whole is not served, as the Go bridge
1.1.0 serves none (its body read fails: ``unexpected EOF``). Before, the part that had arrived
was served when it happened to be JSON: a ``tools/call`` cut after its last member but before
the ``Content-Length`` it declared (padding, say) ran the tool for a client that had left."""

from __future__ import annotations

import json
from typing import Any

from gabs.transports.http_guard import GuardMiddleware

TOKEN = "d" * 64
CALL = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 6,
        "method": "tools/call",
        "params": {"name": "games_stop", "arguments": {"gameId": "g"}},
    }
).encode()


class Recorder:
    """An ASGI app that records every request that reaches it."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.calls.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


async def _post(messages: list[dict[str, Any]], streaming: bool) -> tuple[Recorder, list[Any]]:
    sessions, plain = Recorder(), Recorder()
    guard = GuardMiddleware(sessions, TOKEN, json_app=plain)
    accept = b"application/json, text/event-stream" if streaming else b"application/json"
    length = str(len(CALL) + 64).encode()  # declared longer than what arrives
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [
            (b"authorization", f"Bearer {TOKEN}".encode()),
            (b"content-type", b"application/json"),
            (b"accept", accept),
            (b"content-length", length),
        ],
    }
    pending = list(messages)
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    await guard(scope, receive, send)
    both = Recorder()
    both.calls = sessions.calls + plain.calls
    return both, sent


async def test_a_body_cut_short_by_a_disconnect_is_not_served() -> None:
    for streaming in (False, True):
        cut = [{"type": "http.request", "body": CALL, "more_body": True}]
        app, sent = await _post(cut, streaming)
        assert app.calls == [] and sent == []


async def test_a_disconnect_before_any_body_is_not_served() -> None:
    app, sent = await _post([], streaming=False)
    assert app.calls == [] and sent == []


async def test_the_same_body_whole_is_served() -> None:
    whole = [
        {"type": "http.request", "body": CALL, "more_body": True},
        {"type": "http.request", "body": b" " * 64, "more_body": False},
    ]
    app, sent = await _post(whole, streaming=False)
    assert len(app.calls) == 1 and sent[0]["status"] == 200
