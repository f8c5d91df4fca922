"""Values the Go bridge (GABS 1.1.0) writes with ``json.Marshal`` and the schema lines of
``games_tool_detail``, pinned as the Go bridge writes them (the Go binary is not needed)."""

from __future__ import annotations

import mcp_types as types
import pytest

from gabs.call_outcome import CallOutcome
from gabs.go_format import go_duration, go_json
from gabs.mcp.call_results import game_call_result
from gabs.mcp.discovery import parameter_lines, returns_lines, schema_type


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": 1, "a": {"d": 2, "c": 3}}, '{"a":{"c":3,"d":2},"b":1}'),
        ({"s": "<a&b>\u2028é"}, '{"s":"\\u003ca\\u0026b\\u003e\\u2028é"}'),
        (
            [5.0, 2.5, 1e-7, 1.5e-300, 1e21, 1e16, 123456789.125, -0.0, 0.0],
            "[5,2.5,1e-7,1.5e-300,1e+21,10000000000000000,123456789.125,-0,0]",
        ),
        (
            {"n": None, "t": True, "i": 12345678901234567890},
            '{"i":12345678901234567890,"n":null,"t":true}',
        ),
        ("plain", '"plain"'),
    ],
)
def test_go_json_writes_as_go_json_marshal(value: object, expected: str) -> None:
    assert go_json(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # Text inside strings that looks like a float Go writes otherwise is left alone.
        ({"v": "5.0", "w": "1e-05", "x": 5.0}, '{"v":"5.0","w":"1e-05","x":5}'),
        (['a "1.0" \\', 1e-05, "\\", 2.0], '["a \\"1.0\\" \\\\",0.00001,"\\\\",2]'),
        ({"1.0": [10.0, 100.5, 1e-4]}, '{"1.0":[10,100.5,0.0001]}'),
    ],
)
def test_go_json_rewrites_only_number_tokens(value: object, expected: str) -> None:
    assert go_json(value) == expected


def test_a_game_result_without_text_is_written_as_go_json() -> None:
    outcome = CallOutcome(
        executed=True, status="ok", tool="wire/mixed", result={"zeta": "<x>", "alpha": 5.0}
    )
    result = game_call_result("g", outcome, {}, exposed="g_wire_mixed")
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    assert first.text == '{"alpha":5,"zeta":"\\u003cx\\u003e"}'
    assert result.structured_content == {"zeta": "<x>", "alpha": 5.0}


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "string"}, ("string", False)),
        ({"type": "string", "nullable": True}, ("string", True)),
        ({"type": ["integer", "null"]}, ("integer", True)),
        ({"type": ["integer", "string"]}, ("integer | string", False)),
        ({"type": ["null"]}, ("any", True)),
        ({}, ("any", False)),
        ({"type": 5}, ("any", False)),
    ],
)
def test_schema_types_are_named_as_go_names_them(
    prop: dict[str, object], expected: tuple[str, bool]
) -> None:
    assert schema_type(prop) == expected


def test_parameter_lines_carry_optional_and_the_default_as_json() -> None:
    schema = {
        "type": "object",
        "properties": {
            "value": {"type": "integer", "default": 7},
            "mode": {"type": ["string", "null"], "default": "a<b", "description": "Mode"},
            "label": {"type": "string", "description": "A label"},
        },
        "required": ["label"],
    }
    assert parameter_lines(schema) == [
        "  Parameters:",
        "    - `label` (string): A label",
        '    - `mode` (string, optional, default: "a\\u003cb"): Mode',
        "    - `value` (integer, optional, default: 7)",
    ]


def test_returns_lines_mark_a_nullable_member_optional() -> None:
    schema = {
        "description": "What comes back.",
        "type": "object",
        "properties": {
            "name": {"type": "string", "nullable": True, "description": "The name"},
            "count": {"type": "integer", "description": "How many"},
            "tick": {"type": ["integer", "null"]},
        },
        "required": ["name"],
    }
    assert returns_lines(schema) == [
        "  Returns:",
        "    - `count` (integer): How many",
        "    - `name` (string, optional): The name",
        "    - `tick` (integer, optional)",
    ]
    assert returns_lines({"description": "Only a description."}) == []
    assert returns_lines({}) == []


@pytest.mark.parametrize(
    ("seconds", "unit", "printed"),
    [
        (2.0, 0.001, "2s"),
        (2.0041, 0.001, "2.004s"),
        (2.0045, 0.001, "2.005s"),
        (90.0, 1, "1m30s"),
        (95.4, 1, "1m35s"),
        (3600.5, 0.001, "1h0m0.5s"),
        (0.15, 0.001, "150ms"),
        (0.0004, 0.001, "0s"),
        (0.4, 1, "0s"),
        (59.9996, 0.001, "1m0s"),
    ],
)
def test_a_duration_is_printed_as_go_prints_a_rounded_time_duration(
    seconds: float, unit: float, printed: str
) -> None:
    assert go_duration(seconds, unit=unit) == printed
