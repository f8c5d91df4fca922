"""Other spellings of the UI state the mod uses in some answers: the C# snapshot class itself
and the short summary a screen-target capture carries.

Where a tool returns the ``UiStateSnapshot`` class rather than its camelCase tool form
(``rimworld/list_inspect_tabs``' ``uiState``, the notification tools' ``stateBefore.uiState``,
``get_selection_semantics``' ``uiState``, ``execute_gizmo``'s ``uiBefore`` and ``uiAfter``),
Newtonsoft writes the property names as declared (PascalCase) and every null: a window's
``SemanticKind`` is then ``""`` when it has none, the main tab's id is ``Id`` (the tool form
calls it ``targetId``) and rects are floats. ``SemanticDetails`` is an anonymous object in the
mod, so its keys stay as they are."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["pascal_ui_state", "target_ui_state"]

_TARGET_UI_KEYS: Final = (
    "programState",
    "inEntryScene",
    "hasCurrentGame",
    "windowCount",
    "floatMenuOpen",
    "nonImmediateDialogWindowOpen",
    "mainTabOpen",
    "openMainTabId",
    "openMainTabType",
    "focusedWindowType",
    "topWindowType",
)


def _pascal(key: str) -> str:
    return key[:1].upper() + key[1:]


def _pascal_rect(rect: dict[str, Any]) -> dict[str, float]:
    return {_pascal(key): float(value) for key, value in rect.items()}


def _pascal_window(window: dict[str, Any]) -> dict[str, Any]:
    record = {
        _pascal(key): _pascal_rect(value) if key == "rect" else value
        for key, value in window.items()
    }
    if record.get("SemanticKind") is None:
        record["SemanticKind"] = ""  # the snapshot class's default; the tool answer nulls it
    return record


def _pascal_tab(tab: dict[str, Any]) -> dict[str, Any]:
    record = {
        ("Id" if key == "targetId" else _pascal(key)): _pascal_rect(value)
        if key == "rect"
        else value
        for key, value in tab.items()
    }
    return record


def pascal_ui_state(state: dict[str, Any]) -> dict[str, Any]:
    """A ``rimworld/get_ui_state`` answer as the C# ``UiStateSnapshot`` serializes."""
    record: dict[str, Any] = {}
    for key, value in state.items():
        if key == "mainTab":
            record["MainTab"] = None if value is None else _pascal_tab(value)
        elif key == "windows":
            record["Windows"] = [_pascal_window(w) for w in value]
        else:
            record[_pascal(key)] = value
    return record


def target_ui_state(state: dict[str, Any]) -> dict[str, Any]:
    """The UI summary of ``rimworld/get_screen_targets`` (and a screenshot's targets)."""
    return {key: state[key] for key in _TARGET_UI_KEYS}
