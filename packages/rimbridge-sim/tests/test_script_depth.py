"""How deep a script may nest. ``run_script`` reads its payload as the mod's JSON reader
(Newtonsoft.Json 13) does: at most 64 objects and arrays nested in one another, the 65th refused
with the reader's words. A value the script builds itself, one level per statement, may nest
as deep as its answer can be written (``ANSWER_DEPTH``); deeper, the script's answer is a
refusal, never an internal error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rimbridge_sim.scripting.reader_depth import MAX_DEPTH, depth_refusal
from rimbridge_sim.scripting.script_json import read_script_json
from rimbridge_sim.scripting.values import nests_deeper
from rimbridge_sim.tools.scripting import ANSWER_DEPTH


def _returning(depth: int) -> str:
    """A script whose one statement returns arrays nested so that the whole text nests
    ``depth`` containers deep (the root object, ``steps``, the statement, then the arrays)."""
    arrays = depth - 3
    return '{"steps": [{"type": "return", "value": ' + "[" * arrays + "]" * arrays + "}]}"


async def test_a_script_64_deep_runs_and_one_65_deep_is_refused_as_the_mod_refuses_it(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        ran = await sim.call("rimbridge/run_script", scriptJson=_returning(MAX_DEPTH))
        assert (ran["success"], ran["returned"]) == (True, True)
        refused = await sim.call("rimbridge/run_script", scriptJson=_returning(MAX_DEPTH + 1))
        assert refused["success"] is False
        assert refused["message"] == "The scriptJson payload could not be parsed."
        # the 62nd array opens at index 100: its bracket is at position 101
        path = "steps[0].value" + "[0]" * 61
        assert refused["exception"] == (
            f"The reader's MaxDepth of 64 has been exceeded. Path '{path}', line 1, position 101."
        )
        # thousands deep: the same refusal, no recursion error, and the game still serves
        deep = await sim.call("rimbridge/run_script", scriptJson=_returning(100_000))
        assert deep["exception"].startswith("The reader's MaxDepth of 64 has been exceeded.")
        assert (await sim.call("rimbridge/ping"))["message"] == "pong"


def test_the_path_quotes_names_the_reader_quotes_and_counts_lines_as_it_does() -> None:
    text = '{"a b": [1, "x", {"it\'s": \r\n  ' + "[" * 70
    refusal = depth_refusal(text)
    assert refusal is not None
    # root, the array, the object, then 61 arrays: the 62nd is the 65th container
    path = "['a b'][2]['it\\'s']" + "[0]" * 61
    assert refusal.message == (
        f"The reader's MaxDepth of 64 has been exceeded. Path '{path}', line 2, position 64."
    )
    assert text[refusal.offset] == "["


def test_whichever_error_comes_first_in_the_text_is_the_one_given() -> None:
    # (a root that is no object is refused at its first token: test_script_json.py)
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    with pytest.raises(ValueError, match="Expecting value: line 1 column 12"):
        read_script_json('{"steps": [,' + deep + "]}")
    with pytest.raises(ValueError, match="MaxDepth of 64 has been exceeded"):
        read_script_json('{"steps": ' + "[" * MAX_DEPTH + ",")
    assert read_script_json('{"steps": [], "name": "[[[[' + "[" * 100 + '"}')["steps"] == []


def _wrapping(rounds: int) -> str:
    """A script that wraps a list in another ``rounds`` times, then returns it."""
    return json.dumps(
        {
            "maxExecutedStatements": 100_000,
            "steps": [
                {"type": "let", "name": "t", "value": []},
                {"type": "let", "name": "i", "value": 0},
                {
                    "type": "while",
                    "maxIterations": rounds,
                    "condition": {"path": "vars.i", "lessThan": rounds},
                    "body": [
                        {"type": "set", "name": "t", "value": [{"$var": "t"}]},
                        {"type": "set", "name": "i", "value": {"$add": [{"$var": "i"}, 1]}},
                    ],
                },
                {"type": "return", "value": {"$var": "t"}},
            ],
        }
    )


async def test_a_value_built_deeper_than_an_answer_can_nest_is_refused_in_band(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        ran = await sim.call("rimbridge/run_script", scriptJson=_wrapping(ANSWER_DEPTH - 10))
        assert ran["success"] is True
        assert nests_deeper(ran["result"], ANSWER_DEPTH - 10)
        for rounds in (ANSWER_DEPTH, 5000):
            refused = await sim.call("rimbridge/run_script", scriptJson=_wrapping(rounds))
            assert (refused["success"], refused["code"]) == (False, "script.value_too_deep")
            assert f"nests more than {ANSWER_DEPTH} levels deep" in refused["message"]
        # the call's operation was journaled with a summary of the value, not a failure
        assert (await sim.call("rimbridge/ping"))["message"] == "pong"


def test_nests_deeper_counts_lists_and_objects_and_stops_early() -> None:
    assert not nests_deeper([{"a": [1]}], 3)
    assert nests_deeper([{"a": [1]}], 2)
    assert not nests_deeper("[[[[", 1)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert nests_deeper(deep, 10)
