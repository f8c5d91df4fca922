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
from rimbridge_sim.world._target_ids import parse_ui_target
from rimbridge_sim.world._windows import Windows, window_title
from rimbridge_sim.world.errors import MissingArgumentError, RefusedError
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

    def anchor(self, name: str | None) -> tuple[float, float]:
        """The point an anchor names, read as the mod reads it (trimmed, ``_`` and ``-``
        dropped, case ignored); an unknown name is the centre on that axis."""
        key = (name or "center").strip().replace("_", "").replace("-", "").lower()
        horizontal = {"topleft": 0.0, "left": 0.0, "bottomleft": 0.0}.get(key)
        if horizontal is None:
            horizontal = 1.0 if key in ("topright", "right", "bottomright") else 0.5
        vertical = {"topleft": 0.0, "top": 0.0, "topright": 0.0}.get(key)
        if vertical is None:
            vertical = 1.0 if key in ("bottomleft", "bottom", "bottomright") else 0.5
        return self.x + self.width * horizontal, self.y + self.height * vertical


def _is_work_priorities(window: Window, label: str) -> bool:
    return window.details.get("mainTabDefName") == "Work" and label == "Manual priorities"


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
                checked = self._toggle_value(window, label)
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

    def layout(self, surface_id: str | None, timeout_ms: int) -> dict[str, Any]:
        """``rimworld/get_ui_layout``: surfaces (open windows) with their elements; only the
        one whose surface id is ``surface_id`` (trimmed, matched exactly) when given. With
        nothing to draw the mod's capture waits out ``timeout_ms``: refused with its text."""
        capture_id = self._next_capture
        self._next_capture += 1
        surfaces: list[dict[str, Any]] = []
        wanted = (surface_id or "").strip()
        for window in self._windows.stack:
            surface, elements = self._surface_of(window)
            if wanted and wanted != surface["surfaceTargetId"]:
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
        if not surfaces:
            raise RefusedError(
                f"Timed out waiting {timeout_ms}ms for UI surface '{surface_id}' to draw. "
                "Verify that the surface is open and retry."
                if wanted
                else f"Timed out waiting {timeout_ms}ms for a UI surface to draw. Open a "
                "dialog, main tab, or selected gizmo grid and retry."
            )
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
        """The surface (and element) of a ``ui-surface`` / ``ui-element`` id, read as the mod
        reads it (refused when it is neither); a capture that is gone, or a number past its
        surfaces or elements, is no longer available."""
        ref = parse_ui_target(target_id)
        if ref is None:
            raise RefusedError(
                f"Target id '{target_id}' is not a supported screen target identifier."
            )
        for capture in self._world.ui.captures:
            if capture["captureId"] == ref.capture:
                surfaces = capture["surfaces"]
                if ref.surface > len(surfaces):
                    break
                surface = surfaces[ref.surface - 1]
                if ref.element is None:
                    return surface, None
                if ref.element <= len(surface["elements"]):
                    return surface, surface["elements"][ref.element - 1]
                break
        raise RefusedError(
            f"UI layout target '{target_id}' is no longer available. Capture a fresh layout "
            "snapshot."
        )

    def find_element(self, target_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The surface and element of a ``ui-element`` id (any other id is refused)."""
        ref = parse_ui_target(target_id)
        if ref is None or ref.element is None:
            raise RefusedError(
                f"Target id '{target_id}' is not a UI element target id returned by "
                "rimworld/get_ui_layout."
            )
        surface, element = self.find_capture(target_id)
        assert element is not None
        return surface, element

    def _toggle_value(self, window: Window, label: str) -> bool:
        """A checkbox's state: the game's setting where the checkbox shows one (the Work tab's
        ``Manual priorities``, a mod settings dialog's fields), else the window's own."""
        game = self._world.game
        if game is not None and _is_work_priorities(window, label):
            return game.use_work_priorities
        if window.settings is not None:
            return bool(window.settings().get(label))
        return bool(window.details.get(label))

    def _set_toggle(self, window: Window, label: str, value: bool) -> None:
        game = self._world.game
        if game is not None and _is_work_priorities(window, label):
            game.use_work_priorities = value
        elif window.settings is not None:
            window.settings()[label] = value
        else:
            window.details[label] = value

    def _drawn_window(self, element: dict[str, Any]) -> Window | None:
        """The open window that draws ``element`` (``None`` once it is closed)."""
        return next((w for w in self._windows.stack if w.id == element["windowId"]), None)

    def click_element(self, target_id: str, timeout_ms: int) -> str:
        """Click a layout element as the mod does; the mod's text for what it activated."""
        surface, element = self.find_element(target_id)
        if not element["actionable"]:
            raise RefusedError(f"UI layout target '{target_id}' is not actionable.")
        if element["disabled"] is True:
            raise RefusedError(
                f"UI layout target '{target_id}' is currently disabled and cannot be clicked."
            )
        window = self._drawn_window(element)
        if window is None:  # never drawn again: the mod waits out its timeout
            raise RefusedError(
                f"Timed out waiting {timeout_ms}ms for UI target '{target_id}' to be redrawn. "
                "Capture a fresh layout and retry."
            )
        action: str = element["action"]
        label = element["label"]
        if action == "toggle":
            self._set_toggle(window, label, not self._toggle_value(window, label))
        elif action.startswith("option:"):
            self._input.execute_option(int(action.split(":")[1]), None)
        else:
            if action == "accept" and window.on_accept is not None:
                window.on_accept()
            self._windows.close(window)
        shown = label or element["kind"]
        return f"Activated UI target '{shown}' on surface '{surface['surfaceTargetId']}'."

    def scroll_element(
        self,
        target_id: str,
        delta: tuple[float, float],
        to: tuple[float | None, float | None],
        timeout_ms: int,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Scroll a scroll view by ``delta`` (x, y) or to ``to`` (x, y; a given one wins),
        held inside the content; ``(before, after)`` as the mod describes them."""
        _, element = self.find_element(target_id)
        if element["kind"] != "scroll_view" or element["scroll"] is None:
            raise RefusedError(f"UI layout target '{target_id}' is not a scroll view target.")
        if abs(delta[0]) < 0.001 and abs(delta[1]) < 0.001 and to == (None, None):
            raise MissingArgumentError(
                "Provide a non-zero deltaX/deltaY or a targetX/targetY offset."
            )
        window = self._drawn_window(element)
        if window is None:
            raise RefusedError(
                f"Timed out waiting {timeout_ms}ms for scroll target '{target_id}' to be "
                "redrawn. Capture a fresh layout and retry."
            )
        local = Rect(**element["rect"])
        screen = Rect(**element["screenRect"])
        before = self.describe_scroll(window, local, screen)
        wanted = to[1] if to[1] is not None else before["offsetY"] + delta[1]
        window.scroll_y = max(0.0, min(before["maxOffsetY"], wanted))
        return before, self.describe_scroll(window, local, screen)
