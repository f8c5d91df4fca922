"""The gabs package has no import circle (scripts/check_layering.py, function-level and
TYPE_CHECKING imports included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_gabs_has_no_import_circle() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_layering.py"), "packages/gabs/src"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_check_finds_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "src" / "loop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from loop import b\n")
    (package / "b.py").write_text("def f():\n    from loop.a import x\n")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_layering.py"), str(tmp_path / "src")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "import circle: loop.a <-> loop.b" in result.stdout
