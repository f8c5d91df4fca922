"""Deterministic profiling of a benchmark process between two signals.

``install(path)`` makes SIGUSR1 start ``cProfile`` in the main thread and SIGUSR2 stop it and
write the stats to ``path`` (``pstats`` format). The profile then covers exactly the window the
benchmark chose, not the start-up. Used by ``gabs_cprofile.py`` (the bridge) and
``e2e_game.py`` (the game) when the benchmark asks for it through the environment.
"""

from __future__ import annotations

import cProfile
import os
import signal
from types import FrameType


def install(path: str) -> None:
    profiler = cProfile.Profile()

    def start(signum: int, frame: FrameType | None) -> None:
        profiler.enable()

    def stop(signum: int, frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(path + ".part")
        os.replace(path + ".part", path)  # whole or absent, never half written

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
