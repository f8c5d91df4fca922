"""The game side of the bridge as the Go bridge 1.1.0's own tests and wire pin it
(``internal/gabp/client_test.go``, ``internal/util/jsonrpc_test.go``,
``internal/mirror/mirror_test.go``), with the Go bridge's answers taken from runs of both
bridges side by side on the same game and pinned here (the Go binary is not needed).

* The Go bridge decodes a game's numbers to float64, so a whole float (``5.0``) reaches the MCP
  client as an integer (``5``), in ``structuredContent`` and in a mirrored tool's schemas.
* A message of the game's with the id of the bridge's request but no ``type`` (or one that is
  not ``request``, ``response`` or ``event``) is dropped: never answered, the call waits for
  its answer or its timeout.
* ``endpoint_unavailable`` on the command line and in ``games_start``: the Go bridge's framing
  (``failed to prepare GABS endpoint for game '<id>': failed to assign port: ...``) and, for a
  taken cached port, its status word ``endpoint_cache_in_use``.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from gabs.call_outcome import CallOutcome
from gabs.cli import main
from gabs.config import GabsConfig
from gabs.game_tools import MirroredTool
from gabs.go_format import go_numbers, go_numbers_within
from gabs.launch import resolve
from gabs.launch.steam import SteamApp, ensure_appid_file
from gabs.launch.vdf import SteamError
from gabs.lifecycle import Lifecycle, LifecycleError, start_game
from gabs.mcp.call_results import game_call_result
from gabs.session import GameSession
from gabs_test_support import read_raw_frame, write_raw_frame

TOKEN = "c0ffee" * 11


def answered(result: Any) -> tuple[dict[str, Any], str]:
    outcome = CallOutcome(executed=True, status="ok", tool="t/x", result=result)
    call = game_call_result("g", outcome, {})
    assert isinstance(call.structured_content, dict)
    text = call.content[0]
    assert text.type == "text"
    return call.structured_content, text.text


# ---- whole floats (Go: json.Unmarshal into interface{} is float64, json.Marshal writes 5) ----


def test_a_whole_float_in_a_game_result_is_an_integer_as_go_writes_it() -> None:
    # Go 1.1.0, fault/act {mode: result, value: {...}}: structuredContent
    # {"big":10000000000000000,"f":1e-07,"h":1e+21,"l":[2,{"x":3}],"n":5,"neg":-0}
    value = {"n": 5.0, "f": 1e-7, "big": 1e16, "h": 1e21, "neg": -0.0, "l": [2.0, {"x": 3.0}]}
    structured, text = answered(value)
    assert structured == {"n": 5, "f": 1e-7, "big": 10**16, "h": 1e21, "neg": 0, "l": [2, {"x": 3}]}
    assert type(structured["n"]) is int
    assert type(structured["big"]) is int
    assert type(structured["l"][0]) is int and type(structured["l"][1]["x"]) is int
    assert type(structured["f"]) is float and type(structured["h"]) is float  # 1e+21 in Go too
    assert text == '{"big":10000000000000000,"f":1e-7,"h":1e+21,"l":[2,{"x":3}],"n":5,"neg":-0}'


def test_a_whole_float_that_is_the_whole_result_is_an_integer_value() -> None:
    structured, text = answered(7.0)  # Go: {"value": 7}, text {"value":7}
    assert structured == {"value": 7} and type(structured["value"]) is int
    assert text == '{"value":7}'


def test_integers_stay_exact_and_fractions_stay_floats() -> None:
    structured, _ = answered({"id": 2**70, "half": 2.5, "ok": True, "none": None, "s": "5.0"})
    assert structured == {"id": 2**70, "half": 2.5, "ok": True, "none": None, "s": "5.0"}


def test_go_numbers_walks_deep_results_without_recursion() -> None:
    deep: Any = 1.0
    for _ in range(5000):
        deep = [deep]
    node = go_numbers(deep)
    for _ in range(5000):
        node = node[0]
    assert node == 1 and type(node) is int
    assert go_numbers(float("inf")) == float("inf")
    assert go_numbers(3.0) == 3 and type(go_numbers(3.0)) is int


def test_a_mirrored_tool_s_schemas_have_whole_floats_as_integers() -> None:
    # Go mirrors a game's inputSchema/outputSchema decoded as float64: "minimum": 1.0 is 1.
    tool = MirroredTool.from_descriptor(
        {
            "name": "colony/wait",
            "inputSchema": {
                "type": "object",
                "properties": {"ticks": {"type": "integer", "minimum": 1.0, "default": 60.0}},
            },
            "outputSchema": {"type": "object", "properties": {"x": {"maximum": 2.5e1}}},
        }
    )
    ticks = tool.input_schema["properties"]["ticks"]
    assert ticks == {"type": "integer", "minimum": 1, "default": 60}
    assert type(ticks["minimum"]) is int and type(ticks["default"]) is int
    assert type(tool.output_schema["properties"]["x"]["maximum"]) is int


# ---- a message without a known type (Go: "unknown message type", dropped) ----


HELLO = {
    "agentId": "faulty",
    "app": {"name": "faulty", "version": "1"},
    "capabilities": {"methods": ["session/hello", "tools/list", "tools/call"]},
    "schemaVersion": "1.0",
}
TOOLS = [{"name": "fault/act", "description": "Act up.", "inputSchema": {"type": "object"}}]


@pytest.mark.parametrize("members", [{}, {"type": ""}, {"type": "answer"}])
async def test_an_answer_without_a_known_type_is_dropped_never_answered(
    members: dict[str, Any],
) -> None:
    # Go 1.1.0 on fault/act {mode: reply, drop: ["type"]}: nothing goes back to the game and the
    # call ends with its timeout (`GABP tool call failed: request timeout after 10s.`). gabs
    # answered it with an Invalid Request error carrying the call's id, which a game can take
    # for a request and answer in turn; that answer then became the call's result ("refused by
    # the game and did not run") although the tool ran.
    seen: list[dict[str, Any]] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_raw_frame(reader)) is not None:
            seen.append(message)
            base = {"v": "gabp/1", "id": message.get("id"), "type": "response"}
            method = message.get("method")
            if method == "session/hello":
                write_raw_frame(writer, {**base, "result": HELLO})
            elif method == "tools/list":
                write_raw_frame(writer, {**base, "result": {"tools": TOOLS}})
            elif method == "tools/call":
                reply = {"v": "gabp/1", "id": message["id"], "result": {"ran": True}, **members}
                write_raw_frame(writer, reply)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, anyio.create_task_group() as tg:
        session = GameSession("faulty", port=port, token=TOKEN, liveness_interval=60)
        with anyio.fail_after(10):
            await tg.start(session.run)
            outcome = await session.call_tool("fault/act", {}, timeout=1)
            await anyio.sleep(0.2)  # time for anything the bridge would send back
            connected = session.connected
        await session.close()
    assert (outcome.executed, outcome.status) == ("unknown", "unknown")
    assert outcome.error is not None and "no answer" in outcome.error["message"]
    assert [m.get("method") for m in seen] == ["session/hello", "tools/list", "tools/call"]
    assert connected


# ---- endpoint_unavailable (Go: cmd/gabs/games_lifecycle.go, EndpointUnavailableError) ----


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def _config(config_dir: Path, **top: Any) -> None:
    game = {
        "id": "compat",
        "name": "Compat",
        "launchMode": "DirectPath",
        "target": "/bin/sleep",
        "args": ["30"],
    }
    document = {"version": "1.0", "games": {"compat": game}, **top}
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(json.dumps(document), encoding="utf-8")


def _start(config_dir: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["games", "start", "compat", "--configDir", str(config_dir)])
    out, err = capsys.readouterr()
    code = exited.value.code
    assert isinstance(code, int)
    return code, out, err


def test_no_free_port_is_worded_as_go_on_the_command_line(
    tmp_path: Path, taken_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    ranges = {"customRanges": [{"min": taken_port, "max": taken_port}]}
    _config(tmp_path / "cfg", portRanges=ranges)
    assert _start(tmp_path / "cfg", capsys) == (
        1,
        "",
        "endpoint_unavailable: failed to prepare GABS endpoint for game 'compat': failed to "
        f"assign port: no available bridge port found: no available ports in range "
        f"{taken_port}-{taken_port}\n",
    )


def test_a_taken_cached_port_names_its_status_word_on_the_command_line(
    tmp_path: Path, taken_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # Go: `endpoint_unavailable: GABS endpoint cache for 'compat' uses port N, but that port is
    # already listening (endpoint_cache_in_use). ...` (the rest is advice, in our words).
    _config(tmp_path / "cfg")
    folder = tmp_path / "cfg" / "compat"
    folder.mkdir()
    bridge = {"port": taken_port, "token": "t" * 64, "gameId": "compat"}
    (folder / "bridge.json").write_text(json.dumps(bridge), encoding="utf-8")
    code, out, err = _start(tmp_path / "cfg", capsys)
    assert (code, out) == (1, "")
    assert err.startswith(
        f"endpoint_unavailable: GABS endpoint cache for game 'compat' uses port {taken_port}, "
        "but that port is already listening (endpoint_cache_in_use). "
    ), err
    assert err.count("\n") == 1


async def test_no_free_port_is_worded_as_go_in_games_start(tmp_path: Path, taken_port: int) -> None:
    # Go's games_start: text `Cannot start compat: failed to prepare GABS endpoint for game
    # 'compat': failed to assign port: ...`, `detail` the error after that framing.
    ranges = {"customRanges": [{"min": taken_port, "max": taken_port}]}
    _config(tmp_path / "cfg", portRanges=ranges)
    config = GabsConfig.load(tmp_path / "cfg")
    game = config.games["compat"]
    lc = Lifecycle(config.config_dir, config.settings)
    with pytest.raises(LifecycleError) as refused:
        await start_game(lc, game, resolve(game), gabp_timeout=5)
    detail = (
        "failed to assign port: no available bridge port found: no available ports in range "
        f"{taken_port}-{taken_port}"
    )
    assert refused.value.code == "endpoint_unavailable"
    assert refused.value.message == (
        f"Cannot start compat: failed to prepare GABS endpoint for game 'compat': {detail}"
    )
    assert refused.value.data["detail"] == detail


# ---- tools of the older `parameters` shape (client_test.go: TestConvertToToolDescriptor*) ----


def test_a_canonical_input_schema_is_preferred_over_parameters() -> None:
    schema = {"type": "object", "properties": {"playerId": {"type": "string"}}}
    tool = MirroredTool.from_descriptor(
        {
            "name": "inventory/get",
            "title": "Get Inventory",
            "inputSchema": schema,
            "parameters": [{"name": "legacy", "type": "Int32", "required": True}],
            "tags": ["diagnostic", "read-only"],
        }
    )
    assert tool.input_schema == schema
    assert tool.title == "Get Inventory"
    assert tool.tags == ("diagnostic", "read-only")


def test_parameters_become_the_schema_go_builds() -> None:
    # Go 1.1.0's games_tool_detail inputSchema for these parameters, side by side: C# type names
    # mapped (an unknown or missing one is `string`), `defaultValue` as `default`, an empty
    # description left out, `required` in order and only when something is required.
    tool = MirroredTool.from_descriptor(
        {
            "name": "p/legacy",
            "parameters": [
                {"name": "a", "type": "Int32", "description": "First", "required": True},
                {"name": "b", "type": "Double", "required": False, "defaultValue": 2.5},
                {"name": "c", "type": "Boolean", "description": "", "required": True},
                {"name": "f", "type": "Vector3", "defaultValue": None},
                {"name": "g"},
                {"name": "h", "type": "long", "defaultValue": 5},
                {"name": "i", "type": "Int64"},
                {"name": "j", "type": "Single"},
            ],
        }
    )
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "description": "First"},
            "b": {"type": "number", "default": 2.5},
            "c": {"type": "boolean"},
            "f": {"type": "string"},
            "g": {"type": "string"},
            "h": {"type": "integer", "default": 5},
            "i": {"type": "integer"},
            "j": {"type": "number"},
        },
        "required": ["a", "c"],
    }


def test_an_empty_input_schema_is_built_from_parameters_and_none_is_an_empty_object() -> None:
    empty = MirroredTool.from_descriptor(
        {"name": "p/empty", "inputSchema": {}, "parameters": [{"name": "x", "type": "String"}]}
    )
    assert empty.input_schema == {"type": "object", "properties": {"x": {"type": "string"}}}
    none = MirroredTool.from_descriptor({"name": "p/none"})
    assert none.input_schema == {"type": "object", "properties": {}}


def test_kept_parameter_types_any_case_and_json_schema_names() -> None:
    # Go makes `Bool` and `integer` strings (its names are matched exactly); gabs keeps what
    # they say, so the game is not sent a string for a number or a flag.
    tool = MirroredTool.from_descriptor(
        {
            "name": "p/kept",
            "parameters": [
                {"name": "d", "type": "Bool"},
                {"name": "e", "type": "integer"},
                {"name": "k", "type": "array"},
                {"name": "l", "type": ["x"]},
            ],
        }
    )
    properties = tool.input_schema["properties"]
    assert properties == {
        "d": {"type": "boolean"},
        "e": {"type": "integer"},
        "k": {"type": "array"},
        "l": {"type": "string"},
    }


async def test_a_final_answer_written_just_before_the_game_hangs_up_is_the_result() -> None:
    # client_test.go TestSendRequestReturnsFinalResponseBeforePeerClose: an answer the game
    # wrote before it closed the connection is the call's result, not a connection failure.
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (message := await read_raw_frame(reader)) is not None:
            base = {"v": "gabp/1", "id": message.get("id"), "type": "response"}
            method = message.get("method")
            if method == "session/hello":
                write_raw_frame(writer, {**base, "result": HELLO})
            elif method == "tools/list":
                write_raw_frame(writer, {**base, "result": {"tools": TOOLS}})
            elif method == "tools/call":
                write_raw_frame(writer, {**base, "result": {"message": "pong"}})
                await writer.drain()
                break
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, anyio.create_task_group() as tg:
        session = GameSession("faulty", port=port, token=TOKEN, liveness_interval=60)
        with anyio.fail_after(10):
            await tg.start(session.run)
            outcomes = [await session.call_tool("fault/act", {}, timeout=5)]
        await session.close()
    assert [(o.executed, o.status, o.result) for o in outcomes] == [
        (True, "ok", {"message": "pong"})
    ]


# ---- steam_test.go: TestEnsureAppIDFile* ----


def _steam_app(folder: Path) -> SteamApp:
    return SteamApp(
        app_id="123456",
        name="Game",
        install_dir="Game",
        library_path=folder,
        install_path=folder,
        executable=folder / "game",
        working_dir=folder,
        appid_file=folder / "steam_appid.txt",
    )


def test_steam_appid_file_is_written_and_a_different_id_refused_as_go_words_it(
    tmp_path: Path,
) -> None:
    ensure_appid_file(_steam_app(tmp_path))
    assert (tmp_path / "steam_appid.txt").read_text(encoding="utf-8").strip() == "123456"
    (tmp_path / "steam_appid.txt").write_text("111\n", encoding="utf-8")
    with pytest.raises(SteamError) as refused:
        ensure_appid_file(_steam_app(tmp_path))
    # Go: fmt.Errorf("%s already contains Steam app id %q, expected %q", ...)
    assert str(refused.value) == (
        f'{tmp_path / "steam_appid.txt"} already contains Steam app id "111", expected "123456"'
    )


def test_go_numbers_within_tells_whether_a_result_nests_past_a_depth_in_the_same_pass() -> None:
    value: Any = {"a": [[2.0]]}  # three levels: the object, then two lists
    assert go_numbers_within(value, 3) is True
    assert type(value["a"][0][0]) is int  # converted in the same pass
    assert go_numbers_within({"a": [[2.0]]}, 2) is False
    assert go_numbers_within({"a": [[2.0]]}, None) is True
    assert go_numbers_within("text", 0) is True  # not a list or object: nothing nests
