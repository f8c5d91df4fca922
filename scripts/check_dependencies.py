"""Report imports a package does not declare (``packages/*`` by default).

A package installed on its own from an index gets only what its ``[project] dependencies`` name.
In the workspace every library is installed, so an import of a library that only arrives
through another package (a transitive or a dev dependency) works here and breaks for a user.
For each package, every import in its ``src`` tree is read from the AST, at any depth; the
standard library, the package's own modules and imports guarded by ``except ImportError`` (an
optional library) are left out. The rest must be provided by a distribution the package names
itself. Modules map to distributions through the installed metadata, and through the
workspace's own ``src`` trees for its members. Exit 1 with one line per undeclared import.

    uv run python scripts/check_dependencies.py
    uv run python scripts/check_dependencies.py packages/gabs
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tomllib
from collections.abc import Iterator, Sequence
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def normalize(name: str) -> str:
    """A distribution name as packaging compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(pyproject: Path) -> tuple[str, set[str]]:
    """The project's name and the distributions its ``[project] dependencies`` name."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    names = set()
    for requirement in project.get("dependencies", []):
        match = _NAME.match(requirement.strip())
        if match is None:
            raise ValueError(f"{pyproject}: cannot read the requirement {requirement!r}")
        names.add(normalize(match.group(0)))
    return normalize(project["name"]), names


def _optional(handlers: Sequence[ast.ExceptHandler]) -> bool:
    """Whether a ``try`` catches the error of a missing module."""
    for handler in handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for kind in kinds:
            if isinstance(kind, ast.Name) and kind.id in ("ImportError", "ModuleNotFoundError"):
                return True
    return False


def imports(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """``(top-level module, line)`` of each absolute import outside an optional ``try``."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and _optional(node.handlers):
            for statement in node.body:
                guarded.update(id(inner) for inner in ast.walk(statement))
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.partition(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0], node.lineno


def workspace_modules(packages: Path) -> dict[str, str]:
    """Top-level module -> distribution, for the workspace's members."""
    found = {}
    for pyproject in sorted(packages.glob("*/pyproject.toml")):
        name, _ = declared(pyproject)
        for module in sorted((pyproject.parent / "src").iterdir()):
            if module.is_dir() and (module / "__init__.py").exists():
                found[module.name] = name
    return found


def check(package: Path, providers: dict[str, set[str]]) -> list[str]:
    """One line per import of ``package``'s ``src`` that no declared distribution provides."""
    name, names = declared(package / "pyproject.toml")
    problems = []
    for path in sorted((package / "src").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for module, line in imports(tree):
            if module in sys.stdlib_module_names or module == "__future__":
                continue
            owners = providers.get(module)
            if owners is None:
                problems.append(f"{path}:{line}: {module}: no installed distribution provides it")
            elif name not in owners and not owners & names:
                wanted = " or ".join(sorted(owners))
                problems.append(f"{path}:{line}: {module}: {name} does not declare {wanted}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="*", type=Path, help="package folders")
    args = parser.parse_args(argv)
    packages = args.packages or sorted(p.parent for p in ROOT.glob("packages/*/pyproject.toml"))
    providers: dict[str, set[str]] = {
        module: {normalize(d) for d in distributions}
        for module, distributions in packages_distributions().items()
    }
    for module, distribution in workspace_modules(ROOT / "packages").items():
        providers[module] = {distribution}
    problems = [line for package in packages for line in check(package, providers)]
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
