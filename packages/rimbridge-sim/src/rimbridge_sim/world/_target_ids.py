"""Screen target ids as the mod reads them (its ``ScreenTargetIds.TryParse``): which kind an id
names, judged on the id exactly as given (no trimming)."""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["UiTargetRef", "parse_ui_target", "target_id_kind"]


class UiTargetRef(NamedTuple):
    """A ``ui-surface:<capture>:<surface>`` or ``ui-element:<capture>:<surface>:<element>``
    id, read (``element`` is ``None`` for a surface)."""

    capture: int
    surface: int
    element: int | None


def parse_ui_target(text: str | None) -> UiTargetRef | None:
    """A UI layout id as the mod's ``UiLayoutTargetIds.TryParse`` reads it: the exact prefix,
    the exact number of parts, every number a positive integer, nothing trimmed."""
    if not text or not text.strip():
        return None
    parts = text.split(":")
    numbers = [_integer(part) for part in parts[1:]]
    if any(n is None or n <= 0 for n in numbers):
        return None
    if parts[0] == "ui-surface" and len(parts) == 3:
        return UiTargetRef(numbers[0] or 0, numbers[1] or 0, None)
    if parts[0] == "ui-element" and len(parts) == 4:
        return UiTargetRef(numbers[0] or 0, numbers[1] or 0, numbers[2])
    return None


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
    """C#'s ``int.TryParse``: optional sign and surrounding blanks, decimal digits only."""
    stripped = text.strip()
    if re.fullmatch(r"[+-]?[0-9]+", stripped) is None:
        return None
    value = int(stripped)
    return value if -(2**31) <= value < 2**31 else None
