"""What tools and scenarios may ask of the running bridge: the :class:`ToolHost` protocol.

Tool modules and scenarios depend on this protocol, not on the integration that implements
it (:class:`~rimbridge_sim.integration.RimBridge`), so imports point one way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lib_gab.attention import AttentionManager
from lib_gab.tools import Tool
from rimbridge_sim.config import BridgeConfig
from rimbridge_sim.contract import Contract
from rimbridge_sim.diagnostics import LogRing, OperationJournal
from rimbridge_sim.world import Phase, World

__all__ = ["ToolHost"]

T = TypeVar("T")


class ToolHost(Protocol):
    """The running simulated RimBridge, as its tools see it."""

    @property
    def config(self) -> BridgeConfig: ...

    @property
    def world(self) -> World:
        """The game; touch it only on the main loop (:meth:`main_loop`, :meth:`on_main_thread`)."""
        ...

    @property
    def ring(self) -> LogRing: ...

    @property
    def journal(self) -> OperationJournal: ...

    @property
    def attention(self) -> AttentionManager: ...

    @property
    def contract(self) -> Contract: ...

    @property
    def data_dir(self) -> Path: ...

    @property
    def policy_name(self) -> str: ...

    @property
    def scenario_name(self) -> str | None: ...

    @property
    def started_at(self) -> float:
        """``time.monotonic()`` when the bridge was built."""
        ...

    @property
    def frames(self) -> int:
        """Main-loop frames run so far."""
        ...

    @property
    def stalled(self) -> bool: ...

    @property
    def phase(self) -> Phase:
        """The phase the main loop last saw (readable without the main loop)."""
        ...

    @property
    def map_id(self) -> str | None: ...

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
        ...

    def main_loop(self) -> AbstractContextManager[None]:
        """Hold the main loop for a block (raises ``MainLoopTimeout`` when it stays busy)."""
        ...

    async def on_main_thread(self, function: Callable[[], T], *, timeout: float | None = None) -> T:
        """Run ``function`` on the main loop from async code (off the event loop)."""
        ...

    async def let_frames_pass(self, frames: int) -> None:
        """Let ``frames`` main-loop frames pass: wait for the tick loop, or run them when
        the tick loop is off (so waiting tools still see time pass)."""
        ...

    def stall(self, milliseconds: int) -> float: ...

    def remove_map(self, operation_id: str | None) -> str | None: ...

    def begin_load(self, save_name: str, parent_id: str) -> str:
        """Start loading a save as a child operation of ``parent_id``; returns its id."""
        ...

    def find_tool(self, name: str) -> Tool | None: ...

    def tool_list(self) -> list[Tool]: ...

    async def run_step(
        self, name: str, arguments: Mapping[str, Any], parent_id: str
    ) -> tuple[str, Any]:
        """Run a registered tool as a child operation (a script step)."""
        ...

    def app_info(self) -> dict[str, str]: ...
