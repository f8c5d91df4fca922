"""What the log ring and the operation journal share: levels, limits and listener lists."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Final, Literal, Protocol, TypeAlias

from rimbridge_sim.clock import iso_utc

__all__ = [
    "LEVELS",
    "LogLevel",
    "check_limit",
    "iso_utc",
    "level_rank",
    "new_operation_id",
]

logger = logging.getLogger("rimbridge_sim.diagnostics")

LogLevel: TypeAlias = Literal["debug", "info", "warning", "error", "fatal"]

LEVELS: Final[tuple[LogLevel, ...]] = ("debug", "info", "warning", "error", "fatal")
"""Log levels, least severe first."""
RANK: Final[dict[str, int]] = {level: rank for rank, level in enumerate(LEVELS)}
_QUERY_RANK: Final[dict[str, int]] = {"trace": -1, **RANK}


def level_rank(level: str) -> int:
    """0 for ``debug`` up to 4 for ``fatal``; :class:`ValueError` for anything else."""
    try:
        return RANK[level]
    except (KeyError, TypeError):
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}") from None


def query_rank(level: str | None) -> int:
    """The rank a ``minimumLevel`` filter asks for, as the real mod reads it: case and spaces
    ignored, ``trace`` below ``debug``, anything unknown read as ``info``, and no filter at all
    (every level, ``debug`` included) when it is ``None`` or blank."""
    if not level or not level.strip():
        return _QUERY_RANK["trace"]
    return _QUERY_RANK.get(level.strip().lower(), RANK["info"])


def new_operation_id() -> str:
    """A fresh operation id for follow-up work or a script step: ``op_`` and 32 hex digits,
    as the mod's capability registry names the operations it starts."""
    return "op_" + uuid.uuid4().hex


def check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be an int >= 1, got {limit!r}")


def call_listeners(listeners: Iterable[Callable[..., None]], *args: object) -> None:
    for listener in listeners:
        try:
            listener(*args)
        except Exception:
            logger.exception("diagnostics listener %r failed", listener)


class Observable(Protocol):
    _lock: threading.Lock
    _listeners: tuple[Any, ...]


def subscribe(owner: Observable, listener: Any) -> Callable[[], None]:
    """Add ``listener`` to ``owner``'s listeners (a tuple swapped under its lock, so a call in
    progress keeps the tuple it took); returns a function that removes it again."""
    with owner._lock:
        owner._listeners = (*owner._listeners, listener)

    def unsubscribe() -> None:
        with owner._lock:
            listeners = list(owner._listeners)
            if listener in listeners:
                listeners.remove(listener)
            owner._listeners = tuple(listeners)

    return unsubscribe
