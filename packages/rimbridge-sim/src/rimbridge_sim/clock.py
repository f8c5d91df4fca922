"""Wall-clock formatting shared by the world and the diagnostics plane, and a clock moved by
hand for the ring's and journal's ``clock`` argument (tests and deterministic replays)."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["ManualClock", "iso_utc"]

_last_second: list[tuple[tuple[int, int, int, int, int, int], str]] = [((0, 0, 0, 0, 0, 0), "")]
"""The formatted date and time of the last second asked for (one entry, replaced whole)."""


def iso_utc(epoch_seconds: float) -> str:
    """``2026-03-17T12:00:00.123Z`` for a Unix time.

    Every operation envelope carries two of these, so the part up to the second is formatted
    once per second (``strftime`` is most of the cost); the result is the same text."""
    moment = datetime.fromtimestamp(epoch_seconds, UTC)
    key = (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)
    cached_key, prefix = _last_second[0]
    if cached_key != key:
        prefix = moment.strftime("%Y-%m-%dT%H:%M:%S.")
        _last_second[0] = (key, prefix)
    return f"{prefix}{moment.microsecond // 1000:03d}Z"


class ManualClock:
    """A monotonic clock that only moves when told to: pass it as ``clock=``."""

    def __init__(self, now: float = 50.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
