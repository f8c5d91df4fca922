"""The game's main loop: one lock for the world (RimWorld's main thread), the tick loop that
runs frames, stalls, and the log lines the real game writes when its map changes."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import anyio
import anyio.to_thread

from lib_gab import current_operation
from rimbridge_sim.calls import MainLoopTimeout
from rimbridge_sim.diagnostics import OperationJournal, new_operation_id
from rimbridge_sim.world import Phase, World, WorldError

__all__ = ["MainLoop"]

logger = logging.getLogger("rimbridge_sim.integration")

T = TypeVar("T")
LogFunction = Callable[[str, str, str, str | None], None]


@dataclass
class _PendingLoad:
    save_name: str
    replaced_map: str | None
    operation_id: str


class MainLoop:
    """Serializes world access and runs frames.

    Args:
        world: the game.
        journal: where a load's follow-up operation is recorded.
        log: ``log(level, message, source, operation_id)`` into the log ring.
        tick_rate: frames per second of the tick loop (0: no tick loop).
        timeout: seconds a caller waits for the lock before :class:`MainLoopTimeout`.
        on_frame: called after every frame with the frame count (scenarios), lock held.
    """

    def __init__(
        self,
        world: World,
        journal: OperationJournal,
        log: LogFunction,
        *,
        tick_rate: float,
        timeout: float,
        on_frame: Callable[[int], None] | None = None,
    ) -> None:
        self.world = world
        self._journal = journal
        self._log = log
        self.tick_rate = tick_rate
        self.timeout = timeout
        self._on_frame = on_frame
        self.lock = threading.Lock()
        self.frames = 0
        self._seen: tuple[Phase, str | None] = (world.phase, None)
        self._pending_load: _PendingLoad | None = None
        self._stall_timer: threading.Timer | None = None
        self._stalled_until: float | None = None

    # -- holding the main thread ---------------------------------------------------------------

    @contextlib.contextmanager
    def hold(self, timeout: float | None = None) -> Iterator[None]:
        """Hold the world lock for a block; :class:`MainLoopTimeout` when it stays busy."""
        wait = self.timeout if timeout is None else timeout
        if not self.lock.acquire(timeout=wait):
            raise MainLoopTimeout(f"the game's main loop did not answer within {wait:g} s")
        try:
            yield
        finally:
            self.lock.release()

    async def on_main_thread(self, function: Callable[[], T], *, timeout: float | None = None) -> T:
        operation = current_operation()
        cause = None if operation is None else operation.id

        def run() -> T:
            with self.hold(timeout), self.world.caused_by(cause):
                try:
                    return function()
                finally:
                    self.observe(cause)

        return await anyio.to_thread.run_sync(run)

    async def let_frames_pass(self, frames: int) -> None:
        """Let ``frames`` frames pass: sleep while the tick loop runs them, or run them here
        when there is no tick loop (a stalled main loop just makes this a short sleep)."""
        frames = max(1, frames)
        if self.tick_rate > 0:
            await anyio.sleep(frames / self.tick_rate)
            return

        def run() -> None:
            with contextlib.suppress(MainLoopTimeout), self.hold(timeout=0.5):
                for _ in range(frames):
                    self._frame()

        await anyio.to_thread.run_sync(run)

    def advance_frames(self, frames: int = 1) -> None:
        """Run ``frames`` frames now (waits for the world lock)."""
        with self.hold():
            for _ in range(frames):
                self._frame()

    def _frame(self) -> None:
        self.frames += 1
        self.world.advance_realtime(1)
        self.observe(None)
        if self._on_frame is not None:
            self._on_frame(self.frames)

    async def run(self) -> None:
        """The tick loop: ``tick_rate`` frames per second until cancelled."""
        period = 1.0 / self.tick_rate
        deadline = anyio.current_time()
        while True:
            deadline += period
            # Never block the event loop: a busy or stalled main loop skips frames.
            if self.lock.acquire(blocking=False):
                try:
                    self._frame()
                except Exception:
                    logger.exception("main-loop frame failed")
                finally:
                    self.lock.release()
            now = anyio.current_time()
            if deadline < now - 1.0:
                deadline = now  # fell far behind (a stall): do not try to catch up
            await anyio.sleep(max(0.0, deadline - now))

    # -- stalls --------------------------------------------------------------------------------

    def stall(self, milliseconds: int) -> float:
        """Hang the main loop for ``milliseconds``: hold the lock, released by a timer."""
        if not self.lock.acquire(timeout=self.timeout):
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
        self.lock.release()

    @property
    def stalled(self) -> bool:
        until = self._stalled_until
        return until is not None and time.monotonic() < until

    def close(self) -> None:
        timer = self._stall_timer
        if timer is not None:
            timer.cancel()
            if self._stall_timer is not None:
                self._end_stall()

    # -- map transitions -----------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._seen[0]

    @property
    def map_id(self) -> str | None:
        return self._seen[1]

    def observe(self, operation_id: str | None) -> None:
        """Log what the real game logs when its map changes (lock held): ``Map replaced:
        <old> -> <new>`` and ``Game loaded: <save>`` (source ``load``) when a load finishes,
        ``Returned to main menu`` when the game is left."""
        world = self.world
        game = world.game
        phase, map_id = world.phase, (None if game is None else game.map.id)
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
                    self._log(
                        "info",
                        f"Map replaced: {pending.replaced_map} -> {map_id}",
                        "load",
                        pending.operation_id,
                    )
                self._log("info", f"Game loaded: {pending.save_name}", "load", pending.operation_id)
                with contextlib.suppress(KeyError):
                    self._journal.complete(
                        pending.operation_id, f"loaded {pending.save_name} on {map_id}"
                    )
            elif previous_map is not None:
                self._log(
                    "info", f"Map replaced: {previous_map} -> {map_id}", "world", operation_id
                )
        elif phase is Phase.MAIN_MENU and previous_map is not None:
            self._log("info", "Returned to main menu", "world", operation_id)

    def begin_load(self, save_name: str, parent_id: str) -> str:
        """Start loading a save as follow-up work: a child operation that completes when the
        long event ends (lock held). Returns the child's id."""
        child = new_operation_id()
        replaced = self._seen[1]
        self._journal.start(
            child, "long_event/load", parent_id=parent_id, arguments_summary=save_name
        )
        try:
            with self.world.caused_by(child):
                self.world.load_game(save_name)
        except WorldError as error:
            self._journal.complete(child, f"not started: {error.message}")
            raise
        self._pending_load = _PendingLoad(save_name, replaced, child)
        self._seen = (self.world.phase, None)
        return child

    def remove_map(self, operation_id: str | None) -> str | None:
        """Lose the current map as the real game does when it is removed under the mod's
        feet: log ``Map removed: <map>`` and drop it (lock held)."""
        game = self.world.game
        if game is None:
            return None
        map_id = game.map.id
        self._log("warning", f"Map removed: {map_id}", "world", operation_id)
        self.world.go_to_main_menu()
        self._seen = (self.world.phase, None)
        return map_id
