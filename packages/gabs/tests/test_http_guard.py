"""The HTTP guard's answers and routes, as the Go bridge 1.1.0 answers the same requests:
refusals as JSON ``{"error": ...}``, a 1 MiB body limit (400), 405 for a method other than POST
from a plain JSON client, ``/health`` for any method, ``404 page not found`` for other paths,
and every POST served whatever its ``Content-Type`` or session (the Go bridge keeps none)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gabs.transports.http_guard import MAX_BODY_BYTES, GuardMiddleware
from gabs.transports.request_body import SDK_READER_DEPTH

TOKEN = "t" * 64
AUTH = {"authorization": f"Bearer {TOKEN}"}
LIST = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}).encode()


class App:
    """An ASGI app that records what reached it and answers 200 with the body it read."""

    def __init__(self) -> None:
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.scopes.append(scope)
        body = b""
        if scope["method"] == "POST":
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})


async def request(
    guard: GuardMiddleware,
    method: str,
    path: str,
    headers: dict[str, str],
    body: bytes = b"",
    chunk: int = 1 << 16,
) -> tuple[int, dict[str, str], bytes]:
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    messages = [
        {"type": "http.request", "body": part, "more_body": n < len(parts) - 1}
        for n, part in enumerate(parts)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await guard(scope, receive, send)
    start, *rest = sent
    answer = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], answer, b"".join(m.get("body", b"") for m in rest)


def guarded() -> tuple[GuardMiddleware, App, App]:
    sessions, plain = App(), App()
    return GuardMiddleware(sessions, TOKEN, json_app=plain), sessions, plain


async def test_refusals_are_json_error_objects_as_the_go_bridge_sends() -> None:
    guard, _, _ = guarded()
    status, headers, body = await request(guard, "POST", "/mcp", {}, LIST)
    assert status == 401 and headers["content-type"] == "application/json"
    assert headers["www-authenticate"].startswith("Bearer")
    assert set(json.loads(body)) == {"error"}
    status, headers, body = await request(
        guard, "POST", "/mcp", {**AUTH, "origin": "https://evil.example"}, LIST
    )
    assert status == 403 and headers["content-type"] == "application/json"
    assert set(json.loads(body)) == {"error"}


async def test_a_body_over_one_mebibyte_is_400_with_the_go_bridges_error() -> None:
    guard, sessions, plain = guarded()
    big = b'{"x":"' + b"a" * MAX_BODY_BYTES + b'"}'
    expected = b'{"error":"Request body too large (max 1048576 bytes)"}'
    declared = {**AUTH, "content-length": str(len(big))}
    assert await request(guard, "POST", "/mcp", declared, big) == (
        400,
        {"content-type": "application/json", "content-length": str(len(expected))},
        expected,
    )
    status, _, body = await request(guard, "POST", "/mcp", AUTH, big)  # chunked, no length
    assert (status, body) == (400, expected)
    assert not sessions.scopes and not plain.scopes
    exactly = b"a" * MAX_BODY_BYTES
    status, _, body = await request(guard, "POST", "/mcp", AUTH, exactly)
    assert (status, len(body)) == (200, MAX_BODY_BYTES)


async def test_any_content_type_is_read_as_json_like_the_go_bridge() -> None:
    """``curl -d`` sends ``application/x-www-form-urlencoded``; the Go bridge serves it."""
    guard, _, plain = guarded()
    form = {**AUTH, "content-type": "application/x-www-form-urlencoded"}
    status, _, body = await request(guard, "POST", "/mcp", form, LIST)
    assert (status, body) == (200, LIST)
    headers = dict(plain.scopes[0]["headers"])
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"accept"] == b"application/json"


async def test_a_post_without_a_session_is_served_unless_it_opens_one() -> None:
    guard, sessions, plain = guarded()
    both = {**AUTH, "accept": "application/json, text/event-stream"}
    await request(guard, "POST", "/mcp", both, LIST)
    assert len(plain.scopes) == 1 and not sessions.scopes
    await request(guard, "POST", "/mcp", both, INIT)
    await request(guard, "POST", "/mcp", {**both, "mcp-session-id": "abc"}, LIST)
    assert len(sessions.scopes) == 2 and len(plain.scopes) == 1


async def test_other_methods_from_a_plain_json_client_are_405() -> None:
    guard, sessions, _ = guarded()
    for method in ("GET", "DELETE", "PUT", "OPTIONS"):
        status, headers, body = await request(guard, method, "/mcp", AUTH)
        assert status == 405 and headers["content-type"] == "application/json", method
        assert set(json.loads(body)) == {"error"}
    assert not sessions.scopes
    stream = {**AUTH, "accept": "text/event-stream", "mcp-session-id": "abc"}
    assert (await request(guard, "GET", "/mcp", stream))[0] == 200  # the session's stream


async def test_other_methods_without_a_session_are_405_whatever_the_client_accepts() -> None:
    """A GET stream, a DELETE, a PUT: without a session, 405 as the Go bridge answers them,
    also from a client that accepts ``text/event-stream`` (the SDK answered a GET with 400 and a
    PUT with its own JSON-RPC error)."""
    guard, sessions, _ = guarded()
    accepts = ("text/event-stream", "application/json, text/event-stream")
    for method in ("GET", "DELETE", "PUT", "HEAD"):
        for accept in accepts:
            status, headers, body = await request(guard, method, "/mcp", {**AUTH, "accept": accept})
            assert status == 405 and headers["content-type"] == "application/json", method
            assert headers["allow"] == "GET, POST, DELETE"
            assert set(json.loads(body)) == {"error"}
    assert not sessions.scopes


async def test_a_session_post_reaches_the_app_as_json_whatever_its_headers_say() -> None:
    """The Go bridge reads every body as JSON and answers JSON: a session's POST with another
    ``Content-Type`` (the SDK answered ``400 Invalid Content-Type header``), and an
    ``initialize`` from a client that accepts only ``text/event-stream`` (the SDK answered
    ``406``), reach the session app as a JSON client's."""
    guard, sessions, plain = guarded()
    odd = {**AUTH, "accept": "text/event-stream", "content-type": "text/plain"}
    for body, extra in ((INIT, {}), (LIST, {"mcp-session-id": "abc"})):
        status, _, answer = await request(guard, "POST", "/mcp", {**odd, **extra}, body)
        assert status == 200
        assert json.loads(answer)["method"] == json.loads(body)["method"]
    assert len(sessions.scopes) == 2 and not plain.scopes
    for scope in sessions.scopes:
        headers = dict(scope["headers"])
        assert headers[b"content-type"] == b"application/json"
        assert headers[b"accept"] == b"application/json"
    assert dict(sessions.scopes[1]["headers"])[b"mcp-session-id"] == b"abc"


async def test_a_json_body_that_is_no_message_is_invalid_request_without_an_id() -> None:
    """A batch, a JSON scalar, ``{}``, a notification without ``"jsonrpc": "2.0"`` or with
    ``params`` that is no object: ``400`` with ``-32600`` and a null id, as JSON-RPC 2.0 says
    (the SDK answered ``-32602`` with its validator's report); messages pass."""
    guard, sessions, plain = guarded()
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    refused = [
        b"[" + LIST + b"]",
        b"[]",
        b"null",
        b"5",
        b'"x"',
        b"{}",
        b'{"method": "notifications/initialized"}',
        json.dumps({**notification, "params": [1]}).encode(),
        b'{"jsonrpc": "2.0", "id": 1, "method": 5}',
        b'{"id": 1, "result": {}}',
    ]
    for body in refused:
        status, headers, answer = await request(guard, "POST", "/mcp", AUTH, body)
        assert (status, headers["content-type"]) == (400, "application/json"), body
        refusal = json.loads(answer)
        assert refusal["id"] is None and refusal["error"]["code"] == -32600, body
        assert refusal["error"]["message"] == "Invalid Request"
        assert "batch" in refusal["error"]["data"] or not body.startswith(b"[")
    assert not sessions.scopes and not plain.scopes
    passed = [
        json.dumps(notification).encode(),
        b'{"jsonrpc": "2.0", "id": 7, "result": {}}',
        b'{"jsonrpc": "2.0", "id": 7, "error": {"code": -1, "message": "x"}}',
        b"{not json",  # the SDK's -32700
    ]
    for body in passed:
        assert (await request(guard, "POST", "/mcp", AUTH, body))[0] == 200, body
    assert len(plain.scopes) == len(passed)


async def test_an_unsupported_protocol_version_is_named_as_such_except_on_initialize() -> None:
    """A request with an ``MCP-Protocol-Version`` the SDK does not speak is ``400``
    ``Unsupported protocol version`` with its id and the versions spoken (the SDK answered that
    ``params._meta`` lacked its envelope keys); ``initialize`` negotiates in its body and is
    served without the header, as the Go bridge serves it."""
    guard, sessions, plain = guarded()
    for version in ("1999-01-01", ""):
        wrong = {**AUTH, "mcp-protocol-version": version}
        status, headers, answer = await request(guard, "POST", "/mcp", wrong, LIST)
        assert (status, headers["content-type"]) == (400, "application/json")
        refusal = json.loads(answer)
        assert refusal["id"] == 2 and refusal["error"]["message"] == "Unsupported protocol version"
        assert refusal["error"]["data"]["requested"] == version
        assert "2025-06-18" in refusal["error"]["data"]["supported"]
    assert not sessions.scopes and not plain.scopes
    for version in ("2025-06-18", "2026-07-28"):
        right = {**AUTH, "mcp-protocol-version": version}
        assert (await request(guard, "POST", "/mcp", right, LIST))[0] == 200
    both = {**AUTH, "accept": "application/json, text/event-stream"}
    wrong = {**both, "mcp-protocol-version": "1999-01-01"}
    assert (await request(guard, "POST", "/mcp", wrong, INIT))[0] == 200
    assert b"mcp-protocol-version" not in dict(sessions.scopes[0]["headers"])


async def test_health_answers_any_method_and_other_paths_are_404_without_a_token() -> None:
    guard, _, _ = guarded()
    for method in ("GET", "POST"):
        status, headers, body = await request(guard, method, "/health", {})
        assert status == 200 and headers["content-type"] == "application/json"
        assert json.loads(body)["status"] == "ok" and b" " not in body
    for path in ("/", "/nope", "/mcp/events"):
        assert await request(guard, "POST", path, {}) == (
            404,
            {"content-type": "text/plain; charset=utf-8", "content-length": "19"},
            b"404 page not found\n",
        )


async def test_an_invalid_request_is_answered_with_its_id() -> None:
    """The Go bridge answers ``params`` that is not an object with ``-32602`` and the request's
    id; the SDK answered ``400`` with ``id: null``."""
    guard, sessions, plain = guarded()
    bad_params = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "x"})
    status, headers, body = await request(guard, "POST", "/mcp", AUTH, bad_params.encode())
    assert (status, headers["content-type"]) == (200, "application/json")
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {"code": -32602, "message": "Invalid params"},
    }
    no_version = json.dumps({"id": "v", "method": "tools/list"}).encode()
    status, _, body = await request(guard, "POST", "/mcp", AUTH, no_version)
    assert status == 200 and json.loads(body)["error"]["code"] == -32600
    assert json.loads(body)["id"] == "v"
    no_method = json.dumps({"jsonrpc": "2.0", "id": 5}).encode()
    status, _, body = await request(guard, "POST", "/mcp", AUTH, no_method)
    assert status == 200 and body == (
        b'{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}'
    )
    assert not sessions.scopes and not plain.scopes


async def test_a_fractional_id_reaches_the_app_as_an_alias_and_comes_back_as_written() -> None:
    """The SDK's ids are strings and integers: ``1.5`` used to be served as a notification
    (``202``, no answer). The Go bridge echoes the id token as it was sent."""
    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        read = json.loads((await receive())["body"])
        seen.append(read["id"])
        answer = json.dumps({"jsonrpc": "2.0", "id": read["id"], "result": {}}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    guard = GuardMiddleware(App(), TOKEN, json_app=app)
    for raw in ("1.5", "1e3", "-0", "1E400"):
        sent = f'{{"jsonrpc":"2.0","id":{raw},"method":"tools/list"}}'.encode()
        status, headers, body = await request(guard, "POST", "/mcp", AUTH, sent)
        assert status == 200
        assert isinstance(seen[-1], str)  # what the SDK can carry
        assert body == f'{{"jsonrpc": "2.0", "id": {raw}, "result": {{}}}}'.encode()
        assert headers["content-length"] == str(len(body))


async def test_an_id_that_is_no_string_or_number_is_invalid_request() -> None:
    guard, sessions, plain = guarded()
    sent = json.dumps({"jsonrpc": "2.0", "id": True, "method": "tools/list"}).encode()
    status, _, body = await request(guard, "POST", "/mcp", AUTH, sent)
    assert status == 200
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": True,
        "error": {"code": -32600, "message": "Invalid Request"},
    }
    assert not sessions.scopes and not plain.scopes


async def test_an_initialize_without_params_reaches_the_app_completed() -> None:
    """The Go bridge answers ``initialize`` whatever its params; the SDK refuses one without
    ``protocolVersion``, ``capabilities`` or ``clientInfo`` (``-32602``)."""
    guard, sessions, plain = guarded()
    bare = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize"}).encode()
    status, _, body = await request(guard, "POST", "/mcp", AUTH, bare)
    assert status == 200 and plain.scopes and not sessions.scopes
    assert json.loads(body)["params"] == {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "unknown", "version": "unknown"},
    }


@pytest.mark.parametrize("depth", [SDK_READER_DEPTH, 500, 100_000])
async def test_a_request_nested_too_deep_to_decode_is_refused_with_its_id(depth: int) -> None:
    # past about 200 levels the SDK's reader refuses the body without its id (-32700, id null);
    # past about 900 the guard's own reading raised RecursionError (an internal error of the
    # server). The guard refuses the request with its id, as on stdio (past 900 levels read
    # from the members before the nesting)
    guard, sessions, plain = guarded()
    deep = b"[" * depth + b"]" * depth
    body = b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"x": ' + deep + b"}}"
    status, _, answer = await request(guard, "POST", "/mcp", AUTH, body)
    refusal = json.loads(answer)
    assert (status, refusal["id"], refusal["error"]["code"]) == (200, 4, -32600)
    assert refusal["error"]["data"] == "the request nests too deep to be read"
    assert not sessions.scopes and not plain.scopes


async def test_a_request_the_sdk_can_read_reaches_it_however_many_brackets_it_holds() -> None:
    """Only the nesting counts: 200 levels (the SDK's reader reads 201 with the request's
    object) and 5,000 brackets side by side reach the SDK's transport."""
    guard, sessions, plain = guarded()
    deep = b"[" * (SDK_READER_DEPTH - 2) + b"]" * (SDK_READER_DEPTH - 2)
    for arguments in (deep, b"[" + b",".join([b"[]"] * 5000) + b"]"):
        body = b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"x": %s}}' % (
            arguments
        )
        status, _, _ = await request(guard, "POST", "/mcp", AUTH, body)
        assert status == 200
    assert len(plain.scopes) == 2 and not sessions.scopes


@pytest.mark.parametrize(
    ("arguments", "data"),
    [
        (b'"caf\xe9"', "the request is not UTF-8: byte 0xe9 at offset "),
        (b'"\\ud800"', "the request cannot be read as JSON: "),
    ],
)
async def test_a_request_the_sdk_cannot_read_as_json_is_refused_with_its_id(
    arguments: bytes, data: str
) -> None:
    # the SDK answered both 400 -32700 without the id; the Go bridge serves them with U+FFFD
    guard, sessions, plain = guarded()
    body = b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"x": %s}}' % arguments
    status, _, answer = await request(guard, "POST", "/mcp", AUTH, body)
    refusal = json.loads(answer)
    assert (status, refusal["id"], refusal["error"]["code"]) == (200, 6, -32700)
    assert refusal["error"]["data"].startswith(data)
    assert not sessions.scopes and not plain.scopes


async def test_an_escaped_surrogate_pair_and_a_deep_initialize_are_read_as_they_should() -> None:
    guard, sessions, plain = guarded()
    pair = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"x": "\\ud83d\\ude00"}}'
    status, _, _ = await request(guard, "POST", "/mcp", AUTH, pair)
    assert status == 200 and len(plain.scopes) == 1
    # completing an initialize's params raised RecursionError (an internal error of the server)
    deep = b"[" * 5000 + b"]" * 5000
    opening = b'{"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {"x": %s}}' % deep
    status, _, answer = await request(guard, "POST", "/mcp", AUTH, opening)
    refusal = json.loads(answer)
    assert (status, refusal["id"], refusal["error"]["code"]) == (200, 8, -32600)
    assert len(plain.scopes) == 1 and not sessions.scopes
