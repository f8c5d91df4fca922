"""Report import circles and oversized modules in source trees (``packages/*/src`` by default).

Every ``import`` and ``from ... import`` is read from the AST, at any depth (function-level and
``TYPE_CHECKING`` imports count: dependencies point one way), and resolved to the modules of
the same tree; ``from package import submodule`` is an edge to the submodule only. Circles are
the strongly connected components of that graph. Exit 1 when a circle is found, or with
``--max-lines N`` a module longer than N lines, or with ``--private`` a private name of another
library in use: an attribute ``x._name`` that no source tree checked defines anywhere (so it can
only belong to someone else's object), or an import of an underscored module or name from outside.

    uv run python scripts/check_layering.py packages/gabs/src
    uv run python scripts/check_layering.py --max-lines 500 --private
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules_of(src: Path) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``src``."""
    found: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            found[".".join(parts)] = path
    return found


def _imported(node: ast.AST, module: str, is_package: bool, known: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    submodules = [f"{target}.{alias.name}" for alias in node.names]
    names = [name for name in submodules if name in known]
    if len(names) < len(submodules):
        names.append(target)
    return names


def import_graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of the same tree it imports."""
    graph: dict[str, set[str]] = {name: set() for name in known}
    for module, path in known.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for name in _imported(node, module, is_package, known):
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name and name != module:
                    graph[module].add(name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(iter(children), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in {"self", "cls"}
        ):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).rpartition(".")[2])
    return names


def foreign_private_names(trees: Sequence[Path]) -> list[str]:
    """Uses of another library's private names in ``trees``, as ``file:line: what``."""
    parsed = {
        path: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for src in trees
        for path in sorted(src.rglob("*.py"))
    }
    ours = {name.partition(".")[0] for src in trees for name in modules_of(src)}
    defined: set[str] = set()
    for tree in parsed.values():
        defined |= _defined_names(tree)
    found: list[str] = []
    for path, tree in parsed.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                if node.attr not in defined:
                    found.append(f"{path}:{node.lineno}: attribute {node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                parts = node.module.split(".")
                if parts[0] in ours:
                    continue
                private = [p for p in parts if _is_private(p)]
                private += [a.name for a in node.names if _is_private(a.name)]
                if private:
                    found.append(f"{path}:{node.lineno}: import of {', '.join(private)} from {node.module}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] not in ours and any(_is_private(p) for p in parts):
                        found.append(f"{path}:{node.lineno}: import of {alias.name}")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="*", type=Path, help="source trees (default packages/*/src)")
    parser.add_argument("--max-lines", type=int, help="also report modules longer than this")
    parser.add_argument(
        "--private", action="store_true", help="also report private names of other libraries"
    )
    args = parser.parse_args(argv)
    trees = args.src or sorted((ROOT / "packages").glob("*/src"))
    failed = False
    for src in trees:
        known = modules_of(src)
        for component in circles(import_graph(known)):
            failed = True
            print(f"{src}: import circle: {' <-> '.join(component)}")
        if args.max_lines:
            for name, path in sorted(known.items()):
                lines = len(path.read_text(encoding="utf-8").splitlines())
                if lines > args.max_lines:
                    failed = True
                    print(f"{src}: {name} has {lines} lines (limit {args.max_lines})")
    if args.private:
        for line in foreign_private_names(trees):
            failed = True
            print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
