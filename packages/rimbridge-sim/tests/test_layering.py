"""The simulated RimBridge and its annotations have no import circle and no module over 500
lines (scripts/check_layering.py, function-level and TYPE_CHECKING imports included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_sim_and_its_annotations_have_no_import_circle_and_no_oversized_module() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "check_layering.py"),
            "--max-lines",
            "500",
            "packages/rimbridge-sim/src",
            "packages/rimbridge-annotations/src",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr
