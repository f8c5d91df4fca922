"""The attention tools with an item open, as any GABS bridge answers them: the item the game
opened (``compat/raise``, with ``COMPAT_ATTENTION=1``) seen by ``games_get_attention``, a game
call refused by the gate, acknowledgements of the open, a wrong and a replaced id, and
``games_status`` while the item is open; and a game without attention. The keys, values and
``isError`` flags asserted here are those both bridges give; the texts are only checked where
they are interface lines (the ``games_status`` line).

These run against the bridge ``--bridge`` names (default: our ``gabs``); see README.md.
"""

from __future__ import annotations

import anyio
from mcp import Client

from .harness import ConfigDir, OpenBridge, start_game, structured, text_of

GAME_TIMEOUT = 120
ECHO = {"gameId": "compat", "tool": "compat/echo", "arguments": {"text": "hi"}}


async def raise_item(client: Client) -> str:
    raised = await client.call_tool("games_call_tool", {"gameId": "compat", "tool": "compat/raise"})
    assert not raised.is_error, text_of(raised)
    attention_id = structured(raised)["attentionId"]
    assert isinstance(attention_id, str)
    return attention_id


def attention_game(config_dir: ConfigDir) -> None:
    config_dir.game("compat", env={"COMPAT_ATTENTION": "1"})


async def test_an_open_item_is_inspected_gates_calls_and_is_acknowledged_by_its_id(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    attention_game(config_dir)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            none_open = await client.call_tool("games_get_attention", {"gameId": "compat"})
            first = await raise_item(client)
            seen = await client.call_tool("games_get_attention", {"gameId": "compat"})
            seen_without_id = await client.call_tool("games_get_attention", {})
            gated = await client.call_tool("games_call_tool", ECHO)
            wrong = await client.call_tool(
                "games_ack_attention", {"gameId": "compat", "attentionId": "wrong"}
            )
            acked = await client.call_tool(
                "games_ack_attention", {"gameId": "compat", "attentionId": first}
            )
            after = await client.call_tool("games_call_tool", ECHO)
            again = await client.call_tool(
                "games_ack_attention", {"gameId": "compat", "attentionId": first}
            )
            closed = await client.call_tool("games_get_attention", {"gameId": "compat"})

    assert not none_open.is_error
    assert structured(none_open)["supported"] is True
    assert structured(none_open)["blocking"] is False
    assert structured(none_open).get("attention") is None

    for result in (seen, seen_without_id):
        assert not result.is_error
        data = structured(result)
        assert (data["gameId"], data["supported"], data["blocking"]) == ("compat", True, True)
        item = data["attention"]
        assert (item["attentionId"], item["severity"], item["blocking"]) == (first, "error", True)
        assert (item["state"], item["summary"]) == ("open", "compat/raise was called")

    assert gated.is_error
    refused = structured(gated)
    assert refused["executed"] is False
    assert refused["status"] == "blocked_by_attention"
    assert (refused["gameId"], refused["tool"]) == ("compat", "compat_compat_echo")
    assert refused["attention"]["attentionId"] == first

    assert wrong.is_error
    data = structured(wrong)
    assert (data["gameId"], data["supported"], data["acknowledged"]) == ("compat", True, False)
    assert data["attentionId"] == "wrong"
    assert data["currentAttention"]["attentionId"] == first

    assert not acked.is_error
    data = structured(acked)
    assert (data["supported"], data["acknowledged"], data["attentionId"]) == (True, True, first)
    assert data.get("currentAttention") is None

    assert not after.is_error and structured(after) == {"text": "hi"}
    assert again.is_error and structured(again)["acknowledged"] is False
    assert structured(closed)["blocking"] is False and structured(closed).get("attention") is None


async def test_a_replaced_item_keeps_its_id_out_and_the_new_one_is_acknowledged(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    attention_game(config_dir)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            first = await raise_item(client)
            await client.call_tool(
                "games_ack_attention", {"gameId": "compat", "attentionId": first}
            )
            second = await raise_item(client)
            old = await client.call_tool(
                "games_ack_attention", {"gameId": "compat", "attentionId": first}
            )
            new = await client.call_tool("games_ack_attention", {"attentionId": second})
    assert second != first
    assert old.is_error
    assert structured(old)["acknowledged"] is False
    assert structured(old)["currentAttention"]["attentionId"] == second
    assert not new.is_error
    assert structured(new)["acknowledged"] is True
    assert structured(new)["attentionId"] == second


async def test_the_status_lines_keep_their_layout_while_an_item_is_open(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    attention_game(config_dir)
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            await raise_item(client)
            one = await client.call_tool("games_status", {"gameId": "compat"})
            summary = await client.call_tool("games_status", {})
    line = "**compat** (Compat game compat): running (GABS controls the process)"
    assert text_of(one).splitlines()[0] == line
    assert text_of(summary).splitlines()[:2] == ["Game Status Summary:", ""]
    assert (
        text_of(summary)
        .splitlines()[2]
        .startswith("• **compat**: running (GABS controls the process)")
    )
    assert structured(one)["status"] == "running"


async def test_a_game_without_attention_answers_supported_false_without_an_error(
    open_bridge: OpenBridge, config_dir: ConfigDir
) -> None:
    config_dir.game("compat")
    with anyio.fail_after(GAME_TIMEOUT):
        async with open_bridge(config_dir) as client:
            await start_game(client)
            seen = await client.call_tool("games_get_attention", {"gameId": "compat"})
            acked = await client.call_tool(
                "games_ack_attention", {"gameId": "compat", "attentionId": "x"}
            )
            echoed = await client.call_tool("games_call_tool", ECHO)
    assert not seen.is_error
    data = structured(seen)
    assert (data["gameId"], data["supported"]) == ("compat", False)
    assert data.get("attention") is None and "blocking" not in data
    assert not acked.is_error
    data = structured(acked)
    assert (data["supported"], data["acknowledged"], data["attentionId"]) == (False, False, "x")
    assert not echoed.is_error
