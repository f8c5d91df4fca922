"""The sim against the mod's own pages: its README (tool families, the Lua authoring note),
``docs/lua-frontend-design.md`` (the Lua v1 subset, ``rb.*``, the loop bounds) and
``docs/rimworld-mod-debugging-stack.md``, checked against the mod's lowering
(``LuaScriptCompiler``) where a page leaves the rule open."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, normalize_definition
from rimbridge_sim.scripting.lua_compiler import LuaCompileError, compile_lua


async def echo(name: str, arguments: Mapping[str, Any]) -> CallOutcome:
    """Every tool answers with its arguments."""
    return CallOutcome(True, f"op-{name}", "completed", dict(arguments), None)


async def run_lua(source: str) -> dict[str, Any]:
    runner = ScriptRunner(echo, include_step_results=True)
    report = await runner.run(normalize_definition(compile_lua(source)))
    return report.to_wire()


def refusal(source: str) -> str:
    with pytest.raises(LuaCompileError) as caught:
        compile_lua(source)
    return caught.value.code


async def test_a_lua_while_loop_stops_with_max_iterations_after_one_hundred_rounds() -> None:
    hundred = await run_lua("local n = 0\nwhile n < 100 do\n  n = n + 1\nend\nreturn n")
    assert (hundred["success"], hundred["result"]) == (True, 100)
    more = await run_lua("local n = 0\nwhile n < 101 do\n  n = n + 1\nend\nreturn n")
    assert more["success"] is False
    assert more["error"]["Code"] == "script.max_iterations"
    assert "maxIterations=100." in more["error"]["Message"]


async def test_a_numeric_for_takes_its_step_from_an_expression_and_may_count_down() -> None:
    up = await run_lua(
        "local by = 2\nlocal total = 0\nfor i = 1, 5, by do\n  total = total + i\nend\nreturn total"
    )
    assert (up["success"], up["result"]) == (True, 9)
    down = await run_lua(
        "local by = -1\nlocal seen = 0\nfor i = 3, 1, by do\n  seen = seen * 10 + i\nend\n"
        "return seen"
    )
    assert (down["success"], down["result"]) == (True, 321)


async def test_a_numeric_for_reads_its_limit_once_before_the_first_round() -> None:
    report = await run_lua(
        "local n = 3\nlocal rounds = 0\nfor i = 1, n do\n  n = n + 1\n  rounds = rounds + 1\n"
        "end\nreturn rounds"
    )
    assert (report["success"], report["result"]) == (True, 3)


async def test_ipairs_with_one_loop_variable_binds_the_one_based_index() -> None:
    report = await run_lua(
        'local names = { "a", "b", "c" }\nlocal sum = 0\nfor i in ipairs(names) do\n'
        "  sum = sum + i\nend\nreturn sum"
    )
    assert (report["success"], report["result"]) == (True, 6)


async def test_return_with_several_values_answers_them_as_a_list() -> None:
    report = await run_lua("local a = 1\nreturn a, 2, true")
    assert (report["success"], report["result"]) == (True, [1, 2, True])


async def test_a_bracketed_number_or_boolean_table_key_becomes_its_text() -> None:
    report = await run_lua('return { [1] = "one", [true] = "yes", ["name"] = "n" }')
    assert report["result"] == {"1": "one", "true": "yes", "name": "n"}


@pytest.mark.parametrize(
    ("source", "code"),
    [
        ('return "a" .. "b"', "lua.unsupported_expression"),
        ("local t = { 1, 2 }\nreturn #t", "lua.unsupported_expression"),
        ('local t = { name = "x" }\nreturn t["name"]', "lua.unsupported_expression"),
        ('return params["name"]', "lua.unsupported_expression"),
        ("do\n  local x = 1\nend", "lua.unsupported_statement"),
    ],
)
def test_concatenation_length_string_indexes_and_do_blocks_are_outside_the_subset(
    source: str, code: str
) -> None:
    assert refusal(source) == code


async def test_the_design_pages_example_script_runs_against_the_sim(open_sim: Any) -> None:
    lua = """
rb.call("rimworld/go_to_main_menu")
rb.poll("rimbridge/get_bridge_status", {}, {
  timeoutMs = 30000,
  pollIntervalMs = 100,
  condition = {
    all = {
      { path = "result.state.inEntryScene", equals = true },
      { path = "result.state.programState", equals = "Entry" },
      { path = "result.state.hasCurrentGame", equals = false },
      { path = "result.state.longEventPending", equals = false }
    }
  }
})
rb.call("rimworld/start_debug_game")
rb.call("rimbridge/wait_for_game_loaded", {
  timeoutMs = 60000,
  pollIntervalMs = 50,
  readiness = "visual",
  pauseIfNeeded = true
})
local colonists = rb.call("rimworld/list_colonists", { currentMapOnly = true })
for i, colonist in ipairs(colonists.result.colonists) do
  rb.call("rimworld/select_pawn", {
    pawnName = colonist.name,
    append = i > 1
  })
end
"""
    async with open_sim() as sim:
        report = await sim.call("rimbridge/run_lua", luaSource=lua)
        assert report["success"] is True, report.get("error")
        selected = await sim.call("rimworld/get_selection_semantics")
        listed = await sim.call("rimworld/list_colonists", currentMapOnly=True)
        assert len(selected["selectedObjects"]) == listed["count"] > 1


@pytest.mark.parametrize(
    "source",
    [
        'rb.call("rimbridge/ping", {}, {})',
        'rb.call("rimbridge/ping", "now")',
        'rb.call("rimbridge/ping", { 1, 2 })',
        "rb.call()",
        'rb.poll("rimbridge/ping", {}, { timeoutMs = 100 })',
        'rb.poll("rimbridge/ping", {})',
        "rb.fail()",
        'rb.fail("stop", 1, 2)',
        'rb.assert(true, "fine", 3)',
        "rb.assert()",
    ],
)
def test_host_calls_outside_the_mods_argument_rules_are_refused_as_expressions(
    source: str,
) -> None:
    assert refusal(source) == "lua.unsupported_expression"


def test_a_poll_interval_that_is_not_a_number_is_a_compile_error() -> None:
    source = (
        'local every = 10\nrb.poll("rimbridge/ping", nil, { pollIntervalMs = every, '
        'condition = { path = "success", equals = true } })'
    )
    assert refusal(source) == "lua.compile_error"


async def test_an_assert_without_a_message_fails_naming_its_statement() -> None:
    report = await run_lua("rb.assert(false)")
    assert report["error"]["Code"] == "script.assertion_failed"
    # the mod adds the reason its condition gave: the hidden variable is false or nil
    assert report["error"]["Message"] == (
        "Assertion 'assert-3' failed. Continue condition expected path "
        "'vars.__lua_assert_condition_1' not to be in the requested set."
    )


async def test_an_empty_table_constructor_is_an_empty_array() -> None:
    report = await run_lua("local t = {}\nreturn t")
    assert (report["success"], report["result"]) == (True, [])


@pytest.mark.parametrize(
    "source",
    [
        "for params = 1, 2 do\nend",
        "for i, params in ipairs({ 1 }) do\nend",
        "for params in ipairs({ 1 }) do\nend",
    ],
)
def test_params_cannot_be_a_loop_variable(source: str) -> None:
    assert refusal(source) == "lua.unsupported_statement"
