"""Argument values of every type a game uses, as lib_gab receives them by default and with
Lib.GAB's choices (``argument_values="convert"``), next to what Lib.GAB 1.0.3 does with them
(recorded in docs/ports/lib-gab.md, section 2): what Lib.GAB converts without losing or
inventing anything is taken with its choices; what it rounds, wraps or makes up is refused."""

from __future__ import annotations

import enum
import inspect
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from gabp import RemoteError
from lib_gab import GabpServer, InvalidArguments, ProtocolOptions, ToolInfo, ToolParameterInfo
from lib_gab._arguments import check_arguments
from lib_gab.testing import bridge_session
from lib_gab.tools import build_tool

TOKEN = "d" * 64
REFUSED = "refused"
MISSING = object()


class Speed(enum.Enum):
    SLOW = "Slow"
    FAST = "Fast"
    LUDICROUS = "Ludicrous"


class Cased(enum.Enum):
    UPPER = "A"
    LOWER = "a"


class Point(BaseModel):
    x: int
    y: int = 0


def _bool(value: bool) -> Any:
    return value


def _int(value: int) -> Any:
    return value


def _float(value: float) -> Any:
    return value


def _str(value: str) -> Any:
    return value


def _speed(value: Speed) -> Any:
    return value


def _cased(value: Cased) -> Any:
    return value


def _optional(value: int | None = None) -> Any:
    return value


def _default(value: int = 7) -> Any:
    return value


def _strings(value: list[str]) -> Any:
    return value


def _ints(value: list[int]) -> Any:
    return value


def _speeds(value: list[Speed]) -> Any:
    return value


def _object(value: dict[str, Any]) -> Any:
    return value


def _point(value: Point) -> Any:
    return value


FUNCTIONS = {
    "bool": _bool,
    "int": _int,
    "float": _float,
    "str": _str,
    "enum": _speed,
    "cased": _cased,
    "optional": _optional,
    "default": _default,
    "strings": _strings,
    "ints": _ints,
    "speeds": _speeds,
    "object": _object,
    "point": _point,
}

# (parameter type, value sent, taken by default, taken with Lib.GAB's choices); Lib.GAB's own
# answer in the comment where it differs from the last column
CASES: list[tuple[str, Any, Any, Any]] = [
    ("bool", True, True, True),
    ("bool", 1, REFUSED, True),
    ("bool", 0, REFUSED, False),
    ("bool", 1.0, REFUSED, True),
    ("bool", "true", REFUSED, True),
    ("bool", "True", REFUSED, True),
    ("bool", " FALSE ", REFUSED, False),
    ("bool", 2, REFUSED, REFUSED),  # Lib.GAB: true
    ("bool", -1, REFUSED, REFUSED),  # Lib.GAB: true
    ("bool", "yes", REFUSED, REFUSED),  # Lib.GAB: false
    ("bool", "1", REFUSED, REFUSED),  # Lib.GAB: false
    ("bool", None, REFUSED, REFUSED),  # Lib.GAB: false
    ("bool", MISSING, REFUSED, REFUSED),  # Lib.GAB: false
    ("int", 5, 5, 5),
    ("int", 5.0, 5, 5),
    ("int", "5", REFUSED, 5),
    ("int", " 5 ", REFUSED, 5),
    ("int", "-12", REFUSED, -12),
    ("int", 2.5, REFUSED, REFUSED),  # Lib.GAB: 2
    ("int", "9" * 5000, REFUSED, REFUSED),  # more digits than Python reads from text
    ("int", "5.0", REFUSED, REFUSED),  # Lib.GAB: 0
    ("int", "2.5", REFUSED, REFUSED),  # Lib.GAB: 0
    ("int", True, REFUSED, REFUSED),  # Lib.GAB: 1
    ("int", 2**40, 2**40, 2**40),  # Lib.GAB (Int32): 0
    ("int", 2.0**53, 2**53, 2**53),
    ("int", 1e300, REFUSED, REFUSED),  # Lib.GAB: 0
    ("int", None, REFUSED, REFUSED),  # Lib.GAB: 0
    ("int", MISSING, REFUSED, REFUSED),  # Lib.GAB: 0
    ("int", {"a": 1}, REFUSED, REFUSED),  # Lib.GAB: 0
    ("float", 2.5, 2.5, 2.5),
    ("float", 5, 5.0, 5.0),
    ("float", "2.5", REFUSED, 2.5),
    ("float", " 5 ", REFUSED, 5.0),
    ("float", "1e3", REFUSED, 1000.0),
    ("float", "1,5", REFUSED, REFUSED),  # Lib.GAB: 15
    ("float", "nan", REFUSED, REFUSED),
    ("float", "1e999", REFUSED, REFUSED),
    ("float", True, REFUSED, REFUSED),  # Lib.GAB: 1
    ("str", "5", "5", "5"),
    ("str", 5, REFUSED, "5"),
    ("str", -1, REFUSED, "-1"),
    ("str", 5.0, REFUSED, REFUSED),  # Lib.GAB: "5"
    ("str", True, REFUSED, REFUSED),  # Lib.GAB: "True"
    ("str", None, REFUSED, REFUSED),  # Lib.GAB: null
    ("str", ["a"], REFUSED, REFUSED),  # Lib.GAB: null
    ("enum", "Fast", Speed.FAST, Speed.FAST),
    ("enum", "fast", REFUSED, Speed.FAST),
    ("enum", " LUDICROUS ", REFUSED, Speed.LUDICROUS),
    ("enum", 1, REFUSED, REFUSED),  # Lib.GAB: Fast (its position)
    ("enum", 99, REFUSED, REFUSED),  # Lib.GAB: 99, no member
    ("enum", "yes", REFUSED, REFUSED),  # Lib.GAB: Slow
    ("enum", None, REFUSED, REFUSED),  # Lib.GAB: Slow
    ("cased", "a", Cased.LOWER, Cased.LOWER),
    ("cased", " A", REFUSED, REFUSED),  # two members match in another letter case
    ("optional", None, None, None),
    ("optional", MISSING, None, None),
    ("optional", 5.0, 5, 5),  # Lib.GAB: null
    ("optional", "5", REFUSED, 5),
    ("optional", 2.5, REFUSED, REFUSED),  # Lib.GAB: null
    ("default", MISSING, 7, 7),
    ("default", "5", REFUSED, 5),
    ("default", None, REFUSED, REFUSED),  # Lib.GAB: 0
    ("default", "yes", REFUSED, REFUSED),  # Lib.GAB: 7
    ("strings", ["a", "b"], ["a", "b"], ["a", "b"]),
    ("strings", [1, "2"], REFUSED, ["1", "2"]),
    ("strings", "a", REFUSED, REFUSED),  # Lib.GAB: null
    ("strings", None, REFUSED, REFUSED),  # Lib.GAB: null
    ("ints", [1, 2], [1, 2], [1, 2]),
    ("ints", [1.0, 2], [1, 2], [1, 2]),  # Lib.GAB: null
    ("ints", [1, "2"], REFUSED, [1, 2]),
    ("ints", [2.5], REFUSED, REFUSED),  # Lib.GAB: null
    ("ints", 5, REFUSED, REFUSED),  # Lib.GAB: null
    ("speeds", ["fast", "Slow"], REFUSED, [Speed.FAST, Speed.SLOW]),
    ("object", {"x": 1}, {"x": 1}, {"x": 1}),
    ("object", 5, REFUSED, REFUSED),  # Lib.GAB: -32603
    ("object", None, REFUSED, REFUSED),  # Lib.GAB: null
    ("point", {"x": 1, "y": 2}, Point(x=1, y=2), Point(x=1, y=2)),
    ("point", {"x": "1"}, REFUSED, Point(x=1)),
    ("point", 5, REFUSED, REFUSED),  # Lib.GAB: null
]


def _arguments(value: Any) -> dict[str, Any]:
    return {} if value is MISSING else {"value": value}


def _taken(kind: str, value: Any, options: ProtocolOptions) -> Any:
    tool = build_tool(FUNCTIONS[kind], name=f"types/{kind}", description=kind)
    try:
        values = tool.validate_arguments(
            _arguments(value),
            unknown=options.unknown_arguments,
            argument_values=options.argument_values,
        )
    except InvalidArguments as exc:
        assert exc.code == -32602
        return REFUSED
    return values["value"]


@pytest.mark.parametrize(("kind", "value", "by_default", "lib_gab"), CASES)
def test_each_value_is_taken_or_refused_as_the_table_says(
    kind: str, value: Any, by_default: Any, lib_gab: Any
) -> None:
    default = _taken(kind, value, ProtocolOptions())
    converted = _taken(kind, value, ProtocolOptions.lib_gab())
    assert (default, type(default)) == (by_default, type(by_default))
    assert (converted, type(converted)) == (lib_gab, type(lib_gab))


def test_a_converted_value_is_checked_again_against_its_type() -> None:
    tool = build_tool(_point, name="types/point", description="point")
    with pytest.raises(InvalidArguments) as refused:
        check_arguments(
            tool.name, tool.input_model, {"value": {"x": "1.5"}}, argument_values="convert"
        )
    assert [p["path"] for p in refused.value.data["errors"]] == ["$.value.x"]


def _echo(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    elif isinstance(value, enum.Enum):
        value = value.value
    elif isinstance(value, list):
        value = [item.value if isinstance(item, enum.Enum) else item for item in value]
    return {"value": value, "type": type(value).__name__}


def _server(options: ProtocolOptions) -> GabpServer:
    """Each function as a tool that answers the value it was called with and its type."""
    server = GabpServer(
        app_name="Types", app_version="1", agent_id="types", token=TOKEN, options=options
    )
    for kind, function in FUNCTIONS.items():
        server.tool(f"types/{kind}", description=kind)(_echoing(function))
    return server


def _echoing(function: Any) -> Any:
    def tool(**arguments: Any) -> dict[str, Any]:
        return _echo(function(**arguments))

    tool.__signature__ = inspect.signature(function)  # type: ignore[attr-defined]
    tool.__annotations__ = {**function.__annotations__, "return": "dict[str, Any]"}
    return tool


async def _served(server: GabpServer) -> dict[tuple[str, int], Any]:
    answers: dict[tuple[str, int], Any] = {}
    async with server.running() as address, bridge_session(address, TOKEN) as conn:
        for index, (kind, value, _, _) in enumerate(CASES):
            params = {"name": f"types/{kind}", "parameters": _arguments(value)}
            with anyio.fail_after(5):
                try:
                    answers[(kind, index)] = (await conn.request("tools/call", params))["value"]
                except RemoteError as exc:
                    assert exc.code == -32602
                    answers[(kind, index)] = REFUSED
    return answers


def _wire(value: Any) -> Any:
    return _echo(value)["value"] if value is not REFUSED else REFUSED


async def test_over_a_loopback_server_each_value_is_answered_as_the_table_says() -> None:
    by_default = await _served(_server(ProtocolOptions()))
    lib_gab = await _served(_server(ProtocolOptions.lib_gab()))
    for index, (kind, value, default, converted) in enumerate(CASES):
        assert by_default[(kind, index)] == _wire(default), (kind, value)
        assert lib_gab[(kind, index)] == _wire(converted), (kind, value)


def test_a_float_beyond_2_53_is_no_whole_number_whatever_the_choices() -> None:
    # 1e300 has no exact integer value; taking int(1e300) would make up its last digits
    tool = build_tool(_int, name="types/int", description="int")
    with pytest.raises(InvalidArguments) as refused:
        check_arguments(tool.name, tool.input_model, {"value": 1e300})
    assert [p["path"] for p in refused.value.data["errors"]] == ["$.value"]
    assert check_arguments(tool.name, tool.input_model, {"value": -(2.0**53)}).value == -(2**53)


async def test_with_lib_gabs_choices_a_handler_gets_converted_values() -> None:
    seen: list[dict[str, Any]] = []

    def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append(dict(arguments))
        return {"ok": True}

    info = ToolInfo(
        parameters=(
            ToolParameterInfo(name="count", type="integer", required=True),
            ToolParameterInfo(name="paused", type="boolean", required=True),
        )
    )
    for options, answer in ((ProtocolOptions(), REFUSED), (ProtocolOptions.lib_gab(), "ok")):
        server = GabpServer(
            app_name="Types", app_version="1", agent_id="types", token=TOKEN, options=options
        )
        server.register_tool("game/step", handler, info)
        params = {"name": "game/step", "parameters": {"count": " 2 ", "paused": "False"}}
        async with server.running() as address, bridge_session(address, TOKEN) as conn:
            with anyio.fail_after(5):
                try:
                    result = await conn.request("tools/call", params)
                except RemoteError as exc:
                    assert exc.code == -32602
                    result = REFUSED
        assert result == (REFUSED if answer == REFUSED else {"ok": True})
    assert seen == [{"count": 2, "paused": False}]
