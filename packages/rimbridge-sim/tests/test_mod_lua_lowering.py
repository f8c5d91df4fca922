"""The lowered script ``rimbridge/compile_lua`` returns has the mod's shape for the same Lua: the
mod's ``LuaScriptCompiler`` names the script ``lua-script``, keeps conditions in hidden
``__lua_<what>_<n>`` variables tested with ``notIn [false, null]``, numbers call, ``if`` and loop
ids on one counter taken after the statement's body, lowers a numeric ``for`` into four
variables and an ``if`` over two ``while`` loops (the body lowered once per direction), and
leaves the ``Type`` of a call empty. The lowered script still runs as the Lua reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, normalize_definition
from rimbridge_sim.scripting.lua_compiler import compile_lua


def _truthy(variable: str) -> dict[str, Any]:
    return {"path": f"vars.{variable}", "notIn": [False, None]}


def test_a_call_an_if_with_elseif_and_an_assert_lower_as_the_mod_lowers_them() -> None:
    script = compile_lua(
        'local s = rb.call("rimworld/get_bridge_status")\n'
        'if s.success then print("ok", s) elseif false then rb.assert(true) '
        'else rb.fail("no") end\n'
        'rb.call("rimworld/pause_game")\n'
        'return rb.poll("a/b", nil, {condition = {path = "x", equals = 1}})\n'
    )
    assert script["name"] == "lua-script"
    steps = script["steps"]
    assert steps[1] == {"id": "s_1", "call": "rimworld/get_bridge_status", "arguments": {}}
    assert steps[2] == {"type": "let", "name": "s", "value": {"$ref": "s_1", "path": ""}}
    assert steps[3] == {
        "type": "let",
        "name": "__lua_if_condition_1",
        "value": {"$var": "s", "path": "success"},
    }
    assert steps[4] == {
        # the outer if takes its id after the nested one in its else branch
        "id": "if_3",
        "type": "if",
        "condition": _truthy("__lua_if_condition_1"),
        "body": [{"type": "print", "message": "ok", "value": {"$var": "s"}}],
        "elseBody": [
            {"type": "let", "name": "__lua_if_condition_2", "value": False},
            {
                "id": "if_2",
                "type": "if",
                "condition": _truthy("__lua_if_condition_2"),
                "body": [
                    {"type": "let", "name": "__lua_assert_condition_3", "value": True},
                    {
                        "type": "assert",
                        "message": "",
                        "condition": _truthy("__lua_assert_condition_3"),
                    },
                ],
                "elseBody": [{"type": "fail", "message": "no", "value": None}],
            },
        ],
    }
    assert steps[5] == {"id": "call_4", "call": "rimworld/pause_game", "arguments": {}}
    assert steps[6]["id"] == "return_5"
    assert steps[7] == {"type": "return", "value": {"$ref": "return_5", "path": ""}}


def test_loops_lower_into_the_mods_hidden_variables_and_ids() -> None:
    steps = compile_lua(
        "while false do rb.call('x/y') end\n"
        "for i = 1, 3 do local r = rb.call('a/b') end\n"
        "for i, v in ipairs({1, 2}) do print(v) end\n"
    )["steps"][1:]
    assert steps[0] == {"type": "let", "name": "__lua_while_condition_1", "value": False}
    assert steps[1] == {
        "id": "while_2",
        "type": "while",
        "maxIterations": 100,
        "condition": _truthy("__lua_while_condition_1"),
        "body": [
            {"id": "call_1", "call": "x/y", "arguments": {}},
            {"type": "set", "name": "__lua_while_condition_1", "value": False},
        ],
    }
    start, end, step, current = (
        "__lua_for_start_2",
        "__lua_for_end_3",
        "__lua_for_step_4",
        "__lua_for_current_5",
    )
    assert steps[2:6] == [
        {"type": "let", "name": start, "value": 1},
        {"type": "let", "name": end, "value": 3},
        {"type": "let", "name": step, "value": 1},
        {"type": "let", "name": current, "value": {"$var": start}},
    ]

    def rounds(call_id: str) -> list[dict[str, Any]]:
        return [
            {"type": "let", "name": "i", "value": {"$var": current}},
            {"id": call_id, "call": "a/b", "arguments": {}},
            {"type": "let", "name": "r", "value": {"$ref": call_id, "path": ""}},
            {
                "type": "set",
                "name": current,
                "value": {"$add": [{"$var": current}, {"$var": step}]},
            },
        ]

    assert steps[6] == {
        "id": "for_5",
        "type": "if",
        "condition": {"path": f"vars.{step}", "greaterThanOrEqual": 0},
        "body": [
            {
                "id": "for_positive_6",
                "type": "while",
                "maxIterations": 1000,
                "condition": {"path": f"vars.{current}", "lessThanOrEqual": {"$var": end}},
                "body": rounds("r_3"),
            }
        ],
        "elseBody": [
            {
                "id": "for_negative_7",
                "type": "while",
                "maxIterations": 1000,
                "condition": {"path": f"vars.{current}", "greaterThanOrEqual": {"$var": end}},
                "body": rounds("r_4"),
            }
        ],
    }
    assert steps[7] == {
        "id": "foreach_8",
        "type": "foreach",
        "itemName": "__lua_foreach_item_6",
        "indexName": "__lua_foreach_index_7",
        "collection": [1, 2],
        "body": [
            {"type": "let", "name": "i", "value": {"$add": [{"$var": "__lua_foreach_index_7"}, 1]}},
            {"type": "let", "name": "v", "value": {"$var": "__lua_foreach_item_6"}},
            {"type": "print", "message": "", "value": {"$var": "v"}},
        ],
    }


async def _echo(name: str, arguments: Mapping[str, Any]) -> CallOutcome:
    return CallOutcome(True, f"op-{name}", "completed", dict(arguments), None)


async def test_the_lowered_loops_and_branches_still_run_as_the_lua_reads() -> None:
    source = (
        "local total = 0\n"
        "for i = 1, 4 do total = total + i end\n"
        "for i = 3, 1, -1 do total = total + 10 * i end\n"
        "local n = 0\n"
        "while n < 3 do n = n + 1 end\n"
        "local kind = 'none'\n"
        "if n > 5 then kind = 'big' elseif n == 3 then kind = 'three' else kind = 'other' end\n"
        "local seen = 0\n"
        "for i, v in ipairs({5, 6}) do seen = seen + i * v end\n"
        "rb.assert(seen == 17, 'ipairs counts from one')\n"
        "return {total = total, n = n, kind = kind, seen = seen}\n"
    )
    runner = ScriptRunner(_echo, include_step_results=True)
    report = (await runner.run(normalize_definition(compile_lua(source)))).to_wire()
    assert report["success"] is True, report
    assert report["result"] == {"total": 70, "n": 3, "kind": "three", "seen": 17}
