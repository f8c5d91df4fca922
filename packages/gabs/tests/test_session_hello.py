"""How the bridge reads a game's welcome (the ``session/hello`` reply), pinned to what the Go
bridge (GABS 1.1.0) accepts, checked side by side with ``handshake_game.py``."""

from __future__ import annotations

import pytest

from gabs.session_hello import HandshakeFailed, SessionError, hello_params, read_welcome

FULL = {
    "agentId": "hs",
    "app": {"name": "Game", "version": "1"},
    "capabilities": {"methods": ["tools/list"], "events": [], "resources": []},
    "schemaVersion": "1.0",
}


@pytest.mark.parametrize("member", ["agentId", "app", "capabilities", "schemaVersion"])
def test_a_welcome_without_a_member_the_go_bridge_does_without_is_read(member: str) -> None:
    welcome = {key: value for key, value in FULL.items() if key != member}
    hello = read_welcome("hs", welcome)
    assert hello.agent_id == "hs"
    if member == "capabilities":
        assert hello.capabilities.methods == []


def test_extra_members_and_a_minor_schema_version_are_read() -> None:
    hello = read_welcome("hs", {**FULL, "schemaVersion": "1.1", "unexpected": {"x": 1}})
    assert hello.capabilities.methods == ["tools/list"]


@pytest.mark.parametrize("reply", [{**FULL, "schemaVersion": "2.0"}, [1], "welcome", None])
def test_a_welcome_of_another_protocol_or_not_an_object_fails_the_handshake(reply: object) -> None:
    with pytest.raises(HandshakeFailed, match="hs sent an invalid hello reply") as caught:
        read_welcome("hs", reply)
    assert isinstance(caught.value, SessionError)


def test_the_hello_params_are_the_go_bridges_members_in_its_order() -> None:
    params = hello_params("t" * 64, "launch")
    assert list(params) == ["token", "bridgeVersion", "platform", "launchId", "clientInfo"]
    assert params["clientInfo"]["name"] == "gabs"
