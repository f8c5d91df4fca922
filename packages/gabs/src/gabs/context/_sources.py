"""Where context comes from: four source interfaces, in-memory versions and the bridge's versions.

The only I/O in context assembly happens here. The pipeline sees these protocols:

* :class:`LedgerSource`: the call ledger (:class:`gabs.ledger.CallLedger` is one).
* :class:`RegistrySource`: a game's mirrored tools and capabilities.
* :class:`FileSource`: files the operator configured, by reference, with a size cap.
* :class:`DiagnosticsSource`: a game's diagnostics tools, called by name.

**Invariant: only read-only diagnostics are ever called on a game.** Every diagnostics source
here refuses (:class:`DiagnosticsRefused`) a tool that is not tagged with one of
:data:`DIAGNOSTIC_TAGS` (``read-only``, ``diagnostic``), before anything is sent. The bridge's
version looks the tags up in the game's mirrored tool list, never in the tool's name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import anyio.to_thread

from gabs.context._models import ContextError
from gabs.game_tools import MirroredTool
from gabs.ledger import LedgerEntry
from gabs.session import GameSession

__all__ = [
    "DIAGNOSTIC_TAGS",
    "ContextSourceError",
    "DiagnosticsRefused",
    "DiagnosticsSource",
    "FileContent",
    "FileSource",
    "GameDiagnostics",
    "GameDirectory",
    "GameRegistry",
    "InMemoryDiagnostics",
    "InMemoryFiles",
    "InMemoryRegistry",
    "LedgerSource",
    "LocalFiles",
    "RegistrySource",
    "check_diagnostic_tool",
]

DIAGNOSTIC_TAGS = frozenset({"read-only", "diagnostic"})
"""A diagnostics tool must carry one of these tags to be called by context assembly."""


class ContextSourceError(ContextError):
    """A source could not answer (game not connected, file missing, call failed)."""


class DiagnosticsRefused(ContextSourceError):
    """A diagnostics call was refused because the tool is not a read-only diagnostic."""


def check_diagnostic_tool(
    game_id: str, tool: str, tags: Iterable[str] | None, allowed: frozenset[str] = DIAGNOSTIC_TAGS
) -> None:
    """Raise :class:`DiagnosticsRefused` unless ``tags`` hold one of ``allowed``."""
    if tags is None:
        raise DiagnosticsRefused(f"game {game_id} has no tool {tool!r}; not called")
    if not allowed.intersection(tags):
        raise DiagnosticsRefused(
            f"{tool} in game {game_id} is not tagged {' or '.join(sorted(allowed))}; "
            "context assembly only calls read-only diagnostics"
        )


# -- protocols ---------------------------------------------------------------------------------


@runtime_checkable
class LedgerSource(Protocol):
    def query(
        self,
        *,
        game_id: str | None = None,
        session_id: str | None = None,
        kinds: Iterable[str] | None = None,
        attention_id: str | None = None,
        operation_id: str | None = None,
        tool: str | None = None,
        limit: int | None = None,
        since_seq: int | None = None,
    ) -> Sequence[LedgerEntry]: ...


@runtime_checkable
class RegistrySource(Protocol):
    def tools(self, game_id: str) -> Sequence[MirroredTool]: ...

    def capabilities(self, game_id: str) -> Mapping[str, Any] | None: ...


@dataclass(frozen=True)
class FileContent:
    ref: str
    text: str
    size: int
    truncated: bool


@runtime_checkable
class FileSource(Protocol):
    async def read(self, ref: str, *, max_bytes: int, tail: bool = False) -> FileContent: ...


@runtime_checkable
class DiagnosticsSource(Protocol):
    async def call(self, game_id: str, tool: str, arguments: Mapping[str, Any]) -> Any: ...


# -- in memory ---------------------------------------------------------------------------------


class InMemoryRegistry:
    """Tools and capabilities per game, given up front."""

    def __init__(
        self,
        tools: Mapping[str, Iterable[MirroredTool]],
        capabilities: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self._tools = {game: list(found) for game, found in tools.items()}
        self._capabilities = dict(capabilities or {})
        self.calls = 0

    def tools(self, game_id: str) -> Sequence[MirroredTool]:
        self.calls += 1
        if game_id not in self._tools:
            raise ContextSourceError(f"game {game_id} is not known")
        return self._tools[game_id]

    def capabilities(self, game_id: str) -> Mapping[str, Any] | None:
        self.calls += 1
        return self._capabilities.get(game_id)


def _slice(data: bytes, max_bytes: int, tail: bool) -> tuple[bytes, bool]:
    if len(data) <= max_bytes:
        return data, False
    return (data[-max_bytes:] if tail else data[:max_bytes]), True


class InMemoryFiles:
    """Named texts standing in for files."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self._files = dict(files)

    async def read(self, ref: str, *, max_bytes: int, tail: bool = False) -> FileContent:
        if ref not in self._files:
            raise ContextSourceError(f"file {ref!r} not found")
        data = self._files[ref].encode("utf-8")
        part, truncated = _slice(data, max_bytes, tail)
        return FileContent(ref, part.decode("utf-8", "replace"), len(data), truncated)


class LocalFiles:
    """Files the operator configured, by reference name (or by the configured path itself).

    Anything not configured is refused; reads run in a worker thread and stop at ``max_bytes``.
    """

    def __init__(self, files: Mapping[str, str | PathLike[str]]) -> None:
        self._files = {ref: Path(path) for ref, path in files.items()}
        self._by_path = {str(path): path for path in self._files.values()}

    def _resolve(self, ref: str) -> Path:
        path = self._files.get(ref) or self._by_path.get(ref)
        if path is None:
            raise ContextSourceError(f"file {ref!r} is not configured for context assembly")
        return path

    async def read(self, ref: str, *, max_bytes: int, tail: bool = False) -> FileContent:
        path = self._resolve(ref)

        def read() -> tuple[bytes, int]:
            with path.open("rb") as handle:
                size = handle.seek(0, 2)
                handle.seek(max(size - max_bytes, 0) if tail else 0)
                return handle.read(max_bytes), size

        try:
            data, size = await anyio.to_thread.run_sync(read)
        except OSError as exc:
            raise ContextSourceError(f"file {ref!r}: {exc.strerror or exc}") from None
        return FileContent(ref, data.decode("utf-8", "replace"), size, size > len(data))


DiagnosticsHandler = Callable[[Mapping[str, Any]], Any | Awaitable[Any]]


class InMemoryDiagnostics:
    """Diagnostics tools as functions, with tags; refuses what a game would not let us read."""

    def __init__(
        self,
        tools: Mapping[str, DiagnosticsHandler],
        *,
        tags: Mapping[str, Iterable[str]] | None = None,
        game_id: str | None = None,
        allowed_tags: frozenset[str] = DIAGNOSTIC_TAGS,
    ) -> None:
        self._tools = dict(tools)
        self._tags = {
            name: tuple(found)
            for name, found in (
                tags or {name: ("read-only", "diagnostic") for name in tools}
            ).items()
        }
        self._game_id = game_id
        self._allowed = allowed_tags
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    async def call(self, game_id: str, tool: str, arguments: Mapping[str, Any]) -> Any:
        if self._game_id is not None and game_id != self._game_id:
            raise ContextSourceError(f"game {game_id} is not known")
        check_diagnostic_tool(game_id, tool, self._tags.get(tool), self._allowed)
        handler = self._tools.get(tool)
        if handler is None:
            raise ContextSourceError(f"game {game_id} has no tool {tool!r}")
        self.calls.append((game_id, tool, dict(arguments)))
        result = handler(arguments)
        if isinstance(result, Awaitable):
            result = await result
        return result


# -- over the bridge's games -------------------------------------------------------------------


class GameEntry(Protocol):
    """One game of a :class:`GameDirectory`: its GABP session, when it has one."""

    session: GameSession | None


class GameDirectory(Protocol):
    """What the bridge's sources need from a registry of games (:class:`gabs.games.GameManager`
    provides it): a game by id, or an exception for an unknown id."""

    def runtime(self, game_id: str) -> GameEntry: ...


def _live_session(manager: GameDirectory, game_id: str) -> GameSession:
    try:
        runtime = manager.runtime(game_id)
    except Exception as exc:  # GameError: unknown game
        raise ContextSourceError(str(exc)) from None
    session = runtime.session
    if session is None or not session.connected:
        raise ContextSourceError(f"game {game_id} is not connected")
    return session


class GameRegistry:
    """Tools and capabilities of the bridge's connected games (no I/O: the mirrored list)."""

    def __init__(self, manager: GameDirectory) -> None:
        self._manager = manager

    def tools(self, game_id: str) -> Sequence[MirroredTool]:
        return list(_live_session(self._manager, game_id).tools.values())

    def capabilities(self, game_id: str) -> Mapping[str, Any] | None:
        capabilities = _live_session(self._manager, game_id).capabilities
        if capabilities is None:
            return None
        wire: Mapping[str, Any] = capabilities.to_wire()
        return wire


class GameDiagnostics:
    """Diagnostics calls on the bridge's games, limited to read-only diagnostics tools.

    The tool must be in the game's mirrored list and tagged with one of ``allowed_tags``
    (never judged by its name); otherwise :class:`DiagnosticsRefused` is raised and nothing is
    sent. The call goes through :meth:`GameSession.call_tool`: the gate lets tools tagged
    ``read-only`` or ``diagnostic`` through even while a blocking item is open (its allowlisted
    tags include both), so the call is made and answered like any allowlisted one; should the
    gate still refuse it (a future stricter gate), the stage reports that as an error.
    """

    def __init__(
        self,
        manager: GameDirectory,
        *,
        allowed_tags: frozenset[str] = DIAGNOSTIC_TAGS,
        timeout: float | None = None,
    ) -> None:
        self._manager = manager
        self._allowed = allowed_tags
        self._timeout = timeout

    async def call(self, game_id: str, tool: str, arguments: Mapping[str, Any]) -> Any:
        session = _live_session(self._manager, game_id)
        mirrored = session.tools.get(tool)
        check_diagnostic_tool(
            game_id, tool, mirrored.tags if mirrored is not None else None, self._allowed
        )
        outcome = await session.call_tool(tool, dict(arguments), timeout=self._timeout)
        if outcome.executed is not True:
            raise ContextSourceError(
                f"{tool} in game {game_id} did not run ({outcome.status})"
                + (f": {outcome.error['message']}" if outcome.error else "")
            )
        if outcome.status != "ok":
            message = outcome.error["message"] if outcome.error else outcome.status
            raise ContextSourceError(f"{tool} in game {game_id} failed: {message}")
        return outcome.result
