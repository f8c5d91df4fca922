"""Helpers for testing a GABP server the way a bridge would use it.

``bridge_session`` opens a real connection to a running server (TCP or Unix socket), sends a
``session/hello`` with the token, and yields the bridge-side :class:`gabp.Connection`::

    async with server.running() as address, bridge_session(address, token) as bridge:
        result = await bridge.request("tools/call", {"name": "colony/get_status"})
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from gabp import Connection, new_id
from gabp.messages import Event
from lib_gab.server import ServerAddress

__all__ = ["bridge_session", "hello_params"]


def hello_params(
    token: str, *, bridge_version: str = "1.1.0", platform: str = "linux"
) -> dict[str, Any]:
    """The params of a session/hello with ``token`` and a fresh launch id."""
    return {
        "token": token,
        "bridgeVersion": bridge_version,
        "platform": platform,
        "launchId": new_id(),
        "clientInfo": {"name": "lib-gab testing", "version": "0.1.0"},
    }


@asynccontextmanager
async def bridge_session(
    address: ServerAddress,
    token: str,
    *,
    hello: bool = True,
    on_event: Callable[[Event], None] | None = None,
    timeout: float = 5.0,
) -> AsyncIterator[Connection]:
    """A bridge-side connection to ``address`` (after a good hello unless ``hello=False``)."""
    if address.transport == "unix":
        assert address.path is not None
        stream: Any = await anyio.connect_unix(address.path)
    elif address.transport == "tcp":
        assert address.host is not None and address.port is not None
        stream = await anyio.connect_tcp(address.host, address.port)
    else:
        raise ValueError("bridge_session connects to tcp or unix servers")
    async with Connection(stream, on_event=on_event, name="bridge") as connection:
        if hello:
            with anyio.fail_after(timeout):
                await connection.request("session/hello", hello_params(token))
        yield connection
