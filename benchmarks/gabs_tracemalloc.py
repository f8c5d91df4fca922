"""Run the ``gabs`` command line with the benchmark's tracemalloc hook installed.

``$BENCH_TRACEMALLOC`` names the report (``.txt`` is added); SIGUSR1 takes the first snapshot,
SIGUSR2 the second and writes what grew (see ``_tracemalloc_hook.py``). Everything else is
``gabs`` as installed: ``python benchmarks/gabs_tracemalloc.py serve --config-dir DIR``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _tracemalloc_hook import install

if __name__ == "__main__":
    install(os.environ["BENCH_TRACEMALLOC"])
    from gabs.cli import main

    sys.argv[0] = "gabs"
    main(sys.argv[1:])
