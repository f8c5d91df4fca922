"""The house rules hold across every package: no import circle, no module over 500 lines, no
private name of another library (scripts/check_layering.py); and the check finds each breach."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conftest import RunScript

ROOT = Path(__file__).resolve().parents[1]


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return src


def test_every_package_keeps_the_house_rules(run_script: RunScript) -> None:
    trees = sorted(ROOT.glob("packages/*/src"))
    assert len(trees) >= 6, trees
    result = run_script("check_layering.py", "--max-lines", "500", "--private", *map(str, trees))
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_check_finds_a_circle_through_a_function_level_import(
    tmp_path: Path, run_script: RunScript
) -> None:
    src = _tree(
        tmp_path,
        {
            "loop/__init__.py": "",
            "loop/a.py": "from loop import b\n",
            "loop/b.py": "def f():\n    from loop.a import x\n",
        },
    )
    result = run_script("check_layering.py", str(src))
    assert result.returncode == 1
    assert "import circle: loop.a <-> loop.b" in result.stdout


def test_the_check_finds_a_module_over_the_limit(tmp_path: Path, run_script: RunScript) -> None:
    src = _tree(tmp_path, {"big/__init__.py": "", "big/long.py": "x = 1\n" * 12})
    assert run_script("check_layering.py", "--max-lines", "12", str(src)).returncode == 0
    result = run_script("check_layering.py", "--max-lines", "11", str(src))
    assert result.returncode == 1
    assert "big.long has 12 lines (limit 11)" in result.stdout


def test_the_check_finds_private_names_of_other_libraries(
    tmp_path: Path, run_script: RunScript
) -> None:
    src = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/own.py": "class A:\n    def __init__(self):\n        self._mine = 1\n",
            "pkg/user.py": (
                "import asyncio\n"
                "from asyncio.base_subprocess import _Gone\n"
                "from pkg.own import A\n"
                "def f(t: asyncio.Transport, a: A):\n"
                "    t._closed = True\n"
                "    return a._mine, t.__class__\n"
            ),
        },
    )
    result = run_script("check_layering.py", "--private", str(src))
    assert result.returncode == 1
    found = result.stdout.splitlines()
    assert any(line.endswith("user.py:5: attribute _closed") for line in found), found
    assert any("user.py:2: import of _Gone from asyncio.base_subprocess" in line for line in found)
    assert not any("_mine" in line or "__class__" in line for line in found), found
