"""Run the ``gabs`` command line with the benchmark's cProfile hook installed.

``$BENCH_CPROFILE_BRIDGE`` names the stats file; SIGUSR1 starts profiling, SIGUSR2 stops it and
writes the file (see ``_cprofile_hook.py``). Everything else is ``gabs`` as installed:
``python benchmarks/gabs_cprofile.py serve --config-dir DIR``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cprofile_hook import install

if __name__ == "__main__":
    install(os.environ["BENCH_CPROFILE_BRIDGE"])
    from gabs.cli import main

    sys.argv[0] = "gabs"
    main(sys.argv[1:])
