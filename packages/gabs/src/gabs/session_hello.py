"""The bridge's side of ``session/hello``: what it sends, how it reads the welcome, and which
failures end a connection attempt for good.

A game that accepted the TCP connection and then failed the hello (refused it with a GABP
error, sent a reply that cannot be read, closed the connection, or never answered) gave its
answer: another attempt with the same port and token would get the same one. The Go bridge
(GABS 1.1.0) retries only connections that could not be made, and so does ``gabs``
(:class:`HandshakeFailed` is never retried by a start or a connect).

The welcome is read as the Go bridge reads it where that costs nothing: ``agentId``, ``app``,
``capabilities`` and ``schemaVersion`` may be missing (the Go bridge reads an absent member as
empty, and the game's tools still come from ``tools/list``). A ``schemaVersion`` given as
something other than ``1.x`` is still refused: it names a schema this bridge does not speak.
"""

from __future__ import annotations

import platform
from typing import Any

from gabp import SCHEMA_VERSION, GabpError, MessageError
from gabp.messages import parse_result
from gabs._version import __version__

__all__ = ["HandshakeFailed", "SessionError", "hello_params", "read_welcome"]


class SessionError(GabpError):
    """The session could not be set up (connection refused, hello refused, bad reply)."""


class HandshakeFailed(SessionError):
    """The game took the connection but the hello failed: final for this port and token."""


def _platform() -> str:
    system = platform.system().lower()
    return {"darwin": "macos", "windows": "windows"}.get(system, "linux")


def hello_params(token: str, launch_id: str) -> dict[str, Any]:
    """The ``session/hello`` params (the Go bridge's members, in its order)."""
    return {
        "token": token,
        "bridgeVersion": __version__,
        "platform": _platform(),
        "launchId": launch_id,
        "clientInfo": {"name": "gabs", "version": __version__},
    }


def read_welcome(game_id: str, reply: Any) -> Any:
    """The parsed welcome (``HelloResult``); members the Go bridge does without are filled in.

    Raises :class:`HandshakeFailed` for a reply that is not an object or cannot be read.
    """
    if isinstance(reply, dict):
        filled = dict(reply)
        if not filled.get("agentId"):
            filled["agentId"] = game_id
        if "app" not in filled or filled["app"] is None:
            filled["app"] = {"name": game_id, "version": "unknown"}
        if "capabilities" not in filled or filled["capabilities"] is None:
            filled["capabilities"] = {}
        if "schemaVersion" not in filled:
            filled["schemaVersion"] = SCHEMA_VERSION
        reply = filled
    try:
        return parse_result("session/hello", reply)
    except MessageError as exc:
        raise HandshakeFailed(f"{game_id} sent an invalid hello reply: {exc}") from None
