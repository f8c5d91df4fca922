"""The :class:`World`: a simulated RimWorld, as one object.

Pure Python: no threads, no clock and no I/O of its own (files go through a
:class:`~rimbridge_sim.world.storage.Storage`). Time passes only through
:meth:`~rimbridge_sim.world._lifecycle.LifecycleOps.step` (game ticks, forced, as the real
debug tool does) and :meth:`~rimbridge_sim.world._lifecycle.LifecycleOps.advance_realtime`
(frames of the process's tick loop, which respects pause, the time speed and long events).

The world is put together from parts, each in its own module: the core state and lookups
(``_core``), the lifecycle and time (``_lifecycle``), the map (``_map_ops``, with the colony
rules in ``_things`` / ``_jobs`` / ``_colony``), and the subsystems reached as attributes:
``windows``, ``selection``, ``camera``, ``map_input``, ``screen``, ``zones``, ``architect``,
``cell_search``, ``notifications``, ``mods``, ``mod_settings`` and ``debug``.
"""

from __future__ import annotations

from collections.abc import Callable

from rimbridge_sim.world._architect import Architect
from rimbridge_sim.world._camera import CameraControl
from rimbridge_sim.world._cell_search import CellSearch
from rimbridge_sim.world._debug import DebugMenu
from rimbridge_sim.world._lifecycle import LifecycleOps
from rimbridge_sim.world._map_input import MapInput
from rimbridge_sim.world._map_ops import MapOps
from rimbridge_sim.world._mod_list import ModList
from rimbridge_sim.world._mod_settings import ModSettingsStore
from rimbridge_sim.world._notifications import Notifications
from rimbridge_sim.world._screen import Screen
from rimbridge_sim.world._selection import Selection
from rimbridge_sim.world._windows import Windows
from rimbridge_sim.world._zones import ZonesAndAreas
from rimbridge_sim.world.model import Cell, LogRecord
from rimbridge_sim.world.storage import Storage

__all__ = ["World"]


class World(LifecycleOps, MapOps):
    """A simulated RimWorld: the main menu, at most one running game, saves, the UI.

    ``log`` receives every :class:`LogRecord` the world writes, synchronously, in order.
    All randomness comes from ``seed``: the same seed and the same calls give the same
    results, ids and log lines.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        log: Callable[[LogRecord], None] | None = None,
        storage: Storage | None = None,
    ) -> None:
        super().__init__(seed, log=log, storage=storage)
        self.windows = Windows(self)
        self.selection = Selection(self)
        self.camera = CameraControl(self)
        self.map_input = MapInput(self, self.windows, self.selection)
        self.screen = Screen(self, self.windows, self.map_input)
        self.zones = ZonesAndAreas(self)
        self.architect = Architect(self, self.zones)
        self.cell_search = CellSearch(self, self.architect)
        self.notifications = Notifications(
            self, self.windows, self.selection, self.camera, self.state_snapshot
        )
        self.mods = ModList(self)
        self.mod_settings = ModSettingsStore(self, self.mods)
        self.debug = DebugMenu(self, self._debug_spawn)

    def _debug_spawn(self, def_name: str, count: int, near: Cell) -> str:
        colony = self.require_colony()
        room = colony.room_for(def_name, near)
        placed = colony.place_items(def_name, min(count, room), near)
        return f"spawned {sum(t.stack_count for t in placed)} {def_name} near {near}"

    def windows_force_pause(self) -> bool:
        return any(window.force_pause for window in self.windows.stack)
