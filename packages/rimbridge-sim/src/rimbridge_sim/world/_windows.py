"""The window stack: dialogs, letters, main tabs, float menus; accept and cancel input;
main tabs, inspect tabs and languages. A subsystem of the world (``world.windows``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._languages import LANGUAGES, Language, display_name
from rimbridge_sim.world._target_ids import target_id_kind
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH
from rimbridge_sim.world.errors import (
    InvalidArgumentError,
    MissingArgumentError,
    NotFoundError,
    RefusedError,
    UnknownIdError,
)
from rimbridge_sim.world.model import LogLevel, ProgramState
from rimbridge_sim.world.state import Window

__all__ = [
    "CLICK_CHANGE_KEYS",
    "INSPECT_TABS",
    "MAIN_TABS",
    "WINDOW_TYPES",
    "MainTab",
    "Windows",
    "window_title",
]

_CHANGE_KEYS: Final = (
    "windowCount",
    "nonImmediateDialogWindowOpen",
    "currentWindowGetsInput",
    "focusedWindowType",
    "mainTabOpen",
    "openMainTabId",
)
"""The UI state fields whose change makes a command's ``changed`` true (as the mod reads it)."""
CLICK_CHANGE_KEYS: Final = ("windowCount", "focusedWindowType", "mainTabOpen", "openMainTabId")
"""The narrower set the mod's ``click_ui_target`` answer reads."""


MAX_WINDOWS: Final = 32


@dataclass(frozen=True)
class MainTab:
    def_name: str
    label: str
    type: str
    order: int
    valid_without_map: bool = False


MAIN_TABS: Final[tuple[MainTab, ...]] = tuple(
    MainTab(name, label, f"RimWorld.MainTabWindow_{kind}", order, name == "Menu")
    for order, (name, label, kind) in enumerate(
        (
            ("Work", "Work", "Work"),
            ("Restrict", "Schedule", "Restrict"),
            ("Assign", "Assign", "Assign"),
            ("Animals", "Animals", "Animals"),
            ("Wildlife", "Wildlife", "Wildlife"),
            ("Research", "Research", "Research"),
            ("Quests", "Quests", "Quests"),
            ("World", "World", "World"),
            ("History", "History", "History"),
            ("Factions", "Factions", "Factions"),
            ("Menu", "Menu", "Menu"),
        ),
        start=1,
    )
)

INSPECT_TABS: Final[tuple[tuple[str, str, str], ...]] = (
    ("ITab_Pawn_Health", "Health", "Health"),
    ("ITab_Pawn_Needs", "Needs", "Needs"),
    ("ITab_Pawn_Gear", "Gear", "Gear"),
    ("ITab_Pawn_Social", "Social", "Social"),
    ("ITab_Pawn_Character", "Character", "Character"),
    ("ITab_Pawn_Log", "Log", "Log"),
)
"""The inspect tabs a selected colonist shows: (type, label, tutor tag); each tab's label
key is ``Tab<label>``."""


WINDOW_TYPES: Final[dict[str, tuple[str, bool]]] = {
    "RimWorld.Dialog_Options": ("Options", True),
    "RimWorld.Dialog_KeyBindings": ("Keyboard configuration", True),
    "RimWorld.Page_ModsConfig": ("Mods", True),
    "RimWorld.Dialog_AdvancedGameConfig": ("Advanced", True),
    "Verse.Dialog_DebugActionsMenu": ("Debug actions", True),
    "Verse.Dialog_MessageBox": ("Message", False),
    "Verse.Dialog_ModSettings": ("Mod settings", False),
    "Verse.Dialog_NodeTree": ("Letter", False),
}
"""Window types the simulation can open, by full name: (title, has a public parameterless
constructor)."""


def window_title(window: Window) -> str | None:
    """A window's title as the mod reports it: null when blank (a float menu has none)."""
    return window.title if window.title and window.title.strip() else None


_DIALOG_RECT: Final = (340.0, 110.0, 600.0, 500.0)
_TAB_RECT: Final = (0.0, 380.0, float(SCREEN_WIDTH), 305.0)


class Windows:
    """The window stack and everything that opens, closes and reads it."""

    def __init__(self, world: WorldCore) -> None:
        self._world = world

    # -- the stack ---------------------------------------------------------------------------

    @property
    def stack(self) -> list[Window]:
        return self._world.ui.windows

    def open(
        self,
        type_name: str,
        title: str,
        *,
        semantic_kind: str = "dialog",
        layer: str = "Dialog",
        rect: tuple[float, float, float, float] = _DIALOG_RECT,
        on_accept: Callable[[], str] | None = None,
        buttons: list[tuple[str, str]] | None = None,
        details: dict[str, Any] | None = None,
        force_pause: bool = False,
        content_height: float = 0.0,
    ) -> Window:
        """Push a window on top of the stack."""
        if len(self.stack) >= MAX_WINDOWS:
            raise InvalidArgumentError(f"at most {MAX_WINDOWS} windows can be open")
        window = Window(
            id=self._world.new_window_id(),
            type=type_name,
            title=title,
            layer=layer,
            semantic_kind=semantic_kind,
            rect=rect,
            on_accept=on_accept,
            buttons=list(buttons or [("Close", "close")]),
            details=dict(details or {}),
            force_pause=force_pause,
            content_height=content_height,
        )
        self.stack.append(window)
        return window

    def close(self, window: Window) -> None:
        if window in self.stack:
            self.stack.remove(window)
            if window.on_close is not None:
                window.on_close()
        ui = self._world.ui
        if ui.context_menu is not None and ui.context_menu.window_id == window.id:
            ui.context_menu = None
        if window.semantic_kind == "main_tab":
            ui.main_tab = None

    def by_id(self, window_id: int) -> Window:
        for window in self.stack:
            if window.id == window_id:
                return window
        raise UnknownIdError(f"no open window with id {window_id}")

    def matching(self, type_name: str) -> list[Window]:
        """Open windows whose full or short type name is ``type_name`` (case ignored)."""
        wanted = type_name.strip().lower()
        return [w for w in self.stack if wanted in (w.type.lower(), w.short_type.lower())]

    def top(self) -> Window | None:
        return self.stack[-1] if self.stack else None

    def describe(self, window: Window) -> dict[str, Any]:
        """A window as the mod's UI state lists it. Only a mod settings dialog has a semantic
        kind and details there; the sim's own kinds (main_tab, letter, ...) stay internal."""
        index = self.stack.index(window) if window in self.stack else -1
        x, y, width, height = window.rect
        semantic = window.semantic_details if window.semantic_kind == "mod_settings" else None
        return {
            "index": index,
            "id": window.id,
            "type": window.type,
            "title": window_title(window),
            "layer": window.layer,
            "isOpen": window in self.stack,
            "getsInput": window is self.top(),
            "closeOnAccept": window.close_on_accept,
            "closeOnCancel": window.close_on_cancel,
            "forcePause": window.force_pause,
            "preventCameraMotion": window.semantic_kind != "main_tab",
            "absorbInputAroundWindow": window.absorb_input,
            "drawInScreenshotMode": True,
            "semanticKind": None if semantic is None else "mod_settings_dialog",
            "semanticDetails": semantic,
            "rect": {"x": x, "y": y, "width": width, "height": height},
        }

    def ui_state(self) -> dict[str, Any]:
        """``rimworld/get_ui_state``: the window stack and what it does to input."""
        world = self._world
        top = self.top()
        dialogs = [w for w in self.stack if w.layer == "Dialog"]
        main_tab = self.open_tab_snapshot()
        return {
            "success": True,
            "programState": world.program_state.value,
            "inEntryScene": world.program_state is ProgramState.ENTRY,
            "hasCurrentGame": world.game is not None,
            "nonImmediateDialogWindowOpen": bool(dialogs),
            "currentWindowGetsInput": top is not None,
            "mouseObscuredNow": False,
            "windowsForcePause": any(w.force_pause for w in self.stack),
            "windowsPreventCameraMotion": bool(dialogs),
            "windowsPreventSave": False,  # no simulated window (float menus neither) sets it
            "anyWindowAbsorbingAllInput": any(w.absorb_input for w in self.stack),
            "anySearchWidgetFocused": False,
            "floatMenuOpen": world.ui.context_menu is not None,
            "windowCount": len(self.stack),
            "focusedWindowType": None if top is None else top.type,
            "focusedWindowTitle": None if top is None else window_title(top),
            "topWindowType": None if top is None else top.type,
            "topWindowTitle": None if top is None else window_title(top),
            "mainTabOpen": main_tab is not None,
            "openMainTabId": None if main_tab is None else main_tab["targetId"],
            "openMainTabType": None if main_tab is None else main_tab["type"],
            "openMainTabLabel": None if main_tab is None else main_tab["label"],
            "mainTab": main_tab,
            "windows": [self.describe(w) for w in self.stack],
        }

    def open_tab_snapshot(self) -> dict[str, Any] | None:
        """The open main tab as the mod's UI state describes it: its rect is the tab
        window's (a closed tab's would be all zeros)."""
        name = self._world.ui.main_tab
        if name is None:
            return None
        snapshot = self.describe_tab(self.main_tab(name))
        window = next((w for w in self.stack if w.semantic_kind == "main_tab"), None)
        if window is not None:
            x, y, width, height = window.rect
            snapshot["rect"] = {"x": x, "y": y, "width": width, "height": height}
        return snapshot

    def listed_tab(self, tab: MainTab) -> dict[str, Any]:
        """A main tab as the mod's rimworld/list_main_tabs lists it: its rect is the open tab
        window's, all zeros while the tab is closed (the button's rect is a screen target's)."""
        snapshot = self.describe_tab(tab)
        rect = {"x": 0.0, "y": 0.0, "width": 0.0, "height": 0.0}
        if snapshot["isOpen"]:
            window = next((w for w in self.stack if w.semantic_kind == "main_tab"), None)
            if window is not None:
                x, y, width, height = window.rect
                rect = {"x": x, "y": y, "width": width, "height": height}
        snapshot["rect"] = rect
        return snapshot

    def command(
        self,
        command: str,
        before: dict[str, Any],
        message: str,
        *,
        success: bool = True,
        change_keys: tuple[str, ...] = _CHANGE_KEYS,
    ) -> dict[str, Any]:
        """The answer of a UI command: what changed between ``before`` and now.

        ``changed`` is the mod's rule: the window count, whether a dialog is open or the top
        window takes input, the focused window, the open main tab, or a window opened or closed.
        A command that ran and changed nothing says so at the end of its message."""
        after = self.ui_state()
        before_ids = {w["id"] for w in before["windows"]}
        after_ids = {w["id"] for w in after["windows"]}
        opened = list(
            dict.fromkeys(w["type"] for w in after["windows"] if w["id"] not in before_ids)
        )
        closed = list(
            dict.fromkeys(w["type"] for w in before["windows"] if w["id"] not in after_ids)
        )
        changed = success and (
            any(before[key] != after[key] for key in change_keys) or bool(opened or closed)
        )
        if success and not changed:
            message += " UI state did not change."
        return {
            "success": success,
            "command": command,
            "changed": changed,
            "windowCountDelta": after["windowCount"] - before["windowCount"] if success else 0,
            "message": message,
            "before": before,
            "after": after if success else before,
            "openedWindowTypes": opened if success else [],
            "closedWindowTypes": closed if success else [],
        }

    # -- input -------------------------------------------------------------------------------

    def press_accept(self) -> None:
        """What the accept key does: the top window's accept action, then it closes, when the
        window takes accept; otherwise nothing (the key goes to the window stack either way)."""
        top = self.top()
        if top is None or not top.close_on_accept:
            return
        if top.on_accept is not None:
            top.on_accept()
        self.close(top)

    def press_cancel(self) -> None:
        """The cancel key: the top window closes when it takes cancel; otherwise nothing."""
        top = self.top()
        if top is not None and top.close_on_cancel:
            self.close(top)

    def open_by_type(self, type_name: str, replace_existing: bool) -> Window | None:
        """Open a window of a type with a parameterless constructor (short or full name, case
        ignored); ``None`` when one is open and ``replace_existing`` is false."""
        wanted = type_name.strip()
        if not wanted:
            raise MissingArgumentError("A short or full .NET type name is required.")
        full = next(
            (
                t
                for t, (_, parameterless) in WINDOW_TYPES.items()
                if parameterless and wanted.lower() in (t.lower(), t.rsplit(".", 1)[-1].lower())
            ),
            None,
        )
        if full is None:
            raise RefusedError(
                f"Could not resolve a loaded Verse.Window type matching '{wanted}' with a "
                "public parameterless constructor."
            )
        title, _ = WINDOW_TYPES[full]
        existing = self.matching(full)
        if existing and not replace_existing:
            return None
        for window in existing:
            self.close(window)
        buttons = [("Close", "close")]
        if full.endswith("Dialog_Options"):
            buttons = [("Pause on load", "toggle"), ("Run in background", "toggle"), *buttons]
        window = self.open(full, title, buttons=buttons, content_height=1200.0)
        self._world.emit(LogLevel.DEBUG, f"Opened window {full}", "ui")
        return window

    # -- main tabs ---------------------------------------------------------------------------

    def main_tab(self, query: str) -> MainTab:
        """The tab a query names, as the mod resolves it: ``main-tab:<defName>``, or a def
        name, label or window type (short or full), case ignored; another kind of screen
        target id is refused."""
        if not query or not query.strip():
            raise MissingArgumentError("A RimWorld main tab id is required.")
        head, _, rest = query.strip().partition(":")
        if target_id_kind(query.strip()) not in (None, "main-tab"):
            raise RefusedError(f"Target id '{query}' is not a RimWorld main-tab target id.")
        wanted = (rest if head == "main-tab" else query.strip()).lower()
        for tab in MAIN_TABS:
            names = (tab.def_name, tab.label, tab.type, tab.type.rsplit(".", 1)[-1])
            if wanted in (n.lower() for n in names):
                return tab
        raise NotFoundError(f"Could not find a RimWorld main tab matching '{query}'.")

    def _resolves_to(self, query: str) -> MainTab | None:
        try:
            return self.main_tab(query)
        except (RefusedError, MissingArgumentError):
            return None

    def tab_available(self, tab: MainTab) -> bool:
        return self._world.game is not None or tab.valid_without_map

    def describe_tab(self, tab: MainTab) -> dict[str, Any]:
        width = SCREEN_WIDTH / len(MAIN_TABS)
        return {
            "targetId": f"main-tab:{tab.def_name}",
            "defName": tab.def_name,
            "label": tab.label,
            "type": tab.type,
            "order": tab.order,
            "isOpen": self._world.ui.main_tab == tab.def_name,
            "visible": True,
            "disabled": not self.tab_available(tab),
            "validWithoutMap": tab.valid_without_map,
            "minimized": False,
            "rect": {
                "x": round((tab.order - 1) * width, 1),
                "y": SCREEN_HEIGHT - 35,
                "width": round(width, 1),
                "height": 35,
            },
        }

    def open_main_tab(self, query: str) -> MainTab:
        tab = self.main_tab(query)
        if not self.tab_available(tab):
            raise RefusedError(
                f"Main tab '{tab.def_name}' is currently disabled and cannot be opened."
            )
        if self._world.ui.main_tab == tab.def_name:
            return tab  # the game's SetCurrentTab leaves the open tab alone
        for window in [w for w in self.stack if w.semantic_kind == "main_tab"]:
            self.close(window)
        self.open(
            tab.type,
            tab.label,
            semantic_kind="main_tab",
            layer="GameUI",
            rect=_TAB_RECT,
            details={"mainTabDefName": tab.def_name},
            # the Work tab draws RimWorld's "Manual priorities" checkbox
            buttons=[("Manual priorities", "toggle"), ("Close", "close")]
            if tab.def_name == "Work"
            else None,
        )
        self._world.ui.main_tab = tab.def_name
        return tab

    def close_main_tab(self, expected: str | None) -> MainTab:
        current = self._world.ui.main_tab
        if current is None:
            raise RefusedError("No RimWorld main tab is currently open.")
        tab = self.main_tab(current)
        if expected is not None and expected.strip() and self._resolves_to(expected) != tab:
            raise RefusedError(
                f"The currently open main tab '{tab.def_name}' does not match '{expected}'."
            )
        for window in [w for w in self.stack if w.semantic_kind == "main_tab"]:
            self.close(window)
        return tab

    # -- languages ---------------------------------------------------------------------------

    def language(self, query: str) -> Language:
        """The installed language a query names: its id (the folder name) exactly, else its
        folder, legacy folder, display, English or native name (case ignored)."""
        wanted = query.strip()
        for language in LANGUAGES:
            if language.folder_name == wanted:
                return language
        for language in LANGUAGES:
            names = (
                language.id,
                language.folder_name,
                display_name(language),
                language.friendly_english,
                language.friendly_native,
            )
            if wanted.lower() in (n.lower() for n in names):
                return language
        raise NotFoundError(f"Could not find an installed RimWorld language matching '{query}'.")

    def describe_language(self, language: Language) -> dict[str, Any]:
        """A language as the mod lists it: its id is the folder name; the recommended query
        is the ASCII legacy folder name."""
        return {
            "index": LANGUAGES.index(language),
            "recommendedQuery": language.id,
            "id": language.folder_name,
            "folderName": language.folder_name,
            "legacyFolderName": language.id,
            "displayName": display_name(language),
            "friendlyNameEnglish": language.friendly_english,
            "friendlyNameNative": language.friendly_native,
            "isActive": self._world.language == language.id,
            "hasErrors": False,
            "loadErrorCount": 0,
        }
