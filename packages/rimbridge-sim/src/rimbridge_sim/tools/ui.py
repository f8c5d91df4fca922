"""The window stack and keyboard-like input: the UI state, opening and closing windows and
main tabs, inspect tabs, and accept / cancel."""

from __future__ import annotations

import hashlib
from typing import Any

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import NO_GAME_SENTENCE, call_spec, without_game
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import (
    InvalidArgumentError,
    MissingArgumentError,
    NoGameError,
    RefusedError,
    StaleIdError,
    UnknownIdError,
    World,
)
from rimbridge_sim.world._ui_records import pascal_ui_state
from rimbridge_sim.world._windows import INSPECT_TABS, MAIN_TABS

__all__ = ["UiTools"]


_COMMAND = (
    "{success, command, changed, windowCountDelta, message, before, after, "
    "openedWindowTypes, closedWindowTypes}"
)
_TAB_COMMAND = "{success, command, changed, message, before, after}"


def _tab_hash(full_type: str, label: str) -> str:
    """The last part of a mod inspect tab id: 16 hex digits of SHA-256 over type and label."""
    return hashlib.sha256(f"{full_type}\n{label}".encode()).hexdigest()[:16]


def _dispatched(command: str) -> str:
    return f"Dispatched semantic '{command}' input to RimWorld's window stack."


def _normal(text: str) -> str:
    return text.strip().replace("_", "").replace("-", "").replace(" ", "").lower()


def _inspect_tabs(world: World) -> tuple[list[dict[str, Any]], str]:
    selection = world.selection
    fingerprint = selection.fingerprint()
    objects = selection.objects()
    if len(objects) != 1 or not selection.tab_types(objects[0]):
        return [], fingerprint
    tabs = []
    for ordinal, (type_name, label, tag) in enumerate(INSPECT_TABS, start=1):
        full_type = f"RimWorld.{type_name}"
        tabs.append(
            {
                "ordinal": ordinal,
                "inspectTabId": f"inspect-tab:{fingerprint}:{ordinal}:"
                f"{_tab_hash(full_type, label)}",
                "selectionFingerprint": fingerprint,
                "type": full_type,
                "shortType": type_name,
                "label": label,
                "labelKey": f"Tab{label}",
                "tutorTag": tag,
                "isOpen": world.ui.inspect_tab == type_name,
                "isVisible": True,
                "hidden": False,
            }
        )
    return tabs, fingerprint


def _resolve_tab(tabs: list[dict[str, Any]], query: str) -> dict[str, Any] | None:
    """The mod's order: the exact id, then a type, label, label key or tutor tag equal to the
    query (normalised), then the first type or label that contains it."""
    wanted = _normal(query)
    if not wanted:
        return None
    found = next((t for t in tabs if t["inspectTabId"] == query.strip()), None)
    names = ("type", "shortType", "label", "labelKey", "tutorTag")
    found = found or next((t for t in tabs if wanted in (_normal(t[k] or "") for k in names)), None)
    return found or next((t for t in tabs if any(wanted in _normal(t[k]) for k in names[:3])), None)


class UiTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    def _command(
        self, command: str, action: Any, *, success_message: str | None = None
    ) -> dict[str, Any]:
        windows = self.host.world.windows
        before = windows.ui_state()
        try:
            did = action()
        except RefusedError as error:
            failed = windows.command(command, before, error.message, success=False)
            return {**failed, "code": error.code}
        return windows.command(command, before, success_message or str(did))

    def _tab_command(self, command: str, action: Any) -> dict[str, Any]:
        """A main-tab command in the mod's shape: no window counts or lists, and ``changed``
        only when the open tab changed (a failure answers ``before`` as ``after``)."""
        windows = self.host.world.windows
        before = windows.ui_state()
        try:
            message = action()
        except (RefusedError, MissingArgumentError) as error:
            return {
                "success": False,
                "command": command,
                "changed": False,
                "message": error.message,
                "before": before,
                "after": before,
                "code": error.code,
            }
        after = windows.ui_state()
        changed = (before["openMainTabId"], before["mainTabOpen"]) != (
            after["openMainTabId"],
            after["mainTabOpen"],
        )
        return {
            "success": True,
            "command": command,
            "changed": changed,
            "message": message if changed else f"{message} UI state did not change.",
            "before": before,
            "after": after,
        }

    @tool(
        "rimworld/get_ui_state",
        "Describe the window stack (dialogs, letters, main tabs, float menus) and what it "
        "does to input: the focused window, whether the game is forced to pause, and more.",
        title="Get UI state",
        result_description="{success, programState, inEntryScene, hasCurrentGame, "
        "nonImmediateDialogWindowOpen, windowsForcePause, floatMenuOpen, windowCount, "
        "focusedWindowType, focusedWindowTitle, topWindowType, topWindowTitle, mainTabOpen, "
        "openMainTabId, openMainTabType, openMainTabLabel, mainTab: {targetId, defName, label, "
        "type, order, isOpen, rect} or null, windows: [{index, id, type, title, layer, "
        "getsInput, closeOnAccept, closeOnCancel, semanticKind, semanticDetails, rect}]}.",
    )
    @call_spec(world=True, quick=True)
    def get_ui_state(self) -> dict[str, Any]:
        return self.host.world.windows.ui_state()

    @tool(
        "rimworld/list_main_tabs",
        "List the main tabs of the bottom bar (Work, Schedule, Research, ...) with their "
        "target ids and which one is open.",
        title="List main tabs",
        result_description="{success, count, openMainTabId, openMainTabType, "
        "openMainTabLabel, tabs: [{targetId, defName, label, type, order, isOpen, visible, "
        "disabled, validWithoutMap, minimized, rect (the open tab window's; zeros while "
        "closed)}]}.",
    )
    @parameter("include_hidden", "Include tabs that are hidden or unavailable now.")
    @call_spec(world=True, quick=True)
    def list_main_tabs(self, include_hidden: bool = False) -> dict[str, Any]:
        windows = self.host.world.windows
        tabs = [windows.listed_tab(t) for t in MAIN_TABS]
        if not include_hidden:  # the mod hides invisible tabs only; disabled ones stay
            tabs = [t for t in tabs if t["visible"]]
        open_tab = next((t for t in tabs if t["isOpen"]), None)
        return {
            "success": True,
            "count": len(tabs),
            "openMainTabId": None if open_tab is None else open_tab["targetId"],
            "openMainTabType": None if open_tab is None else open_tab["type"],
            "openMainTabLabel": None if open_tab is None else open_tab["label"],
            "tabs": tabs,
        }

    @tool(
        "rimworld/open_main_tab",
        "Open a main tab by target id, def name, label or window type (closing another one).",
        title="Open main tab",
        result_description=_TAB_COMMAND + "; an unknown tab is a payload failure.",
    )
    @parameter("main_tab_id", "main-tab:<defName>, or a def name, label or window type.")
    @call_spec(world=True)
    def open_main_tab(self, main_tab_id: str) -> dict[str, Any]:
        windows = self.host.world.windows
        return self._tab_command(
            "open_main_tab",
            lambda: f"Opened RimWorld main tab '{windows.open_main_tab(main_tab_id).def_name}'.",
        )

    @tool(
        "rimworld/close_main_tab",
        "Close the open main tab; with mainTabId, only if that tab is the open one.",
        title="Close main tab",
        result_description=_TAB_COMMAND + "; no open tab is a payload failure.",
    )
    @parameter("main_tab_id", "The tab expected to be open (optional check).")
    @call_spec(world=True)
    def close_main_tab(self, main_tab_id: str | None = None) -> dict[str, Any]:
        windows = self.host.world.windows
        return self._tab_command(
            "close_main_tab",
            lambda: f"Closed RimWorld main tab '{windows.close_main_tab(main_tab_id).def_name}'.",
        )

    @tool(
        "rimworld/list_inspect_tabs",
        "List the inspect tabs of the selected object (a colonist's Health, Needs, Gear, "
        "Social, Character, Log) with ids scoped to the selection.",
        title="List inspect tabs",
        result_description="{success, hasSelection, selectionFingerprint, selectedCount, "
        "tabCount, openInspectTabId, openInspectTabType, openInspectTabLabel, tabs: [{ordinal, "
        "inspectTabId, selectionFingerprint, type, shortType, label, labelKey, tutorTag, "
        "isOpen, isVisible, hidden}], uiState (the UI state with PascalCase keys, as the mod "
        "serializes its snapshot class here)}.",
    )
    @parameter("include_hidden", "Include tabs that are hidden now.")
    @call_spec(world=True, quick=True)
    def list_inspect_tabs(self, include_hidden: bool = False) -> dict[str, Any]:
        world = self.host.world
        if (failure := without_game(world, NO_GAME_SENTENCE)) is not None:
            return failure
        tabs, fingerprint = _inspect_tabs(world)
        opened = next((t for t in tabs if t["isOpen"]), None)
        return {
            "success": True,
            "hasSelection": bool(world.selection.ids),
            "selectionFingerprint": fingerprint,
            "selectedCount": len(world.selection.ids),
            "tabCount": len(tabs),
            "openInspectTabId": None if opened is None else opened["inspectTabId"],
            "openInspectTabType": None if opened is None else opened["type"],
            "openInspectTabLabel": None if opened is None else opened["label"],
            "tabs": tabs,
            "uiState": pascal_ui_state(world.windows.ui_state()),
        }

    @tool(
        "rimworld/open_inspect_tab",
        "Open one of the selected object's inspect tabs by id, label, tutor tag or type name.",
        title="Open inspect tab",
        result_description="{success, command, changed, requestedInspectTabId, "
        "selectionFingerprint, openedInspectTab, openInspectTabId, openInspectTabType, before, "
        "after, tabs}; an unknown tab is {success: false, message, availableInspectTabIds}.",
    )
    @parameter(
        "inspect_tab_id",
        "An id from rimworld/list_inspect_tabs, or Health, "
        "ITab_Pawn_Health, RimWorld.ITab_Pawn_Health or the tutor tag.",
    )
    @call_spec(world=True)
    def open_inspect_tab(self, inspect_tab_id: str) -> dict[str, Any]:
        world = self.host.world
        before = world.windows.ui_state()

        def refuse(message: str, code: str, listed: bool = True) -> dict[str, Any]:
            return {
                "success": False,
                "command": "open_inspect_tab",
                "changed": False,
                "message": message,
                "requestedInspectTabId": inspect_tab_id,
                "selectionFingerprint": fingerprint if listed else None,
                "availableInspectTabIds": [t["inspectTabId"] for t in tabs] if listed else None,
                "tabs": tabs if listed else None,
                "before": before,
                "after": before,
                "code": code,
            }

        tabs: list[dict[str, Any]] = []
        fingerprint = ""
        if world.game is None:
            return refuse(NO_GAME_SENTENCE, NoGameError.code, listed=False)
        if not inspect_tab_id or not inspect_tab_id.strip():
            return refuse(
                "Provide an inspect tab id, translated label, type name, or tutor tag.",
                InvalidArgumentError.code,
                listed=False,
            )
        tabs, fingerprint = _inspect_tabs(world)
        parts = inspect_tab_id.split(":")
        if not world.selection.ids:
            return refuse("No object is currently selected.", RefusedError.code)
        if not tabs:
            return refuse(
                "The current selection does not expose any inspect tabs.", RefusedError.code
            )
        if len(parts) == 4 and parts[0] == "inspect-tab" and parts[1] not in ("", fingerprint):
            return refuse(
                "The requested inspect tab id no longer matches the current selection.",
                StaleIdError.code,
            )
        found = _resolve_tab(tabs, inspect_tab_id)
        if found is None:
            return refuse(
                f"Could not find inspect tab '{inspect_tab_id}' for the current selection.",
                UnknownIdError.code,
            )
        changed = world.ui.inspect_tab != found["shortType"]
        world.ui.inspect_tab = found["shortType"]
        tabs, _ = _inspect_tabs(world)
        return {
            "success": True,
            "command": "open_inspect_tab",
            "changed": changed,
            "requestedInspectTabId": inspect_tab_id,
            "selectionFingerprint": fingerprint,
            "openedInspectTab": {**found, "isOpen": True},
            "openInspectTabId": found["inspectTabId"],
            "openInspectTabType": found["type"],
            "before": before,
            "after": world.windows.ui_state(),
            "tabs": tabs,
        }

    @tool(
        "rimworld/press_accept",
        "Press accept (Enter) on the window stack: a top window that takes accept does its "
        "accept action (a letter's OK removes the letter) and closes; otherwise nothing "
        "changes.",
        title="Press accept",
        result_description=_COMMAND + "; with nothing to accept, changed is false.",
    )
    @call_spec(world=True)
    def press_accept(self) -> dict[str, Any]:
        return self._command(
            "accept", self.host.world.windows.press_accept, success_message=_dispatched("accept")
        )

    @tool(
        "rimworld/press_cancel",
        "Press cancel (Escape) on the window stack: an open float menu closes, else a top "
        "window that takes cancel closes; otherwise nothing changes.",
        title="Press cancel",
        result_description=_COMMAND + "; with nothing to cancel, changed is false.",
    )
    @call_spec(world=True)
    def press_cancel(self) -> dict[str, Any]:
        world = self.host.world
        action = world.windows.press_cancel
        if world.ui.context_menu is not None:
            action = world.map_input.close_menu
        return self._command("cancel", action, success_message=_dispatched("cancel"))

    @tool(
        "rimworld/close_window",
        "Close the open windows of a type (short or full type name), or the top window.",
        title="Close window",
        result_description=_COMMAND + "; nothing to close is a payload failure.",
    )
    @parameter(
        "window_type", "Short or full window type, e.g. Dialog_Options; omit for the top window."
    )
    @call_spec(world=True)
    def close_window(self, window_type: str | None = None) -> dict[str, Any]:
        windows = self.host.world.windows

        def close() -> str:
            # the last open window of that type, or the top window when the type is blank (the
            # mod closes one)
            given = window_type is not None and bool(window_type.strip())
            targets = windows.matching(window_type or "") if given else windows.stack
            if not targets:
                raise RefusedError(
                    f"Could not find an open window matching '{window_type}'."
                    if given
                    else "No open window was available to close."
                )
            target = targets[-1]
            windows.close(target)
            return f"Closed RimWorld window '{target.type}'."

        return self._command("close_window", close)

    @tool(
        "rimworld/open_window_by_type",
        "Open a window by .NET type name when it has a public parameterless constructor "
        "(RimWorld.Dialog_Options, RimWorld.Page_ModsConfig, ...).",
        title="Open window by type",
        result_description=_COMMAND + "; an unknown type or one that needs arguments is a "
        "payload failure.",
    )
    @parameter("window_type", "Short or full type name of a window.")
    @parameter("replace_existing", "Close open windows of that type first.")
    @call_spec(world=True)
    def open_window_by_type(
        self, window_type: str, replace_existing: bool = True
    ) -> dict[str, Any]:
        windows = self.host.world.windows
        before = windows.ui_state()
        try:
            window = windows.open_by_type(window_type, replace_existing)
        except (RefusedError, MissingArgumentError) as error:
            failed = windows.command("open_window_by_type", before, error.message, success=False)
            return {**failed, "code": error.code}
        if window is None:  # already open, and not to be replaced: the mod answers success
            full = windows.matching(window_type)[-1].type
            return {
                **windows.command("open_window_by_type", before, ""),
                "changed": False,
                "message": f"Window '{full}' is already open.",
            }
        return windows.command(
            "open_window_by_type", before, f"Opened RimWorld window '{window.type}'."
        )
