"""The lifecycle tools: games_list, games_show, games_start, games_stop, games_kill,
games_status and games_connect.

:class:`LifecycleTools` binds their handlers to one :class:`~gabs.games.GameManager`; the
dispatcher (:mod:`gabs.mcp.dispatch`) has already checked the arguments against the tool's
input schema and turns a :class:`~gabs.games.GameError` raised here into a refusal.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext

from gabs.games import GameError, GameManager
from gabs.mcp.rendering import compact, status_line, text_result
from gabs.mcp.schemas import ToolHandler

__all__ = ["LifecycleTools"]

logger = logging.getLogger("gabs.mcp.lifecycle")


class LifecycleTools:
    """The lifecycle tools' handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.handlers: dict[str, ToolHandler] = {
            "games_list": self.games_list,
            "games_show": self.games_show,
            "games_start": self.games_start,
            "games_stop": self.games_stop,
            "games_kill": self.games_kill,
            "games_status": self.games_status,
            "games_connect": self.games_connect,
        }

    async def games_list(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        games = self.manager.list_games()
        lines = [
            f"{g['id']} ({g['name']}, {g['launchMode']}): {g['status']}"
            + (f" - {g['description']}" if g.get("description") else "")
            for g in games
        ]
        text = "\n".join(lines) if lines else "No games configured (add one with `gabs games add`)."
        return text_result(text, {"games": games})

    async def games_show(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.show(args["gameId"])
        config = dict(data["config"])
        if "env" in config:
            config["env"] = dict.fromkeys(config["env"], "<hidden>")
        data = {"config": config, "runtime": data["runtime"]}
        return text_result(compact(data), data)

    async def games_start(
        self, ctx: ServerRequestContext[Any, Any], args: dict[str, Any]
    ) -> types.CallToolResult:
        game_id = args["gameId"]
        send, receive = anyio.create_memory_object_stream[str](64)

        async def pump() -> None:
            count = 0
            async with receive:
                async for message in receive:
                    count += 1
                    try:
                        await ctx.session.report_progress(count, None, message)
                    except Exception:  # best effort: the client may be gone
                        logger.debug("progress not delivered", exc_info=True)

        def progress(message: str) -> None:
            logger.info("%s", message)
            with contextlib.suppress(
                anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError
            ):
                send.send_nowait(message)

        failure: GameError | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            try:
                data = await self.manager.start(game_id, progress=progress)
            except GameError as exc:  # raised after the group, not as an exception group
                failure = exc
            finally:
                send.close()
        if failure is not None:
            raise failure
        return text_result(f"{data['status']}. {status_line(data)}", data)

    async def games_stop(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = await self.manager.stop(args["gameId"])
        return text_result(f"{args['gameId']} stopped (exit code {data['exitCode']}).", data)

    async def games_kill(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = await self.manager.kill(args["gameId"])
        return text_result(f"{args['gameId']} killed (exit code {data['exitCode']}).", data)

    async def games_status(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        game_id = args.get("gameId")
        if game_id:
            status = self.manager.status(game_id)
            return text_result(status_line(status), status)
        games = self.manager.all_status()
        text = "\n".join(status_line(s) for s in games) or "No games configured."
        return text_result(text, {"games": games})

    async def games_connect(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = await self.manager.connect(
            args["gameId"],
            port=int(args["port"]) if "port" in args else None,
            token=args.get("token"),
        )
        return text_result(f"{data['status']}. {status_line(data)}", data)
