"""What is on screen and where: screen targets (windows, the float menu, main tab buttons),
UI layout captures with clickable and scrollable element ids, and the virtual hover cursor.
A subsystem of the world (``world.screen``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

from rimbridge_sim.clock import iso_utc
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._map_input import MapInput
from rimbridge_sim.world._windows import MAIN_TABS, Windows
from rimbridge_sim.world.describe import SCREEN_HEIGHT, SCREEN_WIDTH, describe_camera
from rimbridge_sim.world.errors import RefusedError
from rimbridge_sim.world.model import Cell
from rimbridge_sim.world.state import Hover, Window

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
_ROW: Final = 34.0
_MAX_HOVER_MS: Final = 60_000


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    def to_wire(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "width": self.width, "height": self.height}

    def anchor(self, name: str) -> tuple[float, float]:
        horizontal = {"left": 0.0, "right": 1.0}.get(
            next((k for k in ("left", "right") if k in name.lower()), ""), 0.5
        )
        vertical = {"top": 0.0, "bottom": 1.0}.get(
            next((k for k in ("top", "bottom") if k in name.lower()), ""), 0.5
        )
        return self.x + self.width * horizontal, self.y + self.height * vertical


def _rect(window: Window) -> Rect:
    return Rect(*window.rect)


class Screen:
    """Screen-space targets, UI layouts and the hover cursor."""

    def __init__(self, world: WorldCore, windows: Windows, map_input: MapInput) -> None:
        self._world = world
        self._windows = windows
        self._input = map_input
        self._next_capture = 1

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

    def _window_target(self, index: int, window: Window) -> dict[str, Any]:
        top = self._windows.top()
        return {
            "kind": "window",
            "index": index,
            "id": window.id,
            "type": window.type,
            "title": window.title,
            "layer": window.layer,
            "isTopWindow": window is top,
            "isFocusedWindow": window is top,
            "getsInput": window is top,
            "windowTargetId": f"window:{window.id}:{window.type}",
            "dismissTargetId": f"window-dismiss:{window.id}:{window.type}",
            "rect": _rect(window).to_wire(),
        }

    def targets(self) -> dict[str, Any]:
        """``rimworld/get_screen_targets``: windows, the float menu, main tab, hover."""
        world = self._world
        menu = world.ui.context_menu
        context_menu = None
        if menu is not None:
            window = next((w for w in self._windows.stack if w.id == menu.window_id), None)
            rect = _rect(window) if window is not None else Rect(0, 0, 0, 0)
            context_menu = {
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
                        "rect": Rect(rect.x, rect.y + (index - 1) * 30, rect.width, 30).to_wire(),
                    }
                    for index, option in enumerate(menu.options, start=1)
                ],
            }
        tab = world.ui.main_tab
        main_tab = None
        if tab is not None:
            main_tab = {
                "kind": "main_tab",
                **self._windows.describe_tab(self._windows.main_tab(tab)),
            }
        return {
            "capturedAtUtc": iso_utc(time.time()),
            "uiState": self._windows.ui_state(),
            "camera": describe_camera(world) if world.game is not None else None,
            "hoverTarget": self.describe_hover(),
            "selectedPawns": [p.nickname for p in world.selected_pawns()],
            "mainTab": main_tab,
            "windows": [self._window_target(i, w) for i, w in enumerate(self._windows.stack)],
            "contextMenu": context_menu,
        }

    def resolve_rect(self, target_id: str) -> tuple[str, str, Rect]:
        """``(kind, label, rect)`` of any target id a screenshot can be clipped to."""
        target = target_id.strip()
        head, _, rest = target.partition(":")
        if head in ("window", "window-dismiss"):
            window_id = rest.split(":", 1)[0]
            for window in self._windows.stack:
                if str(window.id) == window_id:
                    return head, window.title or window.short_type, _rect(window)
            raise RefusedError(f"Screen target '{target_id}' refers to a window that is not open.")
        if head == "context-menu-option":
            targets = self.targets()["contextMenu"]
            for option in [] if targets is None else targets["options"]:
                if option["targetId"] == target:
                    rect = option["rect"]
                    return "context_menu_option", option["label"], Rect(**rect)
            raise RefusedError(f"Context menu option '{target_id}' is not open.")
        if head == "main-tab":
            tab = self._windows.describe_tab(self._windows.main_tab(rest))
            return "main_tab", tab["label"], Rect(**tab["rect"])
        if head in ("ui-surface", "ui-element"):
            surface, element = self._find_capture(target)
            if element is not None:
                return (
                    "ui_element",
                    element["label"] or element["kind"],
                    Rect(**element["screenRect"]),
                )
            return "ui_surface", surface["title"] or surface["type"], Rect(**surface["screenRect"])
        raise RefusedError(f"Unknown screen target id '{target_id}'.")

    # -- UI layout ---------------------------------------------------------------------------

    def _surface_of(self, window: Window) -> tuple[str, list[dict[str, Any]]]:
        rect = _rect(window)
        elements: list[dict[str, Any]] = [
            {
                "kind": "label",
                "source": "widgets.label",
                "label": window.title or window.short_type,
                "actionable": False,
                "rect": Rect(10, 10, rect.width - 20, 30),
            }
        ]
        y = 50.0
        for label, action in window.buttons:
            kind = "checkbox" if action == "toggle" else "button"
            elements.append(
                {
                    "kind": kind,
                    "source": "widgets.checkbox" if kind == "checkbox" else "widgets.button",
                    "label": label,
                    "actionable": True,
                    "action": action,
                    "checked": bool(window.details.get(label)) if kind == "checkbox" else None,
                    "rect": Rect(10, y, rect.width - 20, _ROW - 4),
                }
            )
            y += _ROW
        if window.content_height > rect.height:
            elements.append(
                {
                    "kind": "scroll_view",
                    "source": "widgets.scroll_view",
                    "label": None,
                    "actionable": True,
                    "action": "scroll",
                    "rect": Rect(10, y, rect.width - 20, max(40.0, rect.height - y - 10)),
                }
            )
        return f"window:{window.id}:{window.type}", elements

    def layout(self, surface_id: str | None) -> dict[str, Any]:
        """``rimworld/get_ui_layout``: surfaces (open windows) with their elements."""
        capture_id = self._next_capture
        self._next_capture += 1
        surfaces: list[dict[str, Any]] = []
        wanted = None if surface_id is None or not surface_id.strip() else surface_id.strip()
        for window in self._windows.stack:
            source_id, elements = self._surface_of(window)
            if wanted is not None and wanted not in (
                source_id,
                f"main-tab:{window.details.get('mainTabDefName')}",
            ):
                continue
            index = len(surfaces)
            rect = _rect(window)
            wire_elements = []
            for position, element in enumerate(elements):
                local: Rect = element["rect"]
                screen = Rect(rect.x + local.x, rect.y + local.y, local.width, local.height)
                scroll = None
                if element["kind"] == "scroll_view":
                    scroll = self._describe_scroll(window, local, screen)
                wire_elements.append(
                    {
                        "targetId": f"ui-element:{capture_id}:{index}:{position}",
                        "kind": element["kind"],
                        "source": element["source"],
                        "label": element["label"],
                        "valueText": None,
                        "actionable": element["actionable"],
                        "clipCapable": True,
                        "isChecked": element.get("checked"),
                        "disabled": False,
                        "depth": 1,
                        "parentTargetId": f"ui-surface:{capture_id}:{index}",
                        "rect": local.to_wire(),
                        "screenRect": screen.to_wire(),
                        "scroll": scroll,
                        "windowId": window.id,
                        "action": element.get("action"),
                    }
                )
            surfaces.append(
                {
                    "captureTargetId": f"ui-surface:{capture_id}:{index}",
                    "surfaceTargetId": source_id,
                    "surfaceKind": "main_tab" if window.semantic_kind == "main_tab" else "window",
                    "type": window.type,
                    "title": window.title,
                    "label": window.title,
                    "semanticKind": window.semantic_kind,
                    "semanticDetails": dict(window.details),
                    "rect": Rect(0, 0, rect.width, rect.height).to_wire(),
                    "screenRect": rect.to_wire(),
                    "elementCount": len(wire_elements),
                    "actionableElementCount": sum(1 for e in wire_elements if e["actionable"]),
                    "elements": wire_elements,
                }
            )
        if wanted is not None and not surfaces:
            raise RefusedError(f"UI surface '{surface_id}' is not on screen.")
        capture = {
            "success": True,
            "captureId": capture_id,
            "capturedFrame": self._world.frame,
            "capturedAtUtc": iso_utc(time.time()),
            "surfaceCount": len(surfaces),
            "surfaces": surfaces,
        }
        self._world.ui.captures.append(capture)
        return capture

    def _describe_scroll(self, window: Window, local: Rect, screen: Rect) -> dict[str, Any]:
        maximum = max(0.0, window.content_height - local.height)
        offset = min(window.scroll_y, maximum)
        return {
            "offsetX": 0.0,
            "offsetY": offset,
            "maxOffsetX": 0.0,
            "maxOffsetY": maximum,
            "canScrollX": False,
            "canScrollY": maximum > 0,
            "atLeft": True,
            "atRight": True,
            "atTop": offset <= 0,
            "atBottom": offset >= maximum,
            "viewportRect": local.to_wire(),
            "viewportScreenRect": screen.to_wire(),
            "contentRect": Rect(0, 0, local.width, window.content_height).to_wire(),
        }

    def _find_capture(self, target_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        parts = target_id.split(":")
        try:
            capture_id, surface_index = int(parts[1]), int(parts[2])
            element_index = int(parts[3]) if parts[0] == "ui-element" else None
        except (IndexError, ValueError):
            raise RefusedError(f"Malformed UI target id '{target_id}'.") from None
        for capture in self._world.ui.captures:
            if capture["captureId"] == capture_id:
                surfaces = capture["surfaces"]
                if surface_index >= len(surfaces):
                    break
                surface = surfaces[surface_index]
                if element_index is None:
                    return surface, None
                if element_index < len(surface["elements"]):
                    return surface, surface["elements"][element_index]
                break
        raise RefusedError(
            f"UI target '{target_id}' is not in a recent layout capture: call "
            "rimworld/get_ui_layout again."
        )

    def _element_window(self, target_id: str) -> tuple[dict[str, Any], Window]:
        _, element = self._find_capture(target_id)
        if element is None:
            raise RefusedError(f"'{target_id}' is a surface, not an element.")
        for window in self._windows.stack:
            if window.id == element["windowId"]:
                return element, window
        raise RefusedError(f"The window of UI target '{target_id}' is no longer open.")

    def click_element(self, target_id: str) -> str:
        element, window = self._element_window(target_id)
        if not element["actionable"] or element["kind"] == "scroll_view":
            raise RefusedError(f"UI target '{target_id}' is not clickable.")
        action: str = element["action"]
        label = element["label"]
        if action == "toggle":
            window.details[label] = not window.details.get(label, False)
            return f"Toggled '{label}' to {window.details[label]}."
        if action.startswith("option:"):
            index, option, _ = self._input.execute_option(int(action.split(":")[1]), None)
            return f"Executed menu option {index} '{option.label}'."
        if action == "accept":
            did = window.on_accept() if window.on_accept is not None else "accepted"
            self._windows.close(window)
            return f"Activated UI target '{label}': {did}."
        self._windows.close(window)
        return f"Activated UI target '{label}' on the current surface."

    def scroll_element(
        self,
        target_id: str,
        delta_y: float,
        target_y: float | None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        element, window = self._element_window(target_id)
        if element["kind"] != "scroll_view":
            raise RefusedError(f"UI target '{target_id}' is not a scroll view.")
        local = Rect(**element["rect"])
        screen = Rect(**element["screenRect"])
        before = self._describe_scroll(window, local, screen)
        wanted = target_y if target_y is not None else window.scroll_y + delta_y
        window.scroll_y = max(0.0, min(before["maxOffsetY"], wanted))
        return before, self._describe_scroll(window, local, screen)

    # -- the hover cursor --------------------------------------------------------------------

    def set_hover(
        self,
        kind: str,
        target_id: str | None,
        label: str,
        point: tuple[float, float],
        duration_ms: int | None,
        details: dict[str, Any],
    ) -> Hover:
        expires = None
        if duration_ms is not None:
            frames = max(1, min(_MAX_HOVER_MS, duration_ms)) * 60 // 1000
            expires = self._world.frame + frames
        hover = Hover(kind, target_id, label, point[0], point[1], expires, details)
        self._world.ui.hover = hover
        return hover

    def clear_hover(self) -> Hover | None:
        hover, self._world.ui.hover = self._world.ui.hover, None
        return hover

    def describe_hover(self) -> dict[str, Any] | None:
        hover = self._world.ui.hover
        if hover is None:
            return None
        if hover.expires_frame is not None and self._world.frame >= hover.expires_frame:
            self._world.ui.hover = None
            return None
        return {
            "kind": hover.kind,
            "targetId": hover.target_id,
            "label": hover.label,
            "screenPosition": {"x": hover.screen_x, "y": hover.screen_y},
            "expiresAtFrame": hover.expires_frame,
            "clearOnRealInput": True,
            "details": dict(hover.details),
        }

    def main_tab_rects(self) -> dict[str, Rect]:
        return {tab.def_name: Rect(**self._windows.describe_tab(tab)["rect"]) for tab in MAIN_TABS}
