"""How a game starts its server from the environment a bridge gives it (compared with Lib.GAB
1.0.3 in docs/ports/lib-gab.md): where it listens, with which token, and when it refuses."""

from __future__ import annotations

import errno
import logging
import re
import socket
from collections.abc import Callable

import anyio
import pytest

from gabp import ErrorCode, RemoteError
from lib_gab import (
    GabpServer,
    GabpServerBuilder,
    ServerConfigError,
    create_server,
    gabs_launch,
    is_running_under_gabs,
)
from lib_gab.testing import bridge_session

TOKEN = "c" * 64


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def launch_env(port: int | str, **values: str | None) -> dict[str, str]:
    env: dict[str, str | None] = {
        "GABS_GAME_ID": "monogame",
        "GABP_SERVER_PORT": str(port),
        "GABP_TOKEN": TOKEN,
    }
    env.update(values)
    return {k: v for k, v in env.items() if v is not None}


def default_builder() -> GabpServerBuilder:
    return create_server()


def lib_gab_builder() -> GabpServerBuilder:
    return create_server().use_lib_gab_protocol_choices()


BUILDERS: list[Callable[[], GabpServerBuilder]] = [default_builder, lib_gab_builder]


def build(make: Callable[[], GabpServerBuilder], env: dict[str, str]) -> GabpServer:
    """What the Mono game does: app info, the GABS environment if any, attention."""
    return (
        make()
        .use_app_info("MonoLibGabGame", "1.0.0")
        .use_gabs_environment_if_available(env)
        .enable_attention_support()
        .build()
    )


async def welcome_agent(server: GabpServer, token: str) -> tuple[str, int, str]:
    """Serve, check the address is loopback, say hello with ``token``: host, port, agent id."""
    async with server.running() as address, bridge_session(address, token) as conn:
        with anyio.fail_after(5):
            listed = await conn.request("tools/list", {})
    assert isinstance(listed, dict)
    assert address.host == "127.0.0.1" and address.port is not None
    return address.host, address.port, server.agent_id


@pytest.mark.parametrize("make", BUILDERS)
@pytest.mark.parametrize("raw", ["{port}", " {port} ", "+{port}", "0{port}"])
async def test_a_valid_launch_listens_on_the_bridges_port_with_its_token(
    make: Callable[[], GabpServerBuilder], raw: str
) -> None:
    port = free_port()
    server = build(make, launch_env(raw.format(port=port)))
    assert await welcome_agent(server, TOKEN) == ("127.0.0.1", port, "monogame")


@pytest.mark.parametrize("make", BUILDERS)
@pytest.mark.parametrize("game_id", [None, ""])
async def test_without_a_game_id_the_agent_id_is_lib_gabs_default(
    make: Callable[[], GabpServerBuilder], game_id: str | None
) -> None:
    port = free_port()
    server = build(make, launch_env(port, GABS_GAME_ID=game_id))
    assert await welcome_agent(server, TOKEN) == ("127.0.0.1", port, "gabp-server")


@pytest.mark.parametrize("make", BUILDERS)
async def test_standing_alone_any_free_loopback_port_and_a_fresh_token(
    make: Callable[[], GabpServerBuilder],
) -> None:
    server = build(make, {"GABS_GAME_ID": "monogame"})
    assert re.fullmatch("[0-9a-f]{64}", server.token)
    host, port, agent_id = await welcome_agent(server, server.token)
    assert (host, agent_id) == ("127.0.0.1", "gabp-server") and port > 0
    assert not is_running_under_gabs({"GABS_GAME_ID": "monogame"})


PARTIAL_LAUNCHES = [
    ({"GABP_SERVER_PORT": None}, "GABP_SERVER_PORT is empty or not set"),
    ({"GABP_SERVER_PORT": ""}, "GABP_SERVER_PORT is empty or not set"),
    ({"GABP_SERVER_PORT": "abc"}, "GABP_SERVER_PORT is 'abc'"),
    ({"GABP_SERVER_PORT": "0"}, "GABP_SERVER_PORT is '0'"),
    ({"GABP_SERVER_PORT": "-1"}, "GABP_SERVER_PORT is '-1'"),
    ({"GABP_SERVER_PORT": "70000"}, "GABP_SERVER_PORT is '70000'"),
    ({"GABP_TOKEN": None}, "GABP_TOKEN is empty or not set"),
    ({"GABP_TOKEN": ""}, "GABP_TOKEN is empty or not set"),
]


@pytest.mark.parametrize("make", BUILDERS)
@pytest.mark.parametrize(("values", "message"), PARTIAL_LAUNCHES)
def test_a_launch_that_cannot_be_used_is_refused_not_replaced(
    make: Callable[[], GabpServerBuilder], values: dict[str, str | None], message: str
) -> None:
    # Lib.GAB starts on a port and with a token of its own here, where no bridge looks
    env = launch_env(free_port(), **values)
    with pytest.raises(ServerConfigError, match=re.escape(message)):
        build(make, env)
    with pytest.raises(ServerConfigError, match=re.escape(message)):
        gabs_launch(env)
    with pytest.raises(ServerConfigError, match=re.escape(message)):
        GabpServer.gabs_aware(app_name="Game", app_version="1", env=env)
    assert is_running_under_gabs(env) is False  # Lib.GAB's answer


async def test_a_short_token_from_the_bridge_is_taken_with_lib_gabs_choices(
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = free_port()
    env = launch_env(port, GABP_TOKEN="abc")
    with pytest.raises(ServerConfigError, match="at least 32 characters"):
        build(default_builder, env)
    with caplog.at_level(logging.WARNING, logger="lib_gab.server"):
        server = build(lib_gab_builder, env)
    assert "the token has only 3 characters" in caplog.text
    assert "abc" not in caplog.text
    assert await welcome_agent(server, "abc") == ("127.0.0.1", port, "monogame")
    async with server.running() as address:
        for wrong in ["", "ab", "abcd", TOKEN]:  # a failed hello closes its connection
            async with bridge_session(address, "", hello=False) as conn:
                with anyio.fail_after(5), pytest.raises(RemoteError) as info:
                    await conn.request("session/hello", {"token": wrong})
            assert info.value.code == ErrorCode.AUTHENTICATION_FAILED


@pytest.mark.parametrize("make", BUILDERS)
def test_an_empty_token_is_refused_whatever_the_choices(
    make: Callable[[], GabpServerBuilder],
) -> None:
    with pytest.raises(ServerConfigError, match="must not be empty"):
        make().use_token("").build()


@pytest.mark.parametrize("make", BUILDERS)
async def test_a_port_in_use_is_named_in_the_error(make: Callable[[], GabpServerBuilder]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = build(make, launch_env(port))
        with pytest.raises(
            ServerConfigError, match=f"port {port} on 127.0.0.1 is already in use"
        ) as info:
            async with server.running():
                pass
    # still the OSError it was, for code that catches that
    assert isinstance(info.value, OSError) and info.value.errno == errno.EADDRINUSE
