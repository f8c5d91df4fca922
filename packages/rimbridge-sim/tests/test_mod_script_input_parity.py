"""Script input read as the mod reads it: a ``null`` statement or body, text members trimmed
(``ScriptingCapabilityModule.NormalizeDefinition``, ``CapabilityScriptRunner``), a blank Lua
source refused by the tool before its compiler, and a ``.lua`` file decoded as .NET's
``File.ReadAllText`` decodes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _keys(answer: dict[str, Any]) -> list[str]:
    return [key for key in answer if key != "operation"]


async def _run(sim: Any, script: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await sim.call("rimbridge/run_script", scriptJson=json.dumps(script))
    return result


async def test_a_null_statement_is_a_failed_step_that_halts_the_script(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        halted = await _run(sim, {"steps": [None, {"type": "print", "message": "after"}]})
        assert (halted["success"], halted["message"]) == (
            False,
            "The script contained a null step.",
        )
        report = halted["script"]
        assert (report["stepCount"], report["executedStepCount"], report["haltReason"]) == (
            2,
            1,
            "Step 1 ('step-0') failed.",
        )
        row = report["steps"][0]
        assert (row["index"], row["id"], row["call"], row["error"]["Code"]) == (
            1,
            "step-0",
            "",
            "script.invalid_step",
        )
        assert halted["output"] == []
        # with continueOnError the rest runs; the row is named after the rows before it
        steps = [{"call": "rimbridge/ping"}, None, {"type": "print"}]
        going = await _run(sim, {"continueOnError": True, "steps": steps})
        assert [(r["index"], r["id"], r["success"]) for r in going["script"]["steps"]] == [
            (1, "step-1", True),
            (2, "step-1", False),
        ]
        assert (going["script"]["halted"], len(going["output"])) == (False, 1)


async def test_a_null_body_is_an_empty_one_and_a_null_name_is_blank(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        holds = {"path": "vars.x", "equals": 1}
        steps = [
            {"type": "let", "name": "x", "value": 1},
            {"type": "if", "condition": holds, "body": None, "elseBody": None},
            {"type": "foreach", "collection": [1, 2], "itemName": "i", "body": None},
            {"type": "if", "condition": holds, "body": [None]},
        ]
        result = await _run(sim, {"name": None, "steps": steps})
        assert result["script"]["name"] == ""
        assert result["script"]["stepCount"] == 5
        assert [r["id"] for r in result["script"]["steps"]] == ["step-0"]
        assert result["message"] == "The script contained a null step."


async def test_names_and_texts_are_trimmed_before_the_script_runs(open_sim: Any) -> None:
    async with open_sim(tick_rate=0) as sim:
        steps = [
            {"type": "let", "name": " total ", "value": 1},
            {
                "type": "foreach",
                "collection": [2, 3],
                "itemName": " item ",
                "body": [
                    {
                        "type": "set",
                        "name": "total",
                        "value": {"$add": [{"$var": "total"}, {"$var": "item"}]},
                    },
                ],
            },
            {"type": "return", "value": {"$var": "total"}},
        ]
        result = await _run(sim, {"name": "  sum  ", "steps": steps})
        assert (result["success"], result["result"], result["script"]["name"]) == (True, 6, "sum")


async def test_a_blank_lua_source_is_refused_by_the_tool_without_an_error_object(
    open_sim: Any, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.lua"
    empty.write_text("  \n", encoding="utf-8")
    async with open_sim(tick_rate=0) as sim:
        for tool, arguments in (
            ("rimbridge/run_lua", {"luaSource": ""}),
            ("rimbridge/compile_lua", {"luaSource": " \t"}),
            ("rimbridge/run_lua_file", {"scriptPath": str(empty)}),
        ):
            result = await sim.call(tool, **arguments)
            assert (result["success"], result["message"], result["code"]) == (
                False,
                "A non-empty luaSource payload is required.",
                "invalid_argument",
            )
            assert "error" not in result


async def test_a_failed_lua_run_puts_the_sims_code_after_the_mods_keys(
    open_sim: Any, tmp_path: Path
) -> None:
    script = tmp_path / "fail.lua"
    script.write_text('rb.fail("boom")\n', encoding="utf-8")
    async with open_sim(tick_rate=0) as sim:
        ran = await sim.call("rimbridge/run_lua", luaSource='rb.fail("boom")')
        assert _keys(ran)[-4:] == ["parameterCount", "output", "script", "code"]
        from_file = await sim.call("rimbridge/run_lua_file", scriptPath=str(script))
        assert _keys(from_file)[-3:] == ["scriptPath", "resolvedScriptPath", "code"]
        assert from_file["code"] == "script.failed"


async def test_a_lua_file_is_decoded_as_dotnet_reads_text(open_sim: Any, tmp_path: Path) -> None:
    marked = tmp_path / "marked.lua"
    marked.write_bytes(b"\xef\xbb\xbfreturn 1 + 2\n")  # UTF-8 with a byte order mark
    wide = tmp_path / "wide.lua"
    wide.write_bytes(b"\xff\xfe" + "return 4\n".encode("utf-16-le"))
    broken = tmp_path / "broken.lua"
    broken.write_bytes(b'return "a\xffb"\n')  # not UTF-8: the byte becomes U+FFFD
    async with open_sim(tick_rate=0) as sim:
        for path, value in ((marked, 3), (wide, 4), (broken, "a\ufffdb")):
            result = await sim.call("rimbridge/run_lua_file", scriptPath=str(path))
            assert (result["success"], result["result"]) == (True, value), result


async def test_a_lua_value_too_deep_to_write_is_refused_in_band(open_sim: Any) -> None:
    source = "local t = {}\nfor i = 1, 200 do\n  t = { t }\nend\nreturn t"
    async with open_sim(tick_rate=0) as sim:
        refused = await sim.call("rimbridge/run_lua", luaSource=source)
        assert (refused["success"], refused["code"]) == (False, "script.value_too_deep")
        assert "nests more than 128 levels deep" in refused["message"]
