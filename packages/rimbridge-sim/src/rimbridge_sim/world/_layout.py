"""UI layout captures: each open window as a surface with its labels, buttons, checkboxes and
scroll views, with ids (1-based, as the mod's) to click, scroll, hover or crop screenshots
with. Reached through :class:`~rimbridge_sim.world._screen.Screen`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final

from rimbridge_sim.clock import iso_utc
from rimbridge_sim.world._core import WorldCore
from rimbridge_sim.world._map_input import MapInput
from rimbridge_sim.world._windows import Windows, window_title
from rimbridge_sim.world.errors import RefusedError
from rimbridge_sim.world.state import Window

__all__ = ["Rect", "UiLayouts"]

_ROW: Final = 34.0


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float

    def to_wire(self) -> dict[str, float]:
        """The mod's rect record (C# floats: always written with a fraction)."""
        return {
            "x": float(self.x),
            "y": float(self.y),
            "width": float(self.width),
            "height": float(self.height),
        }

    def anchor(self, name: str) -> tuple[float, float]:
        horizontal = {"left": 0.0, "right": 1.0}.get(
            next((k for k in ("left", "right") if k in name.lower()), ""), 0.5
        )
        vertical = {"top": 0.0, "bottom": 1.0}.get(
            next((k for k in ("top", "bottom") if k in name.lower()), ""), 0.5
        )
        return self.x + self.width * horizontal, self.y + self.height * vertical


def window_rect(window: Window) -> Rect:
    return Rect(*window.rect)


def _element(
    kind: str,
    source: str,
    label: str | None,
    rect: Rect,
    *,
    actionable: bool,
    action: str | None = None,
    checked: bool | None = None,
    disabled: bool | None = None,
) -> dict[str, Any]:
    return {
        "kind": kind,
        "source": source,
        "label": label,
        "actionable": actionable,
        "action": action,
        "checked": checked,
        "disabled": disabled,
        "rect": rect,
    }


class UiLayouts:
    """``rimworld/get_ui_layout`` captures and the clicks and scrolls on their elements."""

    def __init__(self, world: WorldCore, windows: Windows, map_input: MapInput) -> None:
        self._world = world
        self._windows = windows
        self._input = map_input
        self._next_capture = 1

    def _surface_of(self, window: Window) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The surface a window draws (as the mod describes it) and its elements."""
        rect = window_rect(window)
        described = self._windows.describe(window)
        tab = window.details.get("mainTabDefName") if window.semantic_kind == "main_tab" else None
        surface = {
            "surfaceTargetId": f"window:{window.id}:{window.type}"
            if tab is None
            else f"main-tab:{tab}",
            "surfaceKind": "window" if tab is None else "main_tab",
            "type": window.type,
            "title": window_title(window) if tab is None else None,
            "label": None if tab is None else window.title,
            "semanticKind": described["semanticKind"],
            "semanticDetails": described["semanticDetails"],
        }
        elements = [
            _element(
                "label",
                "widgets.label",
                window.title or window.short_type,
                Rect(10, 10, rect.width - 20, 30),
                actionable=False,
            )
        ]
        y = 50.0
        for label, action in window.buttons:
            row = Rect(10, y, rect.width - 20, _ROW - 4)
            if action == "toggle":
                checked = bool(window.details.get(label))
                elements.append(
                    _element(
                        "checkbox",
                        "widgets.checkbox_labeled",
                        label,
                        row,
                        actionable=True,
                        action=action,
                        checked=checked,
                        disabled=False,
                    )
                )
            else:
                elements.append(
                    _element(
                        "button",
                        "widgets.button_text",
                        label,
                        row,
                        actionable=True,
                        action=action,
                        disabled=False,
                    )
                )
            y += _ROW
        if window.content_height > rect.height:
            viewport = Rect(10, y, rect.width - 20, max(40.0, rect.height - y - 10))
            elements.append(
                _element(
                    "scroll_view",
                    "widgets.begin_scroll_view",
                    None,
                    viewport,
                    actionable=False,
                    action="scroll",
                )
            )
        return surface, elements

    def layout(self, surface_id: str | None) -> dict[str, Any]:
        """``rimworld/get_ui_layout``: surfaces (open windows) with their elements."""
        capture_id = self._next_capture
        self._next_capture += 1
        surfaces: list[dict[str, Any]] = []
        wanted = None if surface_id is None or not surface_id.strip() else surface_id.strip()
        for window in self._windows.stack:
            surface, elements = self._surface_of(window)
            if wanted is not None and wanted not in (
                surface["surfaceTargetId"],
                f"window:{window.id}:{window.type}",
            ):
                continue
            index = len(surfaces) + 1
            rect = window_rect(window)
            wire_elements = []
            for position, element in enumerate(elements, start=1):
                local: Rect = element["rect"]
                screen = Rect(rect.x + local.x, rect.y + local.y, local.width, local.height)
                scroll = None
                if element["kind"] == "scroll_view":
                    scroll = self.describe_scroll(window, local, screen)
                wire_elements.append(
                    {
                        "targetId": f"ui-element:{capture_id}:{index}:{position}",
                        "kind": element["kind"],
                        "source": element["source"],
                        "label": element["label"],
                        "valueText": None,
                        "actionable": element["actionable"],
                        "clipCapable": True,
                        "isChecked": element["checked"],
                        "disabled": element["disabled"],
                        "depth": 0,
                        "parentTargetId": None,
                        "rect": local.to_wire(),
                        "screenRect": screen.to_wire(),
                        "scroll": scroll,
                        "windowId": window.id,
                        "action": element["action"],
                    }
                )
            surfaces.append(
                {
                    "captureTargetId": f"ui-surface:{capture_id}:{index}",
                    **surface,
                    "rect": rect.to_wire(),
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

    def describe_scroll(self, window: Window, local: Rect, screen: Rect) -> dict[str, Any]:
        maximum = max(0.0, window.content_height - local.height)
        offset = min(window.scroll_y, maximum)
        return {
            "offsetX": 0.0,
            "offsetY": offset,
            "maxOffsetX": 0.0,
            "maxOffsetY": maximum,
            "canScrollX": False,
            "canScrollY": maximum > 0.5,
            "atLeft": True,
            "atRight": True,
            "atTop": offset <= 0.5,
            "atBottom": offset >= maximum - 0.5,
            "viewportRect": local.to_wire(),
            "viewportScreenRect": screen.to_wire(),
            "contentRect": Rect(0, 0, local.width, window.content_height).to_wire(),
        }

    def find_capture(self, target_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The surface (and element) of a ``ui-surface`` / ``ui-element`` id."""
        parts = target_id.split(":")
        try:
            capture_id, surface_index = int(parts[1]), int(parts[2])
            element_index = int(parts[3]) if parts[0] == "ui-element" else None
        except (IndexError, ValueError):
            raise RefusedError(f"Malformed UI target id '{target_id}'.") from None
        for capture in self._world.ui.captures:
            if capture["captureId"] == capture_id:
                surfaces = capture["surfaces"]
                if not 1 <= surface_index <= len(surfaces):
                    break
                surface = surfaces[surface_index - 1]
                if element_index is None:
                    return surface, None
                if 1 <= element_index <= len(surface["elements"]):
                    return surface, surface["elements"][element_index - 1]
                break
        raise RefusedError(
            f"UI layout target '{target_id}' is no longer available. Capture a fresh layout "
            "snapshot."
        )

    def _element_window(self, target_id: str) -> tuple[dict[str, Any], Window]:
        _, element = self.find_capture(target_id)
        if element is None:
            raise RefusedError(
                f"Target id '{target_id}' is not a UI element target id returned by "
                "rimworld/get_ui_layout."
            )
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
        before = self.describe_scroll(window, local, screen)
        wanted = target_y if target_y is not None else window.scroll_y + delta_y
        window.scroll_y = max(0.0, min(before["maxOffsetY"], wanted))
        return before, self.describe_scroll(window, local, screen)
