"""docs/architecture.md stays true: every path it names exists, each package's table names every
module and subpackage of that package, and each step of the call path names functions that are
defined in the file the step names.

The page's conventions, which these checks read:

* a package section is a ``###`` heading naming the package's source folder in backticks
  (```packages/gabs/src/gabs/```), followed by a table whose rows start with a module
  (```session.py```) or a subpackage (```mcp/```) of that folder;
* the call path is the numbered list under the ``##`` heading that starts with ``The path of``;
  each step names one file (```packages/.../calls.py```) and, in backticks, what runs there:
  ```Class.method``` or ```function()```.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"

_TICKED = re.compile(r"`([^`]+)`")
_PATH = re.compile(r"^packages/[\w./-]+$")
_CALLABLE = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*\(\))$")
#: Suffixes of file names, which look like ``Class.method`` but are not.
_FILES = (".py", ".json", ".md", ".toml")
#: Files a package folder has that are not modules a reader needs named.
_UNLISTED = {"__init__.py", "__main__.py", "_version.py", "py.typed", "__pycache__"}


def _ticked(line: str) -> list[str]:
    return _TICKED.findall(line)


def _defined(path: Path) -> set[str]:
    """Qualified names defined in a module: ``f``, ``C``, ``C.m``, ``C.Inner.m``."""
    names: set[str] = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                names.add(name)
                walk(child, name + ".")
            elif not isinstance(child, ast.expr):
                walk(child, prefix)

    walk(ast.parse(path.read_text(encoding="utf-8")), "")
    return names


def path_problems(text: str, root: Path = ROOT) -> list[str]:
    return [
        f"names {token}, which does not exist"
        for line in text.splitlines()
        for token in _ticked(line)
        if _PATH.match(token) and not (root / token).exists()
    ]


def table_problems(text: str, root: Path = ROOT) -> list[str]:
    problems: list[str] = []
    folder: Path | None = None
    named: set[str] = set()

    def close() -> None:
        if folder is None or not folder.is_dir():
            return
        present = {
            entry.name + ("/" if entry.is_dir() else "")
            for entry in folder.iterdir()
            if entry.name not in _UNLISTED and (entry.is_dir() or entry.suffix == ".py")
        }
        for missing in sorted(present - named):
            problems.append(f"the table of {folder.relative_to(root)} does not name {missing}")
        for gone in sorted(named - present):
            problems.append(f"the table of {folder.relative_to(root)} names {gone}, which is gone")

    for line in text.splitlines():
        if line.startswith("#"):
            close()
            folder, named = None, set()
            if line.startswith("### "):
                folders = [t for t in _ticked(line) if _PATH.match(t) and t.endswith("/")]
                if folders:
                    folder = root / folders[0]
        elif folder is not None and line.startswith("| `"):
            first = line.split("|")[1]
            named.update(t for t in _ticked(first) if t.endswith((".py", "/")))
    close()
    return problems


def _steps(text: str) -> list[str]:
    """The numbered steps under ``## The path of``, each with its continuation lines."""
    steps: list[str] = []
    in_path = False
    for line in text.splitlines():
        if line.startswith("#"):
            in_path = line.startswith("## The path of")
        elif in_path and re.match(r"^\d+\. ", line):
            steps.append(line)
        elif in_path and steps and line.startswith(" ") and line.strip():
            steps[-1] += " " + line.strip()
        elif in_path and steps and not line.strip():
            steps.append("")
    return [step for step in steps if step]


def call_path_problems(text: str, root: Path = ROOT) -> list[str]:
    problems: list[str] = []
    steps = _steps(text)
    for number, step in enumerate(steps, 1):
        files = [t for t in _ticked(step) if _PATH.match(t) and t.endswith(".py")]
        if len(files) != 1:
            problems.append(f"step {number} names {len(files)} files, not one: {step[:80]}")
            continue
        path = root / files[0]
        if not path.exists():
            problems.append(f"step {number} names {files[0]}, which does not exist")
            continue
        defined = _defined(path)
        for token in _ticked(step):
            if (
                _CALLABLE.match(token)
                and not token.endswith(_FILES)
                and (token.removesuffix("()") not in defined)
            ):
                problems.append(f"step {number}: {token} is not defined in {files[0]}")
    if len(steps) < 5:
        problems.append(f"the call path has {len(steps)} steps")
    return problems


def test_the_page_names_only_paths_that_exist() -> None:
    assert path_problems(PAGE.read_text(encoding="utf-8")) == []


def test_each_package_table_names_every_module_of_its_package() -> None:
    text = PAGE.read_text(encoding="utf-8")
    tables = [line for line in text.splitlines() if line.startswith("### ") and "packages/" in line]
    assert len(tables) >= 6, tables
    assert table_problems(text) == []


def test_every_step_of_the_call_path_names_what_runs_there() -> None:
    assert call_path_problems(PAGE.read_text(encoding="utf-8")) == []


def _fake_package(root: Path) -> None:
    folder = root / "packages" / "toy" / "src" / "toy"
    (folder / "sub").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "sub" / "__init__.py").write_text("")
    (folder / "kept.py").write_text("class Kept:\n    async def run(self):\n        pass\n")
    (folder / "other.py").write_text("def helper():\n    pass\n")


def test_the_checks_catch_a_gone_module_a_missing_row_and_a_renamed_function(
    tmp_path: Path,
) -> None:
    _fake_package(tmp_path)
    page = "\n".join(
        [
            "### toy: `packages/toy/src/toy/`",
            "| Module | What |",
            "|---|---|",
            "| `kept.py` | kept |",
            "| `gone.py` | gone |",
            "| `sub/` | sub |",
            "",
            "## The path of a call",
            "1. `packages/toy/src/toy/kept.py`: `Kept.run` then",
            "   `Kept.renamed` on the next line",
            "2. `packages/toy/src/toy/other.py`: `helper()`",
            "3. `packages/toy/src/toy/gone.py`: `anything()`",
        ]
    )
    assert path_problems(page, tmp_path) == [
        "names packages/toy/src/toy/gone.py, which does not exist"
    ]
    assert table_problems(page, tmp_path) == [
        "the table of packages/toy/src/toy does not name other.py",
        "the table of packages/toy/src/toy names gone.py, which is gone",
    ]
    assert call_path_problems(page, tmp_path) == [
        "step 1: Kept.renamed is not defined in packages/toy/src/toy/kept.py",
        "step 3 names packages/toy/src/toy/gone.py, which does not exist",
        "the call path has 3 steps",
    ]
