"""Send the same raw HTTP requests to our ``gabs`` and to the Go bridge and print the differences.

Side check, not a test (not run in CI): it needs a built Go bridge (pardeike/GABS)::

    uv run --frozen python scripts/differential_http.py --go /path/to/gabs [--json report.json]

Both bridges run ``server http --addr 127.0.0.1:<free port>`` with their own temporary config
directory and ``HOME``, and one game configured: ``rimbridge-sim`` (the console script next to
this Python). Ours gets its bearer token through ``$GABS_HTTP_TOKEN`` and every request to it
carries ``Authorization: Bearer <token>``; the Go bridge has no ``apiKey``, so it needs none.
Each probe prints one line: the probe's name, then ``same`` or ``DIFF`` and what each bridge
answered (status, the headers that matter, and the body reduced to its JSON-RPC shape).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
OURS = BIN / ("gabs.exe" if os.name == "nt" else "gabs")
SIM = BIN / ("rimbridge-sim.exe" if os.name == "nt" else "rimbridge-sim")
GAME_ID = "sim"
TIMEOUT = 60.0
HEADERS_SHOWN = (
    "content-type",
    "mcp-session-id",
    "allow",
    "www-authenticate",
    "cache-control",
    "access-control-allow-origin",
)
JSON_ONLY = {"Content-Type": "application/json", "Accept": "application/json"}
BOTH = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Bridge:
    """One running bridge: where it listens, what every request to it adds, its session."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    auth: dict[str, str] = field(default_factory=dict)
    session: str | None = None

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        *,
        auth: bool = True,
        stream: bool = False,
    ) -> dict[str, Any]:
        """One request; its answer reduced to what is compared."""
        sent = {**(self.auth if auth else {}), **(headers or {})}
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            connection.request(method, path, body=body, headers=sent)
            answer = connection.getresponse()
            shown = {k: answer.getheader(k) for k in HEADERS_SHOWN if answer.getheader(k)}
            if "mcp-session-id" in shown:
                shown["mcp-session-id"] = "<set>"
            if stream or "text/event-stream" in (answer.getheader("content-type") or ""):
                if connection.sock is not None:
                    connection.sock.settimeout(1.0)
                try:
                    data = answer.read1(4096) if method != "HEAD" else b""
                except TimeoutError:
                    data = b"<nothing within 1 s>"
            else:
                data = answer.read()
            return {"status": answer.status, "headers": shown, "body": reduce(data)}
        finally:
            connection.close()


def reduce(data: bytes) -> Any:
    """A body as its shape: JSON-RPC id/error code/result keys, ``{"error"}`` text, or text."""
    if not data:
        return ""
    try:
        value = json.loads(data)
    except ValueError:
        text = data.decode("utf-8", "replace")
        return text[:90]
    reduced = shape(value)
    number = re.search(rb'"id":\s*(-?[0-9][0-9.eE+-]*)', data)
    if isinstance(reduced, dict) and number:  # a numeric id as written, not as Python reads it
        reduced["id"] = number.group(1).decode()
    return reduced


def shape(value: Any) -> Any:
    if isinstance(value, list):
        return [shape(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "jsonrpc" not in value:
        return value
    reduced: dict[str, Any] = {"id": value.get("id", "<absent>")}
    if "error" in value:
        error = value["error"] or {}
        reduced["error"] = error.get("code")
        reduced["message"] = str(error.get("message"))[:100]
    if "result" in value:
        result = value["result"]
        if isinstance(result, dict):
            reduced["result"] = sorted(result)
            if "isError" in result:
                reduced["isError"] = result["isError"]
        else:
            reduced["result"] = result
    return reduced


def rpc(method: str, params: Any = None, request_id: Any = 1) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


INITIALIZE = rpc(
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "differential", "version": "1"},
    },
)
LIST_GAMES = rpc("tools/call", {"name": "games_list", "arguments": {}}, 2)


def session_headers(bridge: Bridge) -> dict[str, str]:
    """A streaming client's headers with the bridge's session, when it gave one."""
    headers = dict(BOTH)
    if bridge.session:
        headers["Mcp-Session-Id"] = bridge.session
        headers["MCP-Protocol-Version"] = "2025-06-18"
    return headers


def open_session(bridge: Bridge) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=TIMEOUT)
    try:
        connection.request("POST", "/mcp", body=INITIALIZE, headers={**bridge.auth, **BOTH})
        answer = connection.getresponse()
        answer.read()
        bridge.session = answer.getheader("mcp-session-id")
    finally:
        connection.close()
    bridge.request(
        "POST", "/mcp", rpc("notifications/initialized", None, None), session_headers(bridge)
    )


#: Header sets by name; ``session`` is a streaming client's with the bridge's session.
HEADER_SETS: dict[str, dict[str, str]] = {
    "json": JSON_ONLY,
    "both": BOTH,
    "none": {},
    "ct-json": {"Content-Type": "application/json"},
    "sse-only": {"Content-Type": "application/json", "Accept": "text/event-stream"},
    "any": {"Content-Type": "application/json", "Accept": "*/*"},
    "html": {"Content-Type": "application/json", "Accept": "text/html"},
    "text": {"Content-Type": "text/plain", "Accept": "application/json"},
    "form": {"Content-Type": "application/x-www-form-urlencoded"},
    "accept-json": {"Accept": "application/json"},
    "text-both": {"Content-Type": "text/plain", "Accept": "application/json, text/event-stream"},
    "get-sse": {"Accept": "text/event-stream"},
    "both+unknown": {**BOTH, "Mcp-Session-Id": "nope"},
    "json+unknown": {**JSON_ONLY, "Mcp-Session-Id": "nope"},
    "both+empty": {**BOTH, "Mcp-Session-Id": ""},
    "sse+unknown": {"Accept": "text/event-stream", "Mcp-Session-Id": "nope"},
    "json+v-right": {**JSON_ONLY, "MCP-Protocol-Version": "2025-06-18"},
    "json+v-wrong": {**JSON_ONLY, "MCP-Protocol-Version": "1999-01-01"},
    "json+v-empty": {**JSON_ONLY, "MCP-Protocol-Version": ""},
    "json+v-modern": {**JSON_ONLY, "MCP-Protocol-Version": "2026-07-28"},
}
#: Header sets made from the bridge's session.
SESSION_SETS: dict[str, Callable[[Bridge], dict[str, str]]] = {
    "session": session_headers,
    "session+text": lambda b: {**session_headers(b), "Content-Type": "text/plain"},
    "session+v-wrong": lambda b: {**session_headers(b), "MCP-Protocol-Version": "1999-01-01"},
    "session-v": lambda b: {
        k: v for k, v in session_headers(b).items() if k != "MCP-Protocol-Version"
    },
    "session-get": lambda b: {
        **{k: v for k, v in session_headers(b).items() if k != "Content-Type"},
        "Accept": "text/event-stream",
    },
}

TOOLS_LIST = rpc("tools/list")
INITIALIZED = rpc("notifications/initialized", None, None)
PADDED = TOOLS_LIST + b" " * ((1 << 20) - len(TOOLS_LIST))
#: (name, method, path, body, header set): the requests sent to both bridges.
PROBES: list[tuple[str, str, str, bytes | None, str]] = [
    ("POST before initialize (tools/list)", "POST", "/mcp", TOOLS_LIST, "json"),
    ("POST initialize, JSON-only Accept", "POST", "/mcp", INITIALIZE, "json"),
    ("POST initialize, JSON+SSE Accept", "POST", "/mcp", INITIALIZE, "both"),
    ("POST initialize, no Accept", "POST", "/mcp", INITIALIZE, "ct-json"),
    ("POST initialize, Accept text/event-stream only", "POST", "/mcp", INITIALIZE, "sse-only"),
    ("POST initialize, Accept */*", "POST", "/mcp", INITIALIZE, "any"),
    ("POST initialize, Accept text/html", "POST", "/mcp", INITIALIZE, "html"),
    ("POST notifications/initialized", "POST", "/mcp", INITIALIZED, "json"),
    ("POST unknown notification", "POST", "/mcp", rpc("x/y", {}, None), "json"),
    ("POST notification, session", "POST", "/mcp", INITIALIZED, "session"),
    ("POST tools/list", "POST", "/mcp", rpc("tools/list", None, 3), "json"),
    ("POST resources/list", "POST", "/mcp", rpc("resources/list", None, 3), "json"),
    ("POST ping", "POST", "/mcp", rpc("ping", None, 3), "json"),
    ("POST unknown method", "POST", "/mcp", rpc("nope/nope", None, 3), "json"),
    ("POST tools/call games_list", "POST", "/mcp", LIST_GAMES, "json"),
    ("POST tools/call games_list, session", "POST", "/mcp", LIST_GAMES, "session"),
    ("POST a response (result)", "POST", "/mcp", b'{"jsonrpc":"2.0","id":7,"result":{}}', "json"),
    (
        "POST a response (error)",
        "POST",
        "/mcp",
        b'{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"x"}}',
        "json",
    ),
    (
        "POST a response, session",
        "POST",
        "/mcp",
        b'{"jsonrpc":"2.0","id":7,"result":{}}',
        "session",
    ),
    (
        "POST batch of 2 requests",
        "POST",
        "/mcp",
        b"[" + rpc("tools/list", None, 1) + b"," + rpc("ping", None, 2) + b"]",
        "json",
    ),
    ("POST batch of notifications", "POST", "/mcp", b"[" + INITIALIZED + b"]", "json"),
    ("POST empty batch []", "POST", "/mcp", b"[]", "json"),
    ("POST empty body", "POST", "/mcp", b"", "json"),
    ("POST whitespace body", "POST", "/mcp", b"  \n", "json"),
    ("POST invalid JSON", "POST", "/mcp", b"{not json", "json"),
    ("POST JSON scalar 5", "POST", "/mcp", b"5", "json"),
    ("POST JSON null", "POST", "/mcp", b"null", "json"),
    ("POST JSON string", "POST", "/mcp", b'"x"', "json"),
    ("POST {} (no method, no id)", "POST", "/mcp", b"{}", "json"),
    ("POST id, no method", "POST", "/mcp", b'{"jsonrpc":"2.0","id":1}', "json"),
    ("POST method not a string", "POST", "/mcp", b'{"jsonrpc":"2.0","id":1,"method":5}', "json"),
    ("POST two JSON values", "POST", "/mcp", TOOLS_LIST + TOOLS_LIST, "json"),
    ("POST trailing garbage", "POST", "/mcp", TOOLS_LIST + b"x", "json"),
    ("POST Content-Type text/plain", "POST", "/mcp", TOOLS_LIST, "text"),
    ("POST Content-Type form (curl -d)", "POST", "/mcp", TOOLS_LIST, "form"),
    ("POST no Content-Type", "POST", "/mcp", TOOLS_LIST, "accept-json"),
    ("POST text/plain, JSON+SSE Accept, no session", "POST", "/mcp", TOOLS_LIST, "text-both"),
    ("POST text/plain, session", "POST", "/mcp", TOOLS_LIST, "session+text"),
    ("POST body 1 MiB + 1", "POST", "/mcp", PADDED + b" ", "json"),
    ("POST body exactly 1 MiB", "POST", "/mcp", PADDED, "json"),
    ("POST body 2 MiB JSON", "POST", "/mcp", rpc("tools/list", {"x": "a" * (2 << 20)}), "json"),
    ("POST unknown Mcp-Session-Id", "POST", "/mcp", TOOLS_LIST, "both+unknown"),
    ("POST unknown Mcp-Session-Id, JSON-only", "POST", "/mcp", TOOLS_LIST, "json+unknown"),
    ("POST empty Mcp-Session-Id", "POST", "/mcp", TOOLS_LIST, "both+empty"),
    ("POST MCP-Protocol-Version right", "POST", "/mcp", TOOLS_LIST, "json+v-right"),
    ("POST MCP-Protocol-Version wrong", "POST", "/mcp", TOOLS_LIST, "json+v-wrong"),
    ("POST MCP-Protocol-Version wrong, session", "POST", "/mcp", TOOLS_LIST, "session+v-wrong"),
    ("POST MCP-Protocol-Version missing, session", "POST", "/mcp", TOOLS_LIST, "session-v"),
    ("POST initialize, wrong MCP-Protocol-Version", "POST", "/mcp", INITIALIZE, "json+v-wrong"),
    ("POST MCP-Protocol-Version empty", "POST", "/mcp", TOOLS_LIST, "json+v-empty"),
    ("POST MCP-Protocol-Version 2026-07-28", "POST", "/mcp", TOOLS_LIST, "json+v-modern"),
    ("GET /mcp, no Accept", "GET", "/mcp", None, "none"),
    ("GET /mcp, Accept SSE, no session", "GET", "/mcp", None, "get-sse"),
    ("GET /mcp, Accept SSE, session", "GET", "/mcp", None, "session-get"),
    ("GET /mcp, Accept SSE, unknown session", "GET", "/mcp", None, "sse+unknown"),
    ("GET /mcp/events", "GET", "/mcp/events", None, "get-sse"),
    ("DELETE /mcp, no session", "DELETE", "/mcp", None, "none"),
    ("DELETE /mcp, unknown session", "DELETE", "/mcp", None, "both+unknown"),
    ("HEAD /mcp", "HEAD", "/mcp", None, "none"),
    ("PUT /mcp", "PUT", "/mcp", TOOLS_LIST, "json"),
    ("PUT /mcp, SSE Accept", "PUT", "/mcp", TOOLS_LIST, "both"),
    ("PATCH /mcp", "PATCH", "/mcp", TOOLS_LIST, "json"),
    ("OPTIONS /mcp", "OPTIONS", "/mcp", None, "none"),
    ("GET /", "GET", "/", None, "none"),
    ("POST /", "POST", "/", TOOLS_LIST, "json"),
    ("POST /mcp/", "POST", "/mcp/", TOOLS_LIST, "json"),
    ("POST /MCP", "POST", "/MCP", TOOLS_LIST, "json"),
    ("POST /mcp?x=1", "POST", "/mcp?x=1", TOOLS_LIST, "json"),
    ("POST //mcp", "POST", "//mcp", TOOLS_LIST, "json"),
    ("POST /mcp/../mcp", "POST", "/mcp/../mcp", TOOLS_LIST, "json"),
    ("POST tools/call games_list, session (again)", "POST", "/mcp", LIST_GAMES, "session"),
]
#: (name, method, path): requests sent without the bearer token.
ANONYMOUS: list[tuple[str, str, str]] = [
    ("GET /health", "GET", "/health"),
    ("POST /health", "POST", "/health"),
    ("HEAD /health", "HEAD", "/health"),
    ("GET /health/", "GET", "/health/"),
    ("POST /mcp without a token", "POST", "/mcp"),
]
IDS: list[tuple[str, bytes]] = [
    (label, json.dumps(value).encode())
    for label, value in (
        ("string", "abc"),
        ("empty string", ""),
        ("integer", 42),
        ("negative", -7),
        ("zero", 0),
        ("big integer", 2**70),
        ("true", True),
        ("false", False),
        ("object", {"a": 1}),
        ("array", [1]),
    )
] + [("null", b"null"), ("1.5", b"1.5"), ("1.0", b"1.0"), ("1e3", b"1e3"), ("-0", b"-0")]


Probe = Callable[[Bridge], dict[str, Any]]


def probes(game_tool: str) -> list[tuple[str, Probe]]:
    """Every probe as a function of the bridge it is sent to."""
    listed: list[tuple[str, Probe]] = []
    for name, method, path, body, preset in PROBES:

        def probe(b: Bridge, m: str = method, p: str = path, d: Any = body, h: str = preset) -> Any:
            headers = SESSION_SETS[h](b) if h in SESSION_SETS else HEADER_SETS[h]
            return b.request(m, p, d, headers, stream=m == "GET")

        listed.append((name, probe))
    for name, method, path in ANONYMOUS:

        def anonymous(b: Bridge, m: str = method, p: str = path) -> Any:
            return b.request(m, p, TOOLS_LIST if m == "POST" else None, JSON_ONLY, auth=False)

        listed.append((name, anonymous))
    for label, raw in IDS:
        body = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"tools/list"}'

        def with_id(b: Bridge, d: bytes = body) -> Any:
            return b.request("POST", "/mcp", d, JSON_ONLY)

        listed.append((f"POST id {label} ({raw.decode()})", with_id))
    call = {"name": "games_call_tool", "arguments": {"gameId": GAME_ID, "tool": game_tool}}
    listed.append(
        (
            f"POST tools/call games_call_tool {game_tool}",
            lambda b: b.request("POST", "/mcp", rpc("tools/call", call, 11), JSON_ONLY),
        )
    )
    return listed


def start(name: str, command: list[str], env_extra: dict[str, str], root: Path) -> Bridge:
    config = root / name / "config"
    home = root / name / "home"
    config.mkdir(parents=True)
    home.mkdir(parents=True)
    document = {
        "version": "1.0",
        "games": {
            GAME_ID: {
                "id": GAME_ID,
                "name": "Sim",
                "launchMode": "CustomCommand",
                "target": str(SIM),
                "args": ["--enable-test-tools"],
            }
        },
    }
    (config / "config.json").write_text(json.dumps(document), encoding="utf-8")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
    env.update({"HOME": str(home), "USERPROFILE": str(home), **env_extra})
    argv = [*command, "server", "http", "--addr", f"127.0.0.1:{port}", "--configDir", str(config)]
    process = subprocess.Popen(
        [*argv, "--log-level", "warn"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"{name} exited ({process.returncode})") from None
            time.sleep(0.1)
    else:
        raise SystemExit(f"{name} did not listen within 30 s")
    return Bridge(name, port, process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--go", required=True, help="the Go bridge's executable")
    parser.add_argument("--ours", default=str(OURS), help="our gabs (default: next to Python)")
    parser.add_argument("--game-tool", default="rimbridge/ping", help="the tool called")
    parser.add_argument("--json", help="also write every answer to this file")
    args = parser.parse_args()
    token = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="gabs-http-diff-") as scratch:
        root = Path(scratch)
        ours = start("ours", [args.ours], {"GABS_HTTP_TOKEN": token}, root)
        ours.auth = {"Authorization": f"Bearer {token}"}
        go = start("go", [args.go], {}, root)
        bridges = (ours, go)
        report: list[dict[str, Any]] = []
        try:
            for bridge in bridges:
                open_session(bridge)
                started = bridge.request(
                    "POST",
                    "/mcp",
                    rpc("tools/call", {"name": "games_start", "arguments": {"gameId": GAME_ID}}, 9),
                    JSON_ONLY,
                )
                print(f"# {bridge.name}: session {bridge.session is not None}, start {started}")
            for name, probe in probes(args.game_tool):
                answers = {}
                for bridge in bridges:
                    try:
                        answers[bridge.name] = probe(bridge)
                    except Exception as exc:  # a probe's failure is its result
                        answers[bridge.name] = {"failed": f"{type(exc).__name__}: {exc}"}
                same = answers["ours"] == answers["go"]
                report.append({"probe": name, "same": same, **answers})
                if same:
                    print(f"{name}: same {json.dumps(answers['go'])}")
                else:
                    ours_text, go_text = json.dumps(answers["ours"]), json.dumps(answers["go"])
                    print(f"{name}: DIFF ours={ours_text} go={go_text}")
            for bridge in bridges:
                bridge.request(
                    "POST",
                    "/mcp",
                    rpc("tools/call", {"name": "games_stop", "arguments": {"gameId": GAME_ID}}, 10),
                    JSON_ONLY,
                )
        finally:
            for bridge in bridges:
                bridge.process.terminate()
                try:
                    bridge.process.wait(15)
                except subprocess.TimeoutExpired:
                    bridge.process.kill()
                    bridge.process.wait(5)
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
