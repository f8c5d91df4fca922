"""The built wheel (from the sdist, as a package index would) carries the schema tree."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
REPO_SCHEMAS = PACKAGE.parents[1] / "schemas"
DATA_PREFIX = "gabp_schemas/data/"


def _repo_files() -> dict[str, bytes]:
    return {
        p.relative_to(REPO_SCHEMAS).as_posix(): p.read_bytes()
        for p in sorted(REPO_SCHEMAS.rglob("*"))
        if p.is_file()
    }


def test_the_wheel_built_from_the_sdist_holds_the_repository_schemas_byte_for_byte(
    tmp_path: Path,
) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    subprocess.run(
        [uv, "build", "--quiet", "--out-dir", str(tmp_path), str(PACKAGE)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("gabp_schemas-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        data = {
            name.removeprefix(DATA_PREFIX): archive.read(name)
            for name in archive.namelist()
            if name.startswith(DATA_PREFIX) and not name.endswith("/")
        }
        modules = {
            n
            for n in archive.namelist()
            if n.startswith("gabp_schemas/") and not n.startswith(DATA_PREFIX)
        }
    assert data == _repo_files()
    assert {"gabp_schemas/__init__.py", "gabp_schemas/cli.py", "gabp_schemas/py.typed"} <= modules
