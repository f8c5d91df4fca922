"""A tool's result on the wire: ``Tool.encode_result_json`` writes exactly the bytes pydantic's
``TypeAdapter.dump_json`` writes for the tool's result type, for every kind of value a tool may
return, and fails where it fails (the result encoding must never change what a peer receives);
the one exception is a time value, written in the form Lib.GAB's serializer (Newtonsoft.Json,
default settings) gives its .NET counterpart, wherever it sits and whatever the declared type.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import math
import re
import uuid
from decimal import Decimal
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from gabp.wirejson import EncodedJson
from lib_gab._json_values import ANY_VALUE, may_hold_time_values
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
    dt.datetime(2026, 1, 2, 3, 4, 5, 500000),
    dt.datetime(2026, 1, 2, 3, 4, 5, 120, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))),
    dt.datetime(5, 1, 2, 3, 4, 5, 100000, tzinfo=dt.timezone(dt.timedelta(hours=-9, minutes=-30))),
    dt.date(2026, 1, 2),
    dt.time(3, 4, 5, 6),
    dt.time(3, 4, 5, 500000, tzinfo=dt.UTC),
    dt.timedelta(days=1, seconds=3, microseconds=7),
    dt.timedelta(0),
    dt.timedelta(seconds=-1.5),
    dt.timedelta(days=800, hours=2, minutes=3, seconds=4, milliseconds=500),
    {MOMENT: [dt.timedelta(minutes=1)], "at": {MOMENT, MOMENT}},
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


#: pydantic's text of each time value above, and what Newtonsoft.Json 13 writes for its .NET
#: counterpart, as a Mono program serializing them with ``JsonConvert.SerializeObject`` printed
#: them: ``DateTime`` of kind Utc or Unspecified, ``DateTimeOffset``, ``TimeSpan``, a dictionary
#: keyed by a ``DateTime``. A time of day is ``TimeOnly``'s ``HH':'mm':'ss.FFFFFFF`` (Newtonsoft's
#: default for it on .NET 6 and later; printed by Mono with that format on a ``DateTime``), with
#: the offset of an aware ``time`` written as a moment's.
DOTNET_FORMS = {
    "2026-11-28T16:48:27.166000Z": "2026-11-28T16:48:27.166Z",
    "2026-01-02T03:04:05.500000": "2026-01-02T03:04:05.5",
    "2026-01-02T03:04:05.000120+05:30": "2026-01-02T03:04:05.00012+05:30",
    "0005-01-02T03:04:05.100000-09:30": "0005-01-02T03:04:05.1-09:30",
    "03:04:05.500000Z": "03:04:05.5Z",
    "P1DT3.000007S": "1.00:00:03.0000070",
    "PT0S": "00:00:00",
    "-PT1.5S": "-00:00:01.5000000",
    "P2Y70DT2H3M4.5S": "800.02:03:04.5000000",
    "PT1M": "00:01:00",
}
_UNCHANGED = ("2026-01-02T03:04:05", "2026-01-02", "03:04:05.000006")


def _reference(tool: Tool, value: Any) -> bytes | type[BaseException]:
    """What the wire carries: pydantic's ``dump_json`` of the result, or its error, with each
    time value's text replaced by its .NET form."""
    adapter = tool.output_adapter or ANY_VALUE
    try:
        data = adapter.dump_json(value, by_alias=True)
    except Exception as error:  # the call fails with -32603 either way
        return type(error)
    if not may_hold_time_values(tool.output_adapter):
        return data  # a time value where the declared type has none: pydantic warns, writes it
    for pydantic_text, dotnet_text in DOTNET_FORMS.items():
        data = data.replace(f'"{pydantic_text}"'.encode(), f'"{dotnet_text}"'.encode())
    return data


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
def test_a_result_is_written_byte_for_byte_as_pydantic_writes_it_but_for_time_values(
    kind: str, value: Any
) -> None:
    tool = TOOLS[kind]
    assert _ours(tool, value) == _reference(tool, value)


def test_untyped_results_keep_their_known_wire_forms() -> None:
    """A few forms pinned outright, so that both paths cannot drift together unnoticed."""
    tool = TOOLS["untyped"]
    assert (
        _ours(tool, {"f": [1e-05, 1e16, math.nan, math.inf]}) == b'{"f":[0.00001,1e+16,null,null]}'
    )
    assert _ours(tool, {1: 2**64, "t": (1,)}) == b'{"1":18446744073709551616,"t":[1]}'
    assert _ours(tool, MOMENT) == b'"2026-11-28T16:48:27.166Z"'
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


def _moment_text(moment: dt.datetime) -> str:
    """Newtonsoft's text for ``moment``, worked out from ``isoformat`` (not from lib_gab)."""
    text = moment.isoformat()
    if moment.tzinfo is not None:
        text = text.removesuffix("+00:00") + "Z"
    return re.sub(r"(\.[0-9]*?)0+(?=Z|$)", r"\1", text).replace(".Z", "Z").removesuffix(".")


def _with_moment_texts(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return _moment_text(value)
    if isinstance(value, dict):
        return {key: _with_moment_texts(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_with_moment_texts(item) for item in value]
    return value


def test_the_independent_moment_texts_are_newtonsofts() -> None:
    assert _moment_text(MOMENT) == "2026-11-28T16:48:27.166Z"
    assert _moment_text(dt.datetime(2026, 1, 2, 3, 4, 5, 500000)) == "2026-01-02T03:04:05.5"
    assert _moment_text(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)) == "2026-01-02T03:04:05Z"


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_mix_is_written_as_pydantic_writes_it_with_moments_as_newtonsoft_writes_them(
    value: Any,
) -> None:
    for kind in ("untyped", "dict"):
        tool = TOOLS[kind]
        if kind == "dict" and not isinstance(value, dict):
            continue
        adapter = tool.output_adapter or ANY_VALUE
        try:
            expected: bytes | type[BaseException] = adapter.dump_json(_with_moment_texts(value))
        except Exception as error:  # a warning of an unexpected key: both fail alike
            expected = type(error)
        assert _ours(tool, value) == expected
