"""The mutable state of the simulated game: what a save holds and what the UI shows.

Everything here belongs to the :class:`~rimbridge_sim.world.World` that owns it; the rules
that change it live in the world's modules, and callers get plain views back, never these
objects. :class:`Game` is what a save stores (a deep copy); :class:`Interface` is the UI
around it (windows, selection, camera, ...), which a save does not store.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rimbridge_sim.world.model import (
    LETTER_CAP,
    THING_DEFS,
    Cell,
    DesignationKind,
    JobKind,
    LetterKind,
    LogLevel,
    Terrain,
    ThingDef,
    TimeSpeed,
)

__all__ = [
    "Area",
    "Camera",
    "ContextMenu",
    "Designation",
    "Game",
    "GameMap",
    "Hover",
    "Interface",
    "Job",
    "Letter",
    "LongEvent",
    "MenuOption",
    "Message",
    "Pawn",
    "ScheduledLog",
    "Thing",
    "Window",
    "Zone",
]


@dataclass
class Job:
    """What a pawn is doing.

    A job first walks ``path`` (one cell every few ticks, by terrain), then works for
    ``work_ticks``. ``stage`` is ``"walk"``, ``"work"`` or, for hauling, ``"carry"``.
    """

    kind: JobKind
    target: Cell | None = None
    path: list[Cell] = field(default_factory=list)
    move_cooldown: int = 0
    work_ticks: int = 0
    ticks_remaining: int | None = None
    thing_id: str | None = None
    designation_id: str | None = None
    destination: Cell | None = None
    stage: str = "walk"
    forced: bool = False
    operation_id: str | None = None


@dataclass
class Pawn:
    id: str
    first_name: str
    nickname: str
    last_name: str
    position: Cell
    health: float = 1.0
    downed: bool = False
    drafted: bool = False
    mood: float = 0.6
    food: float = 0.8
    job: Job | None = None
    carrying: str | None = None
    hunger_warning: int = 0
    """0: none given, 1: 'is hungry' given, 2: 'is starving' given."""
    mood_warned: bool = False
    job_logging: bool = False
    """Log every job this pawn starts (``rimworld/set_colonist_job_logging``)."""

    @property
    def label(self) -> str:
        return self.nickname

    @property
    def full_name(self) -> str:
        return f"{self.first_name} '{self.nickname}' {self.last_name}"


@dataclass
class Thing:
    id: str
    def_name: str
    position: Cell
    stack_count: int = 1

    @property
    def definition(self) -> ThingDef:
        return THING_DEFS[self.def_name]


@dataclass
class Designation:
    id: str
    kind: DesignationKind
    cell: Cell
    thing_id: str | None = None
    build_def: str | None = None
    claimed_by: str | None = None
    operation_id: str | None = None


@dataclass
class Letter:
    id: str
    label: str
    text: str
    kind: LetterKind
    tick: int
    read: bool = False
    choice_type: str | None = None
    """The choice letter's class (it asks for a decision and cannot be dismissed from the
    stack), or ``None`` for a standard letter."""


@dataclass
class ScheduledLog:
    """A log line to write once the game reaches ``tick`` (for follow-up faults)."""

    tick: int
    level: LogLevel
    message: str
    source: str
    operation_id: str | None


@dataclass
class GameMap:
    id: str
    width: int
    height: int
    terrain: list[Terrain]
    roofed: list[bool]

    def contains(self, cell: Cell) -> bool:
        return 0 <= cell.x < self.width and 0 <= cell.z < self.height

    def index(self, cell: Cell) -> int:
        return cell.z * self.width + cell.x

    def terrain_at(self, cell: Cell) -> Terrain:
        return self.terrain[self.index(cell)]

    def roofed_at(self, cell: Cell) -> bool:
        return self.roofed[self.index(cell)]


@dataclass
class Game:
    """One running colony: everything a save holds."""

    name: str
    seed: int
    map: GameMap
    things: dict[str, Thing]
    pawns: dict[str, Pawn]
    drop_spot: Cell
    rng: random.Random
    designations: dict[str, Designation] = field(default_factory=dict)
    letters: deque[Letter] = field(default_factory=lambda: deque(maxlen=LETTER_CAP))
    scheduled: list[ScheduledLog] = field(default_factory=list)
    tick: int = 0
    time_speed: TimeSpeed = TimeSpeed.PAUSED
    paused_speed: TimeSpeed = TimeSpeed.NORMAL
    """The speed unpausing returns to (RimWorld's ``prePauseTimeSpeed``)."""
    zones: dict[str, Zone] = field(default_factory=dict)
    areas: dict[str, Area] = field(default_factory=dict)
    use_work_priorities: bool = False
    """The Work tab's "Manual priorities" (RimWorld's ``playSettings.useWorkPriorities``): a
    setting of the game, kept while the tab is closed and saved with it."""


@dataclass
class Zone:
    """A stockpile or growing zone: a set of cells."""

    id: str
    kind: str
    """``Stockpile``, ``DumpingStockpile`` or ``Growing``."""
    label: str
    cells: set[Cell] = field(default_factory=set)
    hidden: bool = False
    plant_def: str | None = None


@dataclass
class Area:
    """A map area (home, roof, snow-clear, or a player's allowed area)."""

    id: str
    kind: str
    """``Home``, ``BuildRoof``, ``NoRoof``, ``SnowClear`` or ``Allowed``."""
    label: str
    cells: set[Cell] = field(default_factory=set)
    list_priority: int = 0

    @property
    def mutable(self) -> bool:
        """Player areas can be renamed, cleared and deleted; the built-in ones cannot."""
        return self.kind == "Allowed"

    @property
    def assignable(self) -> bool:
        """Can be a colonist's allowed area (home and player areas)."""
        return self.kind in ("Allowed", "Home")


@dataclass
class LongEvent:
    """A long event in progress (map generation, a load, a language switch)."""

    kind: str
    """``GeneratingMap``, ``LoadingGame`` or ``SwitchingLanguage``."""
    label: str
    frames_total: int
    frames_remaining: int
    operation_id: str | None = None
    payload: Any = None


@dataclass
class Camera:
    """The map camera: the cell at the screen centre and RimWorld's ``rootSize`` (half the
    visible height in cells)."""

    x: float = 25.0
    z: float = 25.0
    root_size: float = 24.0


@dataclass
class Message:
    """A live message (the text lines at the top left, gone after a while)."""

    id: int
    text: str
    message_type: str
    starting_tick: int
    starting_frame: int
    look_targets: list[str] = field(default_factory=list)


@dataclass
class MenuOption:
    label: str
    action: Callable[[], str] | None
    """Runs the option and returns what it did, for the log."""
    disabled: bool = False
    priority: str = "Default"
    order_in_priority: int = 0
    auto_takeable: bool = False


@dataclass
class ContextMenu:
    """An open float menu (a right-click menu)."""

    id: int
    window_id: int
    target_label: str
    click_cell: Cell
    options: list[MenuOption]
    provider: str = "ui_event"
    """The mod records every menu its injected click opens as ``ui_event``."""


@dataclass
class Window:
    """One window on the stack (dialogs, letters, main tabs, float menus)."""

    id: int
    type: str
    """The full .NET type name RimWorld would have (``RimWorld.Dialog_Options``)."""
    title: str
    layer: str = "Dialog"
    close_on_accept: bool = True
    close_on_cancel: bool = True
    force_pause: bool = False
    absorb_input: bool = False
    semantic_kind: str = "dialog"
    details: dict[str, Any] = field(default_factory=dict)
    semantic_details: dict[str, Any] | None = None
    """What the mod reports as a mod settings dialog's ``semanticDetails``."""
    rect: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    on_accept: Callable[[], str] | None = None
    buttons: list[tuple[str, str]] = field(default_factory=list)
    """Labelled actions (label, action key) the window offers, drawn as buttons."""
    scroll_y: float = 0.0
    content_height: float = 0.0
    settings: Callable[[], dict[str, Any]] | None = None
    """The live values a mod settings dialog's checkboxes show and change: the mod's
    ``ModSettings``, which ``DoSettingsWindowContents`` binds its widgets to."""
    on_close: Callable[[], object] | None = None
    """Run once when the window is closed (``PreClose``: a mod settings dialog writes the
    mod's settings, ``Mod.WriteSettings()``)."""

    @property
    def short_type(self) -> str:
        return self.type.rsplit(".", 1)[-1]


@dataclass
class Hover:
    """The virtual cursor: where ``set_hover_target`` put it."""

    kind: str
    target_id: str | None
    label: str
    screen_x: float
    screen_y: float
    details: dict[str, Any] = field(default_factory=dict)
    duration_ms: int = 15_000
    expires_at: float = 0.0
    """When the cursor goes away, in Unix seconds (``expiresAtUtc``)."""
    element: dict[str, Any] | None = None
    """The hovered layout element as the mod describes it, for a ``ui-element`` target."""


@dataclass
class Interface:
    """The UI around the game: reset when the game is dropped, never saved."""

    windows: list[Window] = field(default_factory=list)
    selection: list[str] = field(default_factory=list)
    camera: Camera = field(default_factory=Camera)
    main_tab: str | None = None
    """The open main tab's def name."""
    inspect_tab: str | None = None
    """The open inspect tab's short type name."""
    context_menu: ContextMenu | None = None
    hover: Hover | None = None
    messages: deque[Message] = field(default_factory=lambda: deque(maxlen=40))
    designator: str | None = None
    """The selected architect designator id."""
    zone_targets: dict[str, str] = field(default_factory=dict)
    """Explicit zone targets by zone-add designator id."""
    allowed_area: str | None = None
    """The selected allowed area's id (area designators expand or clear it)."""
    captures: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=8))
    """Recent ``get_ui_layout`` captures (their element ids resolve against them)."""
