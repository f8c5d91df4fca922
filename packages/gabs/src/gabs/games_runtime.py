"""What the bridge holds for one game: its config, the process it started, its GABP session,
and the claim attachment that session is bound to."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from gabs.config import GameConfig
from gabs.launch.spawn import SpawnedGame
from gabs.runtime import RuntimeState
from gabs.runtime.procs import verify_pid
from gabs.session import GameSession

__all__ = ["GameError", "GameRuntime", "ListsChanged"]


class ListsChanged(Protocol):
    """Told by the game manager that the MCP tool list, the resource list or both changed
    (:class:`gabs.mcp.notify.ToolListNotifier` is the one the transports use)."""

    def __call__(self, *, tools: bool = True, resources: bool = True) -> Awaitable[None] | None: ...


class GameError(Exception):
    """A lookup or request that cannot be done; ``code`` says which kind."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


@dataclass
class GameRuntime:
    """One game as this bridge sees it (configured, or only claimed)."""

    game_id: str
    config: GameConfig | None
    spawned: SpawnedGame | None = None
    """The process this bridge started (None after a restart or for a game it attached to)."""
    launch_id: str = ""
    """The launch id of the claim this bridge's last start created."""
    stop_process_name: str = ""
    """The ``stopProcessName`` that launch ran with (its claim's, whatever the config says
    since)."""
    session: GameSession | None = None
    attachment: tuple[str, str] | None = None
    """(launch id, connection id) of the claim the live session is bound to."""
    scope: anyio.CancelScope | None = None
    background: anyio.CancelScope | None = None
    """The background connection attempt of a start that returned ``started_bridge_pending``."""
    last_error: str | None = None
    last_disconnect: str | None = None
    calls: int = 0
    history: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.game_id

    @property
    def name(self) -> str:
        return self.config.name if self.config is not None else self.game_id

    @property
    def connected(self) -> bool:
        return self.session is not None and self.session.connected

    @property
    def status(self) -> str:
        """A quick in-memory status (``games_status`` reads the claim too)."""
        if self.session is not None and self.session.state != "closed":
            return "connected" if self.session.connected else "disconnected"
        if self.spawned is not None and not self.spawned.exited:
            return "running"
        return "stopped"

    def liveness(self, claim: RuntimeState | None) -> Callable[[], bool] | None:
        """Whether the game still runs, as a connect checks it between attempts: the claim's
        workload pid when it names one (an adopted launch's own child is only its launcher,
        long gone), else the child this bridge spawned unless that was a launcher (``helper``);
        None when nothing tells."""
        if claim is not None and claim.pid_role == "workload" and claim.game_pid > 0:
            pid, start = claim.game_pid, claim.pid_start_time
            return lambda: verify_pid(pid, start)[0] != "stopped"
        spawned = self.spawned
        if spawned is None or (claim is not None and claim.pid_role != "workload"):
            return None
        return lambda: not spawned.exited
