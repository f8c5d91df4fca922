"""The UI state as the mod's ``UiStateSnapshot`` class is written where a tool returns the class
itself instead of its camelCase tool form (``get_selection_semantics``' ``uiState``,
``execute_gizmo``'s ``uiBefore`` and ``uiAfter``).

Newtonsoft writes a class with its property names as declared (PascalCase) and every null;
the window's ``SemanticKind`` is then ``""`` for a window without one and the main tab's id is
``Id`` (the tool form calls it ``targetId``). ``SemanticDetails`` is an anonymous object in the
mod, so its keys stay as they are.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ui_state_snapshot"]


def _pascal(key: str) -> str:
    return key[:1].upper() + key[1:]


def _rect(rect: dict[str, Any]) -> dict[str, float]:
    return {_pascal(k): float(v) for k, v in rect.items()}


def _tab(tab: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tab.items():
        if key == "targetId":
            out["Id"] = value
        elif key == "rect":
            out["Rect"] = _rect(value)
        else:
            out[_pascal(key)] = value
    return out


def _window(window: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in window.items():
        if key == "rect":
            out["Rect"] = _rect(value)
        elif key == "semanticKind":
            out["SemanticKind"] = value or ""
        else:
            out[_pascal(key)] = value
    return out


def ui_state_snapshot(state: dict[str, Any]) -> dict[str, Any]:
    """``rimworld/get_ui_state``'s answer (the camelCase tool form) as the class is written."""
    out: dict[str, Any] = {}
    for key, value in state.items():
        if key == "mainTab":
            out["MainTab"] = None if value is None else _tab(value)
        elif key == "windows":
            out["Windows"] = [_window(w) for w in value]
        else:
            out[_pascal(key)] = value
    return out
