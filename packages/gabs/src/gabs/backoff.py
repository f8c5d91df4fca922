"""The reconnection backoff (``gabs server --reconnectBackoff MIN..MAX``, default ``100ms..1s``).

The waits between connection attempts to a game start at the window's minimum and double up
to its maximum. Both the first connection (``games_connect``, ``games_start``) and a session's
reconnection after its connection dropped wait this way.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["DEFAULT_BACKOFF", "backoff_delays"]

#: The window (seconds, min and max) when none is given.
DEFAULT_BACKOFF: tuple[float, float] = (0.1, 1.0)


def backoff_delays(window: tuple[float, float]) -> Iterator[float]:
    """The waits, in seconds, before each next attempt: ``min``, ``2 min``, ... up to ``max``
    (endless). A window of ``0..0`` retries at once; a zero minimum with a nonzero maximum
    starts at 10 ms, so the waits still grow."""
    minimum, maximum = window
    if minimum < 0 or maximum < minimum:
        raise ValueError(f"invalid backoff window {minimum:g}..{maximum:g}")
    delay = minimum
    while True:
        yield delay
        delay = min(max(delay * 2, 0.01), maximum)
