"""The lifecycle tools: games_list, games_show, games_start, games_stop, games_kill,
games_status and games_connect, with the Go bridge's arguments and results.

:class:`LifecycleTools` binds their handlers to one :class:`~gabs.games.GameManager`. Results
that have a code (start, stop, kill, connect, and every refusal) use the Go bridge's envelope
(:func:`~gabs.mcp.envelope.core_result`: ``code``, ``gameId``, ``nextActions``, and
``causeClass`` with ``trackRecord`` on failures); list, show and status answer with their views.
Our own fields (process, connection, attention, pid, port) are extra keys. Undeclared
arguments never get here: the dispatcher refuses them with the Go bridge's
``unknown_argument``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext

from gabs.games import GameManager
from gabs.games_views import config_notice
from gabs.lifecycle import LifecycleError, TrackRecord, context_hash, summary_line
from gabs.mcp.envelope import NextAction, core_result, failure_next_actions
from gabs.mcp.rendering import text_result
from gabs.mcp.schemas import ToolHandler

__all__ = ["LifecycleTools"]

logger = logging.getLogger("gabs.mcp.lifecycle")


def _actions(raw: list[dict[str, Any]]) -> list[NextAction]:
    return [NextAction(a["tool"], a.get("arguments", {}), a.get("reason", "")) for a in raw]


def _coded(data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    """A success (or informational) result with a code: the manager's dict in the envelope."""
    data = dict(data)
    message = data.pop("message")
    code = data.pop("code")
    game_id = data.pop("gameId", None)
    actions = _actions(data.pop("nextActions", []))
    cause = data.pop("causeClass", None)
    track = data.get("trackRecord")  # a failure's line replaces the neutral default
    return core_result(
        message,
        code=code,
        game_id=game_id,
        next_actions=actions,
        track_record=track,
        is_error=error,
        extra=data,
        cause=cause,
    )


#: Refusals whose result has no ``gameId`` key, as in Go: the reference names no game
#: (``game_not_found``, ``ambiguous_game_reference``: their next actions name ``""``) or the
#: call was refused before the game's state was read (``timeout_out_of_range``,
#: ``config_invalid``).
_UNKEYED: Final = frozenset(
    {"game_not_found", "ambiguous_game_reference", "timeout_out_of_range", "config_invalid"}
)
_NO_GAME: Final = frozenset({"game_not_found", "ambiguous_game_reference"})


def render_error(error: LifecycleError, game_id: str | None) -> types.CallToolResult:
    """A :class:`LifecycleError` in the envelope (its warnings appended to the text). The
    class the error carries (proof-adjusted: ``launch_spec_unresolvable``, ``unobserved``)
    decides ``causeClass`` and the default next actions."""
    data = error.to_json()
    data.pop("code")
    cause = data.pop("causeClass", None)
    track = data.pop("trackRecord", None)
    actions = _actions(data.pop("nextActions", [])) or None
    if error.code in _NO_GAME:
        game_id = None
    if error.code in _UNKEYED and actions is None and cause is not None:
        actions = failure_next_actions(game_id or "", cause)
    text = error.message
    if error.warnings:
        text += "\n\nWarnings:" + "".join(f"\n  - {w}" for w in error.warnings)
    return core_result(
        text,
        code=error.code,
        game_id=None if error.code in _UNKEYED else game_id,
        next_actions=actions,
        cause=cause,
        track_record=track,
        is_error=error.is_error,
        extra=data,
    )


def _status_text(item: dict[str, Any], *, summary: bool = False) -> str:
    """A game's status as the Go bridge lays it out: ``**id** (name): status`` and a blank line
    before the diagnosis (``Diagnosis: ...``, when the diagnostics name an issue), before each
    note of ours (an open attention item) and before the last disconnect for one game;
    ``• **id**: status`` in the summary, where the diagnosis and a note follow ``" — "`` on the
    same line; each line ends with a newline."""
    game_id = item["gameId"]
    status = str(item["statusDescription"])
    attention = item.get("attention") or {}
    note = ""
    if attention.get("open"):
        kind = "BLOCKING" if attention.get("blocking") else "advisory"
        note = f"{attention.get('attentionId')} open ({kind}): {attention.get('summary')}"
    label = "unconfigured" if not item.get("configured", True) else item.get("name", game_id)
    diagnostics = item.get("diagnostics") or {}
    diagnosis = diagnostics.get("message", "") if diagnostics.get("code") != "healthy" else ""
    if summary:
        suffix = "" if item.get("configured", True) else " (unconfigured)"
        tail = (f" — {diagnosis}" if diagnosis else "") + (f" — attention {note}" if note else "")
        return f"• **{game_id}**{suffix}: {status}{tail}\n"
    text = f"**{game_id}** ({label}): {status}\n"
    if diagnosis:
        text += f"\nDiagnosis: {diagnosis}\n"
    if note:
        text += f"\nAttention: {note}\n"
    if item.get("lastDisconnect"):
        text += f"\n{item['lastDisconnect']}\n"
    return text


class LifecycleTools:
    """The lifecycle tools' handlers, bound to one manager."""

    def __init__(self, manager: GameManager) -> None:
        self.manager = manager
        self.handlers: dict[str, ToolHandler] = {
            "games_list": self.games_list,
            "games_show": self.games_show,
            "games_status": self.games_status,
            "games_start": self.games_start,
            "games_stop": self.games_stop,
            "games_kill": self.games_kill,
            "games_connect": self.games_connect,
        }

    async def _guard(
        self, game_id: str | None, work: Callable[[], Awaitable[types.CallToolResult]]
    ) -> types.CallToolResult:
        try:
            return await work()
        except LifecycleError as exc:
            return self._refused(exc, game_id)

    def _refused(self, exc: LifecycleError, game_id: str | None) -> types.CallToolResult:
        if exc.code != "game_not_found" and game_id:
            self._track_record(exc, game_id)
        return render_error(exc, game_id)

    def _track_record(self, error: LifecycleError, game_id: str) -> None:
        config = self.manager.config
        game = config.games.get(game_id)
        if game is None or "trackRecord" in error.data:
            return
        profile = str(error.data.get("activeProfile") or game.default_profile or "")
        with contextlib.suppress(Exception):
            record = TrackRecord(config.game_dir(game_id))
            error.data["trackRecord"] = summary_line(
                record.entry(profile, context_hash(game, profile))
            )

    async def games_list(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        data = self.manager.list_games()
        games = data["games"]
        text = (
            "\n".join(g["gameId"] for g in games)
            if games
            else "No games configured. Use the CLI to add games: gabs games add <id>"
        )
        return text_result(text + config_notice(data), data)

    def _resolved(self, ref: str, *, claimed: bool = False) -> str | types.CallToolResult:
        """The game id ``ref`` names (an id, or a configured game's launch target, as the Go
        bridge takes it), or the refusal when it names several games."""
        try:
            return self.manager.game_reference(ref, claimed=claimed)
        except LifecycleError as exc:
            return self._refused(exc, ref)

    async def games_show(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        game_id = self._resolved(args["gameId"])
        if not isinstance(game_id, str):
            return game_id

        async def work() -> types.CallToolResult:
            text, data = await self.manager.show(game_id)
            return text_result(text, data)

        return await self._guard(game_id, work)

    async def games_status(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        game_id = args.get("gameId")
        if game_id is not None:
            game_id = self._resolved(game_id, claimed=True)
            if not isinstance(game_id, str):
                return game_id

            async def work() -> types.CallToolResult:
                item = await self.manager.status(game_id)
                return text_result(_status_text(item) + config_notice(item), item)

            return await self._guard(game_id, work)
        data = await self.manager.all_status()
        text = "Game Status Summary:\n\n" + "".join(
            _status_text(item, summary=True) for item in data["games"]
        )
        if not data["games"]:
            text = "No games configured and no runtime claims."
        if data.get("runtimeClaimScanError"):
            text += (
                f"\n⚠ runtime claim scan incomplete: {data['runtimeClaimScanError']} "
                "(runtime-only claims may be omitted)\n"
            )
        return text_result(text + config_notice(data), data)

    async def games_start(
        self, ctx: ServerRequestContext[Any, Any], args: dict[str, Any]
    ) -> types.CallToolResult:
        game_id = self._resolved(args["gameId"])
        if not isinstance(game_id, str):
            return game_id
        timeout = args.get("timeout")
        if timeout is not None and not 1 <= timeout <= 3600:
            try:  # as the Go bridge: the game is looked up before the timeout is checked
                self.manager.startable(game_id)
            except LifecycleError as exc:
                return self._refused(exc, game_id)
            return render_error(
                LifecycleError(
                    "timeout_out_of_range",
                    "Argument 'timeout' must be an integer between 1 and 3600 seconds",
                    data={"minimum": 1, "maximum": 3600},
                ),
                game_id,
            )

        async def work(progress: Callable[[str], None]) -> types.CallToolResult:
            async def start() -> types.CallToolResult:
                data = await self.manager.start(
                    game_id,
                    profile=args.get("profile"),
                    launch_inputs=args.get("launchInputs"),
                    timeout=timeout,
                    reset_endpoint=bool(args.get("resetEndpoint", False)),
                    progress=progress,
                )
                return _coded(data)

            return await self._guard(game_id, start)

        return await _with_progress(ctx, work)

    async def games_stop(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self._stop(args["gameId"], kill=False)

    async def games_kill(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        return await self._stop(args["gameId"], kill=True)

    async def _stop(self, ref: str, *, kill: bool) -> types.CallToolResult:
        game_id = self._resolved(ref, claimed=True)
        if not isinstance(game_id, str):
            return game_id

        async def work() -> types.CallToolResult:
            data = await (self.manager.kill(game_id) if kill else self.manager.stop(game_id))
            error = bool(data.pop("isError", False))
            return _coded(data, error=error)

        return await self._guard(game_id, work)

    async def games_connect(self, ctx: Any, args: dict[str, Any]) -> types.CallToolResult:
        game_id = self._resolved(args["gameId"])
        if not isinstance(game_id, str):
            return game_id

        async def work() -> types.CallToolResult:
            timeout = args.get("timeout")
            data = await self.manager.connect(
                game_id,
                force_takeover=bool(args.get("forceTakeover", False)),
                timeout=float(timeout) if timeout and timeout > 0 else None,
                port=args.get("port"),
                token=args.get("token"),
            )
            if "code" in data:
                return _coded(data)
            message = data.pop("message")
            return text_result(message, data)

        return await self._guard(game_id, work)


async def _with_progress(
    ctx: Any, work: Callable[[Callable[[str], None]], Awaitable[types.CallToolResult]]
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
