"""Running the workspace's check scripts (``scripts/``) as a user would, for the house tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RunScript = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_script() -> RunScript:
    """``run_script("check_layering.py", *args)``: the script's exit code and output."""

    def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(ROOT / "scripts" / script), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    return run
