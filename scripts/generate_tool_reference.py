"""Regenerate docs/rimbridge/tool-reference.md from the rimbridge-sim tool annotations.

Same as ``uv run python -m rimbridge_sim.reference``; pass ``--check`` to only check it.
"""

from __future__ import annotations

import sys

from rimbridge_sim.reference import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
