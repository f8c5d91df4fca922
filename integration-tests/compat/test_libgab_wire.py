"""A game on the C# runtime (Lib.GAB 1.0.3) seen through the bridge: what an agent reads of its
tools and results, with the runtime's wire quirks (``libgab_wire_game.py``). The expected
texts are the Go bridge's (GABS 1.1.0), checked side by side against a Lib.GAB game built
with Mono."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types

from .harness import LIBGAB_WIRE_GAME, ConfigDir, OpenBridge, structured, text_of

GAME_TIMEOUT = 120


async def call_once(
    open_bridge: OpenBridge, config_dir: ConfigDir, tool: str, arguments: dict[str, Any]
) -> types.CallToolResult:
    """Start the Lib.GAB-style game ``lg``, call one bridge tool, stop the game."""
    config_dir.game("lg", script=LIBGAB_WIRE_GAME)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            started = await client.call_tool("games_start", {"gameId": "lg"})
            assert not started.is_error, text_of(started)
            result = await client.call_tool(tool, arguments)
            await client.call_tool("games_stop", {"gameId": "lg"})
    return result


async def test_a_result_without_text_reads_as_the_go_bridges_json(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    result = await call_once(
        open_bridge, config_dir, "games_call_tool", {"gameId": "lg", "tool": "wire/mixed"}
    )
    assert not result.is_error
    first = result.content[0]
    # keys sorted, <>& escaped, numbers as Go writes a float64
    assert getattr(first, "text", None) == (
        '{"alpha":5,"big":1e+21,"mid":10000000000000000,"small":1e-7,"text2":"x",'
        '"zeta":"\\u003ca\\u0026b\\u003e"}'
    )
    assert structured(result)["zeta"] == "<a&b>"


async def test_tool_detail_lists_parameters_with_defaults_and_nullable_returns(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    detail = await call_once(
        open_bridge, config_dir, "games_tool_detail", {"gameId": "lg", "tool": "wire/nullable"}
    )
    assert not detail.is_error
    text = text_of(detail)
    go_lines = (
        "Tool detail for 'lg_wire_nullable' in game 'lg'\n"
        "\n"
        "Nullable fields. (Game: lg)\n"
        "\n"
        "Original name: lg.wire.nullable\n"
        "  Parameters:\n"
        "    - `count` (integer, optional, default: 7)\n"
        "    - `label` (string): A label\n"
        "  Returns:\n"
        "    - `count` (integer): How many\n"
        "    - `name` (string, optional): The name"
    )
    assert text.startswith(go_lines)
    # the Go bridge ends there; gabs adds the tool's result description as a last line
    assert text[len(go_lines) :] in ("", "\n  Result: A name that may be null and a count.")
    data = structured(detail)
    assert data["outputSchema"]["properties"]["name"]["nullable"] is True


async def test_a_tool_without_description_is_summarized_by_its_game(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    names = await call_once(
        open_bridge, config_dir, "games_tool_names", {"gameId": "lg", "brief": True}
    )
    summaries = {tool["gabpName"]: tool.get("summary") for tool in structured(names)["tools"]}
    assert summaries == {
        "wire/mixed": "Characters and numbers.",
        "wire/nodesc": "(Game: lg)",
        "wire/nullable": "Nullable fields.",
        "wire/throw": "Throws.",
    }


async def test_games_tools_lists_each_tools_parameters_and_returns(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    tools = await call_once(open_bridge, config_dir, "games_tools", {"gameId": "lg"})
    lines = text_of(tools).splitlines()
    at = lines.index("• **lg_wire_nullable** - Nullable fields. (Game: lg)")
    assert lines[at + 1 : at + 8] == [
        "  Parameters:",
        "    - `count` (integer, optional, default: 7)",
        "    - `label` (string): A label",
        "  Returns:",
        "    - `count` (integer): How many",
        "    - `name` (string, optional): The name",
        "• **lg_wire_throw** - Throws. (Game: lg)",
    ]
