"""Member names inside params in another letter case (``ProtocolOptions.param_names``).

Under Lib.GAB's choices, the hello's, the call's and the ack's members are matched as
Newtonsoft matches them in Lib.GAB 1.0.3 (checked against it under Mono): in any ASCII letter
case, the later of two spellings winning, a ``null`` skipped for the hello and the call only;
``parameters`` and ``channels`` exactly. The defaults read GABP's names only.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from gabp import RemoteError
from lib_gab import GabpServer, ProtocolOptions
from lib_gab._param_names import fold_params
from lib_gab.testing import bridge_session, hello_params

TOKEN = "e5" * 32
WRONG = "6b" * 32
LIB_GAB = ProtocolOptions.lib_gab()


def make_server(options: ProtocolOptions | None) -> GabpServer:
    server = GabpServer(
        app_name="Names", app_version="1", agent_id="names", token=TOKEN, options=options
    )

    @server.tool("game/repeat", description="Repeat a word.")
    def repeat(word: str = "none", count: int = 1) -> dict[str, Any]:
        return {"text": " ".join([word] * count)}

    server.enable_attention()
    return server


def hello_with(**members: Any) -> dict[str, Any]:
    params = hello_params(TOKEN)
    del params["token"]
    return {**members, **params}


@pytest.mark.parametrize(
    ("members", "welcomed"),
    [
        ({"Token": TOKEN}, True),
        ({"TOKEN": TOKEN}, True),
        ({"token": WRONG, "Token": TOKEN}, True),
        ({"Token": TOKEN, "token": WRONG}, False),
        ({"token": TOKEN, "Token": None}, True),
        ({"token": TOKEN}, True),
        ({"tok\u0131n": TOKEN}, False),
    ],
    ids=["Token", "TOKEN", "later-wins", "later-wrong", "null-skipped", "plain", "dotless-i"],
)
async def test_the_hello_token_is_matched_in_any_ascii_case_under_lib_gabs_choices(
    members: dict[str, Any], welcomed: bool
) -> None:
    server = make_server(LIB_GAB)
    async with server.running() as address, bridge_session(address, TOKEN, hello=False) as conn:
        with anyio.fail_after(5):
            if welcomed:
                reply = await conn.request("session/hello", hello_with(**members))
                assert reply["agentId"] == "names"
            else:
                with pytest.raises(RemoteError) as info:
                    await conn.request("session/hello", hello_with(**members))
                assert info.value.code == -31000


async def test_the_defaults_take_no_token_named_in_another_case() -> None:
    server = make_server(None)
    async with server.running() as address, bridge_session(address, TOKEN, hello=False) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("session/hello", hello_with(Token=TOKEN))
    assert info.value.code == -31000


@pytest.mark.parametrize(
    ("params", "text"),
    [
        ({"Name": "game/repeat", "Arguments": {"word": "a", "count": 2}}, "a a"),
        ({"NAME": "game/repeat", "name": None, "arguments": {"word": "b"}}, "b"),
        ({"name": "game/repeat", "arguments": {"word": "c"}, "Arguments": None}, "c"),
        ({"name": "game/repeat", "arguments": {"word": "d"}, "ARGUMENTS": {"word": "e"}}, "e"),
        ({"name": "game/repeat", "Parameters": {"word": "f"}}, "none"),
        ({"name": "game/repeat", "argument\u017f": {"word": "g"}}, "none"),
    ],
    ids=[
        "Name-Arguments",
        "null-name-skipped",
        "null-arguments-skipped",
        "later-wins",
        "Parameters-exact",
        "long-s",
    ],
)
async def test_tools_call_names_and_arguments_in_any_ascii_case_under_lib_gabs_choices(
    params: dict[str, Any], text: str
) -> None:
    async with make_server(LIB_GAB).running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            assert (await conn.request("tools/call", params))["text"] == text


async def test_the_defaults_call_no_tool_named_in_another_case() -> None:
    async with make_server(None).running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("tools/call", {"Name": "game/repeat"})
    assert info.value.code == -32602


@pytest.mark.parametrize(
    ("params", "acknowledged"),
    [
        ({"AttentionId": "attn"}, True),
        ({"attentionid": None, "ATTENTIONID": "attn"}, True),
        ({"attentionId": "attn", "AttentionId": None}, None),
    ],
    ids=["AttentionId", "later-wins", "later-null-taken"],
)
async def test_the_ack_id_is_matched_in_any_case_and_a_later_null_replaces_it(
    params: dict[str, Any], acknowledged: bool | None
) -> None:
    async with make_server(LIB_GAB).running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5):
            if acknowledged is None:
                with pytest.raises(RemoteError) as info:
                    await conn.request("attention/ack", params)
                assert info.value.code == -32602
            else:
                outcome = await conn.request("attention/ack", params)
                assert outcome["attentionId"] == "attn"
                assert outcome["acknowledged"] is False  # nothing was open


@pytest.mark.parametrize("options", [None, LIB_GAB], ids=["defaults", "lib_gab"])
async def test_channels_are_read_by_their_exact_name_in_both_modes(
    options: ProtocolOptions | None,
) -> None:
    async with make_server(options).running() as address, bridge_session(address, TOKEN) as conn:
        with anyio.fail_after(5), pytest.raises(RemoteError) as info:
            await conn.request("events/subscribe", {"Channels": ["attention/opened"]})
    assert info.value.code == -32602


def test_params_without_another_spelling_are_left_as_they_are() -> None:
    params = {"name": "game/repeat", "arguments": {}, "extra": 1}
    assert fold_params("tools/call", params) is params
    other = {"Channels": ["a"]}
    assert fold_params("events/subscribe", other) is other
    hello = {"token": "t", "clientInfo": {"Name": "gabs", "VERSION": "1"}}
    assert fold_params("session/hello", hello) == {
        "token": "t",
        "clientInfo": {"name": "gabs", "version": "1"},
    }
