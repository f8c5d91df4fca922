"""MCP resources: ``gab://<gameId>/state`` for each connected game (:class:`GameResources`).

As the Go bridge has them: ``resources/list`` shows one resource per connected game (name
``<gameId> Game State``, ``application/json``), and ``resources/read`` answers in MCP's shape,
``{contents: [{uri, mimeType, text}]}``, the text being a JSON object with ``gameId``,
``connected``, ``toolCount``, ``capabilities``, ``availableTools`` and ``lastUpdate`` (Unix
seconds, as a string). Read from the session's mirrored state: no round trip to the game. Our
``attention`` summary (``supported``, ``open``, ``attentionId``, ``blocking``) is added.

The list changes when games connect or disconnect; the notifier sends
``notifications/resources/list_changed`` then (:mod:`gabs.mcp.notify`). An unknown or
disconnected game's URI is refused with ``-32602`` (invalid params).
"""

from __future__ import annotations

import json
import time
from typing import Any, Final

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from gabs.games import GameManager

__all__ = ["STATE_URI", "GameResources"]

#: The URI of a game's state resource.
STATE_URI: Final = "gab://{game_id}/state"
_PREFIX: Final = "gab://"
_SUFFIX: Final = "/state"


class GameResources:
    """The ``resources/list`` and ``resources/read`` handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager

    def uris(self) -> list[str]:
        return [STATE_URI.format(game_id=r.id) for r in self.manager.connected_games()]

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=STATE_URI.format(game_id=runtime.id),
                    name=f"{runtime.id} Game State",
                    description=f"Current state and capabilities of game: {runtime.id}",
                    mime_type="application/json",
                )
                for runtime in self.manager.connected_games()
            ]
        )

    def state(self, game_id: str) -> dict[str, Any] | None:
        """The state document of a connected game, or ``None``."""
        for runtime in self.manager.connected_games():
            if runtime.id != game_id or runtime.session is None:
                continue
            session = runtime.session
            capabilities = session.capabilities
            item = session.attention
            return {
                "gameId": runtime.id,
                "connected": True,
                "toolCount": len(session.tools),
                "capabilities": capabilities.to_wire() if capabilities is not None else {},
                "availableTools": sorted(session.tools),
                "lastUpdate": str(int(time.time())),
                "attention": {
                    "supported": session.supports_attention,
                    "open": item is not None,
                    "attentionId": item.attention_id if item else None,
                    "blocking": item.blocking if item else False,
                },
            }
        return None

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        state = None
        if uri.startswith(_PREFIX) and uri.endswith(_SUFFIX):
            state = self.state(uri[len(_PREFIX) : -len(_SUFFIX)])
        if state is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Resource not found: {uri} (resources/list shows the connected games' state)",
            )
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=uri,
                    mime_type="application/json",
                    text=json.dumps(state, ensure_ascii=False, separators=(",", ":")),
                )
            ]
        )
