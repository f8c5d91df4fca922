"""What grows in a benchmark process: ``tracemalloc`` snapshots between two signals.

``install(path)`` sets two signals: SIGUSR1 counts the live objects by type
(``gc.get_objects()``) and starts ``tracemalloc`` (10 frames; started only then, so the start-up
runs at full speed); SIGUSR2 writes to ``path + ".txt"`` the 40 allocation sites (by traceback)
holding the most memory allocated since SIGUSR1 and still alive, the 30 types whose object
counts grew most, and the change in ``sys.getallocatedblocks()``: the blocks of Python's own
small-object allocator in use (every object up to 512 bytes, which is nearly all of them, strings
and numbers included, which ``gc.get_objects()`` does not see; larger ones come from the C
allocator and are not counted). If it stays flat while the RSS rises, what grows is the
allocator's pages, not what Python holds. ``BENCH_TRACEMALLOC_FRAMES=0`` counts the objects
only (no tracing, nearly full speed). Used by ``gabs_tracemalloc.py`` (the bridge) and
``e2e_game.py`` (the game) when ``bench_soak.py --tracemalloc`` asks through the environment.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import tracemalloc
from collections import Counter
from types import FrameType


def _types() -> Counter[str]:
    return Counter(type(item).__qualname__ for item in gc.get_objects())


def install(path: str) -> None:
    frames = int(os.environ.get("BENCH_TRACEMALLOC_FRAMES", "10"))
    first: list[Counter[str]] = []
    blocks: list[int] = []

    def take_first(signum: int, frame: FrameType | None) -> None:
        gc.collect()
        first[:] = [_types()]
        blocks[:] = [sys.getallocatedblocks()]
        if frames:
            tracemalloc.start(frames)

    def take_last(signum: int, frame: FrameType | None) -> None:
        if not first:
            return
        gc.collect()
        types, before_types = _types(), first[0]
        now_blocks = sys.getallocatedblocks()
        lines = [f"allocated blocks {blocks[0]:,} -> {now_blocks:,} ({now_blocks - blocks[0]:+,})"]
        if frames:
            lines.append(f"traced now {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MiB")
        stats = tracemalloc.take_snapshot().statistics("traceback")[:40] if frames else []
        for stat in stats:
            lines.append(f"{stat.size / 1024:+.1f} KiB, {stat.count:+d} blocks")
            lines += [f"    {line}" for line in stat.traceback.format(limit=10)]
        lines.append("object counts by type, growth:")
        for name, count in (types - before_types).most_common(30):
            lines.append(f"  {name}: +{count} (now {types[name]})")
        with open(path + ".part", "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
        os.replace(path + ".part", path + ".txt")

    signal.signal(signal.SIGUSR1, take_first)
    signal.signal(signal.SIGUSR2, take_last)
