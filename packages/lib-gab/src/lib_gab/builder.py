"""Lib.GAB's builder and factory functions, in Python naming.

::

    server = (
        create_server()
        .use_app_info("RimBridgeServer", "1.0.0")
        .use_gabs_environment_if_available()
        .use_port_if_not_set(5174)
        .enable_attention_support()
        .build()
    )
    if not is_running_under_gabs():
        print(f"listening on {server.port}, token {server.token}")

The defaults are Lib.GAB's (port 0, agent id ``gabp-server``, app ``GABP Server`` 1.0.0), except
the token: a fresh 64-hex-digit one rather than a 32-digit GUID.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from lib_gab._server_config import ProtocolOptions
from lib_gab.discovery import gabs_launch, is_running_under_gabs
from lib_gab.server import DEFAULT_AGENT_ID, GabpServer

__all__ = [
    "GabpServerBuilder",
    "create_gabs_aware_server",
    "create_server",
    "create_server_with_external_config",
    "create_server_with_instance",
    "create_server_with_instance_and_external_config",
    "create_server_with_module",
    "create_simple_server",
    "is_running_under_gabs",
]


class GabpServerBuilder:
    """Builds a :class:`GabpServer` step by step (Lib.GAB's ``GabpServerBuilder``)."""

    def __init__(self) -> None:
        self._port = 0
        self._token = secrets.token_hex(32)
        self._agent_id = DEFAULT_AGENT_ID
        self._app = ("GABP Server", "1.0.0")
        self._attention = False
        self._bridge_path: str | None = None
        self._options: dict[str, Any] = {}

    def use_port(self, port: int) -> GabpServerBuilder:
        """Listen on ``port`` (0: any free port)."""
        self._port = port
        return self

    def use_port_if_not_set(self, port: int) -> GabpServerBuilder:
        """Listen on ``port`` unless a port was set already (the fallback after GABS)."""
        if self._port == 0:
            self._port = port
        return self

    def use_token(self, token: str) -> GabpServerBuilder:
        self._token = token
        return self

    def use_agent_id(self, agent_id: str) -> GabpServerBuilder:
        self._agent_id = agent_id
        return self

    def use_app_info(self, name: str, version: str) -> GabpServerBuilder:
        self._app = (name, version)
        return self

    def enable_attention_support(self) -> GabpServerBuilder:
        """Serve attention/current, attention/ack and the attention channels."""
        self._attention = True
        return self

    def use_external_config(
        self, port: int, token: str, game_id: str | None = None
    ) -> GabpServerBuilder:
        """Port, token and (optionally) the game id as agent id, from a launcher."""
        self._port = port
        self._token = token
        if game_id is not None:
            self._agent_id = game_id
        return self

    def use_gabs_environment_if_available(
        self, env: Mapping[str, str] | None = None
    ) -> GabpServerBuilder:
        """Take port, token and game id from the GABS launch, when there is one."""
        launch = gabs_launch(env)
        if launch is not None:
            self._port = launch.port
            self._token = launch.token
            if launch.game_id:
                self._agent_id = launch.game_id
            self._bridge_path = str(launch.bridge_path) if launch.bridge_path else None
        return self

    def use_options(self, **options: Any) -> GabpServerBuilder:
        """Further :class:`GabpServer` arguments: ``limits``, ``options``, ``server_info``..."""
        self._options.update(options)
        return self

    def use_lib_gab_protocol_choices(self) -> GabpServerBuilder:
        """Answer as Lib.GAB 1.0.3 where GABP leaves the choice (see ``ProtocolOptions``)."""
        self._options["options"] = ProtocolOptions.lib_gab()
        return self

    def build(self) -> GabpServer:
        options = dict(self._options)
        options.setdefault("bridge_path", self._bridge_path)
        server = GabpServer(
            app_name=self._app[0],
            app_version=self._app[1],
            agent_id=self._agent_id,
            token=self._token,
            port=self._port,
            **options,
        )
        if self._attention:
            server.enable_attention()
        return server


def create_server() -> GabpServerBuilder:
    """A new builder (Lib.GAB's ``Gabp.CreateServer``)."""
    return GabpServerBuilder()


def create_simple_server(app_name: str, app_version: str, port: int = 0) -> GabpServer:
    return create_server().use_app_info(app_name, app_version).use_port(port).build()


def create_server_with_instance(
    app_name: str, app_version: str, instance: object, port: int = 0
) -> GabpServer:
    """A server with the tools marked on ``instance`` registered."""
    server = create_simple_server(app_name, app_version, port)
    server.register_tools_from(instance)
    return server


def create_server_with_module(
    app_name: str, app_version: str, module: ModuleType, port: int = 0
) -> GabpServer:
    """A server with the tools marked in ``module`` registered: its functions and the static
    and class methods of its classes (Lib.GAB's ``CreateServerWithAssembly``; a module is
    Python's unit of code as an assembly is .NET's)."""
    if not isinstance(module, ModuleType):
        raise TypeError(f"expected a module, got {type(module).__name__}")
    server = create_simple_server(app_name, app_version, port)
    server.register_tools_from(module)
    return server


def create_server_with_instance_and_external_config(
    app_name: str,
    app_version: str,
    instance: object,
    port: int,
    token: str,
    game_id: str | None = None,
) -> GabpServer:
    """:func:`create_server_with_external_config` with the tools marked on ``instance``
    registered (Lib.GAB's ``CreateServerWithInstanceAndExternalConfig``, both overloads)."""
    server = create_server_with_external_config(app_name, app_version, port, token, game_id)
    server.register_tools_from(instance)
    return server


def create_server_with_external_config(
    app_name: str, app_version: str, port: int, token: str, game_id: str | None = None
) -> GabpServer:
    return (
        create_server()
        .use_app_info(app_name, app_version)
        .use_external_config(port, token, game_id)
        .build()
    )


def create_gabs_aware_server(
    app_name: str,
    app_version: str,
    fallback_port: int = 0,
    instance: object | None = None,
    env: Mapping[str, str] | None = None,
) -> GabpServer:
    """The GABS launch's configuration when there is one, else ``fallback_port`` (Lib.GAB's
    ``CreateGabsAwareServer`` / ``CreateGabsAwareServerWithInstance``)."""
    server = (
        create_server()
        .use_app_info(app_name, app_version)
        .use_gabs_environment_if_available(env)
        .use_port_if_not_set(fallback_port)
        .build()
    )
    if instance is not None:
        server.register_tools_from(instance)
    return server
