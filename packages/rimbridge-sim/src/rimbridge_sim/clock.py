"""Wall-clock formatting shared by the world and the diagnostics plane, and a clock moved by
hand for the ring's and journal's ``clock`` argument (tests and deterministic replays)."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["ManualClock", "iso_utc"]


def iso_utc(epoch_seconds: float) -> str:
    """``2026-03-17T12:00:00.123Z`` for a Unix time."""
    moment = datetime.fromtimestamp(epoch_seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class ManualClock:
    """A monotonic clock that only moves when told to: pass it as ``clock=``."""

    def __init__(self, now: float = 50.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
