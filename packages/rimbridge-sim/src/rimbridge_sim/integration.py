"""RimBridge: the simulated RimWorld integration, served over GABP with attention.

One :class:`RimBridge` owns everything the real RimBridgeServer mod has inside RimWorld:

* the :class:`~rimbridge_sim.world.World` (the game), guarded by one lock, the *main loop*:
  the tick loop advances it at ``tick_rate`` frames per second and every game tool takes the
  lock for its body, so world access is serialized; ``sim/stall`` holds the lock to hang it;
* the diagnostics plane: a :class:`~rimbridge_sim.diagnostics.LogRing` (world log lines and
  tool lines, with their operation) and an :class:`~rimbridge_sim.diagnostics.OperationJournal`
  (every ``tools/call`` is an operation keyed by its GABP request id; script steps and loads
  are child operations);
* the control plane: ``lib_gab``'s :class:`~lib_gab.AttentionManager` (enabled on the server)
  fed by an :class:`~rimbridge_sim.feed.AttentionFeed` under a
  :class:`~rimbridge_sim.policy.Policy`.

Tools are plain annotated methods (:mod:`rimbridge_sim.tools`); :meth:`RimBridge.register`
reads their annotations with :func:`rimbridge_annotations.collect` and registers them with
``server.add_tool``, wrapping each in the operation bookkeeping described in
:meth:`RimBridge.invoke`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import logging
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import anyio.abc
import anyio.to_thread

from lib_gab import GabpServer, InvalidArguments, ServerAddress, ToolError, current_operation
from lib_gab.operation import Operation, use_operation
from lib_gab.tools import Tool
from rimbridge_annotations import ToolInfo, collect
from rimbridge_sim.diagnostics import LogRing, OperationJournal, new_operation_id
from rimbridge_sim.feed import AttentionFeed
from rimbridge_sim.policy import Policy
from rimbridge_sim.scenarios import Scenario, get_scenario
from rimbridge_sim.world import LogRecord, Phase, World, WorldError

__all__ = [
    "APP_NAME",
    "APP_VERSION",
    "DEFAULT_PAYLOAD_CODES",
    "BridgeConfig",
    "CallSpec",
    "MainLoopTimeout",
    "RimBridge",
    "call_spec",
    "close_connection_after_response",
    "payload_failure",
]

logger = logging.getLogger("rimbridge_sim.integration")
game_logger = logging.getLogger("rimbridge_sim.game")

APP_NAME: Final = "RimWorld"
APP_VERSION: Final = "1.5-sim"
SERVER_NAME: Final = "rimbridge-sim"
SERVER_VERSION: Final = "0.1.0"

DEFAULT_PAYLOAD_CODES: Final[frozenset[str]] = frozenset({"unknown_id", "stale_id", "invalid_cell"})
"""World error codes that a game tool answers as a payload failure (``success: false``): the
caller pointed at something that is not there (or no longer), or at a cell that cannot take
the action. Every other refusal is an exception (see the package README)."""

_SUMMARY_LIMIT = 200
_ATTRIBUTE = "__rimbridge_call__"


def close_connection_after_response(reason: str) -> bool:
    """Ask lib_gab to close the calling bridge's connection once this call is answered.

    False when the current operation was not served over a connection (a script step run
    inside another call still closes the caller's connection: it runs under that operation).
    """
    operation = current_operation()
    if operation is None or operation.close_connection is None:
        return False
    operation.close_connection(reason)
    return True


class MainLoopTimeout(Exception):
    """The main loop (the world lock) did not become free in time."""


@dataclass(frozen=True)
class CallSpec:
    """How the integration runs a tool (behaviour, not metadata: that lives in annotations).

    ``world``: the body touches the world, so it runs under the world lock (the main loop) and
    inside ``world.caused_by(operation)``. ``payload_codes``: world error codes answered as a
    payload failure instead of an exception.
    """

    world: bool = False
    payload_codes: frozenset[str] = DEFAULT_PAYLOAD_CODES


def call_spec(
    *, world: bool = False, payload_codes: frozenset[str] = DEFAULT_PAYLOAD_CODES
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark how a tool function runs (see :class:`CallSpec`)."""
    spec = CallSpec(world=world, payload_codes=payload_codes)

    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        setattr(function, _ATTRIBUTE, spec)
        return function

    return mark


def payload_failure(message: str, code: str, **extra: Any) -> dict[str, Any]:
    """The result of a tool that ran and refused: ``{"success": false, "message", "code"}``."""
    return {"success": False, "message": message, "code": code, **extra}


def _spec_of(function: Callable[..., Any]) -> CallSpec:
    spec = getattr(getattr(function, "__func__", function), _ATTRIBUTE, None)
    return spec if isinstance(spec, CallSpec) else CallSpec()


def _summary(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SUMMARY_LIMIT else text[: _SUMMARY_LIMIT - 1] + "…"


@dataclass(frozen=True)
class BridgeConfig:
    """Everything a :class:`RimBridge` is configured with (the CLI flags map onto it)."""

    token: str = field(repr=False)
    port: int = 0
    agent_id: str = "rimworld"
    seed: int = 0
    policy: str | Path | Mapping[str, Any] | Policy = "recommended"
    tick_rate: float = 60.0
    """Main-loop frames per second; 0 stops the tick loop (time then passes only through
    ``rimworld/step_game_ticks`` and :meth:`RimBridge.advance_frames`)."""
    scenario: str | None = None
    enable_test_tools: bool = False
    data_dir: Path | None = None
    """Where screenshots go (``<data_dir>/screenshots``); a fresh temp dir when ``None``."""
    start_game: bool = True
    log_capacity: int = 2000
    journal_capacity: int = 500
    sample_limit: int = 5
    message_limit: int = 500
    update_interval: float = 0.25
    main_loop_timeout: float = 30.0
    """Seconds a game tool waits for the main loop before it fails with ``timed_out``."""
    attribute_to: Literal["root", "operation"] = "root"


@dataclass
class _PendingLoad:
    save_name: str
    replaced_map: str | None
    operation_id: str


class RimBridge:
    """The simulated RimBridgeServer: a world, its diagnostics, attention and the GABP server."""

    def __init__(self, config: BridgeConfig) -> None:
        self.config = config
        if config.tick_rate < 0:
            raise ValueError(f"tick_rate must be >= 0, got {config.tick_rate!r}")
        self.scenario: Scenario | None = get_scenario(config.scenario)
        self.policy = Policy.load(config.policy)
        self.ring = LogRing(config.log_capacity)
        self.journal = OperationJournal(config.journal_capacity)
        self.world_lock = threading.Lock()
        self.world = World(config.seed, log=self._on_world_log)
        self.server: GabpServer = GabpServer(
            app_name=APP_NAME,
            app_version=APP_VERSION,
            agent_id=config.agent_id,
            token=config.token,
            port=config.port,
            server_info={"name": SERVER_NAME, "version": SERVER_VERSION},
        )
        self.attention = self.server.enable_attention(
            sample_limit=config.sample_limit,
            message_limit=config.message_limit,
            update_interval=config.update_interval,
        )
        self.feed = AttentionFeed(
            self.attention, self.policy, self.ring, self.journal, attribute_to=config.attribute_to
        )
        self._temp_dir: tempfile.TemporaryDirectory[str] | None = None
        if config.data_dir is None:
            self._temp_dir = tempfile.TemporaryDirectory(prefix="rimbridge-sim-")
            self.data_dir = Path(self._temp_dir.name)
        else:
            self.data_dir = Path(config.data_dir)
        self.screenshot_dir = self.data_dir / "screenshots"
        self.started_at = time.monotonic()
        self.frames = 0
        self._tick = 0
        self._seen: tuple[Phase, str | None] = (self.world.phase, None)
        self._pending_load: _PendingLoad | None = None
        self._stall_timer: threading.Timer | None = None
        self._stalled_until: float | None = None
        self._screenshots = 0
        self.ring.subscribe(self._mirror)

        # imported here: the tool modules import this one for call_spec / payload_failure
        from rimbridge_sim.tools import DiagnosticsTools, FaultTools, GameTools

        self.register(DiagnosticsTools(self))
        self.register(GameTools(self))
        if config.enable_test_tools:
            self.register(FaultTools(self))

        if config.start_game:
            with self.world_lock:
                self.world.start_debug_game()
                self._observe_world(None)
        if self.scenario is not None:
            logger.info("scenario %s: %s", self.scenario.name, self.scenario.description)
            if self.scenario.on_start is not None:
                with self.world_lock:
                    self.scenario.on_start(self)

    def __repr__(self) -> str:
        return f"<RimBridge {self.config.agent_id} policy={self.policy.name!r}>"

    # -- registration -------------------------------------------------------------------------

    def register(self, namespace: object) -> list[Tool]:
        """Register every annotated tool of ``namespace`` with the server.

        The annotations are the only source of metadata; each function is wrapped so that a
        call becomes a journaled operation (see :meth:`invoke`).
        """
        registered = []
        for info, function in collect(namespace):
            registered.append(
                self.server.add_tool(
                    self._wrap(info, function),
                    name=info.name,
                    description=info.description,
                    title=info.title,
                    tags=info.tags,
                    result_description=info.result_description,
                    parameter_descriptions=info.parameter_descriptions(),
                    deprecated=info.deprecated,
                    version=info.version,
                )
            )
        return registered

    def _wrap(self, info: ToolInfo, function: Callable[..., Any]) -> Callable[..., Any]:
        name = info.name
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def call_async(**arguments: Any) -> Any:
                return await self.invoke_async(name, function, arguments)

            return call_async

        @functools.wraps(function)
        def call_sync(**arguments: Any) -> Any:
            return self.invoke(name, function, arguments)

        return call_sync

    # -- running one operation ----------------------------------------------------------------

    def _begin(self, name: str, arguments: Mapping[str, Any], parent_id: str | None) -> str:
        operation = current_operation()
        operation_id = operation.id if operation is not None else new_operation_id()
        self.journal.start(
            operation_id, name, parent_id=parent_id, arguments_summary=_summary(dict(arguments))
        )
        return operation_id

    def _end(self, operation_id: str, result: Any) -> None:
        if isinstance(result, Mapping) and result.get("success") is False:
            summary = f"payload failure: {result.get('message', '')}"
        else:
            summary = _summary(result)
        self.journal.complete(operation_id, summary)

    def invoke(
        self,
        name: str,
        function: Callable[..., Any],
        arguments: Mapping[str, Any],
        *,
        parent_id: str | None = None,
    ) -> Any:
        """Run a sync tool body as one operation (the current one, else a new id).

        The operation is started in the journal, the body runs (under the world lock and
        ``world.caused_by`` when its :class:`CallSpec` says so), and then:

        * a result (a payload failure included) completes the operation;
        * a :class:`WorldError` whose code is in the spec's ``payload_codes`` becomes a payload
          failure and completes it;
        * any other exception is logged at error level (source ``tool``), fails the operation
          (``timed_out`` when the main loop did not answer) and reaches the caller as a
          :class:`ToolError` whose data names the error code and the operation id.
        """
        spec = _spec_of(function)
        operation_id = self._begin(name, arguments, parent_id)
        try:
            if spec.world:
                with self.main_loop(), self.world.caused_by(operation_id):
                    try:
                        result = function(**arguments)
                    finally:
                        self._observe_world(operation_id)
            else:
                result = function(**arguments)
        except InvalidArguments as error:
            self.journal.complete(operation_id, f"refused: {error.message}")
            raise
        except WorldError as error:
            if error.code not in spec.payload_codes:
                raise self._exception(operation_id, name, error, error.code) from None
            result = payload_failure(error.message, error.code)
        except MainLoopTimeout as error:
            raise self._exception(
                operation_id, name, error, "main_loop_timeout", kind="timed_out"
            ) from None
        except ToolError as error:
            raise self._exception(operation_id, name, error, "tool_error") from None
        except Exception as error:
            logger.debug("%s crashed", name, exc_info=True)
            raise self._exception(operation_id, name, error, "internal_error") from None
        self._end(operation_id, result)
        return result

    async def invoke_async(
        self,
        name: str,
        function: Callable[..., Any],
        arguments: Mapping[str, Any],
        *,
        parent_id: str | None = None,
    ) -> Any:
        """:meth:`invoke` for async tool bodies (diagnostics; they never take the world lock)."""
        operation_id = self._begin(name, arguments, parent_id)
        try:
            result = await function(**arguments)
        except InvalidArguments as error:
            self.journal.complete(operation_id, f"refused: {error.message}")
            raise
        except WorldError as error:
            raise self._exception(operation_id, name, error, error.code) from None
        except ToolError as error:
            raise self._exception(operation_id, name, error, "tool_error") from None
        except Exception as error:
            logger.debug("%s crashed", name, exc_info=True)
            raise self._exception(operation_id, name, error, "internal_error") from None
        self._end(operation_id, result)
        return result

    def _exception(
        self,
        operation_id: str,
        name: str,
        error: BaseException,
        code: str,
        *,
        kind: Literal["failed", "timed_out"] = "failed",
    ) -> ToolError:
        """Log the exception line, fail the operation, and build the in-band error."""
        text = error.message if isinstance(error, WorldError | ToolError) else str(error)
        text = text or type(error).__name__
        self.log(
            "error", f"Exception in {name}: {type(error).__name__}: {text}", "tool", operation_id
        )
        self.journal.fail(operation_id, f"{type(error).__name__}: {text}", kind=kind)
        logger.info("%s raised %s: %s", name, type(error).__name__, text)
        return ToolError(
            f"{name} failed: {text}",
            {
                "code": code,
                "exception": type(error).__name__,
                "operationId": operation_id,
                "tool": name,
            },
        )

    @contextlib.contextmanager
    def main_loop(self) -> Iterator[None]:
        """Hold the world lock (the main loop) for a block; :class:`MainLoopTimeout` when it
        stays busy (e.g. stalled) for longer than ``main_loop_timeout``."""
        if not self.world_lock.acquire(timeout=self.config.main_loop_timeout):
            raise MainLoopTimeout(
                f"the game's main loop did not answer within {self.config.main_loop_timeout:g} s"
            )
        try:
            yield
        finally:
            self.world_lock.release()

    def tool(self, name: str) -> Tool:
        """A registered tool by name (``KeyError`` when there is none)."""
        found = self.server.tools.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def child_operation(self, method: str) -> Operation:
        """A new operation for follow-up work or a script step (not started yet)."""
        return Operation(id=new_operation_id(), method=method)

    # -- logging ------------------------------------------------------------------------------

    def log(self, level: str, message: str, source: str, operation_id: str | None = None) -> None:
        """Append a line to the log ring, attributed to ``operation_id`` and its root."""
        root = self.journal.root_of(operation_id) if operation_id is not None else None
        self.ring.append(
            level,
            message,
            source=source,
            tick=self._tick,
            operation_id=operation_id,
            root_operation_id=root,
        )

    def _on_world_log(self, record: LogRecord) -> None:
        self._tick = record.tick
        self.log(record.level.value, record.message, record.source, record.operation_id)

    @staticmethod
    def _mirror(entry: Any, collapsed: bool) -> None:
        if not collapsed and game_logger.isEnabledFor(logging.DEBUG):
            game_logger.debug("[%s] %s: %s", entry.level, entry.source, entry.message)

    # -- world transitions --------------------------------------------------------------------

    def _observe_world(self, operation_id: str | None) -> None:
        """Log what the real game logs when its map changes (call with the world lock held).

        These are the lines the attention policies match: ``Map replaced: <old> -> <new>`` and
        ``Game loaded: <save>`` (source ``load``) when a load finishes, ``Map replaced`` when a
        new game replaces a running one, ``Returned to main menu`` when the game is left.
        """
        world = self.world
        game = world.game
        phase, map_id = world.phase, (None if game is None else game.map.id)
        if game is not None:
            self._tick = game.tick
        previous_phase, previous_map = self._seen
        if (phase, map_id) == (previous_phase, previous_map):
            return
        self._seen = (phase, map_id)
        if phase is Phase.LOADING:
            return
        if phase is Phase.PLAYING:
            pending, self._pending_load = self._pending_load, None
            if previous_phase is Phase.LOADING and pending is not None:
                if pending.replaced_map is not None:
                    self.log(
                        "info",
                        f"Map replaced: {pending.replaced_map} -> {map_id}",
                        "load",
                        pending.operation_id,
                    )
                self.log("info", f"Game loaded: {pending.save_name}", "load", pending.operation_id)
                with contextlib.suppress(KeyError):
                    self.journal.complete(
                        pending.operation_id, f"loaded {pending.save_name} on {map_id}"
                    )
            elif previous_map is not None:
                self.log("info", f"Map replaced: {previous_map} -> {map_id}", "world", operation_id)
        elif phase is Phase.MAIN_MENU and previous_map is not None:
            self.log("info", "Returned to main menu", "world", operation_id)

    def begin_load(self, save_name: str, parent_id: str) -> str:
        """Start loading a save as follow-up work: a child operation that completes when the
        long event ends (call with the world lock held). Returns the child's id."""
        child = new_operation_id()
        replaced = self._seen[1]
        self.journal.start(
            child, "long_event/load", parent_id=parent_id, arguments_summary=save_name
        )
        try:
            with self.world.caused_by(child):
                self.world.load_game(save_name)
        except WorldError as error:
            self.journal.complete(child, f"not started: {error.message}")
            raise
        self._pending_load = _PendingLoad(save_name, replaced, child)
        self._seen = (self.world.phase, None)
        return child

    def remove_map(self, operation_id: str | None) -> str | None:
        """Lose the current map as the real game does when it is removed under the mod's feet:
        log ``Map removed: <map>`` and drop it (call with the world lock held)."""
        game = self.world.game
        if game is None:
            return None
        map_id = game.map.id
        self.log("warning", f"Map removed: {map_id}", "world", operation_id)
        self.world.go_to_main_menu()
        self._seen = (self.world.phase, None)
        return map_id

    # -- the main loop ------------------------------------------------------------------------

    def advance_frames(self, frames: int = 1) -> None:
        """Run ``frames`` main-loop frames now (waits for the world lock)."""
        with self.world_lock:
            for _ in range(frames):
                self._frame()

    def _frame(self) -> None:
        self.frames += 1
        self.world.advance_realtime(1)
        self._observe_world(None)
        if self.scenario is not None and self.scenario.on_frame is not None:
            self.scenario.on_frame(self, self.frames)

    async def _tick_loop(self) -> None:
        period = 1.0 / self.config.tick_rate
        deadline = anyio.current_time()
        while True:
            deadline += period
            # Never block the event loop: a busy or stalled main loop skips frames.
            if self.world_lock.acquire(blocking=False):
                try:
                    self._frame()
                except Exception:
                    logger.exception("main-loop frame failed")
                finally:
                    self.world_lock.release()
            now = anyio.current_time()
            if deadline < now - 1.0:
                deadline = now  # fell far behind (a stall): do not try to catch up
            await anyio.sleep(max(0.0, deadline - now))

    def stall(self, milliseconds: int) -> float:
        """Hang the main loop for ``milliseconds``: hold the world lock, released by a timer.

        Returns the monotonic time the stall ends. Game calls made meanwhile wait."""
        if not self.world_lock.acquire(timeout=self.config.main_loop_timeout):
            raise MainLoopTimeout("the main loop is already stalled")
        seconds = milliseconds / 1000
        self._stalled_until = time.monotonic() + seconds
        timer = threading.Timer(seconds, self._end_stall)
        timer.daemon = True
        self._stall_timer = timer
        timer.start()
        return self._stalled_until

    def _end_stall(self) -> None:
        self._stall_timer = None
        self._stalled_until = None
        self.world_lock.release()

    @property
    def stalled(self) -> bool:
        until = self._stalled_until
        return until is not None and time.monotonic() < until

    @property
    def phase(self) -> Phase:
        """The phase the main loop last saw (readable without the world lock)."""
        return self._seen[0]

    @property
    def map_id(self) -> str | None:
        return self._seen[1]

    # -- serving ------------------------------------------------------------------------------

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[ServerAddress] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Serve GABP and run the main loop until cancelled; reports the bound address."""
        try:
            async with anyio.create_task_group() as tg:
                address: ServerAddress = await tg.start(self.server.serve)
                if self.config.tick_rate > 0:
                    tg.start_soon(self._tick_loop)
                task_status.started(address)
        finally:
            self.close()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ServerAddress]:
        """Serve in the background for the duration of the block; yields the address."""
        async with anyio.create_task_group() as tg:
            address: ServerAddress = await tg.start(self.serve)
            try:
                yield address
            finally:
                tg.cancel_scope.cancel()

    def close(self) -> None:
        """Stop a running stall, detach the feed and remove the temporary data dir."""
        timer = self._stall_timer
        if timer is not None:
            timer.cancel()
            if self._stall_timer is not None:
                self._end_stall()
        self.feed.close()
        if self._temp_dir is not None:
            with contextlib.suppress(OSError):
                self._temp_dir.cleanup()
            self._temp_dir = None

    # -- helpers for tools --------------------------------------------------------------------

    async def run_step(
        self, name: str, arguments: Mapping[str, Any], parent_id: str
    ) -> tuple[str, Any]:
        """Run a registered tool as a child operation of ``parent_id`` (a script step).

        Arguments are validated against the tool's input schema first (``InvalidArguments``
        propagates). Returns ``(child operation id, result)``; exceptions propagate as
        :class:`ToolError` after the child operation failed.
        """
        tool = self.tool(name)
        validated = tool.validate_arguments(arguments)
        body = tool.function
        target = getattr(body, "__wrapped__", body)
        child = self.child_operation(name)
        if tool.is_async:
            with use_operation(child):
                result = await self.invoke_async(name, target, validated, parent_id=parent_id)
        else:

            def run() -> Any:
                with use_operation(child):
                    return self.invoke(name, target, validated, parent_id=parent_id)

            result = await anyio.to_thread.run_sync(run)
        return child.id, tool.encode_result(result)
