"""The seven lifecycle tools of the MCP surface, with the Go bridge's names, arguments and
results: ``games_list``, ``games_show``, ``games_start``, ``games_stop``, ``games_kill``,
``games_status`` and ``games_connect``.

Each result has the Go bridge's structured content (``code``, ``gameId``, ``nextActions``,
``causeClass`` on failures, ...) plus fields of ours (process, connection, attention), and a
text for the model. Refusals and failures set ``isError``, except the informational ones the Go
bridge also leaves unflagged (``already_running``, ``operation_in_progress``, ``unobserved``,
``started_bridge_pending``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final

import anyio
import mcp_types as types

from gabs.games import GameManager
from gabs.lifecycle import LifecycleError, TrackRecord, context_hash, summary_line

__all__ = ["LIFECYCLE_SCHEMAS", "LifecycleTools", "render_error"]

logger = logging.getLogger("gabs.server")

_GAME_ID: Final[dict[str, Any]] = {
    "type": "string",
    "minLength": 1,
    "description": "The game's id as configured (see games_list).",
}


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


#: name -> (title, description, input schema)
LIFECYCLE_SCHEMAS: Final[dict[str, tuple[str, str, dict[str, Any]]]] = {
    "games_list": (
        "List games",
        "List all configured game IDs, with their profiles and launch mode. Start here to learn "
        "the gameId values other tools take.",
        _schema({}),
    ),
    "games_show": (
        "Show a game",
        "Show one game's configuration (environment values hidden), its profiles and declared "
        "launch inputs, configuration warnings and its runtime status.",
        _schema({"gameId": _GAME_ID}, ("gameId",)),
    ),
    "games_status": (
        "Game status",
        "Check the status of one game, or of every configured or still-running game when gameId "
        "is omitted: running, connected, shared-running (another session holds it: "
        "games_connect), starting, stopped, ... with evidence, the active profile, the attention "
        "summary. Never blocked.",
        _schema({"gameId": {**_GAME_ID, "description": "The game to check (optional: all)."}}),
    ),
    "games_start": (
        "Start a game",
        "Start a configured game: a fresh per-launch token, its GABP server awaited for a "
        "bounded time, then connected. code started_connected, or started_bridge_pending (the "
        "game runs, its bridge is still loading: GABS keeps connecting in the background; check "
        "games_status, then games_connect), already_running (use games_connect), "
        "exited_during_start (with the output tail), ... each with nextActions.",
        _schema(
            {
                "gameId": _GAME_ID,
                "timeout": {
                    "type": "integer",
                    "description": "Total seconds to wait for the game's GABP server (1 to 3600; "
                    "the call itself waits at most 20 s, then GABS connects in the background).",
                },
                "resetEndpoint": {
                    "type": "boolean",
                    "description": "Rotate the cached endpoint (a new port) before launch. Use only "
                    "after confirming the cached port is not an already-running game's bridge.",
                },
                "profile": {
                    "type": "string",
                    "description": "A named launch profile (default: the game's defaultProfile). "
                    "See games_show.",
                },
                "launchInputs": {
                    "type": "object",
                    "description": "Declared launch inputs (boolean/string/integer values); only "
                    "inputs declared in the game's configuration are accepted (see games_show).",
                },
            },
            ("gameId",),
        ),
    ),
    "games_stop": (
        "Stop a game",
        "Gracefully stop a running game (its stop hook, else SIGTERM to its process or the "
        "processes named stopProcessName) and verify that it ended. Never escalates to a kill.",
        _schema({"gameId": _GAME_ID}, ("gameId",)),
    ),
    "games_kill": (
        "Kill a game",
        "Force-terminate a running game (its kill hook, else SIGKILL) and verify that it ended. "
        "Use when games_stop does not end it.",
        _schema({"gameId": _GAME_ID}, ("gameId",)),
    ),
    "games_connect": (
        "Connect to a running game",
        "Connect to a running game's GABP server (started by games_start, 'gabs games start' or "
        "another GABS session) and mirror its tools. Another active session's game is refused "
        "unless forceTakeover is true.",
        _schema(
            {
                "gameId": _GAME_ID,
                "forceTakeover": {
                    "type": "boolean",
                    "description": "Take the game over from another live GABS session now.",
                },
                "timeout": {
                    "type": "integer",
                    "description": "Seconds to keep trying (default 15).",
                },
                "port": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 65535,
                    "description": "A GABP port to use instead of the recorded one.",
                },
                "token": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 1024,
                    "description": "The token for port.",
                },
            },
            ("gameId",),
        ),
    ),
}


def _result(text: str, data: dict[str, Any], *, error: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error=error,
    )


def render_error(error: LifecycleError, game_id: str | None) -> types.CallToolResult:
    """A :class:`LifecycleError` as a tool result."""
    data = error.to_json(game_id)
    text = error.message
    if error.warnings:
        text += "\n\nWarnings:" + "".join(f"\n  - {w}" for w in error.warnings)
    return _result(text, data, error=error.is_error)


def _status_line(item: dict[str, Any]) -> str:
    line = f"**{item['gameId']}** ({item.get('name', item['gameId'])}): {item['statusDescription']}"
    attention = item.get("attention") or {}
    if attention.get("open"):
        kind = "BLOCKING" if attention.get("blocking") else "advisory"
        line += (
            f"; attention {attention.get('attentionId')} open ({kind}): {attention.get('summary')}"
        )
    if item.get("lastDisconnect"):
        line += f"\n  {item['lastDisconnect']}"
    return line


class LifecycleTools:
    """The handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager

    def handlers(self) -> dict[str, Callable[[Any, dict[str, Any]], Any]]:
        return {
            "games_list": self.games_list,
            "games_show": self.games_show,
            "games_status": self.games_status,
            "games_start": self.games_start,
            "games_stop": self.games_stop,
            "games_kill": self.games_kill,
            "games_connect": self.games_connect,
        }

    async def _guard(self, game_id: str | None, work: Any) -> types.CallToolResult:
        try:
            return await work()
        except LifecycleError as exc:
            if exc.code not in ("game_not_found",) and game_id:
                self._track_record(exc, game_id)
            return render_error(exc, game_id)

    def _track_record(self, error: LifecycleError, game_id: str) -> None:
        config = self.manager.config
        game = config.games.get(game_id)
        if game is None or "trackRecord" in error.data:
            return
        profile = str(error.data.get("activeProfile") or game.default_profile or "")
        with contextlib.suppress(Exception):
            entry = TrackRecord(config.game_dir(game_id)).entry(
                profile, context_hash(game, profile)
            )
            error.data["trackRecord"] = summary_line(entry)

    async def games_list(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.list_games()
        games = data["games"]
        text = (
            "\n".join(g["gameId"] for g in games)
            if games
            else "No games configured. Use the CLI to add games: gabs games add <id>"
        )
        return _result(text, data, error=False)

    async def games_show(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        async def work() -> types.CallToolResult:
            data = await self.manager.show(args["gameId"])
            game = data["game"]
            lines = [f"Game Configuration: {game['gameId']}"]
            if "launchMode" in game:
                lines += [
                    f"  ID: {game['gameId']} ({game.get('name') or game['gameId']})",
                    f"  Launch: {game['launchMode']}",
                    f"  Target: {game.get('target', '')}",
                ]
            if data.get("profiles"):
                lines.append(
                    f"  Profiles: {', '.join(p['name'] for p in data['profiles'])} "
                    f"(default {data.get('defaultProfile')})"
                )
            if data.get("launchInputs"):
                lines.append(f"  Launch inputs: {', '.join(sorted(data['launchInputs']))}")
            for warning in [*data.get("validationWarnings", []), *data.get("configWarnings", [])]:
                lines.append(f"  Warning: {warning}")
            if data.get("configError"):
                lines.append(f"  Invalid entry: {data['configError']}")
            lines.append(f"  Status: {data['statusDescription']}")
            return _result("\n".join(lines), data, error=False)

        return await self._guard(args["gameId"], work)

    async def games_status(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        game_id = args.get("gameId")
        if game_id:

            async def work() -> types.CallToolResult:
                item = await self.manager.status(game_id)
                return _result(_status_line(item), item, error=False)

            return await self._guard(game_id, work)
        data = await self.manager.all_status()
        lines = ["Game Status Summary:", ""] + [
            "• " + _status_line(item) + ("" if item.get("configured", True) else " (unconfigured)")
            for item in data["games"]
        ]
        if not data["games"]:
            lines = ["No games configured and no runtime claims."]
        return _result("\n".join(lines), data, error=False)

    async def games_start(
        self, ctx: Any, args: dict[str, Any], progress: Callable[[str], None] | None = None
    ) -> types.CallToolResult:
        game_id = args["gameId"]
        timeout = args.get("timeout")
        if timeout is not None and not 1 <= timeout <= 3600:
            return render_error(
                LifecycleError(
                    "timeout_out_of_range",
                    "Argument 'timeout' must be an integer between 1 and 3600 seconds",
                    data={"minimum": 1, "maximum": 3600},
                ),
                game_id,
            )

        async def work() -> types.CallToolResult:
            data = await self.manager.start(
                game_id,
                profile=args.get("profile"),
                launch_inputs=args.get("launchInputs"),
                timeout=timeout,
                reset_endpoint=bool(args.get("resetEndpoint", False)),
                progress=progress,
            )
            text = data.pop("message")
            return _result(text, data, error=False)

        return await self._guard(game_id, work)

    async def games_stop(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self._stop(args["gameId"], kill=False)

    async def games_kill(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self._stop(args["gameId"], kill=True)

    async def _stop(self, game_id: str, *, kill: bool) -> types.CallToolResult:
        async def work() -> types.CallToolResult:
            data = await (self.manager.kill(game_id) if kill else self.manager.stop(game_id))
            text = data.pop("message")
            error = bool(data.pop("isError", False))
            return _result(text, data, error=error)

        return await self._guard(game_id, work)

    async def games_connect(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        game_id = args["gameId"]

        async def work() -> types.CallToolResult:
            timeout = args.get("timeout")
            data = await self.manager.connect(
                game_id,
                force_takeover=bool(args.get("forceTakeover", False)),
                timeout=float(timeout) if timeout and timeout > 0 else None,
                port=args.get("port"),
                token=args.get("token"),
            )
            text = data.pop("message")
            return _result(text, data, error=False)

        return await self._guard(game_id, work)


async def with_progress(
    ctx: Any, work: Callable[[Callable[[str], None]], Any]
) -> types.CallToolResult:
    """Run ``work(progress)``, forwarding its messages as MCP progress notifications."""
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

    result: types.CallToolResult | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            result = await work(progress)
        finally:
            send.close()
    assert result is not None
    return result
