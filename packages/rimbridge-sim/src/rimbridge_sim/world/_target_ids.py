"""Screen target ids as the mod reads them (its ``ScreenTargetIds.TryParse``): which kind an id
names, judged on the id exactly as given (no trimming)."""

from __future__ import annotations

__all__ = ["target_id_kind"]


def target_id_kind(text: str) -> str | None:
    """``main-tab``, ``window``, ``window-dismiss`` or ``context-menu-option`` when ``text``
    is a well-formed id of that kind, else ``None``: ``main-tab:<defName>``,
    ``window[-dismiss]:<int id>:<type>``, ``context-menu-option:<menu>:<option>`` (both > 0)."""
    if not text or not text.strip():
        return None
    parts = text.split(":")
    head = parts[0]
    if head == "main-tab":
        return head if len(parts) == 2 and parts[1].strip() else None
    if len(parts) != 3:
        return None
    if head in ("window", "window-dismiss"):
        return head if _integer(parts[1]) is not None and parts[2].strip() else None
    if head == "context-menu-option":
        menu, option = _integer(parts[1]), _integer(parts[2])
        return head if menu is not None and option is not None and menu > 0 and option > 0 else None
    return None


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
