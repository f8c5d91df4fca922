"""A tool's result on the wire: ``Tool.encode_result_json`` writes exactly the bytes pydantic's
``TypeAdapter.dump_json`` writes for the tool's result type, for every kind of value a tool may
return, and fails where it fails (the result encoding must never change what a peer receives)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import math
import uuid
from decimal import Decimal
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from gabp.wirejson import EncodedJson
from lib_gab._json_values import ANY_VALUE
from lib_gab.tools import Tool, build_tool


class Colour(enum.Enum):
    RED = "red"
    BLUE = 2


class Level(enum.IntEnum):
    LOW = 1


class Name(str, enum.Enum):  # noqa: UP042 - the mixin form, as older code writes it
    ALICE = "Alice"


@dataclasses.dataclass
class Point:
    x: int
    y: float


class Pair(NamedTuple):
    left: int
    right: str


class Pawn(BaseModel):
    pawn_id: str = Field(alias="pawnId")
    health: float
    born: dt.datetime


class Summary(TypedDict):
    count: int
    names: list[str]


MOMENT = dt.datetime(2026, 11, 28, 16, 48, 27, 166000, tzinfo=dt.UTC)

VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63) - 1,
    2**200,
    0.0,
    -0.0,
    1.0,
    0.1,
    1e-05,
    1e-07,
    1e15,
    1e16,
    1e300,
    5e-324,
    123456789.123,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "plain",
    "é ü 日本 🎮",
    '\u2028\u2029</script>\x7f\x00\x1f"\\',
    [],
    {},
    [1, "a", None, 1.5],
    (1, 2, 3),
    {"a": (1, (2, 3))},
    {1: "int key"},
    {1.5: "float key"},
    {True: "bool key"},
    {None: "none key"},
    {Colour.RED: "enum key"},
    {2**70: "big key"},
    {"nested": [{"deep": {"deeper": [1e16, 2**65, "ü"]}}]},
    Colour.RED,
    Colour.BLUE,
    Level.LOW,
    Name.ALICE,
    Point(1, 2.5),
    Pair(1, "b"),
    Pawn(pawnId="p1", health=0.5, born=MOMENT),
    {"pawns": [Pawn(pawnId="p2", health=1e16, born=MOMENT)], "at": MOMENT},
    MOMENT,
    dt.datetime(2026, 1, 2, 3, 4, 5),
    dt.date(2026, 1, 2),
    dt.time(3, 4, 5, 6),
    dt.timedelta(days=1, seconds=3, microseconds=7),
    uuid.UUID("11050497-cdbd-448a-a70a-227bf341801a"),
    Decimal("1.50"),
    b"bytes",
    bytearray(b"ab"),
    {1, 2},
    frozenset({"x"}),
    {"status": "game_loaded", "ticksGame": 0, "selectedPawns": [], "longEvent": None},
]

REFUSED: list[Any] = ["\ud800", {"s": "\udfff"}, object(), {"o": object()}]


def _tool(returns: Any) -> Tool:
    if returns is None:

        def untyped() -> Any:  # no declared result type: written by the value's own
            return None

        untyped.__annotations__.pop("return")
        return build_tool(untyped, name="test/untyped", description="untyped")

    def typed() -> Any:
        return None

    typed.__annotations__["return"] = returns
    return build_tool(typed, name="test/typed", description="typed")


TOOLS = {
    "untyped": _tool(None),
    "any": _tool(Any),
    "dict": _tool(dict[str, Any]),
    "list": _tool(list[Any]),
    "model": _tool(Pawn),
    "typeddict": _tool(Summary),
    "float": _tool(float),
    "optional-str": _tool(str | None),
}


def _value_id(value: Any) -> str:
    """A test id that is the same in every worker (an ``object()``'s repr is not)."""
    text = repr(value)
    return text if " at 0x" not in text else type(value).__name__


def _reference(tool: Tool, value: Any) -> bytes | type[BaseException]:
    """What the wire carried before: pydantic's ``dump_json`` of the result, or its error."""
    adapter = tool.output_adapter or ANY_VALUE
    try:
        return adapter.dump_json(value, by_alias=True)
    except Exception as error:  # the call fails with -32603 either way
        return type(error)


def _ours(tool: Tool, value: Any) -> bytes | type[BaseException]:
    try:
        encoded = tool.encode_result_json(value)
    except Exception as error:
        return type(error)
    assert type(encoded) is EncodedJson
    return encoded.data


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic warns of a mismatched result
@pytest.mark.parametrize("kind", list(TOOLS))
@pytest.mark.parametrize("value", VALUES + REFUSED, ids=_value_id)
def test_a_result_is_written_byte_for_byte_as_pydantic_writes_it(kind: str, value: Any) -> None:
    tool = TOOLS[kind]
    assert _ours(tool, value) == _reference(tool, value)


def test_untyped_results_keep_their_known_wire_forms() -> None:
    """A few forms pinned outright, so that both paths cannot drift together unnoticed."""
    tool = TOOLS["untyped"]
    assert (
        _ours(tool, {"f": [1e-05, 1e16, math.nan, math.inf]}) == b'{"f":[0.00001,1e+16,null,null]}'
    )
    assert _ours(tool, {1: 2**64, "t": (1,)}) == b'{"1":18446744073709551616,"t":[1]}'
    assert _ours(tool, MOMENT) == b'"2026-11-28T16:48:27.166000Z"'
    assert _ours(tool, "日本\u2028") == '"日本\u2028"'.encode()
    assert _ours(tool, Pawn(pawnId="p", health=1, born=MOMENT)).startswith(b'{"pawnId":"p"')
    assert not isinstance(_ours(tool, "\ud800"), bytes)  # refused: the call fails
    assert tool.output_adapter is None


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.datetimes(timezones=st.none() | st.just(dt.UTC)),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(st.text() | st.integers(), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_mix_is_written_as_pydantic_writes_it(value: Any) -> None:
    for kind in ("untyped", "dict"):
        tool = TOOLS[kind]
        if kind == "dict" and not isinstance(value, dict):
            continue
        assert _ours(tool, value) == _reference(tool, value)
