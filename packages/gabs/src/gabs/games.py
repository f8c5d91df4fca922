"""The bridge's games: configuration, processes and sessions, behind one small API.

:class:`GameManager` is what the MCP surface calls. It resolves game and tool references
(refusing ambiguous ones with the candidates), runs the game lifecycle (start, connect, stop,
kill, status: :class:`~gabs.games_lifecycle.LifecycleMixin`, over the runtime claims shared
with other bridge processes and the CLI), keeps one :class:`~gabs.session.GameSession` per
connected game, and routes every game-bound call through that session's gate.

The games it starts outlive it: when the bridge ends, its sessions close and its attachments
are withdrawn from the claims, and the games keep running for the next bridge to attach to.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import anyio
import anyio.abc

from gabp import new_id
from gabs.backoff import DEFAULT_BACKOFF
from gabs.call_outcome import CallOutcome
from gabs.config import ConfigStore, GabsConfig
from gabs.context import AssembledContext, ContextAssembler, ContextRequest, LocalFiles, Purpose
from gabs.game_tools import MirroredTool, mcp_tool_name
from gabs.games_lifecycle import LifecycleMixin
from gabs.games_runtime import GameError, GameRuntime, ListsChanged
from gabs.launch.spawn import LAUNCH_LOG
from gabs.ledger import CallLedger
from gabs.lifecycle import Lifecycle
from gabs.runtime import claimed_ids
from gabs.session import GameSession
from gabs.session_close import CLOSE_GRACE

__all__ = ["GameError", "GameManager", "GameRuntime"]

logger = logging.getLogger("gabs.games")


class GameManager(LifecycleMixin):
    """All configured games and their live state. Use as an async context manager."""

    #: The reconnection backoff (seconds, min and max) of managers built without one
    #: (``gabs server --reconnectBackoff``).
    default_backoff: ClassVar[tuple[float, float]] = DEFAULT_BACKOFF

    def __init__(
        self,
        config: GabsConfig,
        *,
        on_tools_changed: ListsChanged | None = None,
        liveness_interval: float = 5.0,
        backoff: tuple[float, float] | None = None,
    ) -> None:
        self.store = ConfigStore(config)
        self.lc = Lifecycle(config.config_dir, config.settings)
        self.backoff = backoff or self.default_backoff
        self._on_tools_changed = on_tools_changed
        self._listed: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        """The game tools listed in MCP and the games with a state resource, as last told."""
        self._liveness_interval = liveness_interval
        self._runtimes: dict[str, GameRuntime] = {
            game_id: GameRuntime(game_id, game) for game_id, game in config.games.items()
        }
        self._tg: anyio.abc.TaskGroup | None = None
        self._claim_views = {}
        self._lease_holds = {}
        self.session_id = new_id()
        """This bridge run: the ledger's session."""
        self.ledger = CallLedger(
            jsonl_path=config.config_dir / "ledger.jsonl" if config.bridge.ledger_jsonl else None
        )
        self.context = ContextAssembler.for_games(
            self,
            templates=config.context_templates,
            ledger=self.ledger,
            files=LocalFiles(
                {
                    f"{game_id}:launch-log": config.game_dir(game_id) / LAUNCH_LOG
                    for game_id in config.games
                }
            ),
        )

    @property
    def config(self) -> GabsConfig:
        """The current configuration (re-read when ``config.json`` changed)."""
        return self.store.snapshot().config

    def set_tools_changed_callback(self, callback: ListsChanged | None) -> None:
        """Be told when the MCP tool list or resource list changed (a game (dis)connected)."""
        self._on_tools_changed = callback

    async def _tools_changed(self) -> None:
        """Tell the callback what changed since it was last told: the listed game tools
        (``exposeGameTools``) and the state resources (one per connected game). Nothing is
        sent when neither changed, so one change is one notification of each kind that
        changed (the default surface lists no game tools: a connect changes only resources)."""
        if self._on_tools_changed is None:
            return
        listed = (
            tuple(name for name, _, _ in self.exposed_tools()),
            tuple(runtime.id for runtime in self.connected_games()),
        )
        tools, resources = listed[0] != self._listed[0], listed[1] != self._listed[1]
        self._listed = listed
        if not (tools or resources):
            return
        outcome = self._on_tools_changed(tools=tools, resources=resources)
        if outcome is not None:
            await outcome

    async def __aenter__(self) -> GameManager:
        self._tg = await anyio.create_task_group().__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        """Close the sessions (the games keep running), then the background tasks."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_GRACE + 1):
            # at once: each waits (bounded) for the answers its game still owes
            async with anyio.create_task_group() as closing:
                for runtime in list(self._runtimes.values()):
                    closing.start_soon(self._close_session, runtime)
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await self.ledger.aclose()

    # -- lookup ---------------------------------------------------------------------------------

    def game_by_target(self, ref: str) -> str:
        """The game a ``gameId`` of the discovery, call and attention tools names, as the Go
        bridge reads it: a configured id (or a game still known) as it is, else the one
        configured game whose launch target is ``ref`` (a Steam app id, an executable). Several
        such games or none: ``ref`` itself, which the lookup then refuses (``game_not_found``)."""
        config = self.store.snapshot().config
        runtime = self._runtimes.get(ref)
        if ref in config.games or (runtime is not None and self._still_known(runtime, config)):
            return ref
        matches = [game_id for game_id, game in config.games.items() if game.target == ref]
        return matches[0] if len(matches) == 1 else ref

    def runtime(self, game_id: str) -> GameRuntime:
        runtime = self._runtimes.get(game_id)
        config = self.store.snapshot().config
        if game_id in config.games:
            if runtime is None:
                runtime = self._runtimes[game_id] = GameRuntime(game_id, config.games[game_id])
            runtime.config = config.games[game_id]
        elif runtime is not None and not self._still_known(runtime, config):
            runtime = None  # its entry was removed and nothing of it is left: as in Go
        if runtime is None:
            kept = (r.game_id for r in self._runtimes.values() if self._still_known(r, config))
            known = sorted({*kept, *config.game_ids})
            raise GameError(
                "unknown_game",
                f"no game {game_id!r} is configured"
                + (f"; known: {', '.join(known)}" if known else ""),
                candidates=known,
            )
        return runtime

    def _still_known(self, runtime: GameRuntime, config: GabsConfig) -> bool:
        """Whether a game no longer configured is still a game: its entry is only broken, its
        session is open, or its claim remains."""
        session = runtime.session
        return (
            runtime.game_id in config.broken
            or (session is not None and session.state != "closed")
            or runtime.game_id in claimed_ids(self.lc.config_dir)
        )

    def connected_games(self) -> list[GameRuntime]:
        return [r for r in self._runtimes.values() if r.session is not None and r.session.connected]

    def resolve(self, game_id: str | None, tool: str | None = None) -> GameRuntime:
        """The game meant by ``game_id``, or (without it) the one connected game that has
        ``tool``; ambiguity is refused with the candidates."""
        if game_id:
            return self.runtime(game_id)
        connected = self.connected_games()
        if tool is not None:
            having = [r for r in connected if r.session and tool in r.session.tools]
            if len(having) == 1:
                return having[0]
            if len(having) > 1:
                ids = [r.id for r in having]
                raise GameError(
                    "ambiguous_game",
                    f"{tool} exists in several connected games ({', '.join(ids)}): pass gameId",
                    candidates=ids,
                )
        if len(connected) == 1:
            return connected[0]
        ids = [r.id for r in connected]
        if not connected:
            raise GameError("no_game", "no game is connected: start one with games_start")
        raise GameError(
            "ambiguous_game",
            f"several games are connected ({', '.join(ids)}): pass gameId",
            candidates=ids,
        )

    def _session(self, runtime: GameRuntime) -> GameSession:
        session = runtime.session
        if session is None or session.state == "closed":
            raise GameError(
                "not_connected",
                f"game {runtime.id} is not connected ({runtime.status}): start it with "
                "games_start or attach with games_connect"
                + (f"; last error: {runtime.last_error}" if runtime.last_error else ""),
            )
        return session

    def resolve_tool(self, runtime: GameRuntime, tool: str) -> MirroredTool:
        session = self._session(runtime)
        found = session.tools.get(tool)
        if found is not None:
            return found
        if session.tools_error is not None:  # no list to check against: the game decides
            return MirroredTool.from_descriptor({"name": tool})
        by_mcp = [t for t in session.tools.values() if mcp_tool_name(runtime.id, t.name) == tool]
        if len(by_mcp) == 1:
            return by_mcp[0]
        suffix = [t.name for t in session.tools.values() if t.name.endswith("/" + tool)]
        if len(suffix) == 1:
            return session.tools[suffix[0]]
        if len(suffix) > 1:
            raise GameError(
                "ambiguous_tool",
                f"{tool!r} matches several tools: {', '.join(suffix)}",
                candidates=suffix,
            )
        close = sorted(t for t in session.tools if tool.split("/")[-1] in t)[:10]
        raise GameError(
            "unknown_tool",
            f"game {runtime.id} has no tool {tool!r}"
            + (f"; similar: {', '.join(close)}" if close else ""),
            candidates=close,
        )

    def tool_names(
        self,
        game_id: str | None = None,
        *,
        query: str | None = None,
        prefix: str | None = None,
        offset: int = 0,
        limit: int = 50,
        brief: bool = True,
    ) -> dict[str, Any]:
        runtimes = [self.resolve(game_id)] if game_id else self.connected_games()
        entries = []
        for runtime in runtimes:
            for tool in self._session(runtime).tools.values():
                if prefix and not tool.name.startswith(prefix):
                    continue
                haystack = f"{tool.name} {tool.title} {tool.description}".lower()
                if query and not all(word in haystack for word in query.lower().split()):
                    continue
                entry: dict[str, Any] = {"gameId": runtime.id, "name": tool.name}
                if not brief:
                    entry["title"] = tool.title
                    entry["description"] = _first_line(tool.description)
                    entry["tags"] = list(tool.tags)
                entries.append(entry)
        total = len(entries)
        page = entries[offset : offset + limit]
        return {
            "total": total,
            "offset": offset,
            "tools": page,
            "nextOffset": offset + limit if offset + limit < total else None,
        }

    def tool_detail(self, tool: str, game_id: str | None = None) -> dict[str, Any]:
        runtime = self.resolve(game_id, tool)
        mirrored = self.resolve_tool(runtime, tool)
        return {
            "gameId": runtime.id,
            "mcpName": mcp_tool_name(runtime.id, mirrored.name),
            **mirrored.to_json(),
        }

    def tools(self, game_id: str | None = None) -> list[dict[str, Any]]:
        runtimes = [self.resolve(game_id)] if game_id else self.connected_games()
        return [
            {"gameId": runtime.id, **tool.to_json()}
            for runtime in runtimes
            for tool in self._session(runtime).tools.values()
        ]

    def exposed_tools(self) -> list[tuple[str, GameRuntime, MirroredTool]]:
        """Game tools to list directly in MCP (games with ``exposeGameTools``)."""
        exposed = []
        for runtime in self.connected_games():
            config = runtime.config
            if config is not None and config.expose_game_tools and runtime.session is not None:
                for tool in runtime.session.tools.values():
                    exposed.append((mcp_tool_name(runtime.id, tool.name), runtime, tool))
        return exposed

    # -- calls and attention --------------------------------------------------------------------

    async def _require_owner(
        self, runtime: GameRuntime, action: str, timeout: float | None
    ) -> None:
        """Refuse with ``blocked_by_active_runtime_owner`` when another live bridge process
        holds the game's owner lease (see :mod:`gabs.games_owner`)."""
        blocked = await self.ensure_owner(runtime.id, action, timeout or 0)
        if blocked is not None:
            code, message = blocked.pop("code"), blocked.pop("message")
            blocked.pop("causeClass", None)
            raise GameError(code, message, **blocked)

    async def call_tool(
        self,
        runtime: GameRuntime,
        tool: str,
        *,
        arguments: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> CallOutcome:
        """Call ``tool`` of the game ``runtime`` (as :meth:`resolve` found it), through its
        owner check and gate, and record the outcome in the ledger."""
        mirrored = self.resolve_tool(runtime, tool)
        session = self._session(runtime)
        await self._require_owner(runtime, f"tool '{mirrored.name}'", timeout)
        runtime.calls += 1
        with self.lease_held(runtime.id, timeout):
            outcome = await session.call_tool(mirrored.name, arguments, timeout=timeout)
        self.ledger.record_outcome(
            outcome, session_id=self.session_id, game_id=runtime.id, arguments=arguments
        )
        return outcome

    async def assemble(
        self,
        runtime: GameRuntime,
        purpose: Purpose,
        *,
        attention: Any = None,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> AssembledContext:
        """What the model should see about ``attention`` for ``purpose`` (budgeted, traced)."""
        return await self.context.assemble(
            ContextRequest(
                game_id=runtime.id,
                purpose=purpose,
                attention=attention,
                tool=tool,
                arguments=arguments,
                session_id=self.session_id,
                required_context=runtime.config.required_context if runtime.config else None,
                gated=runtime.config is None or runtime.config.attention.mode == "gate",
            )
        )

    async def get_attention(
        self, game_id: str | None = None, *, refresh: bool = False, timeout: float | None = None
    ) -> dict[str, Any]:
        runtime = self.resolve(game_id)
        session = self._session(runtime)
        await self._require_owner(runtime, "games_get_attention", timeout)
        if not session.supports_attention:
            return {"gameId": runtime.id, "supported": False, "attention": None}
        if session.gate.mode == "off":
            return {"gameId": runtime.id, "supported": True, "mode": "off", "attention": None}
        if refresh or not session.subscribed:
            await session.refresh_attention(timeout=timeout)
        item = session.attention
        return {
            "gameId": runtime.id,
            "supported": True,
            "mode": session.gate.mode,
            "attention": item.to_wire() if item else None,
        }

    async def ack_attention(
        self, attention_id: str, game_id: str | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        runtime = self.resolve(game_id)
        session = self._session(runtime)
        await self._require_owner(runtime, "games_ack_attention", timeout)
        if not session.supports_attention:
            return {
                "gameId": runtime.id,
                "supported": False,
                "acknowledged": False,
                "attentionId": attention_id,
            }
        reply = await session.ack_attention(attention_id, timeout=timeout)
        self.ledger.record(
            "ack",
            session_id=self.session_id,
            game_id=runtime.id,
            attention_id=attention_id,
            summary="acknowledged" if reply.get("acknowledged") else "refused: not the open item",
        )
        return {"gameId": runtime.id, "supported": True, **reply}


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
