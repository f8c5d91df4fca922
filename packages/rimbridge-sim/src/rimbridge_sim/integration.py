"""RimBridge: the simulated RimWorld integration, served over GABP with attention.

One :class:`RimBridge` owns everything the real RimBridgeServer mod has inside RimWorld:

* the :class:`~rimbridge_sim.world.World` (the game) behind a
  :class:`~rimbridge_sim._mainloop.MainLoop`: one lock (RimWorld's main thread) and the tick
  loop that runs ``tick_rate`` frames per second;
* the diagnostics plane: a :class:`~rimbridge_sim.diagnostics.LogRing` and an
  :class:`~rimbridge_sim.diagnostics.OperationJournal` (every ``tools/call`` is an operation
  keyed by its GABP request id; script steps and loads are child operations);
* the control plane: ``lib_gab``'s :class:`~lib_gab.AttentionManager` fed by an
  :class:`~rimbridge_sim.feed.AttentionFeed` under a :class:`~rimbridge_sim.policy.Policy`;
* the tools (:mod:`rimbridge_sim.tools`), registered against the real tool contract
  (:mod:`rimbridge_sim.contract`) by :mod:`rimbridge_sim._registration` and run as operations
  by :class:`~rimbridge_sim._operations.OperationRunner`.

It implements :class:`~rimbridge_sim.host.ToolHost`, the view tools and scenarios have of it.
"""

from __future__ import annotations

import inspect
import logging
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.abc
import anyio.to_thread

from lib_gab import GabpServer, ServerAddress
from lib_gab.operation import Operation, use_operation
from lib_gab.tools import Tool
from rimbridge_sim._mainloop import MainLoop
from rimbridge_sim._operations import OperationRunner
from rimbridge_sim._registration import register
from rimbridge_sim.config import (
    APP_NAME,
    APP_VERSION,
    SERVER_NAME,
    SERVER_VERSION,
    BridgeConfig,
)
from rimbridge_sim.contract import Contract, load_contract
from rimbridge_sim.contract.capabilities import capability_id
from rimbridge_sim.diagnostics import LogEntry, LogRing, OperationJournal, new_operation_id
from rimbridge_sim.feed import AttentionFeed
from rimbridge_sim.policy import Policy
from rimbridge_sim.relay import EventRelay
from rimbridge_sim.scenarios import Scenario, get_scenario
from rimbridge_sim.tools import tool_namespaces
from rimbridge_sim.world import DiskStorage, LogRecord, Phase, World

__all__ = ["BridgeConfig", "RimBridge"]

logger = logging.getLogger("rimbridge_sim.integration")
game_logger = logging.getLogger("rimbridge_sim.game")

T = TypeVar("T")


class RimBridge:
    """The simulated RimBridgeServer: a world, its diagnostics, attention and the GABP server."""

    def __init__(self, config: BridgeConfig) -> None:
        self._config = config
        if config.tick_rate < 0:
            raise ValueError(f"tick_rate must be >= 0, got {config.tick_rate!r}")
        self.scenario: Scenario | None = get_scenario(config.scenario)
        self.policy = Policy.load(config.policy)
        self._contract = load_contract()
        self._ring = LogRing(config.log_capacity)
        self._journal = OperationJournal(config.journal_capacity)
        self._temp_dir: tempfile.TemporaryDirectory[str] | None = None
        if config.data_dir is None:
            self._temp_dir = tempfile.TemporaryDirectory(prefix="rimbridge-sim-")
            self._data_dir = Path(self._temp_dir.name)
        else:
            self._data_dir = Path(config.data_dir)
        self._world = World(
            config.seed, log=self._on_world_log, storage=DiskStorage(self._data_dir)
        )
        self._world.map_size = config.map_size
        self._tick = 0
        self.loop = MainLoop(
            self._world,
            self._journal,
            self.log,
            tick_rate=config.tick_rate,
            timeout=config.main_loop_timeout,
            on_frame=self._scenario_frame,
        )
        self.server: GabpServer = GabpServer(
            app_name=APP_NAME,
            app_version=APP_VERSION,
            agent_id=config.agent_id,
            token=config.token,
            port=config.port,
            server_info={"name": SERVER_NAME, "version": SERVER_VERSION},
        )
        self._attention = self.server.enable_attention(
            sample_limit=config.sample_limit,
            message_limit=config.message_limit,
            update_interval=config.update_interval,
        )
        self.feed = AttentionFeed(
            self._attention,
            self.policy,
            self._ring,
            self._journal,
            attribute_to=config.attribute_to,
        )
        self.relay = EventRelay(self.server, self._ring, self._journal)
        self._started_at = time.monotonic()
        self._ring.subscribe(self._mirror)
        self.runner = OperationRunner(self._journal, self.loop, self.log)
        self._bodies: dict[str, Callable[..., Any]] = {}
        for namespace in tool_namespaces(self, test_tools=config.enable_test_tools):
            self.register(namespace)
        if config.start_game:
            with self.loop.hold():
                self._world.start_debug_game()
                self.loop.observe(None)
        if self.scenario is not None:
            logger.info("scenario %s: %s", self.scenario.name, self.scenario.description)
            if self.scenario.on_start is not None:
                with self.loop.hold():
                    self.scenario.on_start(self)

    def __repr__(self) -> str:
        return f"<RimBridge {self._config.agent_id} policy={self.policy.name!r}>"

    # -- ToolHost ------------------------------------------------------------------------------

    @property
    def config(self) -> BridgeConfig:
        return self._config

    @property
    def world(self) -> World:
        return self._world

    @property
    def ring(self) -> LogRing:
        return self._ring

    @property
    def journal(self) -> OperationJournal:
        return self._journal

    @property
    def attention(self) -> Any:
        return self._attention

    @property
    def contract(self) -> Contract:
        return self._contract

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    @property
    def policy_name(self) -> str:
        return self.policy.name

    @property
    def scenario_name(self) -> str | None:
        return None if self.scenario is None else self.scenario.name

    @property
    def started_at(self) -> float:
        return self._started_at

    @property
    def frames(self) -> int:
        return self.loop.frames

    @property
    def stalled(self) -> bool:
        return self.loop.stalled

    @property
    def phase(self) -> Phase:
        return self.loop.phase

    @property
    def map_id(self) -> str | None:
        return self.loop.map_id

    def app_info(self) -> dict[str, str]:
        return {"name": self.server.app.name, "version": self.server.app.version}

    @contextmanager
    def main_loop(self) -> Iterator[None]:
        with self.loop.hold():
            yield

    @property
    def world_lock(self) -> Any:
        """The main loop's lock (tests hold it to hang the game)."""
        return self.loop.lock

    async def on_main_thread(self, function: Callable[[], T], *, timeout: float | None = None) -> T:
        return await self.loop.on_main_thread(function, timeout=timeout)

    async def let_frames_pass(self, frames: int) -> None:
        await self.loop.let_frames_pass(frames)

    def advance_frames(self, frames: int = 1) -> None:
        self.loop.advance_frames(frames)

    def stall(self, milliseconds: int) -> float:
        return self.loop.stall(milliseconds)

    def remove_map(self, operation_id: str | None) -> str | None:
        return self.loop.remove_map(operation_id)

    def begin_load(self, save_name: str, parent_id: str) -> str:
        return self.loop.begin_load(save_name, parent_id)

    def find_tool(self, name: str) -> Tool | None:
        return self.server.tools.get(name)

    def tool_list(self) -> list[Tool]:
        return list(self.server.tools)

    def tool(self, name: str) -> Tool:
        """A registered tool by name (``KeyError`` when there is none)."""
        found = self.server.tools.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def register(self, namespace: object) -> list[Tool]:
        """Register every annotated tool of ``namespace`` (see :mod:`._registration`)."""
        pairs = register(self.server, self._contract, self.runner, namespace)
        for tool, body in pairs:
            self._bodies[tool.name] = body
        return [tool for tool, _ in pairs]

    async def run_step(
        self, name: str, arguments: Mapping[str, Any], parent_id: str
    ) -> tuple[str, Any]:
        """Run a registered tool as a child operation of ``parent_id`` (a script step).

        Arguments are validated against the tool's input schema first (``InvalidArguments``
        propagates). Returns ``(child operation id, result)``; exceptions propagate as
        ``ToolError`` after the child operation failed.
        """
        tool = self.tool(name)
        validated = tool.validate_arguments(arguments)
        body = self._bodies[name]
        child = Operation(id=new_operation_id(), method=name)
        # the body, not the registered wrapper: a quick read's wrapper is async, its body not
        if inspect.iscoroutinefunction(body):
            with use_operation(child):
                result = await self.runner.invoke_async(name, body, validated, parent_id=parent_id)
        else:

            def run() -> Any:
                with use_operation(child):
                    return self.runner.invoke(name, body, validated, parent_id=parent_id)

            result = await anyio.to_thread.run_sync(run)
        return child.id, tool.encode_result(result)

    # -- logging -------------------------------------------------------------------------------

    def log(
        self,
        level: str,
        message: str,
        source: str,
        operation_id: str | None = None,
        stack_trace: str = "",
    ) -> None:
        """Append a line to the log ring, attributed to ``operation_id`` and its root;
        ``stack_trace`` is the traceback of the exception the line reports, if it reports one."""
        journal = self._journal
        if operation_id is None:
            self._ring.append(
                level, message, source=source, tick=self._tick, stack_trace=stack_trace
            )
            return
        record = journal.get(operation_id)
        self._ring.append(
            level,
            message,
            source=source,
            tick=self._tick,
            operation_id=operation_id,
            root_operation_id=journal.root_of(operation_id),
            capability_id=None if record is None else capability_id(record.method),
            parent_operation_id=None if record is None else record.parent_id,
            stack_trace=stack_trace,
        )

    def _on_world_log(self, record: LogRecord) -> None:
        self._tick = record.tick
        self.log(record.level.value, record.message, record.source, record.operation_id)

    @staticmethod
    def _mirror(entry: LogEntry, collapsed: bool) -> None:
        if not collapsed and game_logger.isEnabledFor(logging.DEBUG):
            game_logger.debug("[%s] %s: %s", entry.level, entry.source, entry.message)

    def _scenario_frame(self, frame: int) -> None:
        if self.scenario is not None and self.scenario.on_frame is not None:
            self.scenario.on_frame(self, frame)

    # -- serving -------------------------------------------------------------------------------

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[ServerAddress] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Serve GABP and run the main loop until cancelled; reports the bound address."""
        try:
            async with anyio.create_task_group() as tg:
                address: ServerAddress = await tg.start(self.server.serve)
                tg.start_soon(self.relay.run)
                self._log_listening(address)
                if self._config.tick_rate > 0:
                    tg.start_soon(self.loop.run)
                task_status.started(address)
        finally:
            self.close()

    def _log_listening(self, address: ServerAddress) -> None:
        # the mod's lines once its server runs (it also logs the token when standalone: the
        # simulation never writes a secret into its log)
        how = "connected to GABS" if self._config.launched_by_gabs else "running standalone"
        self.log("info", f"[RimBridge] GABP server {how} on port {address.port}", "unity")

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
        self.loop.close()
        self.feed.close()
        self.relay.close()
        if self._temp_dir is not None:
            with suppress(OSError):
                self._temp_dir.cleanup()
            self._temp_dir = None
