"""Wall-clock formatting shared by the world and the diagnostics plane, and a clock moved by
hand for the ring's and journal's ``clock`` argument (tests and deterministic replays)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

__all__ = ["ManualClock", "iso_utc", "whole_ms"]

_last_second: list[tuple[int | None, str]] = [(None, "")]
"""The Unix second last formatted and its text up to the second (one entry, replaced whole)."""
_last_milli: list[tuple[int | None, str]] = [(None, "")]
"""The millisecond last formatted (``second * 1000 + millis``) and its whole text: a call's
envelope formats its start and its end, mostly within one millisecond."""


def whole_ms(seconds: float) -> int:
    """A duration in whole milliseconds as the mod writes every ``DurationMs``, ``durationMs``
    and ``elapsedMs``: ``(long)TimeSpan.TotalMilliseconds`` or ``Stopwatch.ElapsedMilliseconds``,
    the fraction cut off (0.9 ms is 0), never rounded."""
    return int(seconds * 1000)


def iso_utc(epoch_seconds: float) -> str:
    """``2026-03-17T12:00:00.123Z`` for a Unix time (as ``datetime.fromtimestamp`` rounds it).

    Every operation envelope carries two of these, so the part up to the second is formatted
    once per second; within it only the milliseconds are worked out, with ``fromtimestamp``'s
    rounding (to the nearest microsecond, half to even)."""
    scaled = epoch_seconds * 1000.0
    key = int(scaled)
    if 0.002 < scaled - key < 0.998:
        # 2 us or more from either edge of its millisecond, where neither that rounding nor
        # the product's error (a fraction of a microsecond) can move it to the next one:
        # the millisecond last formatted is mostly this one (an envelope's start and end)
        cached_key, text = _last_milli[0]
        if cached_key == key:
            return text
    fraction, whole = math.modf(epoch_seconds)
    micros = round(fraction * 1_000_000)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    elif micros < 0:
        whole, micros = whole - 1, micros + 1_000_000
    second = int(whole)
    millis = micros // 1000
    key = second * 1000 + millis
    cached_key, text = _last_milli[0]
    if cached_key == key:
        return text
    cached_second, prefix = _last_second[0]
    if cached_second != second:
        prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
        _last_second[0] = (second, prefix)
    text = f"{prefix}{millis:03d}Z"
    _last_milli[0] = (key, text)
    return text


class ManualClock:
    """A monotonic clock that only moves when told to: pass it as ``clock=``."""

    def __init__(self, now: float = 50.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
