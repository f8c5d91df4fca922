"""A ``run_script`` payload whose root is no object, refused in the words of the mod's reader
(Newtonsoft.Json): the serializer's texts and positions, as taken from Newtonsoft.Json running
on Mono (line 1; on later lines the position counts the characters of that line, as version 13
counts them)."""

from __future__ import annotations

from typing import Any

import pytest

from rimbridge_sim.scripting.script_json import DEFINITION_TYPE, read_script_json

ARRAY = (
    f"Cannot deserialize the current JSON array (e.g. [1,2,3]) into type '{DEFINITION_TYPE}' "
    'because the type requires a JSON object (e.g. {"name":"value"}) to deserialize correctly.\n'
    'To fix this error either change the JSON to a JSON object (e.g. {"name":"value"}) or change '
    "the deserialized type to an array or a type that implements a collection interface (e.g. "
    "ICollection, IList) like List<T> that can be deserialized from a JSON array. "
    "JsonArrayAttribute can also be added to the type to force it to deserialize from a JSON "
    "array.\nPath '', line "
)


def array(line: int, position: int) -> str:
    return f"{ARRAY}{line}, position {position}."


def converting(value: str, position: int, line: int = 1) -> str:
    where = f"Path '', line {line}, position {position}."
    return f"Error converting value {value} to type '{DEFINITION_TYPE}'. {where}"


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("[1]", array(1, 1)),
        (' [ {"call": "x"} ]', array(1, 2)),
        ("[1] x", array(1, 1)),  # the first token decides
        ("\n\n  [1]", array(3, 3)),
        ("5", converting("5", 1)),
        ("5 6", converting("5", 1)),
        ("1.5", converting("1.5", 3)),
        ("-0", converting("0", 2)),
        ("2.0", converting("2", 3)),
        ("1E+20", converting("1E+20", 5)),
        ("0.30000000000000004", converting("0.3", 19)),
        ("123456789.123456789", converting("123456789.123457", 19)),
        ("123456789012345678901234567890", converting("123456789012345678901234567890", 30)),
        ("true", converting("True", 4)),
        ("false", converting("False", 5)),
        ('"abc"', converting('"abc"', 5)),
        (' "a\\"b" ', converting('"a"b"', 7)),
        ('"\\u00e9"', converting('"é"', 8)),
        ("\r\n 5", converting("5", 2, line=2)),
        ("1e400", "Input string '1e400' is not a valid number. Path '', line 1, position 5."),
    ],
)
def test_a_root_that_is_no_object_is_refused_in_the_serializers_words(
    text: str, refusal: str
) -> None:
    # the sim said "a script definition is a JSON object, not list" (and took 1e400 as inf)
    with pytest.raises(ValueError) as refused:
        read_script_json(text)
    assert str(refused.value) == refusal


@pytest.mark.parametrize("text", ["null", " {}", '{"steps": []}'])
def test_an_object_or_null_is_read_on(text: str) -> None:
    assert read_script_json(text) in (None, {}, {"steps": []})


async def test_run_script_with_a_list_of_steps_answers_as_the_mod(open_sim: Any) -> None:
    steps = '[{"id": "a", "call": "rimworld/get_game_info"}]'
    async with open_sim(tick_rate=0) as sim:
        answer = await sim.call("rimbridge/run_script", scriptJson=steps)
    assert answer["success"] is False
    assert answer["message"] == "The scriptJson payload could not be parsed."
    assert answer["exception"] == array(1, 1)
