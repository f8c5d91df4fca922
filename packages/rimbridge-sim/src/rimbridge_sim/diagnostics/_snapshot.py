"""The bounded copy of a result the operation journal keeps, cut as the mod's
``OperationJournal`` cuts it: six levels of nesting, 64 entries per object or array, 1024
characters per string. What is cut is replaced by a marker ``{reason, type}``, so the copy
stays the result's shape instead of becoming a cut-off text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "MAX_STRING", "bounded_copy"]

MAX_DEPTH: Final = 6
"""Nesting levels kept: an object or array deeper than this becomes a ``max_depth`` marker."""
MAX_ITEMS: Final = 64
"""Entries kept per object (key ``$truncated`` then marks the rest) or array (a last item)."""
MAX_STRING: Final = 1024
"""Characters kept per string; a longer one ends in ``...`` after them."""


def _marker(reason: str, value: object) -> dict[str, str]:
    kind = "object" if isinstance(value, Mapping) else "array"
    return {"reason": reason, "type": kind}


class _Cut:
    truncated = False


def bounded_copy(value: Any) -> tuple[Any, bool]:
    """``(copy, truncated)``: ``value`` (JSON-ready) within the journal's bounds, and whether
    anything had to be cut."""
    cut = _Cut()
    return _copy(value, 0, cut), cut.truncated


def _copy(value: Any, depth: int, cut: _Cut) -> Any:
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            cut.truncated = True
            return value[:MAX_STRING] + "..."
        return value
    if not isinstance(value, Mapping | list | tuple):
        return value
    if depth >= MAX_DEPTH:
        cut.truncated = True
        return _marker("max_depth", value)
    if isinstance(value, Mapping):
        copied: dict[str, Any] = {}
        for count, (key, item) in enumerate(value.items()):
            if count >= MAX_ITEMS:
                cut.truncated = True
                copied["$truncated"] = _marker("item_limit", value)
                break
            copied[str(key)] = _copy(item, depth + 1, cut)
        return copied
    items: list[Any] = []
    for count, item in enumerate(value):
        if count >= MAX_ITEMS:
            cut.truncated = True
            items.append(_marker("item_limit", value))
            break
        items.append(_copy(item, depth + 1, cut))
    return items
