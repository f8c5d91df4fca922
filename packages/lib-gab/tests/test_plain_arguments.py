"""The quick path for plain arguments gives exactly what checking them through the model gives."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from lib_gab._arguments import check_arguments
from lib_gab._plain_arguments import plain_values
from lib_gab.tools import InvalidArguments, Tool, build_tool


def _plain(text: str, n: int, ratio: float = 0.5, on: bool = False, label: str = "x") -> None:
    """A tool of plain parameters, some with defaults."""


def _constrained(n: Annotated[int, Field(ge=0)], text: Annotated[str, Field(max_length=3)]) -> None:
    """A tool whose parameters carry constraints the quick path does not know."""


def _aliased(n: Annotated[int, Field(alias="count")]) -> None:
    """A tool whose parameter has another name on the wire."""


TOOLS = [
    build_tool(_plain, name="t/plain", description="plain"),
    build_tool(_constrained, name="t/constrained", description="constrained"),
    build_tool(_aliased, name="t/aliased", description="aliased"),
]
NAMES = ["text", "n", "ratio", "on", "label", "count", "Text", "other"]
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([5.0, -0.0, 1e300, 3.5]),
    st.text(max_size=6),
    st.sampled_from(["\ud800", "Ärger", "abcd", ""]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)

NEARLY_RIGHT = st.fixed_dictionaries(
    {"text": st.one_of(st.text(max_size=6), VALUES), "n": st.one_of(st.integers(), VALUES)},
    optional={
        "ratio": st.one_of(st.floats(), VALUES),
        "on": st.one_of(st.booleans(), VALUES),
        "label": st.one_of(st.text(max_size=3), VALUES),
        "count": st.integers(),
    },
)


def _full_way(tool: Tool, arguments: Any) -> tuple[str, Any]:
    try:
        model = check_arguments(tool.name, tool.input_model, arguments)
    except InvalidArguments as exc:
        return "error", exc.to_wire()
    return "values", {name: getattr(model, name) for name in tool.input_model.model_fields}


def _quick_way(tool: Tool, arguments: Any) -> tuple[str, Any]:
    try:
        return "values", tool.validate_arguments(arguments)
    except InvalidArguments as exc:
        return "error", exc.to_wire()


@settings(max_examples=400, deadline=None)
@given(
    tool=st.sampled_from(TOOLS),
    arguments=st.one_of(st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=6), NEARLY_RIGHT),
)
def test_validated_arguments_are_the_same_with_or_without_the_quick_path(
    tool: Tool, arguments: dict[str, Any]
) -> None:
    quick, full = _quick_way(tool, arguments), _full_way(tool, arguments)
    assert quick == full
    if quick[0] == "values":
        assert [type(value) for value in quick[1].values()] == [
            type(value) for value in full[1].values()
        ]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (TOOLS[0], {"text": "a", "n": 1, "ratio": 2.0, "on": True, "label": "y"}),
        (TOOLS[0], {"text": "Ärger im Lager", "n": 2**70}),
    ],
)
def test_plain_arguments_of_a_plain_tool_take_the_quick_path(
    tool: Tool, arguments: dict[str, Any]
) -> None:
    values = plain_values(tool.input_model, arguments)
    assert values is not None
    assert values == _full_way(tool, arguments)[1]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (TOOLS[0], {"text": "a", "n": 5.0}),  # an integral float: the model corrects it
        (TOOLS[0], {"text": "a", "n": True}),  # a bool is not an integer here
        (TOOLS[0], {"text": "\ud800", "n": 1}),  # not JSON text
        (TOOLS[0], {"text": "a", "n": 1, "ratio": float("nan")}),
        (TOOLS[0], {"text": "a", "n": 1, "other": 1}),
        (TOOLS[0], {"n": 1}),
        (TOOLS[1], {"n": 1, "text": "a"}),  # constraints
        (TOOLS[2], {"count": 1}),  # an alias
    ],
)
def test_anything_else_is_left_to_the_model(tool: Tool, arguments: dict[str, Any]) -> None:
    assert plain_values(tool.input_model, arguments) is None
