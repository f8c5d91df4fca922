"""Scripts: the JSON script runner (``rimbridge/run_script``), the Lua subset compiled into
the same model (``rimbridge/run_lua``), and their authoring references."""

from rimbridge_sim.scripting.expressions import ScriptError, operation_error
from rimbridge_sim.scripting.lua_compiler import LuaCompileError, compile_lua
from rimbridge_sim.scripting.lua_reference import lua_reference
from rimbridge_sim.scripting.references import script_reference
from rimbridge_sim.scripting.runner import (
    CallOutcome,
    ScriptReport,
    ScriptRunner,
    normalize_definition,
)

__all__ = [
    "CallOutcome",
    "LuaCompileError",
    "ScriptError",
    "ScriptReport",
    "ScriptRunner",
    "compile_lua",
    "lua_reference",
    "normalize_definition",
    "operation_error",
    "script_reference",
]
