"""What is on screen and where: screen targets (windows, the float menu, the open main tab),
UI layout captures (in ``_layout``) and the virtual hover cursor, with the records the mod
gives for each. A subsystem of the world (``world.screen``)."""

from __future__ import annotations

import time
from typing import Any, Final

from rimbridge_sim.clock import iso_utc
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._layout import Rect, UiLayouts, window_rect
from rimbridge_sim.world._map_input import OPTION_HEIGHT, OPTION_SPACING, MapInput
from rimbridge_sim.world._target_ids import parse_ui_target, target_id_kind
from rimbridge_sim.world._ui_records import target_ui_state
from rimbridge_sim.world._windows import Windows
from rimbridge_sim.world.describe import (
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    describe_camera,
    describe_pawn,
)
from rimbridge_sim.world.errors import NotFoundError, RefusedError
from rimbridge_sim.world.model import Cell
from rimbridge_sim.world.state import Hover

__all__ = ["ANCHORS", "Rect", "Screen"]

ANCHORS: Final = (
    "center",
    "top",
    "bottom",
    "left",
    "right",
    "topLeft",
    "topRight",
    "bottomLeft",
    "bottomRight",
)
_DEFAULT_HOVER_MS: Final = 15_000
_MIN_HOVER_MS: Final = 250
_MAX_HOVER_MS: Final = 60_000


def _dismissable(window: dict[str, Any]) -> bool:
    """Whether the mod offers a dismiss target for a window record."""
    return bool(
        window["isOpen"]
        and (
            window["closeOnAccept"]
            or window["closeOnCancel"]
            or window["layer"] in ("Dialog", "Super")
        )
    )


class Screen:
    """Screen-space targets, UI layouts and the hover cursor."""

    def __init__(self, world: WorldCore, windows: Windows, map_input: MapInput) -> None:
        self._world = world
        self._windows = windows
        self._input = map_input
        self.layouts = UiLayouts(world, windows, map_input)

    # -- projecting the map ------------------------------------------------------------------

    def pixels_per_cell(self) -> float:
        return SCREEN_HEIGHT / (2 * self._world.ui.camera.root_size)

    def cell_to_screen(self, cell: Cell) -> tuple[float, float]:
        camera = self._world.ui.camera
        scale = self.pixels_per_cell()
        return (
            round(SCREEN_WIDTH / 2 + (cell.x + 0.5 - camera.x) * scale, 1),
            round(SCREEN_HEIGHT / 2 - (cell.z + 0.5 - camera.z) * scale, 1),
        )

    # -- screen targets ----------------------------------------------------------------------

    @staticmethod
    def _window_target(window: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
        scoped = f"{window['id']}:{window['type']}"
        return {
            "kind": "window",
            "index": window["index"],
            "id": window["id"],
            "type": window["type"],
            "title": window["title"],
            "layer": window["layer"],
            "isTopWindow": window["type"] == state["topWindowType"],
            "isFocusedWindow": window["type"] == state["focusedWindowType"],
            "getsInput": window["getsInput"],
            "windowTargetId": f"window:{scoped}",
            "dismissTargetId": f"window-dismiss:{scoped}" if _dismissable(window) else None,
            "rect": window["rect"],
        }

    def _context_menu(self) -> dict[str, Any] | None:
        menu = self._world.ui.context_menu
        if menu is None:
            return None
        window = next((w for w in self._windows.stack if w.id == menu.window_id), None)
        rect = window_rect(window) if window is not None else Rect(0, 0, 0, 0)
        return {
            "kind": "context_menu",
            "menuId": menu.id,
            "windowTargetId": None if window is None else f"window:{window.id}:{window.type}",
            "dismissTargetId": None
            if window is None
            else f"window-dismiss:{window.id}:{window.type}",
            "provider": menu.provider,
            "target": menu.target_label,
            "clickCell": {"x": menu.click_cell.x, "z": menu.click_cell.z},
            "menuRect": rect.to_wire(),
            "title": None,
            "columnCount": 1,
            "usingScrollbar": False,
            "optionCount": len(menu.options),
            "options": [
                {
                    "kind": "context_menu_option",
                    "targetId": f"context-menu-option:{menu.id}:{index}",
                    "index": index,
                    "label": option.label,
                    "disabled": option.disabled,
                    "hasAction": option.action is not None,
                    "priority": option.priority,
                    "orderInPriority": option.order_in_priority,
                    # the mod's FloatMenuTargetLayoutCalculator: one column from the
                    # window's corner (a float menu has no margin), each row overlapping
                    # the one above by the option spacing
                    "rect": Rect(
                        rect.x,
                        rect.y + (index - 1) * (OPTION_HEIGHT + OPTION_SPACING),
                        rect.width,
                        OPTION_HEIGHT,
                    ).to_wire(),
                }
                for index, option in enumerate(menu.options, start=1)
            ],
        }

    def targets(self) -> dict[str, Any]:
        """``rimworld/get_screen_targets``: windows, the float menu, main tab, hover."""
        world = self._world
        state = self._windows.ui_state()
        tab = state["mainTab"]
        main_tab = None
        if tab is not None:
            keys = ("targetId", "defName", "label", "type", "order", "visible", "disabled")
            main_tab = {"kind": "main_tab", **{k: tab[k] for k in keys}, "rect": tab["rect"]}
        playing = world.game is not None and state["programState"] == "Playing"
        return {
            "capturedAtUtc": iso_utc(time.time()),
            "uiState": target_ui_state(state),
            "camera": describe_camera(world) if playing else None,
            "hoverTarget": self.describe_hover(),
            "selectedPawns": [describe_pawn(world, p) for p in world.selected_pawns()]
            if playing
            else [],
            "mainTab": main_tab,
            "windows": [self._window_target(w, state) for w in state["windows"]],
            "contextMenu": self._context_menu(),
        }

    def resolve_rect(self, target_id: str) -> tuple[str, str, Rect]:
        """``(kind, label, rect)`` of a target id a screenshot or the cursor can aim at, read
        as the mod reads it (a layout id first, then a screen target id; nothing trimmed),
        with its kinds: ui_surface, ui_element, window, window_dismiss, context_menu_option
        and main_tab (the open one)."""
        if parse_ui_target(target_id) is not None:
            return self._layout_rect(target_id)
        head = target_id_kind(target_id)
        parts = target_id.split(":")
        if head in ("window", "window-dismiss"):
            window_id, window_type = int(parts[1].strip()), parts[2]
            window = next(
                (
                    w
                    for w in reversed(self._windows.stack)
                    if w.id == window_id and w.type == window_type
                ),
                None,
            )
            if window is None:
                raise NotFoundError(
                    f"Could not find an open window matching target id '{target_id}'."
                )
            kind = "window" if head == "window" else "window_dismiss"
            return kind, window.title or window.type, window_rect(window)
        if head == "context-menu-option":
            return self._option_rect(target_id, int(parts[1].strip()), int(parts[2].strip()))
        if head == "main-tab":
            tab = self._windows.open_tab_snapshot()
            if tab is None:
                raise NotFoundError(
                    f"Could not find an open main tab matching target id '{target_id}'."
                )
            if tab["defName"] != parts[1]:
                raise RefusedError(
                    f"The active main tab '{tab['defName']}' does not match target id "
                    f"'{target_id}'."
                )
            return "main_tab", tab["label"] or tab["defName"], Rect(**tab["rect"])
        raise RefusedError(f"Target id '{target_id}' is not a supported screen target identifier.")

    def _option_rect(self, target_id: str, menu_id: int, index: int) -> tuple[str, str, Rect]:
        targets = self._context_menu()
        if targets is None:
            raise NotFoundError(
                f"Could not find an open context menu matching target id '{target_id}'."
            )
        if targets["menuId"] != menu_id:
            raise RefusedError(f"The active context menu does not match target id '{target_id}'.")
        options = targets["options"]
        if index > len(options):
            raise RefusedError(f"Context menu option target '{target_id}' is out of range.")
        option = options[index - 1]
        return "context_menu_option", option["label"], Rect(**option["rect"])

    def _layout_rect(self, target_id: str) -> tuple[str, str, Rect]:
        surface, element = self.layouts.find_capture(target_id)
        label = next(
            (
                text
                for text in (
                    None if element is None else element["label"],
                    surface["label"],
                    surface["title"],
                    surface["type"],
                )
                if text and text.strip()
            ),
            "",
        )
        if element is not None:
            return "ui_element", label, Rect(**element["screenRect"])
        return "ui_surface", label, Rect(**surface["screenRect"])

    # -- UI layout (see _layout) -------------------------------------------------------------

    def layout(self, surface_id: str | None, timeout_ms: int) -> dict[str, Any]:
        return self.layouts.layout(surface_id, timeout_ms)

    # -- the hover cursor --------------------------------------------------------------------

    def set_hover(
        self,
        kind: str,
        target_id: str | None,
        label: str,
        point: tuple[float, float],
        duration_ms: int | None,
        details: dict[str, Any],
        element: dict[str, Any] | None = None,
    ) -> Hover:
        """Put the cursor somewhere; it goes away after ``duration_ms`` (15 s when not given,
        250 ms to 60 s), as the mod's does."""
        if duration_ms is None or duration_ms <= 0:
            duration = _DEFAULT_HOVER_MS
        else:
            duration = max(_MIN_HOVER_MS, min(_MAX_HOVER_MS, duration_ms))
        hover = Hover(
            kind,
            target_id,
            label,
            point[0],
            point[1],
            details,
            duration_ms=duration,
            expires_at=time.time() + duration / 1000,
            element=element,
        )
        self._world.ui.hover = hover
        return hover

    def clear_hover(self) -> Hover | None:
        hover, self._world.ui.hover = self._world.ui.hover, None
        return hover

    def live_hover(self) -> Hover | None:
        """The cursor while it lasts: the mod's pointer ends by the clock (``durationMs`` of
        real time, however fast or slow the game runs), and is dropped once it has."""
        hover = self._world.ui.hover
        if hover is not None and time.time() > hover.expires_at:
            self._world.ui.hover = hover = None
        return hover

    def describe_hover(self) -> dict[str, Any] | None:
        """The cursor as the mod's persistent pointer describes it (null once expired)."""
        hover = self.live_hover()
        if hover is None:
            return None
        return {
            "kind": hover.kind,
            "targetId": hover.target_id or None,
            "label": hover.label or None,
            "screenPosition": {"x": hover.screen_x, "y": hover.screen_y},
            "expiresAtUtc": iso_utc(hover.expires_at),
            "durationMs": hover.duration_ms,
            "clearOnRealInput": True,
            "details": hover.details,
            "inputDiagnostics": {
                "uiMousePosition": {"x": hover.screen_x, "y": SCREEN_HEIGHT - hover.screen_y},
                "uiMousePositionInverted": {"x": hover.screen_x, "y": hover.screen_y},
                "eventMousePosition": None,
                "recentMouseIsOverChecks": [],
                "recentMouseIsOverMatches": [],
            },
        }
