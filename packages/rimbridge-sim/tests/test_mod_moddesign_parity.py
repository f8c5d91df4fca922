"""The mod's Lua front-end design page (docs/lua-frontend-design.md) read claim by claim, with
the mod's ``LuaScriptCompiler`` deciding what the page leaves open.

The page lists what the v1 subset refuses (``require``, metatables, coroutines, the ``io``,
``os``, ``package`` and ``debug`` libraries) and names ``rb`` as the one host namespace. In
the mod's lowering a call statement of anything but ``rb.*``, ``print`` or ``ipairs`` is an
unsupported *expression*, an assignment to a table field or to several names an unsupported
*statement*; and since MoonSharp parses real Lua, a host call may use Lua's other call forms
(``print "text"``, ``rb.call "alias"``)."""

from __future__ import annotations

from typing import Any

import pytest

from rimbridge_sim.scripting import CallOutcome, ScriptRunner, normalize_definition
from rimbridge_sim.scripting.lua_compiler import LuaCompileError, compile_lua

NOT_A_HOST_CALL = (
    "Only supported rb.* calls and print/ipairs helpers can be used in rimbridge/run_lua v1."
)


def refused(source: str) -> LuaCompileError:
    with pytest.raises(LuaCompileError) as caught:
        compile_lua(source)
    return caught.value


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ('require("json")', 1),
        ("setmetatable({}, {})", 1),
        ("local co = 1\ncoroutine.yield(co)", 2),
        ('io.write("x")', 1),
        ("os.exit()", 1),
        ("debug.traceback()", 1),
        ("local t = { 1 }\nt.run()", 2),
        ('local t = { 1 }\nt:run "now"', 2),
        ("helper { 1, 2 }", 1),
    ],
)
def test_a_call_statement_of_anything_but_the_host_is_an_unsupported_expression(
    source: str, line: int
) -> None:
    error = refused(source)
    assert (error.code, error.line) == ("lua.unsupported_expression", line)
    assert error.message.startswith(NOT_A_HOST_CALL)


@pytest.mark.parametrize(
    "source", ["params.limit = 3", "local t = {}\nt.x = 1", "local t = { 1 }\nt[1] = 2"]
)
def test_assigning_a_table_field_is_refused_as_the_mod_words_it(source: str) -> None:
    error = refused(source)
    assert error.code == "lua.unsupported_statement"
    assert error.message.startswith(
        "Table-field assignment is not supported in rimbridge/run_lua v1."
    )


@pytest.mark.parametrize("source", ["local a, b = 1, 2", "local a = 1\nlocal b = 2\na, b = b, a"])
def test_assigning_several_names_at_once_is_refused_as_the_mod_words_it(source: str) -> None:
    error = refused(source)
    assert error.code == "lua.unsupported_statement"
    assert error.message.startswith(
        "Multiple-assignment Lua statements are not supported in rimbridge/run_lua v1."
    )


def test_ipairs_on_its_own_is_an_unsupported_statement() -> None:
    error = refused("ipairs({ 1, 2 })")
    assert error.code == "lua.unsupported_statement"
    assert error.message.startswith("Lua 'ipairs' is not supported in rimbridge/run_lua v1.")


def test_a_name_on_its_own_is_not_a_statement() -> None:
    assert refused("local a = 1\na").code == "lua.syntax_error"


@pytest.mark.parametrize(
    ("short", "long"),
    [
        ('print "hello"', 'print("hello")'),
        ('rb.print "hello"', 'rb.print("hello")'),
        ("print { 1, 2 }", "print({ 1, 2 })"),
        ('rb.call "rimbridge/ping"', 'rb.call("rimbridge/ping")'),
        (
            'local p = rb.call "rimbridge/ping"\nreturn p',
            'local p = rb.call("rimbridge/ping")\nreturn p',
        ),
        ('return rb.call "rimbridge/ping"', 'return rb.call("rimbridge/ping")'),
        ('rb.fail "stop"', 'rb.fail("stop")'),
    ],
)
def test_host_calls_take_luas_string_and_table_call_forms(short: str, long: str) -> None:
    assert compile_lua(short) == compile_lua(long)


async def test_the_tools_answer_a_library_call_with_the_mods_code(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        compiled = await sim.call("rimbridge/compile_lua", luaSource='require("json")')
        assert compiled["success"] is False
        assert compiled["error"]["code"] == "lua.unsupported_expression"
        ran = await sim.call("rimbridge/run_lua", luaSource='rb.call "rimbridge/ping"')
        assert ran["success"] is True, ran
        assert [step["call"] for step in ran["script"]["steps"]] == ["rimbridge/ping"]


def test_an_rb_function_the_subset_lacks_is_refused_in_the_mods_words() -> None:
    error = refused('local p = rb.call("rimbridge/ping")\nreturn rb.ref("p", "result")')
    assert error.code == "lua.unsupported_expression"
    assert error.message.startswith("rb.ref is not supported in rimbridge/run_lua v1.")


async def test_a_compile_errors_details_name_its_place(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        compiled = await sim.call("rimbridge/compile_lua", luaSource="local a = 1\n  count = 1\n")
        error = compiled["error"]
        assert (error["line"], error["column"]) == (2, 3)
        assert error["details"] == {"line": 2, "column": 3}


def test_only_a_parameter_path_may_be_missing_in_the_lowered_script() -> None:
    steps = compile_lua(
        'local p = rb.call("rimbridge/ping")\nlocal a = p.result.message\nlocal b = params.limit\n'
    )["steps"]
    assert steps[3] == {
        "type": "let",
        "name": "a",
        "value": {"$var": "p", "path": "result.message"},
    }
    assert steps[4] == {
        "type": "let",
        "name": "b",
        "value": {"$var": "params", "path": "limit", "required": False},
    }


async def test_a_path_a_result_lacks_fails_the_script_and_a_missing_parameter_is_nil(
    open_sim: Any,
) -> None:
    async with open_sim(tick_rate=0) as sim:
        lacking = 'local p = rb.call("rimbridge/ping")\nlocal x = p.result.nothing\nreturn 1\n'
        ran = await sim.call("rimbridge/run_lua", luaSource=lacking)
        assert (ran["success"], ran["returned"]) == (False, False)
        assert "could not resolve variable 'p' path 'result.nothing'." in ran["message"]
        missing = await sim.call("rimbridge/run_lua", luaSource="return params.limit == nil")
        assert (missing["success"], missing["result"]) == (True, True)


@pytest.mark.parametrize(
    ("source", "code", "message"),
    [
        (
            "for a, b, c in ipairs({}) do end",
            "lua.unsupported_statement",
            "Lua ipairs loops in rimbridge/run_lua v1 support one or two loop variables.",
        ),
        (
            "for k, v in pairs({}) do end",
            "lua.unsupported_statement",
            "Only 'for ... in ipairs(...) do' is supported in rimbridge/run_lua v1.",
        ),
        (
            "for i in ipairs({}, 2) do end",
            "lua.unsupported_expression",
            "ipairs requires exactly one collection expression.",
        ),
    ],
)
def test_a_generic_for_outside_the_subset_is_refused_as_the_mod_refuses_it(
    source: str, code: str, message: str
) -> None:
    error = refused(source)
    assert error.code == code
    assert error.message.startswith(message)


def test_ipairs_takes_a_table_constructor_in_lua_call_form() -> None:
    assert compile_lua("for i in ipairs { 1, 2 } do end") == compile_lua(
        "for i in ipairs({ 1, 2 }) do end"
    )


def test_a_poll_policy_keeps_whole_milliseconds_and_a_trimmed_timeout_message() -> None:
    steps = compile_lua(
        'rb.poll("rimbridge/ping", nil, { timeoutMs = 250.7, pollIntervalMs = 20.5, '
        'timeoutMessage = "  still waiting ", condition = { path = "success", equals = true } })'
    )["steps"]
    policy = steps[1]["continueUntil"]
    assert (policy["timeoutMs"], policy["pollIntervalMs"]) == (251, 20)
    assert type(policy["timeoutMs"]) is int
    assert policy["timeoutMessage"] == "still waiting"


@pytest.mark.parametrize(
    ("literal", "value"), [("2.0", 2), ("1e3", 1000), ("0.5", 0.5), ("0x10", 16)]
)
def test_a_number_literal_without_a_fraction_is_a_whole_number(literal: str, value: Any) -> None:
    returned = compile_lua(f"return {literal}")["steps"][1]["value"]
    assert returned == value and type(returned) is type(value)


def test_a_whole_number_index_written_with_a_point_is_a_static_index() -> None:
    steps = compile_lua("local t = { 1, 2 }\nreturn t[2.0]")["steps"]
    assert steps[2] == {"type": "return", "value": {"$var": "t", "path": "[1]"}}


async def _echo(name: str, arguments: Any) -> CallOutcome:
    return CallOutcome(True, f"op-{name}", "completed", dict(arguments), None)


async def test_unary_minus_stays_an_expression_even_over_a_number() -> None:
    source = (
        'local seen = rb.call("test/echo", { n = -5 })\n'
        "local total = 0\n"
        "for i = 3, 1, -1 do total = total + i end\n"
        "return { seen.result.n, total, -2.5 }\n"
    )
    steps = compile_lua(source)["steps"]
    assert steps[1]["arguments"] == {"n": {"$negate": 5}}
    assert steps[-1]["value"][2] == {"$negate": 2.5}
    runner = ScriptRunner(_echo, include_step_results=True)
    report = (await runner.run(normalize_definition(compile_lua(source)))).to_wire()
    assert report["success"] is True, report["error"]
    assert report["result"] == [-5, 6, -2.5]


@pytest.mark.parametrize("source", ["::done::", "goto done\n::done::"])
def test_labels_and_goto_are_statements_outside_the_subset(source: str) -> None:
    assert refused(source).code == "lua.unsupported_statement"


@pytest.mark.parametrize(
    ("literal", "text"),
    [
        ('"\\65\\066\\0671"', "ABC1"),
        ('"\\x41\\x62"', "Ab"),
        ('"a\\z\n     b"', "ab"),
        ('"\\u{48}\\u{e9}"', "H\u00e9"),
        ('"\\a\\b\\f\\v"', "\a\b\f\v"),
        ('"one\\\ntwo"', "one\ntwo"),
        ('"one\\\r\ntwo"', "one\ntwo"),
        ('"\\[\\]"', "[]"),
        ("[==[a]]b]==]", "a]]b"),
        ("[=[\nfirst]=]", "first"),
    ],
)
def test_strings_take_luas_escapes_and_long_brackets_of_any_level(literal: str, text: str) -> None:
    assert compile_lua(f"return {literal}")["steps"][1]["value"] == text


@pytest.mark.parametrize("literal", ['"\\q"', '"\\256"', '"\\xZZ"', "[==[open]]"])
def test_a_broken_escape_or_an_unclosed_long_string_is_a_syntax_error(literal: str) -> None:
    assert refused(f"return {literal}").code == "lua.syntax_error"


def test_lines_are_counted_through_long_strings_comments_and_escaped_line_breaks() -> None:
    source = 'local a = [==[x\ny]==]\n--[=[ a\ncomment ]=]\nlocal b = "p\\\nq"\ncount = 1\n'
    assert refused(source).line == 7


def test_a_return_ends_its_block_as_in_lua() -> None:
    assert refused("return 1\nlocal x = 2").code == "lua.syntax_error"
    assert refused("local x = 1\nif x then return x\nx = 2 end").code == "lua.syntax_error"
    steps = compile_lua("local x = 1\nif x == 1 then return else return 2; end")["steps"]
    assert steps[3]["body"] == [{"type": "return", "value": None}]
    assert steps[3]["elseBody"] == [{"type": "return", "value": 2}]
