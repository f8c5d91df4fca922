"""The bridge's games: configuration, processes and sessions, behind one small API.

:class:`GameManager` is what the MCP surface (and the CLI) calls. It resolves game and tool
references (refusing ambiguous ones with the candidates), launches games through
:class:`~gabs.launcher.GameProcess`, keeps one :class:`~gabs.session.GameSession` per running
game, and routes every game-bound call through that session's gate.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from gabp import GabpError, new_id, read_bridge_config
from gabs.attention import Gate
from gabs.config import GabsConfig, GameConfig
from gabs.context import AssembledContext, ContextAssembler, ContextRequest, LocalFiles, Purpose
from gabs.game_tools import MirroredTool, mcp_tool_name
from gabs.launcher import GameProcess, LaunchError
from gabs.ledger import CallLedger
from gabs.session import CallOutcome, GameSession, SessionError

__all__ = ["GameError", "GameManager", "GameRuntime"]

logger = logging.getLogger("gabs.games")

Progress = Callable[[str], None]


class GameError(Exception):
    """A lifecycle or lookup request that cannot be done; ``code`` says which kind."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


@dataclass
class GameRuntime:
    """What the bridge holds for one configured game."""

    config: GameConfig
    process: GameProcess | None = None
    session: GameSession | None = None
    scope: anyio.CancelScope | None = None
    last_error: str | None = None
    started_at: str | None = None
    exit_code: int | None = None
    connected_externally: bool = False
    calls: int = 0
    history: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def status(self) -> str:
        if self.session is not None and self.session.state != "closed":
            return self.session.state
        if self.process is not None and self.process.running:
            return "running_disconnected"
        if self.process is not None and self.process.returncode is not None:
            return "exited"
        return "stopped"


class GameManager:
    """All configured games and their live state. Use as an async context manager."""

    def __init__(
        self,
        config: GabsConfig,
        *,
        bridge_path: str | None = None,
        on_tools_changed: Callable[[], Awaitable[None] | None] | None = None,
        liveness_interval: float = 5.0,
    ) -> None:
        self.config = config
        self.bridge_path = bridge_path
        self._on_tools_changed = on_tools_changed
        self._liveness_interval = liveness_interval
        self._runtimes: dict[str, GameRuntime] = {
            game_id: GameRuntime(game) for game_id, game in config.games.items()
        }
        self._tg: anyio.abc.TaskGroup | None = None
        self._locks: dict[str, anyio.Lock] = {}
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
                    f"{game_id}:launch-log": config.game_dir(game_id) / "game.log"
                    for game_id in config.games
                }
            ),
        )

    def set_tools_changed_callback(
        self, callback: Callable[[], Awaitable[None] | None] | None
    ) -> None:
        """Be told when the set of game tools may have changed (a game (dis)connected)."""
        self._on_tools_changed = callback

    async def __aenter__(self) -> GameManager:
        self._tg = await anyio.create_task_group().__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        with anyio.CancelScope(shield=True):
            for runtime in list(self._runtimes.values()):
                if runtime.session is not None or runtime.process is not None:
                    with anyio.move_on_after(runtime.config.timeouts.stop_grace_seconds + 5):
                        await self._shutdown(runtime, force=False)
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await self.ledger.aclose()

    # -- lookup ---------------------------------------------------------------------------------

    def runtime(self, game_id: str) -> GameRuntime:
        runtime = self._runtimes.get(game_id)
        if runtime is None:
            known = sorted(self._runtimes)
            raise GameError(
                "unknown_game",
                f"no game {game_id!r} is configured"
                + (f"; known: {', '.join(known)}" if known else ""),
                candidates=known,
            )
        return runtime

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
                f"game {runtime.id} is not connected ({runtime.status}): start it with games_start"
                + (f"; last error: {runtime.last_error}" if runtime.last_error else ""),
            )
        return session

    def resolve_tool(self, runtime: GameRuntime, tool: str) -> MirroredTool:
        session = self._session(runtime)
        found = session.tools.get(tool)
        if found is not None:
            return found
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

    # -- lifecycle ------------------------------------------------------------------------------

    def _lock(self, game_id: str) -> anyio.Lock:
        return self._locks.setdefault(game_id, anyio.Lock())

    async def start(self, game_id: str, *, progress: Progress | None = None) -> dict[str, Any]:
        """Launch the game, wait for its GABP server, connect. Already running: report it."""
        runtime = self.runtime(game_id)
        async with self._lock(game_id):
            if runtime.session is not None and runtime.session.connected:
                return _outcome(self.status(game_id), "already_connected")
            process = runtime.process
            if process is not None and process.running and process.info is not None:
                # launched earlier and still alive: connect again rather than start a second one
                await self._open_session(runtime, process.info.port, process.info.token)
                return _outcome(self.status(game_id), "reconnected")
            if not runtime.config.launchable:
                raise GameError(
                    "not_launchable",
                    f"game {game_id} uses launchMode {runtime.config.launch_mode}, which this "
                    "bridge cannot start; start it yourself and use games_connect",
                )
            process = GameProcess(
                runtime.config, config_dir=self.config.config_dir, bridge_path=self.bridge_path
            )
            runtime.process = process
            runtime.last_error = None
            timeouts = runtime.config.timeouts
            try:
                info = await process.start(port=runtime.config.gabp_port, progress=progress)
                await process.wait_for_port(timeouts.start_seconds, progress=progress)
            except LaunchError as exc:
                runtime.last_error = str(exc)
                if process.running:
                    await process.kill()
                raise GameError("launch_failed", str(exc), exitCode=process.returncode) from None
            if progress:
                progress(f"{game_id}: GABP server is up on port {info.port}; connecting")
            try:
                await self._open_session(runtime, info.port, info.token)
            except GameError:
                await process.kill()
                raise
            runtime.started_at = info.started_at.isoformat()
            return {**_outcome(self.status(game_id), "started_connected"), "pid": info.pid}

    async def connect(
        self, game_id: str, *, port: int | None = None, token: str | None = None
    ) -> dict[str, Any]:
        """Attach to a game already running (port and token given, or from its bridge.json)."""
        runtime = self.runtime(game_id)
        async with self._lock(game_id):
            if runtime.session is not None and runtime.session.connected:
                return _outcome(self.status(game_id), "already_connected")
            if port is None or token is None:
                path = self.config.game_dir(game_id) / "bridge.json"
                try:
                    saved = read_bridge_config(path)
                except (OSError, ValueError) as exc:
                    raise GameError(
                        "no_connection_info",
                        f"give port and token, or start the game with this bridge first ({exc})",
                    ) from None
                port = port if port is not None else int(saved.address)
                token = token if token is not None else saved.token
            runtime.connected_externally = runtime.process is None
            await self._open_session(runtime, port, token)
            return _outcome(self.status(game_id), "connected")

    async def _open_session(self, runtime: GameRuntime, port: int, token: str) -> None:
        settings = runtime.config.attention
        process = runtime.process
        session = GameSession(
            runtime.id,
            port=port,
            token=token,
            gate=Gate.from_config(settings.mode, settings.allow, settings.fail_closed),
            call_timeout=runtime.config.timeouts.call_seconds,
            connect_timeout=runtime.config.timeouts.connect_seconds,
            liveness_interval=self._liveness_interval,
            process_alive=(lambda: process.running) if process is not None else None,
            on_change=lambda what: self._session_changed(runtime, what),
            max_concurrent_requests=runtime.config.max_concurrent_requests,
        )
        assert self._tg is not None
        try:
            await self._tg.start(self._run_session, runtime, session)
        except (SessionError, GabpError, OSError, TimeoutError) as exc:
            runtime.last_error = str(exc)
            raise GameError("connect_failed", f"could not connect to {runtime.id}: {exc}") from None
        runtime.session = session
        await self._tools_changed()

    async def _run_session(
        self,
        runtime: GameRuntime,
        session: GameSession,
        *,
        task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        try:
            await session.run(task_status=task_status)
        except (SessionError, GabpError, OSError, TimeoutError) as exc:
            runtime.last_error = str(exc)
            raise
        finally:
            if session.last_error:
                runtime.last_error = session.last_error

    async def _session_changed(self, runtime: GameRuntime, what: str) -> None:
        runtime.history.append(what)
        del runtime.history[:-20]
        if what == "disconnected" or (
            # a reconnect of the game's session; the first connect is announced once by
            # _open_session, when the session is in place
            what == "connected"
            and runtime.session is not None
            and runtime.session.state != "closed"
        ):
            await self._tools_changed()

    async def _tools_changed(self) -> None:
        if self._on_tools_changed is not None:
            outcome = self._on_tools_changed()
            if outcome is not None:
                await outcome

    async def stop(self, game_id: str) -> dict[str, Any]:
        runtime = self.runtime(game_id)
        async with self._lock(game_id):
            code = await self._shutdown(runtime, force=False)
        return {"status": "stopped", "exitCode": code, "gameId": game_id}

    async def kill(self, game_id: str) -> dict[str, Any]:
        runtime = self.runtime(game_id)
        async with self._lock(game_id):
            code = await self._shutdown(runtime, force=True)
        return {"status": "killed", "exitCode": code, "gameId": game_id}

    async def _shutdown(self, runtime: GameRuntime, *, force: bool) -> int | None:
        if runtime.session is not None:
            await runtime.session.close()
            runtime.session = None
            await self._tools_changed()
        code = None
        if runtime.process is not None and runtime.process.running:
            if force:
                code = await runtime.process.kill()
            else:
                code = await runtime.process.stop(runtime.config.timeouts.stop_grace_seconds)
        elif runtime.process is not None:
            code = runtime.process.returncode
        runtime.exit_code = code
        return code

    # -- views ----------------------------------------------------------------------------------

    def list_games(self) -> list[dict[str, Any]]:
        return [
            {
                "id": r.id,
                "name": r.config.name,
                "launchMode": r.config.launch_mode,
                "status": r.status,
                "description": r.config.description,
            }
            for r in self._runtimes.values()
        ]

    def show(self, game_id: str) -> dict[str, Any]:
        runtime = self.runtime(game_id)
        return {"config": runtime.config.to_json(), "runtime": self.status(game_id)}

    def status(self, game_id: str) -> dict[str, Any]:
        runtime = self.runtime(game_id)
        session = runtime.session
        process = runtime.process
        data: dict[str, Any] = {
            "gameId": runtime.id,
            "status": runtime.status,
            "process": {
                "pid": process.pid if process else None,
                "running": bool(process and process.running),
                "exitCode": process.returncode if process else runtime.exit_code,
                "logPath": str(self.config.game_dir(runtime.id) / "game.log"),
            }
            if process or runtime.exit_code is not None
            else None,
            "connection": None,
            "attention": {"supported": False},
        }
        if runtime.last_error:
            data["lastError"] = runtime.last_error
        if session is not None:
            data["connection"] = {
                "state": session.state,
                "port": session.port,
                "tools": len(session.tools),
                "reconnects": session.reconnects,
                "agentId": session.hello.get("agentId") if session.hello else None,
            }
            item = session.attention
            data["attention"] = {
                "supported": session.supports_attention,
                "mode": session.gate.mode,
                "subscribed": bool(session.subscribed),
                "open": item is not None,
                "attentionId": item.attention_id if item else None,
                "blocking": item.blocking if item else False,
                "summary": item.summary if item else None,
            }
        return data

    def all_status(self) -> list[dict[str, Any]]:
        return [self.status(game_id) for game_id in self._runtimes]

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
            if runtime.config.expose_game_tools and runtime.session is not None:
                for tool in runtime.session.tools.values():
                    exposed.append((mcp_tool_name(runtime.id, tool.name), runtime, tool))
        return exposed

    # -- calls and attention --------------------------------------------------------------------

    async def call_tool(
        self,
        tool: str,
        *,
        game_id: str | None = None,
        arguments: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> tuple[GameRuntime, CallOutcome]:
        runtime = self.resolve(game_id, tool)
        mirrored = self.resolve_tool(runtime, tool)
        session = self._session(runtime)
        runtime.calls += 1
        outcome = await session.call_tool(mirrored.name, arguments, timeout=timeout)
        self.ledger.record_outcome(
            outcome, session_id=self.session_id, game_id=runtime.id, arguments=arguments
        )
        return runtime, outcome

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
                required_context=runtime.config.required_context,
                gated=runtime.config.attention.mode == "gate",
            )
        )

    async def get_attention(
        self, game_id: str | None = None, *, refresh: bool = False, timeout: float | None = None
    ) -> dict[str, Any]:
        runtime = self.resolve(game_id)
        session = self._session(runtime)
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


def _outcome(status: dict[str, Any], outcome: str) -> dict[str, Any]:
    """A game's status with ``status`` as the lifecycle outcome and ``gameStatus`` its state."""
    return {**status, "status": outcome, "gameStatus": status["status"]}


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
