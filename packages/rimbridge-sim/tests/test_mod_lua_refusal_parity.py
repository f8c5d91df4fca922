"""The Lua compiler's refusals that ``LuaScriptCompilerTests`` pins, in the mod's words:
writing the read-only ``params`` binding, and assigning a name never declared."""

from __future__ import annotations

from typing import Any

import pytest

from rimbridge_sim.scripting.lua_compiler import LuaCompileError, compile_lua


@pytest.mark.parametrize(
    "source",
    ["params = {}\n", "local params = 1\n", "for params = 1, 2 do end\n"],
)
def test_writing_params_is_refused_as_a_read_only_binding(source: str) -> None:
    with pytest.raises(LuaCompileError) as refused:
        compile_lua(source)
    assert refused.value.code == "lua.unsupported_statement"
    assert refused.value.message.startswith(
        "Lua binding 'params' is read-only in rimbridge/run_lua v1."
    )


def test_assigning_an_undeclared_name_is_a_refused_global_assignment_with_its_place() -> None:
    with pytest.raises(LuaCompileError) as refused:
        compile_lua("local a = 1\n  count = 1\n")
    assert (refused.value.code, refused.value.line, refused.value.column) == (
        "lua.unsupported_statement",
        2,
        3,
    )
    assert refused.value.message == (
        "Global assignment to 'count' is not supported in rimbridge/run_lua v1. (line 2, column 3)"
    )


async def test_a_lua_run_counts_its_lua_script_steps_with_a_capital_l(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        ran = await sim.call("rimbridge/run_lua", luaSource='rb.call("rimbridge/ping")')
        assert (ran["success"], ran["message"]) == (
            True,
            "Executed 1 Lua script steps successfully.",
        )
        ran = await sim.call(
            "rimbridge/run_script", scriptJson='{"steps": [{"call": "rimbridge/ping"}]}'
        )
        assert ran["message"] == "Executed 1 script steps successfully."
