"""The MCP protocol below the tools, as raw JSON-RPC on both transports: what any GABS bridge
answers to an ``initialize`` whose params are partly or wholly left out, to a method it does
not serve, and to notifications.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest

from .harness import ConfigDir
from .test_transports import API_KEY, http_bridge, line, read_lines, stdio_process

#: ``initialize`` params a script may send, and the protocol version the answer names (the Go
#: bridge answers every ``initialize`` with its own, ``2024-11-05``; a bridge that negotiates
#: takes a client that names no version for one of that era).
BARE_INITIALIZES: list[tuple[Any, str | None]] = [
    (..., "2024-11-05"),
    ({}, "2024-11-05"),
    ({"capabilities": {}, "clientInfo": {"name": "script", "version": "1"}}, "2024-11-05"),
    ({"protocolVersion": 20241105}, "2024-11-05"),
    ({"protocolVersion": "2024-11-05", "capabilities": {}}, "2024-11-05"),
    ({"protocolVersion": "2024-11-05", "clientInfo": "script"}, "2024-11-05"),
]
IDS = ["no-params", "empty", "no-version", "number", "no-client-info", "client-info-a-string"]


def initialize(request_id: int, params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": "initialize"}
    if params is not ...:
        message["params"] = params
    return message


def request(request_id: int, method: str, params: Any = ...) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not ...:
        message["params"] = params
    return message


async def exchange(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path, written: bytes
) -> tuple[list[dict[str, Any]], dict[Any, dict[str, Any]]]:
    """Write ``written`` to a bridge on stdio, close its input, and read every answer line up
    to its exit: the answers in order, and by id."""
    with anyio.fail_after(60):
        async with stdio_process(bridge_command, config_dir, tmp_path) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send(written)
            await process.stdin.aclose()
            answers = await read_lines(process.stdout)
            await process.wait()
    return answers, {answer["id"]: answer for answer in answers}


async def test_stdio_an_initialize_with_params_left_out_is_answered(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """A script that opens the session with a bare ``initialize`` still gets the server."""
    written = b"".join(
        line(initialize(n, params)) for n, (params, _) in enumerate(BARE_INITIALIZES, 1)
    )
    _, by_id = await exchange(bridge_command, config_dir, tmp_path, written)
    assert sorted(by_id) == list(range(1, len(BARE_INITIALIZES) + 1))
    for n, (_, version) in enumerate(BARE_INITIALIZES, 1):
        result = by_id[n].get("result")
        assert result is not None, (IDS[n - 1], by_id[n])
        assert result["serverInfo"]["name"] == "gabs"
        assert result["protocolVersion"] == version, IDS[n - 1]
        assert "tools" in result["capabilities"]
        assert result["capabilities"]["resources"]["listChanged"] is True


@pytest.mark.parametrize("accept", ["application/json", "application/json, text/event-stream"])
async def test_http_an_initialize_without_params_is_answered(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path, accept: str
) -> None:
    headers = {
        "Accept": accept,
        "Content-Type": "application/json",
        "Authorization": f"Bearer {API_KEY}",
    }
    with anyio.fail_after(90):
        async with (
            http_bridge(bridge_command, config_dir, tmp_path) as (base, _),
            httpx.AsyncClient(timeout=30) as http,
        ):
            bare = await http.post(f"{base}/mcp", json=initialize(1, ...), headers=headers)
    assert bare.status_code == 200, bare.text
    assert bare.headers["content-type"].startswith("application/json")
    result = bare.json()["result"]
    assert result["serverInfo"]["name"] == "gabs"
    assert result["protocolVersion"] == "2024-11-05"


async def test_stdio_methods_the_bridge_does_not_serve_are_method_not_found(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """Neither bridge offers prompts, completions, resource templates, subscriptions or a log
    level: each is ``-32601``, the request's id kept, as is a request without a method;
    notifications get no answer."""
    methods = [
        ("logging/setLevel", {"level": "debug"}),
        ("resources/templates/list", ...),
        ("prompts/list", ...),
        ("prompts/get", {"name": "x"}),
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}},
        ),
        ("resources/subscribe", {"uri": "gab://x/state"}),
        ("no/such/method", ...),
    ]
    notifications = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        {"jsonrpc": "2.0", "method": "notifications/no_such_thing"},
    ]
    written = line(initialize(0, {"protocolVersion": "2025-06-18"}))
    written += b"".join(line(n) for n in notifications)
    written += line({"jsonrpc": "2.0", "id": len(methods) + 1})  # no method at all
    written += b"".join(line(request(n, m, p)) for n, (m, p) in enumerate(methods, 1))
    answers, by_id = await exchange(bridge_command, config_dir, tmp_path, written)
    assert sorted(by_id) == list(range(len(methods) + 2)), answers
    for n, (method, _) in enumerate([*methods, ("(none)", ...)], 1):
        assert by_id[n]["error"]["code"] == -32601, method
        assert by_id[n]["error"]["message"] == "Method not found", method


async def test_stdio_tools_list_is_in_name_order(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """The tools are listed sorted by name, so a host that shows them in order shows the same
    list whichever bridge it runs."""
    written = line(initialize(1, {"protocolVersion": "2025-06-18"}))
    written += line(request(2, "tools/list")) + line(request(3, "tools/list", {"cursor": "x"}))
    _, by_id = await exchange(bridge_command, config_dir, tmp_path, written)
    for request_id in (2, 3):
        names = [tool["name"] for tool in by_id[request_id]["result"]["tools"]]
        assert len(names) == 13 and names == sorted(names), names


async def test_stdio_a_tools_call_whose_params_are_not_an_object_is_invalid_params(
    bridge_command: list[str], config_dir: ConfigDir, tmp_path: Path
) -> None:
    """MCP's ``tools/call`` takes named parameters: an array (valid JSON-RPC by position), a
    string or a number as ``params`` is ``-32602 Invalid params``, with the request's id."""
    shapes: list[Any] = [[1], ["games_list", {}], "games_list", 5]
    written = line(initialize(0, {"protocolVersion": "2025-06-18"}))
    written += b"".join(line(request(n, "tools/call", p)) for n, p in enumerate(shapes, 1))
    answers, by_id = await exchange(bridge_command, config_dir, tmp_path, written)
    assert sorted(by_id) == list(range(len(shapes) + 1)), answers
    for n, params in enumerate(shapes, 1):
        error = by_id[n].get("error")
        assert error is not None, (params, by_id[n])
        assert (error["code"], error["message"]) == (-32602, "Invalid params"), params
