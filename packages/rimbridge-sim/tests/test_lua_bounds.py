"""The Lua compiler's two bounds: how deep a source nests, and how many statements it lowers
to. Within them every source compiles, runs and is answered; past them it is refused with a
compile error, never with a recursion error, an internal error or minutes of work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rimbridge_sim.scripting import LuaCompileError, compile_lua
from rimbridge_sim.scripting.lua_parser import MAX_LEVELS, MAX_STATEMENTS

# each source nests `depth` levels of one kind inside the statement around it
SHAPES: dict[str, Callable[[int], str]] = {
    "parentheses": lambda d: "return " + "(" * d + "1" + ")" * d,
    "arrays": lambda d: "return " + "{" * d + "}" * d,
    "objects": lambda d: "return " + "{a = " * d + "1" + "}" * d,
    "not": lambda d: "return " + "not " * d + "true",
    "unary minus": lambda d: "return " + "- " * d + "1",
    "an operator chain": lambda d: "return 1" + " + 1" * d,
    "if blocks": lambda d: "local x = 1 " + "if x then " * d + "end " * d,
    "while blocks": lambda d: "local x = false " + "while x do " * d + "end " * d,
    "blocks holding tables": lambda d: (
        "local x = 1 " + "if x then local y = {({1})} " * d + "end " * d
    ),
}


def _deepest(shape: Callable[[int], str]) -> int:
    """The most levels of ``shape`` the compiler takes (at least MAX_LEVELS - 10)."""
    depth = MAX_LEVELS - 10
    compile_lua(shape(depth))
    while True:
        try:
            compile_lua(shape(depth + 1))
        except LuaCompileError as refused:
            assert refused.code == "lua.syntax_error", refused.message
            assert f"nests more than {MAX_LEVELS} levels deep" in refused.message
            return depth
        depth += 1


@pytest.mark.parametrize("name", list(SHAPES))
async def test_a_source_as_deep_as_the_bound_is_served_and_one_level_more_is_refused(
    open_sim: Any, name: str
) -> None:
    shape = SHAPES[name]
    deepest = _deepest(shape)
    # the statement around the nesting, and what the innermost block holds, take a few levels
    assert MAX_LEVELS - 5 <= deepest <= MAX_LEVELS
    async with open_sim(tick_rate=0) as sim:
        compiled = await sim.call("rimbridge/compile_lua", luaSource=shape(deepest))
        assert compiled["success"] is True, compiled["message"]
        ran = await sim.call("rimbridge/run_lua", luaSource=shape(deepest))
        # deep blocks run into the runner's maxControlDepth, as in the mod; the rest run
        assert ran["success"] is True or "maxControlDepth" in ran["message"], ran["message"]
        for depth in (deepest + 1, 5000):
            for tool in ("rimbridge/compile_lua", "rimbridge/run_lua"):
                refused = await sim.call(tool, luaSource=shape(depth))
                assert refused["success"] is False
                assert refused["error"]["code"] == "lua.syntax_error"
                assert refused["error"]["line"] == 1 and refused["error"]["column"] > 1


def test_the_refusal_names_the_token_where_the_bound_was_passed() -> None:
    source = "local x = 1\n" + "if x then\n" * (MAX_LEVELS + 1) + "end\n" * (MAX_LEVELS + 1)
    with pytest.raises(LuaCompileError) as refused:
        compile_lua(source)
    # the blocks opened on lines 2 to MAX_LEVELS + 1 take the bound: the condition of the if
    # on the next line is one level too many
    assert (refused.value.line, refused.value.column) == (MAX_LEVELS + 2, 4)


def test_nested_numeric_for_loops_that_would_lower_to_too_many_statements_are_refused() -> None:
    # each numeric for lowers its body twice: 2^30 copies of the innermost body
    source = "for i = 1, 2 do " * 30 + "local a = i " + "end " * 30
    with pytest.raises(LuaCompileError) as refused:
        compile_lua(source)
    assert refused.value.code == "lua.compile_error"
    assert f"lowers to more than {MAX_STATEMENTS} statements" in refused.value.message
    # a few levels fewer stays within the bound and lowers as the mod lowers it
    script = compile_lua("for i = 1, 2 do " * 3 + "local a = i " + "end " * 3)
    assert _count(script, "a") == 2**3


def test_a_long_source_without_loops_stays_within_the_statement_bound() -> None:
    statements = MAX_STATEMENTS - 10
    script = compile_lua("local a = 0\n" + "a = 1\n" * statements)
    assert len(script["steps"]) == statements + 2  # params, the local, the assignments


async def test_the_tools_answer_a_refused_size_as_a_compile_error(open_sim: Any) -> None:
    source = "for i = 1, 2 do " * 30 + "local a = i " + "end " * 30
    async with open_sim(tick_rate=0) as sim:
        for tool in ("rimbridge/compile_lua", "rimbridge/run_lua"):
            refused = await sim.call(tool, luaSource=source)
            assert (refused["success"], refused["error"]["code"]) == (False, "lua.compile_error")
        assert (await sim.call("rimbridge/ping"))["message"] == "pong"


def _count(script: Any, name: str) -> int:
    """How many ``let`` statements of ``name`` the lowered script holds, at any depth."""
    found, stack = 0, [script]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            found += value.get("type") == "let" and value.get("name") == name
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found
