"""Wall-clock formatting shared by the world and the diagnostics plane."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["iso_utc"]


def iso_utc(epoch_seconds: float) -> str:
    """``2026-03-17T12:00:00.123Z`` for a Unix time."""
    moment = datetime.fromtimestamp(epoch_seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
