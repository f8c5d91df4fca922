"""Screen-space targets: what is where on screen, UI layouts with clickable and scrollable
element ids, the virtual hover cursor, and the game's language."""

from __future__ import annotations

from typing import Any

import anyio

from rimbridge_annotations import parameter, tool
from rimbridge_sim.calls import call_spec
from rimbridge_sim.host import ToolHost
from rimbridge_sim.world import (
    InvalidArgumentError,
    MissingArgumentError,
    NotFoundError,
    RefusedError,
    WorldError,
)
from rimbridge_sim.world._hover import HoverRequest, number_text, place_hover
from rimbridge_sim.world._languages import LANGUAGES, display_name
from rimbridge_sim.world._target_ids import target_id_kind
from rimbridge_sim.world._windows import CLICK_CHANGE_KEYS

__all__ = ["UiTargetTools"]

_MAX_SETTLE_MS = 3000
_number = number_text
_SCREEN_TARGET_KINDS = {
    "window-dismiss": ("window_dismiss", "dismiss_window"),
    "context-menu-option": ("context_menu_option", "execute_context_menu_option"),
    "window": ("window", ""),
    "main-tab": ("main_tab", ""),
}
_DESCRIPTIVE = {
    "window": "Window body targets are descriptive only. Use a dismissTargetId or another "
    "actionable target id.",
    "main-tab": "Main-tab targets are descriptive only. Use rimworld/open_main_tab or "
    "rimworld/close_main_tab for navigation.",
}
"""Screen targets the mod describes but will not click."""


def _screen_click(
    result: dict[str, Any],
    target_id: str,
    target_kind: str,
    action_kind: str,
    executed: tuple[int | None, str | None],
) -> dict[str, Any]:
    """A UI command answer with the screen target's fields before the UI states, as the
    mod orders them."""
    head = {k: result[k] for k in ("success", "command", "changed", "windowCountDelta")}
    return {
        **head,
        "message": result["message"],
        "targetId": target_id,
        "targetKind": target_kind,
        "actionKind": action_kind,
        "executedOptionIndex": executed[0],
        "executedLabel": executed[1],
        **{k: result[k] for k in ("before", "after", "openedWindowTypes", "closedWindowTypes")},
    }


def _click_answer(
    result: dict[str, Any], target_id: str, *, refused: bool = False
) -> dict[str, Any]:
    """A UI command's answer in ``click_ui_target``'s shape (the mod's keys and order: no
    ``windowCountDelta``, the target after the message; a refusal has no window lists)."""
    answer = {key: result[key] for key in ("success", "command", "changed", "message")}
    answer["targetId"] = target_id
    answer["before"], answer["after"] = result["before"], result["after"]
    if not refused:
        answer["openedWindowTypes"] = result["openedWindowTypes"]
        answer["closedWindowTypes"] = result["closedWindowTypes"]
    return answer


def _timeout(timeout_ms: int) -> int:
    """The mod's wait for a UI request: 2000 ms when not positive."""
    return timeout_ms if timeout_ms > 0 else 2000


class UiTargetTools:
    def __init__(self, host: ToolHost) -> None:
        self.host = host

    @tool(
        "rimworld/get_screen_targets",
        "List what is on screen with target ids: windows (and their dismiss targets), the "
        "float menu and its options, the open main tab, the hover cursor, the camera.",
        title="Get screen targets",
        result_description="{success, targets: {capturedAtUtc, uiState, camera, hoverTarget, "
        "selectedPawns, mainTab, windows: [{kind, id, type, title, windowTargetId, "
        "dismissTargetId, rect}], contextMenu: {menuId, options: [{targetId, label, rect}]}}}.",
    )
    @call_spec(world=True)
    def get_screen_targets(self) -> dict[str, Any]:
        return {"success": True, "targets": self.host.world.screen.targets()}

    @tool(
        "rimworld/click_screen_target",
        "Click a screen target id: a window's dismiss target closes it, a float-menu option "
        "runs. Window bodies and main tabs are only described there (refused here).",
        title="Click screen target",
        result_description="{success, command, changed, windowCountDelta, message, targetId, "
        "targetKind, actionKind, executedOptionIndex, executedLabel, before, after, "
        "openedWindowTypes, closedWindowTypes}; targetKind window_dismiss or "
        "context_menu_option, actionKind dismiss_window or execute_context_menu_option.",
    )
    @parameter("target_id", "A target id from rimworld/get_screen_targets.")
    @call_spec(world=True)
    def click_screen_target(self, target_id: str) -> dict[str, Any]:
        world = self.host.world
        windows = world.windows
        before = windows.ui_state()
        head = target_id_kind(target_id) or ""
        target_kind, action_kind = _SCREEN_TARGET_KINDS.get(head, ("", ""))
        executed: tuple[int | None, str | None] = (None, None)
        parts = target_id.split(":")
        try:
            if head == "window-dismiss":
                window = next(
                    (w for w in windows.stack if w.id == int(parts[1]) and w.type == parts[2]),
                    None,
                )
                if window is None:
                    raise NotFoundError(
                        f"Could not find an open window matching target id '{target_id}'."
                    )
                windows.close(window)
                message = f"Dismissed RimWorld window '{window.type}' ({window.id})."
            elif head == "context-menu-option":
                menu_id, index = int(parts[1]), int(parts[2])
                menu = world.ui.context_menu
                if menu is None:
                    raise RefusedError("No debug context menu is available.")
                if menu.id != menu_id:
                    raise RefusedError(
                        f"Context menu target id refers to menu {menu_id}, but the active "
                        f"debug context menu is {menu.id}."
                    )
                chosen, option, _ = world.map_input.execute_option(index, None)
                executed = (chosen, option.label)
                message = f"Executed menu option {chosen} '{option.label}'."
            elif head in _DESCRIPTIVE:
                raise RefusedError(_DESCRIPTIVE[head])
            else:
                raise RefusedError(
                    f"Target id '{target_id}' is not a supported screen target identifier."
                )
        except RefusedError as error:
            failed = windows.command("click_screen_target", before, error.message, success=False)
            answer = _screen_click(failed, target_id, target_kind, action_kind, (None, None))
            return {**answer, "code": error.code}
        done = windows.command("click_screen_target", before, message)
        return _screen_click(done, target_id, target_kind, action_kind, executed)

    @tool(
        "rimworld/get_ui_layout",
        "Capture the layout of the open windows (or one surface): each surface with its "
        "labels, buttons, checkboxes and scroll views, with ids and screen rectangles to "
        "click, scroll, hover or crop screenshots with.",
        title="Get UI layout",
        result_description="{success, captureId, capturedFrame, capturedAtUtc, surfaceCount, "
        "surfaces: [{captureTargetId, surfaceTargetId, surfaceKind, type, title, rect, "
        "screenRect, elementCount, actionableElementCount, elements: [{targetId, kind, label, "
        "actionable, isChecked, rect, screenRect, scroll}]}]}.",
    )
    @parameter("surface_id", "Only this surface: a window target id or main-tab:<defName>.")
    @parameter("timeout_ms", "How long to wait for the surface to be drawn, in milliseconds.")
    @call_spec(world=True)
    def get_ui_layout(
        self, surface_id: str | None = None, timeout_ms: int = 2000
    ) -> dict[str, Any]:
        try:
            return self.host.world.screen.layout(surface_id, _timeout(timeout_ms))
        except RefusedError as error:
            return {"success": False, "message": error.message, "code": error.code}

    @tool(
        "rimworld/click_ui_target",
        "Click a ui-element from rimworld/get_ui_layout: a button does its action, a checkbox "
        "toggles, a float-menu row runs its option.",
        title="Click UI target",
        result_description="{success, command, changed, message, targetId, before, after, "
        "openedWindowTypes, closedWindowTypes}.",
    )
    @parameter("target_id", "A ui-element id from rimworld/get_ui_layout.")
    @parameter("timeout_ms", "How long to wait for the element to be drawn, in milliseconds.")
    @call_spec(world=True)
    def click_ui_target(self, target_id: str, timeout_ms: int = 2000) -> dict[str, Any]:
        windows = self.host.world.windows
        before = windows.ui_state()
        try:
            did = self.host.world.screen.layouts.click_element(target_id, _timeout(timeout_ms))
        except RefusedError as error:
            failed = windows.command("click_ui_target", before, error.message, success=False)
            return {**_click_answer(failed, target_id, refused=True), "code": error.code}
        done = windows.command("click_ui_target", before, did, change_keys=CLICK_CHANGE_KEYS)
        return _click_answer(done, target_id)

    @tool(
        "rimworld/scroll_ui_target",
        "Scroll a scroll_view element from rimworld/get_ui_layout by a delta, or to an "
        "absolute offset (targetY / targetX win over the deltas).",
        title="Scroll UI target",
        result_description="{success, command, changed, message, targetId, before, after} "
        "where before and after are {offsetX, offsetY, maxOffsetX, maxOffsetY, atTop, "
        "atBottom, viewportRect, contentRect}.",
    )
    @parameter("target_id", "A scroll_view ui-element id.")
    @parameter("delta_y", "Pixels to scroll down (negative: up).")
    @parameter("delta_x", "Pixels to scroll right (no horizontal scroll views here).")
    @parameter("target_y", "Absolute vertical offset; wins over deltaY.")
    @parameter("target_x", "Absolute horizontal offset; wins over deltaX.")
    @parameter("timeout_ms", "How long to wait for the element to be drawn, in milliseconds.")
    @call_spec(world=True)
    def scroll_ui_target(
        self,
        target_id: str,
        delta_y: float = 0.0,
        delta_x: float = 0.0,
        target_y: float | None = None,
        target_x: float | None = None,
        timeout_ms: int = 2000,
    ) -> dict[str, Any]:
        try:
            before, after = self.host.world.screen.layouts.scroll_element(
                target_id, (delta_x, delta_y), (target_x, target_y), _timeout(timeout_ms)
            )
        except (RefusedError, MissingArgumentError) as error:
            return {
                "success": False,
                "command": "scroll_ui_target",
                "changed": False,
                "message": error.message,
                "targetId": target_id,
                "code": error.code,
            }
        changed = any(abs(before[k] - after[k]) > 0.001 for k in ("offsetX", "offsetY"))
        message = (
            f"Scrolled UI target '{target_id}' from ({_number(before['offsetX'])}, "
            f"{_number(before['offsetY'])}) to ({_number(after['offsetX'])}, "
            f"{_number(after['offsetY'])})."
        )
        return {
            "success": True,
            "command": "scroll_ui_target",
            "changed": changed,
            "message": message if changed else message + " Scroll offset did not change.",
            "targetId": target_id,
            "before": before,
            "after": after,
        }

    @tool(
        "rimworld/set_hover_target",
        "Put the virtual cursor on a UI or screen target, a map cell, a thing, a pawn, or "
        "screen coordinates (for hover effects in screenshots); it stays until cleared or "
        "durationMs passes. Give one kind of target only. Waits settleMs before answering.",
        title="Set hover target",
        result_description="{success, command, message, hoverTarget, settleMs}: hoverTarget is "
        "{kind (cell, thing, pawn, screen, window, main_tab, ...), targetId, label, "
        "screenPosition {x, y}, expiresAtUtc, durationMs, clearOnRealInput, details, "
        "inputDiagnostics}, or for a ui-element {kind: 'ui_element', targetId, "
        "surfaceTargetId, elementIndex, elementKind, source, label, anchor, offsetX, offsetY}.",
    )
    @parameter("target_id", "A ui-element or screen target id.")
    @parameter("x", "Map cell x to hover.")
    @parameter("z", "Map cell z to hover.")
    @parameter("thing_id", "A thing to hover.")
    @parameter("pawn_name", "A pawn to hover (by name).")
    @parameter("pawn_id", "A pawn to hover (by id).")
    @parameter("anchor", "Point inside a target rectangle: center, top, bottomLeft, ...")
    @parameter("offset_x", "Pixels added to the point horizontally.")
    @parameter("offset_y", "Pixels added to the point vertically.")
    @parameter("screen_x", "Screen x in UI pixels (when no target is given).")
    @parameter("screen_y", "Screen y in UI pixels from the top (when no target is given).")
    @parameter("duration_ms", "How long the cursor stays, in ms (250 to 60000; 15000 if omitted).")
    @parameter("settle_ms", "Milliseconds to wait before answering (0 to 3000).")
    async def set_hover_target(
        self,
        target_id: str | None = None,
        x: int | None = None,
        z: int | None = None,
        thing_id: str | None = None,
        pawn_name: str | None = None,
        pawn_id: str | None = None,
        anchor: str = "center",
        offset_x: float = 0.0,
        offset_y: float = 0.0,
        screen_x: float | None = None,
        screen_y: float | None = None,
        duration_ms: int | None = None,
        settle_ms: int = 600,
    ) -> dict[str, Any]:
        world = self.host.world
        request = HoverRequest(
            target_id,
            x,
            z,
            thing_id,
            pawn_name,
            pawn_id,
            anchor,
            offset_x,
            offset_y,
            screen_x,
            screen_y,
            duration_ms,
        )
        try:
            message, described = await self.host.on_main_thread(
                lambda: place_hover(world, world.screen, request)
            )
        except WorldError as error:  # the mod answers every failure in the payload
            return {
                "success": False,
                "command": "set_hover_target",
                "message": error.message,
                "code": error.code,
            }
        settle = max(0, min(_MAX_SETTLE_MS, settle_ms))
        await anyio.sleep(settle / 1000)
        return {
            "success": True,
            "command": "set_hover_target",
            "message": message,
            "hoverTarget": described,
            "settleMs": settle,
        }

    @tool(
        "rimworld/clear_hover_target",
        "Remove the virtual cursor.",
        title="Clear hover target",
        result_description="{success, command, message, hoverTarget: null}.",
    )
    @call_spec(world=True)
    def clear_hover_target(self) -> dict[str, Any]:
        self.host.world.screen.clear_hover()
        return {
            "success": True,
            "command": "clear_hover_target",
            "message": "Hover target cleared.",
            "hoverTarget": None,
        }

    @tool(
        "rimworld/list_languages",
        "List the installed languages with an ASCII-safe query for each (use it with "
        "rimworld/switch_language) and the active one.",
        title="List languages",
        result_description="{success, count, recommendedQueryField, usageHint, "
        "activeLanguageId, activeLanguageRecommendedQuery, activeLanguage, languages: [{index, "
        "recommendedQuery, id, folderName, displayName, friendlyNameEnglish, "
        "friendlyNameNative, isActive}]}.",
    )
    @call_spec(world=True)
    def list_languages(self) -> dict[str, Any]:
        windows = self.host.world.windows
        languages = [windows.describe_language(lang) for lang in LANGUAGES]
        active = next(lang for lang in languages if lang["isActive"])
        return {
            "success": True,
            "count": len(languages),
            "recommendedQueryField": "recommendedQuery",
            "usageHint": "Prefer recommendedQuery when calling rimworld/switch_language. It "
            "uses the most stable ASCII-safe query when one is available.",
            "activeLanguageId": active["id"],
            "activeLanguageRecommendedQuery": active["recommendedQuery"],
            "activeLanguage": active,
            "languages": languages,
        }

    @tool(
        "rimworld/switch_language",
        "Switch the game's language (a short long event reloads the texts) and save the "
        "choice in Config/Prefs.xml. A no-op for the active language.",
        title="Switch language",
        result_description="{success, command, status: 'queued' | 'noop', changed, "
        "requestedLanguage, previousLanguage, activeLanguage (language records as "
        "rimworld/list_languages lists them; the active one stays until the long event ends), "
        "persistedFolderName, longEventQueued, message, before, after (bridge states), "
        "beforeUi, afterUi (UI states)}.",
    )
    @parameter(
        "language",
        "The recommendedQuery from rimworld/list_languages, or an exact "
        "language id or display, native or English name.",
    )
    @call_spec(world=True)
    def switch_language(self, language: str) -> dict[str, Any]:
        world = self.host.world
        windows = world.windows
        before_ui = windows.ui_state()
        before = world.state_snapshot()
        common = {"success": True, "command": "switch_language"}
        query = language.strip()  # the mod resolves and names the trimmed query

        def refuse(message: str, code: str = RefusedError.code) -> dict[str, Any]:
            return {
                "success": False,
                "command": "switch_language",
                "message": message,
                "before": before,
                "beforeUi": before_ui,
                "code": code,
            }

        if not query:
            return refuse(
                "A language id or exact language name is required.", InvalidArgumentError.code
            )
        if world.long_event is not None:
            return refuse(
                "RimWorld is busy with another long event. Wait for it to finish before "
                "switching language."
            )
        try:
            wanted = windows.language(query)
        except RefusedError as error:
            return refuse(error.message, error.code)
        previous = next(lang for lang in LANGUAGES if lang.id == world.language)
        requested = windows.describe_language(wanted)
        if wanted == previous:
            return {
                **common,
                "status": "noop",
                "changed": False,
                "message": "RimWorld is already configured to use language "
                f"'{display_name(wanted)}'.",
                "requestedLanguage": requested,
                "activeLanguage": windows.describe_language(previous),
                "before": before,
                "beforeUi": before_ui,
            }
        world.queue_language(wanted.id)
        prefs = (
            '<?xml version="1.0" encoding="utf-8"?>\n<PrefsData>\n'
            f"  <langFolderName>{wanted.folder_name}</langFolderName>\n</PrefsData>\n"
        )
        world.storage.write("Config/Prefs.xml", prefs.encode("utf-8"))
        return {
            **common,
            "status": "queued",
            "changed": True,
            "requestedLanguage": requested,
            "previousLanguage": windows.describe_language(previous),
            "activeLanguage": windows.describe_language(previous),
            "persistedFolderName": wanted.folder_name,
            "longEventQueued": True,
            "message": f"Queued RimWorld language switch to '{display_name(wanted)}'. Call "
            "rimbridge/wait_for_long_event_idle before assuming translated content is ready.",
            "before": before,
            "after": world.state_snapshot(),
            "beforeUi": before_ui,
            "afterUi": windows.ui_state(),
        }
