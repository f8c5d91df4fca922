"""gabp.wirejson reads and writes exactly what the standard library's json does."""

from __future__ import annotations

import datetime
import enum
import json
import math
import uuid
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gabp.wirejson import decode, decode_replacing, encode

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


def same(a: Any, b: Any) -> bool:
    """Equal, and floats bit for bit (so -0.0 is not 0.0)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(json_values, st.booleans())
def test_decoding_gives_what_json_loads_gives(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert same(decode(text), json.loads(text))


@given(json_values)
def test_encoding_reads_back_as_the_value_and_as_json_loads_reads_it(value: Any) -> None:
    data = encode({"value": value})
    assert same(json.loads(data)["value"], value)
    assert same(decode(data), json.loads(json.dumps({"value": value})))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b'{"a": NaN}', "nan"),
        (b"1e400", "inf"),
        (b'\xef\xbb\xbf{"a": 1}', {"a": 1}),
        (b'{"a": 1, "a": 2}', {"a": 2}),
        (b"123456789012345678901234567890", 123456789012345678901234567890),
    ],
)
def test_what_the_fast_decoder_refuses_is_read_by_the_standard_library(
    text: bytes, expected: Any
) -> None:
    result = decode(text)
    if expected == "nan":
        assert math.isnan(result["a"])
    elif expected == "inf":
        assert result == math.inf
    else:
        assert result == expected == json.loads(text)


@pytest.mark.parametrize(
    ("text", "replaced"),
    [
        (b'"\\ud800"', "\ufffd"),
        (b'"a\\udc00b\\ud83d\\ude00"', "a\ufffdb\U0001f600"),
        (
            b'{"\\ud800": ["\\udfff", {"k": "\\ud800\\ud800"}], "v": "\\\\ud800"}',
            {"\ufffd": ["\ufffd", {"k": "\ufffd\ufffd"}], "v": "\\ud800"},
        ),
        (b'{"a": "caf\xe9", "b": "\\ud800"}', {"a": "caf\ufffd", "b": "\ufffd"}),
    ],
)
def test_a_lone_surrogate_is_refused_as_no_utf8_text_and_read_replaced_on_request(
    text: bytes, replaced: Any
) -> None:
    # json.loads keeps the half character, which no UTF-8 writer can write back; Go's reader
    # reads it as U+FFFD. A pair is one character, and "\\ud800" is no escape at all
    with pytest.raises(ValueError):
        decode(text)
    assert decode_replacing(text) == replaced
    assert encode({"v": decode_replacing(text)})  # and it can be written again


def test_a_surrogate_pair_or_an_escaped_backslash_is_no_lone_surrogate() -> None:
    assert decode(b'["\\ud83d\\ude00", "\\\\ud800", 1e400]') == ["\U0001f600", "\\ud800", math.inf]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (b'{"a": }', ValueError),
        (b'{"a": "\xff"}', UnicodeDecodeError),
        (b"[" * 100_000 + b"]" * 100_000, RecursionError),
    ],
)
def test_bad_json_raises_what_json_loads_raises(text: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        json.loads(text)
    with pytest.raises(error):
        decode(text)


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {"x": float("nan")},
        {"x": float("inf")},
        {"x": b"bytes"},
        {"x": datetime.datetime(2026, 1, 1)},
        {"x": uuid.UUID(int=1)},
        {"x": Colour.RED},
        {"x": {1, 2}},
        {"x": object()},
        {(1, 2): "tuple key"},
        {"x": "\ud800"},
    ],
)
def test_encoding_refuses_what_the_standard_library_refuses(value: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)) as expected:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode()
    with pytest.raises(type(expected.value)):
        encode(value)


@pytest.mark.parametrize(
    "value",
    [
        {"x": Level.HIGH},
        {"x": Name("text")},
        {"x": (1, 2)},
        {1: "int key", None: "none key", 1.5: "float key"},
        {False: "bool key"},
        {"x": 2**100, "y": -0.0, "z": 1e16, "w": "Ärger 🐛"},
    ],
)
def test_encoding_writes_what_the_standard_library_writes(value: dict[str, Any]) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert same(json.loads(encode(value)), json.loads(expected))
