"""The core tools' argument contract and the game resources, as any GABS bridge keeps them:
unknown arguments refused as ``unknown_argument``, tool names paged with ``cursor`` /
``nextCursor``, and ``gab://<gameId>/state`` for a connected game.

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest

from .harness import ConfigDir, OpenBridge, start_game, structured, text_of

GAME_TIMEOUT = 120


async def test_an_unknown_argument_is_refused_naming_it_and_the_allowed_ones(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            refused = await client.call_tool(
                "games_call_tool", {"tool": "compat/echo", "bogus": 1, "another": 2}
            )
            listed = await client.call_tool("games_tool_names", {"offset": 5})
    assert refused.is_error
    data = structured(refused)
    assert data["code"] == "unknown_argument"
    assert data["path"] == "/another"
    assert data["unknown"] == ["another", "bogus"]
    assert data["allowed"] == ["arguments", "gameId", "timeout", "tool"]
    assert data["causeClass"] == "call"
    assert text_of(refused).startswith('Unknown argument "another". Allowed arguments: ')
    assert listed.is_error and structured(listed)["unknown"] == ["offset"]
    assert "cursor" in structured(listed)["allowed"]


@pytest.mark.parametrize(
    ("arguments", "game_id"),
    [
        ({"gameId": "compat"}, "compat"),
        ({"gameId": "compat", "tool": 5}, "compat"),
        ({"tool": ["compat/echo"]}, ""),
        ({}, ""),
    ],
    ids=["missing", "a-number", "a-list-without-game", "nothing"],
)
async def test_a_call_without_a_usable_tool_name_is_a_call_class_failure(
    open_bridge: OpenBridge, config_dir: ConfigDir, arguments: dict[str, Any], game_id: str
) -> None:
    """``games_call_tool`` with ``tool`` missing or not a string is an error that says the call
    must change: ``causeClass: call``, the neutral track record, ``games_show`` of the call's
    game as next action, and the call's ``gameId`` when it gave one."""
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            refused = await client.call_tool("games_call_tool", arguments)
    assert refused.is_error, text_of(refused)
    data = structured(refused)
    assert data["causeClass"] == "call"
    assert data["trackRecord"] == "no successful starts recorded for this context"
    assert [(a["tool"], a["arguments"]) for a in data["nextActions"]] == [
        ("games_show", {"gameId": game_id})
    ]
    assert data.get("gameId", "") == game_id
    assert "tool" in text_of(refused)


async def test_tool_names_are_paged_with_a_cursor(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            first = structured(
                await client.call_tool("games_tool_names", {"gameId": "compat", "limit": 2})
            )
            second = structured(
                await client.call_tool(
                    "games_tool_names",
                    {"gameId": "compat", "limit": 50, "cursor": first["nextCursor"]},
                )
            )
            queried = structured(
                await client.call_tool(
                    "games_tool_names", {"gameId": "compat", "query": "echo", "brief": True}
                )
            )
            await client.call_tool("games_stop", {"gameId": "compat"})
    assert first["returned"] == 2 and first["nextCursor"] == "2"
    assert first["total"] == second["total"] == 7
    assert second["returned"] == 5 and second["nextCursor"] == ""
    names = [t["name"] for t in first["tools"] + second["tools"]]
    assert len(set(names)) == 7 and "compat_compat_echo" in names
    assert [t["name"] for t in queried["tools"]] == ["compat_compat_echo"]
    assert queried["tools"][0]["summary"] == "Return the given text unchanged."


def resource_texts(result: types.ReadResourceResult) -> list[str]:
    return [c.text for c in result.contents if isinstance(c, types.TextResourceContents)]


async def test_a_connected_game_has_a_state_resource(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            # a bridge may list the resource a moment after the start answered (the Go bridge
            # does): asked again every 50 ms within the test's deadline
            uris: set[str] = set()
            while "gab://compat/state" not in uris:
                listed = await client.list_resources()
                uris = {str(r.uri) for r in listed.resources}
                if "gab://compat/state" not in uris:
                    await anyio.sleep(0.05)
            await client.call_tool("games_stop", {"gameId": "compat"})
    assert "gab://compat/state" in uris


# The Go bridge answers resources/read with contents of {type, text} (no uri), which MCP clients
# refuse; ours answers in MCP's shape.
@pytest.mark.beyond_go
async def test_a_state_resource_is_read_in_the_mcp_shape(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            read = await client.read_resource("gab://compat/state")
            await client.call_tool("games_stop", {"gameId": "compat"})
    content = read.contents[0]
    assert isinstance(content, types.TextResourceContents)
    assert (str(content.uri), content.mime_type) == ("gab://compat/state", "application/json")
    state = json.loads(resource_texts(read)[0])
    assert (state["gameId"], state["connected"], state["toolCount"]) == ("compat", True, 7)
    assert "compat/echo" in state["availableTools"]


@pytest.mark.parametrize(
    ("normalization", "listed_as", "original"),
    [
        (None, "games_list", "games.list"),
        ({"enableOpenAINormalization": True}, "games_list", "games.list"),
        ({"enableOpenAINormalization": False}, "games.list", None),
    ],
)
async def test_tool_normalization_decides_how_the_core_tools_are_listed(
    open_bridge: OpenBridge,
    config_dir: ConfigDir,
    normalization: dict[str, Any] | None,
    listed_as: str,
    original: str | None,
) -> None:
    config_dir.game("compat")
    if normalization is not None:
        config_dir.top["toolNormalization"] = normalization
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            called = await client.call_tool(listed_as, {})
    assert len(tools) == 13 and listed_as in tools, sorted(tools)
    meta = tools[listed_as].meta or {}
    assert meta.get("originalName") == original
    assert not called.is_error, text_of(called)


async def test_a_game_is_named_by_its_launch_target_and_a_shared_one_is_ambiguous(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    config_dir.game("other")
    config_dir.game("alone", target="/opt/alone/run")
    shared = config_dir.games["compat"]["target"]
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            ambiguous = await client.call_tool("games_show", {"gameId": shared})
            stopped = await client.call_tool("games_stop", {"gameId": shared})
            named = await client.call_tool("games_status", {"gameId": "/opt/alone/run"})
    for refused in (ambiguous, stopped):
        assert refused.is_error
        assert structured(refused)["code"] == "ambiguous_game_reference"
        assert structured(refused)["candidates"] == ["compat", "other"]
        assert text_of(refused).startswith(
            f"Game reference '{shared}' matches multiple configured games (compat, other). "
            "Use the exact game ID."
        )
    assert not named.is_error and structured(named)["gameId"] == "alone"
    assert text_of(named) == "**alone** (Compat game alone): stopped\n"


#: Each core tool with arguments that answer without a running game.
DOTTED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list", {}),
    ("show", {"gameId": "compat"}),
    ("status", {"gameId": "compat"}),
    ("tool_names", {}),
    ("tools", {}),
    ("tool_detail", {"tool": "compat/nothing"}),
    ("call_tool", {"tool": "compat/nothing"}),
    ("get_attention", {}),
    ("ack_attention", {"gameId": "nope", "attentionId": "a"}),
    ("start", {"gameId": "nope"}),
    ("stop", {"gameId": "nope"}),
    ("kill", {"gameId": "nope"}),
    ("connect", {"gameId": "nope"}),
]


async def test_every_core_tool_answers_to_its_dotted_legacy_name(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    """``games.tool_detail`` and the other dotted names of older clients reach the same tool
    as ``games_tool_detail`` (the Go bridge's names hint still mentions one of them)."""
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            for short, arguments in DOTTED_CALLS:
                plain = await client.call_tool(f"games_{short}", arguments)
                dotted = await client.call_tool(f"games.{short}", arguments)
                assert (dotted.is_error, text_of(dotted)) == (plain.is_error, text_of(plain)), short
                code = (plain.structured_content or {}).get("code")
                assert (dotted.structured_content or {}).get("code") == code, short


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("games_get_attention", {"timeout": ""}),
        ("games_get_attention", {"timeout": "  "}),
        ("games_tool_names", {"limit": " "}),
        ("games_tool_names", {"brief": ""}),
        ("games_call_tool", {"tool": "compat/status", "timeout": ""}),
    ],
    ids=["timeout-empty", "timeout-blank", "limit-blank", "brief-empty", "call-timeout-empty"],
)
async def test_an_empty_string_for_an_integer_or_a_boolean_is_refused(
    open_bridge: OpenBridge, config_dir: ConfigDir, tool: str, arguments: dict[str, Any]
) -> None:
    """An integer or a boolean may come as its text (``"10"``, ``" true "``), but an empty
    or blank string is neither: refused, not taken as absent, and nothing is run."""
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            refused = await client.call_tool(tool, arguments)
            given = await client.call_tool("games_tool_names", {"limit": " 2 ", "brief": " TRUE "})
            await client.call_tool("games_stop", {"gameId": "compat"})
    assert refused.is_error
    name = next(iter(key for key in arguments if key != "tool"))
    assert name in text_of(refused)
    assert not given.is_error and len(structured(given)["tools"]) == 2
