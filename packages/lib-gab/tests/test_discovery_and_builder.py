"""Running under GABS or standing alone: Lib.GAB's detection rule, fallbacks and builder."""

from __future__ import annotations

import re
import types
from pathlib import Path

import anyio
import pytest

from lib_gab import (
    GabpServer,
    GabsLaunch,
    ServerConfigError,
    create_gabs_aware_server,
    create_server,
    create_server_with_instance_and_external_config,
    create_server_with_module,
    gabs_launch,
    is_running_under_gabs,
    tool,
)
from lib_gab.testing import bridge_session

TOKEN = "d" * 64


def gabs_env(**values: str) -> dict[str, str]:
    env = {
        "GABP_SERVER_PORT": "40123",
        "GABP_TOKEN": TOKEN,
        "GABS_GAME_ID": "rimworld",
        "GABS_BRIDGE_PATH": "/home/a/.gabs/rimworld/bridge.json",
    }
    env.update(values)
    return {k: v for k, v in env.items() if v != "<unset>"}


def test_a_gabs_launch_is_port_and_token_with_the_bridge_file_as_a_path() -> None:
    launch = gabs_launch(gabs_env())
    assert launch == GabsLaunch(
        port=40123,
        token=TOKEN,
        game_id="rimworld",
        bridge_path=Path("/home/a/.gabs/rimworld/bridge.json"),
    )
    assert TOKEN not in repr(launch)


@pytest.mark.parametrize(
    ("overrides", "under_gabs"),
    [
        ({}, True),
        ({"GABS_GAME_ID": "<unset>", "GABS_BRIDGE_PATH": "<unset>"}, True),
        ({"GABP_TOKEN": "<unset>"}, False),
        ({"GABP_TOKEN": ""}, False),
        ({"GABP_SERVER_PORT": "<unset>"}, False),
        ({"GABP_SERVER_PORT": "0"}, False),
        ({"GABP_SERVER_PORT": "65536"}, False),
        ({"GABP_SERVER_PORT": "port"}, False),
        ({"GABP_SERVER_PORT": " 5174 "}, True),
        # digits beyond ASCII: .NET's int.Parse refuses them, and "²" would crash int()
        ({"GABP_SERVER_PORT": "\u00b2"}, False),
        ({"GABP_SERVER_PORT": "\u0663\u0664"}, False),
    ],
)
def test_running_under_gabs_needs_a_valid_port_and_a_token(
    overrides: dict[str, str], under_gabs: bool
) -> None:
    assert is_running_under_gabs(gabs_env(**overrides)) is under_gabs


def test_a_bridge_file_is_never_a_fallback_for_port_or_token(tmp_path: Path) -> None:
    bridge = tmp_path / "bridge.json"
    bridge.write_text('{"token": "' + "e" * 64 + '", "transport": {"type": "tcp", "address": "5"}}')
    env = {"GABS_BRIDGE_PATH": str(bridge), "GABS_GAME_ID": "rimworld"}
    assert gabs_launch(env) is None
    server = GabpServer.gabs_aware(app_name="Game", app_version="1", env=env)
    assert server.token != "e" * 64


def test_standing_alone_the_server_takes_lib_gabs_defaults_and_a_fresh_token() -> None:
    server = GabpServer.gabs_aware(app_name="Game", app_version="1", fallback_port=5174, env={})
    other = GabpServer.gabs_aware(app_name="Game", app_version="1", env={})
    assert (server.port, server.agent_id, server.bridge_path) == (5174, "gabp-server", None)
    assert re.fullmatch("[0-9a-f]{64}", server.token)
    assert other.token != server.token and other.port == 0


def test_under_gabs_the_launch_wins_over_the_fallbacks() -> None:
    server = GabpServer.gabs_aware(
        app_name="Game", app_version="1", fallback_port=5174, agent_id="mine", env=gabs_env()
    )
    assert (server.port, server.agent_id, server.token) == (40123, "rimworld", TOKEN)
    assert server.bridge_path == Path("/home/a/.gabs/rimworld/bridge.json")
    no_id = GabpServer.gabs_aware(
        app_name="Game", app_version="1", agent_id="mine", env=gabs_env(GABS_GAME_ID="<unset>")
    )
    assert no_id.agent_id == "mine"


def test_a_short_gabs_token_is_refused_where_lib_gab_would_take_it() -> None:
    with pytest.raises(ServerConfigError, match="at least 32"):
        GabpServer.gabs_aware(app_name="Game", app_version="1", env=gabs_env(GABP_TOKEN="short"))


def test_the_builder_configures_the_way_rimbridgeserver_does() -> None:
    standalone = (
        create_server()
        .use_app_info("RimBridgeServer", "1.6.0")
        .use_gabs_environment_if_available({})
        .use_port_if_not_set(5174)
        .enable_attention_support()
        .build()
    )
    assert (standalone.port, standalone.app.name, standalone.agent_id) == (
        5174,
        "RimBridgeServer",
        "gabp-server",
    )
    assert standalone.attention is not None
    launched = (
        create_server()
        .use_app_info("RimBridgeServer", "1.6.0")
        .use_gabs_environment_if_available(gabs_env())
        .use_port_if_not_set(5174)
        .build()
    )
    assert (launched.port, launched.agent_id, launched.token) == (40123, "rimworld", TOKEN)
    assert launched.attention is None
    external = create_server().use_external_config(7000, TOKEN, "factorio").build()
    assert (external.port, external.agent_id) == (7000, "factorio")


class Tools:
    @tool("game/ping", description="Ping.")
    def ping(self) -> dict[str, bool]:
        return {"pong": True}


async def test_a_gabs_aware_server_with_an_instance_serves_its_tools() -> None:
    server = create_gabs_aware_server("Game", "1", instance=Tools(), env={})
    async with server.running() as address, bridge_session(address, server.token) as conn:
        with anyio.fail_after(5):
            result = await conn.request("tools/call", {"name": "game/ping", "parameters": None})
    assert result == {"pong": True}


def test_instance_and_external_config_make_one_server_as_in_lib_gab() -> None:
    server = create_server_with_instance_and_external_config(
        "Game", "2", Tools(), 7001, TOKEN, "factorio"
    )
    assert (server.port, server.token, server.agent_id) == (7001, TOKEN, "factorio")
    assert (server.app.name, server.app.version) == ("Game", "2")
    assert server.has_tool("game/ping")
    without_id = create_server_with_instance_and_external_config("Game", "2", Tools(), 7002, TOKEN)
    assert (without_id.port, without_id.agent_id) == (7002, "gabp-server")


def _colony_module() -> types.ModuleType:
    """A module as an assembly: a function tool, a class with static and instance tools, and a
    class imported from elsewhere."""
    module = types.ModuleType("colony_module")

    @tool("colony/ping", description="Ping.")
    def ping() -> dict[str, bool]:
        return {"pong": True}

    class Store:
        @tool("colony/store_count", description="Count the stored things.")
        @staticmethod
        def count() -> int:
            return 3

        @tool("colony/store_open", description="Needs an instance: not found in a scan.")
        def open(self) -> None:
            raise AssertionError("never registered")

    class Imported:
        @tool("other/version", description="Belongs to another module.")
        @staticmethod
        def version() -> str:
            return "1"

    Store.__module__ = module.__name__
    module.ping = ping  # type: ignore[attr-defined]
    module.Store = Store  # type: ignore[attr-defined]
    module.Imported = Imported  # type: ignore[attr-defined]
    return module


async def test_a_module_is_scanned_as_lib_gab_scans_an_assembly() -> None:
    server = create_server_with_module("Game", "1", _colony_module(), port=0)
    assert sorted(tool.name for tool in server.tools) == ["colony/ping", "colony/store_count"]
    async with server.running() as address, bridge_session(address, server.token) as conn:
        with anyio.fail_after(5):
            counted = await conn.request("tools/call", {"name": "colony/store_count"})
    assert counted == 3
    with pytest.raises(TypeError, match="expected a module"):
        create_server_with_module("Game", "1", Tools())  # type: ignore[arg-type]
