"""Lib.GAB 1.0.3's public surface used wrongly: what it throws, and what lib_gab raises in its
place (docs/ports/lib-gab.md, section 1, "Misuse"). Each Lib.GAB answer was read from its
source and checked with a Mono build of Lib.GAB.dll."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest

import lib_gab
from gabp.messages import TOOL_NAME_PATTERN
from lib_gab import (
    GabpServer,
    check_tool_name,
    create_server,
    create_server_with_instance,
    create_simple_server,
    is_valid_tool_name,
    tool,
)
from lib_gab.resources import Resource
from lib_gab.testing import bridge_session

TOKEN = "d" * 64


def server(**options: Any) -> GabpServer:
    return GabpServer(app_name="G", app_version="1", agent_id="g", token=TOKEN, **options)


def attention_item(**overrides: Any) -> dict[str, Any]:
    return {"attentionId": "a-1", "summary": "A pawn is down.", "blocking": True, **overrides}


# -- ToolNameValidator ---------------------------------------------------------------------------


def test_lib_gabs_tool_name_validator_has_a_counterpart() -> None:
    assert lib_gab.TOOL_NAME_PATTERN == TOOL_NAME_PATTERN  # CanonicalPattern
    assert is_valid_tool_name("inventory/get")  # IsValid
    for name in ("inventory.get", "Inventory/get", "inventory", "", "  ", None, 5):
        assert not is_valid_tool_name(name)
    assert check_tool_name("inventory/get") == "inventory/get"  # EnsureValid
    with pytest.raises(ValueError, match=re.escape(TOOL_NAME_PATTERN)):
        check_tool_name("a/b c")


@pytest.mark.parametrize("name", ["a/b\n", "inventory/get\n"])
def test_a_tool_name_ending_in_a_line_break_is_refused_everywhere(name: str) -> None:
    # Lib.GAB takes it (.NET's `$` matches before a final line break); so did lib_gab, and then
    # tools/list failed for every tool, as GABP's descriptor pattern refuses the name
    assert not is_valid_tool_name(name)
    target = server()
    with pytest.raises(ValueError, match="must match"):
        target.register_tool(name, lambda arguments: 1)
    with pytest.raises(ValueError, match="must match"):
        tool(name)
    with pytest.raises(ValueError, match="must match"):
        target.add_tool(lambda: 1, name=name, description="d")
    assert target.tools.list() == []


# -- the tool registry ---------------------------------------------------------------------------


def test_registering_tools_from_none_is_refused_as_lib_gab_refuses_it() -> None:
    # Lib.GAB: ArgumentNullException from RegisterToolsFromInstance(null)
    with pytest.raises(TypeError, match="not None"):
        server().register_tools_from(None)
    with pytest.raises(TypeError, match="not None"):
        create_server_with_instance("G", "1", None)
    assert server().register_tools_from(object()) == []  # no tools is no error, in both


# -- event channels ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", " ", "\t\n"])
def test_a_blank_channel_name_is_refused(name: str) -> None:
    # Lib.GAB: ArgumentException ("Channel name cannot be null or empty") for white space too
    target = server()
    with pytest.raises(ValueError, match="empty or blank"):
        target.channel(name)
    assert target.channels() == []


# -- starting and stopping -----------------------------------------------------------------------


async def test_starting_a_running_server_again_is_refused_and_it_serves_on() -> None:
    # Lib.GAB: InvalidOperationException ("Transport is already running"); lib_gab listened a
    # second time on another free port and reported that one as the server's
    target = server()
    target.channel("game/tick")
    async with target.running() as address:
        with pytest.raises(RuntimeError, match="already running"):
            async with target.running():
                pass  # pragma: no cover
        with pytest.raises(RuntimeError, match="already running"):
            await target.serve()
        assert target.port == address.port
        assert target.address == address
        async with bridge_session(address, TOKEN) as bridge:
            assert await bridge.request("events/subscribe", {"channels": ["game/tick"]}) == {
                "subscribed": ["game/tick"]
            }
    # stopped, it starts again, as Lib.GAB's StartAsync after StopAsync does
    async with target.running() as again, bridge_session(again, TOKEN):
        assert target.port == again.port


async def test_a_server_that_failed_to_listen_can_start_later() -> None:
    with anyio.fail_after(5):
        blocker = server()
        async with blocker.running() as taken:
            busy = server(port=taken.port)
            with pytest.raises(OSError, match="already in use"):
                async with busy.running():
                    pass  # pragma: no cover
        async with busy.running() as address:
            assert address.port == taken.port


async def test_serve_refuses_a_second_start_while_it_serves() -> None:
    target = create_simple_server("G", "1")
    async with anyio.create_task_group() as tg:
        await tg.start(target.serve)
        with pytest.raises(RuntimeError, match="already running"):
            async with target.running():
                pass  # pragma: no cover
        tg.cancel_scope.cancel()
    async with target.running():
        pass


# -- attention -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given", [{"attentionId": " "}, {"attentionId": ""}, {"attentionId": None}, {}]
)
def test_publishing_an_item_without_a_usable_id_is_refused_and_changes_nothing(
    given: dict[str, Any],
) -> None:
    # Lib.GAB: ArgumentException ("Attention item must have a non-empty attentionId"); lib_gab
    # took a blank id and raised KeyError for a missing one
    manager = create_server().enable_attention_support().build().attention
    assert manager is not None
    manager.publish(attention_item())
    bad = attention_item()
    del bad["attentionId"]
    with pytest.raises(ValueError, match="non-blank attentionId"):
        manager.publish({**bad, **given})
    current = manager.current()
    assert current is not None and current.attention_id == "a-1"


@pytest.mark.parametrize("attention_id", ["", " ", None])
async def test_acknowledging_a_blank_id_is_refused_by_the_manager_too(
    attention_id: Any,
) -> None:
    # Lib.GAB: AcknowledgeAsync throws ArgumentException; the manager's ack answered "not
    # acknowledged" where server.acknowledge_attention raised
    target = create_server().enable_attention_support().build()
    manager = target.attention
    assert manager is not None
    manager.publish(attention_item())
    with pytest.raises(ValueError, match="non-empty attention id"):
        manager.ack(attention_id)
    with pytest.raises(ValueError, match="non-empty attention id"):
        await target.acknowledge_attention(attention_id)
    assert manager.current() is not None


def test_clearing_with_blank_members_takes_them_from_the_open_item() -> None:
    # Lib.GAB's ClearAsync fills what IsNullOrWhiteSpace calls empty; lib_gab kept " "
    manager = create_server().enable_attention_support().build().attention
    assert manager is not None
    manager.publish(attention_item(causalMethod="tools/call"))
    cleared = manager.clear({"attentionId": "  ", "summary": " ", "causalMethod": "\t"})
    assert cleared is not None
    assert cleared.attention_id == "a-1"
    assert cleared.summary == "A pawn is down."
    assert cleared.causal_method == "tools/call"
    assert cleared.state == "cleared" and cleared.blocking is False


def test_a_resource_uri_ending_in_a_line_break_is_refused() -> None:
    assert Resource(uri="gabp://game/state", name="state", content={}).uri == "gabp://game/state"
    with pytest.raises(ValueError, match="must look like"):
        Resource(uri="gabp://game/state\n", name="state", content={})
