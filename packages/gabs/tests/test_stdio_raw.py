"""Raw lines on the stdio transport, as the Go bridge 1.1.0 answers them: a client may skip the
handshake (its first request is served without ``initialize``), and a request that is not valid
JSON-RPC but has an id gets an error answer with that id instead of none."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier, build_server, initialization_options
from gabs.transports.invalid_requests import skipped_reason
from gabs.transports.request_body import NOT_JSON, NotJsonText, decode_body
from gabs.transports.stdio import framed_stdio

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


@asynccontextmanager
async def raw_stdio(tmp_path: Path) -> AsyncIterator[tuple[int, int]]:
    """A bridge without games on a pair of pipes: (the fd to write to, the fd to read from)."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    notifier = ToolListNotifier()
    config = GabsConfig.from_json({"version": "1.0", "games": {}}, config_dir=tmp_path)
    async with AsyncExitStack() as stack:
        stack.callback(lambda: [os.close(fd) for fd in (in_read, in_write, out_read, out_write)])
        manager = await stack.enter_async_context(GameManager(config, on_tools_changed=notifier))
        server = build_server(manager, notifier=notifier)

        async def serve() -> None:
            async with framed_stdio(in_read, out_write) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, initialization_options(server))

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            yield in_write, out_read
            tg.cancel_scope.cancel()


async def exchange(tmp_path: Path, lines: list[bytes], answers: int) -> list[dict[str, Any]]:
    """Write ``lines`` and read ``answers`` newline-delimited answers."""
    async with raw_stdio(tmp_path) as (to_server, from_server):
        data = b"".join(line + b"\n" for line in lines)

        def write_all() -> None:  # in a thread: more than a pipe holds waits for the reader
            view = memoryview(data)
            while view:
                view = view[os.write(to_server, view) :]

        buffer = b""
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(write_all)
            while buffer.count(b"\n") < answers:
                buffer += await anyio.to_thread.run_sync(
                    os.read, from_server, 65536, abandon_on_cancel=True
                )
    return [json.loads(line) for line in buffer.splitlines()]


def request(request_id: Any, method: str, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


async def test_requests_without_the_handshake_are_served(tmp_path: Path) -> None:
    """``echo '{...tools/call...}' | gabs server``: the Go bridge answers without initialize."""
    listed, called, unknown = await exchange(
        tmp_path,
        [
            request(7, "tools/list"),
            request("c", "tools/call", {"name": "games_list", "arguments": {}}),
            request(8, "bogus/method"),
        ],
        3,
    )
    assert listed["id"] == 7 and "games_list" in {t["name"] for t in listed["result"]["tools"]}
    assert called["id"] == "c" and called["result"]["structuredContent"]["games"] == []
    assert unknown["id"] == 8 and unknown["error"]["code"] == -32601


async def test_a_second_initialize_is_answered_again(tmp_path: Path) -> None:
    first, second = await exchange(
        tmp_path, [json.dumps(INITIALIZE).encode(), json.dumps({**INITIALIZE, "id": 2}).encode()], 2
    )
    assert [first["id"], second["id"]] == [1, 2]
    assert second["result"]["serverInfo"]["name"] == "gabs"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (request(2, "tools/call", "not an object"), {"id": 2, "code": -32602}),
        (json.dumps({"id": "x", "method": "tools/list"}).encode(), {"id": "x", "code": -32600}),
        (json.dumps({"jsonrpc": "2.0", "id": 9}).encode(), {"id": 9, "code": -32601}),
    ],
    ids=["params-not-an-object", "no-jsonrpc-member", "no-method"],
)
async def test_an_invalid_request_with_an_id_is_answered(
    tmp_path: Path, line: bytes, expected: dict[str, Any]
) -> None:
    """The Go bridge answers these (``-32602 Invalid params``, or serves them); they used to
    get no answer at all, and the client waited for ever."""
    answers = await exchange(
        tmp_path,
        [json.dumps(INITIALIZE).encode(), b"{not json", b"", line, request(3, "bogus")],
        3,
    )
    refused = next(a for a in answers if a["id"] == expected["id"])
    assert refused["error"]["code"] == expected["code"]
    assert sorted(str(a["id"]) for a in answers) == sorted(["1", str(expected["id"]), "3"])


#: Ids as the Go bridge echoes them: the token as it was written, whatever number it is.
GO_ECHOED_IDS = ["1.5", "-1", "0", "1e3", "9223372036854775808", '""', "1.0", "-0", "1E400"]


async def test_every_numeric_or_string_id_is_answered_with_the_id_as_written(
    tmp_path: Path,
) -> None:
    """A fraction or an exponent used to be read as a notification and left unanswered; the Go
    bridge serves such a request and echoes the id token verbatim."""
    lines = [
        f'{{"jsonrpc":"2.0","id":{raw},"method":"tools/list"}}'.encode() for raw in GO_ECHOED_IDS
    ]
    lines.append(
        b'{"jsonrpc":"2.0","id":2.5e-3,"method":"tools/call","params":'
        b'{"name":"games_list","arguments":{}}}'
    )
    async with raw_stdio(tmp_path) as (to_server, from_server):
        data = b"".join(line + b"\n" for line in lines)

        def write_all() -> None:  # in a thread: more than a pipe holds waits for the reader
            view = memoryview(data)
            while view:
                view = view[os.write(to_server, view) :]

        buffer = b""
        with anyio.fail_after(30):
            await anyio.to_thread.run_sync(write_all)
            while buffer.count(b"\n") < len(lines):
                buffer += await anyio.to_thread.run_sync(
                    os.read, from_server, 65536, abandon_on_cancel=True
                )
    echoed = set()
    for line in buffer.splitlines():
        assert line.startswith(b'{"jsonrpc":"2.0","id":'), line[:80]
        token = line[len(b'{"jsonrpc":"2.0","id":') :].split(b',"result":', 1)[0]
        echoed.add(token.decode())
        assert "result" in json.loads(line)
    assert echoed == {*GO_ECHOED_IDS, "2.5e-3"}


@pytest.mark.parametrize("raw", ["true", "{}", "[1]"])
async def test_an_id_that_is_no_string_or_number_gets_invalid_request(
    tmp_path: Path, raw: str
) -> None:
    """The Go bridge serves these; the SDK reads them as notifications (no answer at all)."""
    line = f'{{"jsonrpc":"2.0","id":{raw},"method":"tools/list"}}'.encode()
    (refused,) = await exchange(tmp_path, [line], 1)
    assert refused == {
        "jsonrpc": "2.0",
        "id": json.loads(raw),
        "error": {"code": -32600, "message": "Invalid Request"},
    }


def initialize_with(params: Any) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    if params is not ...:
        message["params"] = params
    return json.dumps(message).encode()


@pytest.mark.parametrize(
    ("params", "version"),
    [
        (..., "2024-11-05"),
        (None, "2024-11-05"),
        ({}, "2024-11-05"),
        ({"protocolVersion": "2025-06-18"}, "2025-06-18"),
        ({"protocolVersion": 5, "capabilities": {}, "clientInfo": {}}, "2024-11-05"),
        ({"protocolVersion": "2025-03-26", "capabilities": [], "clientInfo": "x"}, "2025-03-26"),
        ({"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}, "2024-11-05"),
    ],
    ids=["no-params", "null-params", "empty", "version-only", "number", "odd-types", "no-version"],
)
async def test_an_initialize_with_params_left_out_is_answered_as_the_go_bridge_does(
    tmp_path: Path, params: Any, version: str
) -> None:
    """The Go bridge reads no params of ``initialize`` and answers every one; the SDK answered
    these ``-32602 Invalid request parameters``. A version left out is the Go bridge's own."""
    (answer,) = await exchange(tmp_path, [initialize_with(params)], 1)
    assert answer["id"] == 1 and "error" not in answer, answer
    assert answer["result"]["serverInfo"]["name"] == "gabs"
    assert answer["result"]["protocolVersion"] == version
    assert answer["result"]["capabilities"]["tools"] == {"listChanged": True}


async def test_an_invalid_request_answer_is_compact_json_as_every_other(tmp_path: Path) -> None:
    """The Go bridge (and the SDK) write compact JSON; the refusal of an invalid request was
    written with spaces after ``:`` and ``,``."""
    async with raw_stdio(tmp_path) as (to_server, from_server):
        os.write(to_server, request(2, "tools/call", "x") + b"\n")
        with anyio.fail_after(30):
            raw = await anyio.to_thread.run_sync(
                os.read, from_server, 65536, abandon_on_cancel=True
            )
    assert raw == b'{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}\n'


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
async def test_a_number_json_cannot_carry_is_refused_with_invalid_arguments(
    tmp_path: Path, token: bytes
) -> None:
    """``NaN`` and ``Infinity`` are no JSON, and ``1e400`` is past a 64-bit float: the SDK's
    reader takes all of them, and the GABP request could not have been written (an internal
    error before). Refused as invalid arguments, with the request's id, on the wire."""
    body = (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"games_call_tool",'
        b'"arguments":{"gameId":"none","tool":"a/b","arguments":{"v":[%s]}}}}' % token
    )
    (answer,) = await exchange(tmp_path, [body], 1)
    assert answer["id"] == 7
    data = answer["result"]["structuredContent"]
    assert answer["result"]["isError"] is True
    assert (data["code"], data["executed"]) == ("invalid_arguments", False)
    assert data["errors"][0]["field"] == "$.arguments.v[0]"


async def test_a_message_that_is_skipped_is_logged_saying_why_not_what(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing is answered to a line without a request id in it (as the Go bridge and the
    SDKs do), but each gets one warning with the reason, never the line's content."""
    skipped = [b"{secret-token", b"[1, 2]", b"null", b'"secret-token"', b'{"id": null}']
    with caplog.at_level(logging.WARNING, logger="gabs.stdio"):
        (answer,) = await exchange(tmp_path, [*skipped, request(3, "ping")], 1)
    assert answer == {"jsonrpc": "2.0", "id": 3, "result": {}}
    lines = [r.getMessage() for r in caplog.records if r.name == "gabs.stdio"]
    reasons = [line for line in lines if line.startswith("stdin: skipped a message: ")]
    assert len(reasons) == 5, lines
    assert "not JSON" in reasons[0] and "a batch" in reasons[1]
    assert "(null)" in reasons[2] and "(a string)" in reasons[3]
    assert 'no "jsonrpc": "2.0"' in reasons[4]
    assert not any("secret-token" in line for line in lines)


@pytest.mark.parametrize("depth", [5000, 100_000])
async def test_a_request_nested_too_deep_to_decode_is_refused_with_its_id(
    tmp_path: Path, depth: int
) -> None:
    # the lean reader's msgspec and then the standard library's reader hit Python's recursion
    # limit: the RecursionError ended the whole bridge. Now the request is refused with the id
    # read from its members before the nesting, and the requests around it are served
    deep = b"[" * depth + b"]" * depth
    call = (
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"games_call_tool",'
        b'"arguments":{"gameId":"g","tool":"a/b","arguments":{"x":' + deep + b"}}}}"
    )
    answers = await exchange(
        tmp_path,
        [json.dumps(INITIALIZE).encode(), call, request(3, "tools/list")],
        3,
    )
    refused = next(a for a in answers if a["id"] == 2)
    assert refused["error"] == {
        "code": -32600,
        "message": "Invalid Request",
        "data": "the request nests too deep to be read",
    }
    assert sorted(a["id"] for a in answers) == [1, 2, 3]


async def test_a_request_deeper_than_the_sdk_reads_says_why_it_is_refused(
    tmp_path: Path,
) -> None:
    # a request that is no plain tools/call goes to the SDK's reader, which stops at about 200
    # levels: refused with its id as before, now saying why
    deep = b"[" * 500 + b"]" * 500
    read = b'{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"gabs://x","x":%s}}'
    answers = await exchange(
        tmp_path, [json.dumps(INITIALIZE).encode(), read % deep, request(3, "ping")], 3
    )
    refused = next(a for a in answers if a["id"] == 2)
    assert refused["error"]["data"] == "the request nests too deep to be read"
    assert next(a for a in answers if a["id"] == 3)["result"] == {}


def test_flat_members_are_read_from_a_body_too_deep_to_decode() -> None:
    deep = b"[" * 100_000
    assert decode_body(b'{"id": "a\\"[b", "method": "m", "params": ' + deep) == {
        "id": 'a"[b',
        "method": "m",
    }
    assert decode_body(b'{"params": ' + deep) == {}
    reason = skipped_reason(decode_body(b'{"params": ' + deep))
    assert reason == "JSON nested too deep to read, without an id before the nesting"
    assert decode_body(deep) is NOT_JSON
    assert decode_body(b'{"id": 1, "x": "' + deep) is NOT_JSON  # cut inside a string


CALL = (
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"games_call_tool",'
    b'"arguments":{"gameId":"g","tool":"a/b","arguments":{"x":"%s"}}}}'
)


async def test_a_request_that_is_not_utf8_is_refused_with_its_id(tmp_path: Path) -> None:
    # the lean reader's msgspec raised UnicodeDecodeError, which nothing caught: one stray byte
    # ended the bridge with every request unanswered. Now a parse error with the id (the Go
    # bridge serves it with the byte as U+FFFD); an id that is itself not UTF-8 is not made up
    call = CALL % b"caf\xe9"  # the lean path
    read = b'{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"\xff"}}'
    lines = [
        json.dumps(INITIALIZE).encode(),
        call,
        read,
        b'{"jsonrpc":"2.0","id":"\xe9","method":"ping"}',
        request(4, "ping"),
    ]
    answers = await exchange(tmp_path, lines, 4)
    by_id = {answer["id"]: answer for answer in answers}
    assert sorted(by_id) == [1, 2, 3, 4]
    assert by_id[2]["error"] == {
        "code": -32700,
        "message": "Parse error",
        "data": f"the request is not UTF-8: byte 0xe9 at offset {call.index(0xE9)}",
    }
    assert by_id[3]["error"]["data"].endswith(f"byte 0xff at offset {read.index(0xFF)}")
    assert by_id[4]["result"] == {}


async def test_a_lone_surrogate_escape_is_refused_with_its_id_and_a_pair_is_read(
    tmp_path: Path,
) -> None:
    # the SDK's reader refuses a lone surrogate (the standard library's takes it): it was
    # -32600 without saying why; an escaped pair (an emoji, as ensure_ascii writers send it) is
    # read by both
    show = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"games_show",'
    lines = [
        json.dumps(INITIALIZE).encode(),
        show % 2 + b'"arguments":{"gameId":"\\ud800"}}}',
        show % 3 + b'"arguments":{"gameId":"\\ud83d\\ude00"}}}',
        CALL.replace(b'"id":2', b'"id":4') % b"\\udc00",
    ]
    answers = await exchange(tmp_path, lines, 4)
    by_id = {answer["id"]: answer for answer in answers}
    for refused in (by_id[2], by_id[4]):
        assert refused["error"]["code"] == -32700
        assert refused["error"]["data"].startswith("the request cannot be read as JSON: ")
    assert by_id[3]["result"]["structuredContent"]["code"] == "game_not_found"
    assert "\U0001f600" in by_id[3]["result"]["content"][0]["text"]


async def test_an_initialize_nested_too_deep_is_refused_with_its_id(tmp_path: Path) -> None:
    # completing an initialize's params read the body first, and its RecursionError ended the
    # bridge
    deep = b"[" * 5000 + b"]" * 5000
    opening = json.dumps(INITIALIZE).encode()[:-2] + b',"x":' + deep + b"}}"
    answers = await exchange(tmp_path, [opening, request(2, "ping")], 2)
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[1]["error"]["data"] == "the request nests too deep to be read"
    assert by_id[2]["result"] == {}


def test_a_body_that_is_not_utf8_is_read_with_its_bytes_replaced() -> None:
    body = b'{"id": 1, "method": "m", "params": {"a": "\xff"}}'
    read = decode_body(body)
    assert isinstance(read, NotJsonText) and read["params"] == {"a": "\ufffd"}
    assert read.reason == f"the request is not UTF-8: byte 0xff at offset {body.index(0xFF)}"
    unknown_id = decode_body(b'{"id": "\xc3", "method": "m"}')
    assert isinstance(unknown_id, NotJsonText) and "id" not in unknown_id
    assert skipped_reason(unknown_id) == "not UTF-8: byte 0xc3 at offset 8, without an id"
    assert decode_body(b'["\xff"]') is NOT_JSON and decode_body(b"{\xff}") is NOT_JSON
