"""Every package declares the libraries its code imports (scripts/check_dependencies.py), so
that it installs and runs on its own; and the check finds an undeclared import."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conftest import RunScript

ROOT = Path(__file__).resolve().parents[1]


def _package(tmp_path: Path, dependencies: list[str], source: str) -> Path:
    package = tmp_path / "demo-package"
    module = package / "src" / "demo_package"
    module.mkdir(parents=True)
    (module / "__init__.py").write_text(source)
    listed = ", ".join(f'"{name}"' for name in dependencies)
    (package / "pyproject.toml").write_text(
        f'[project]\nname = "demo-package"\nversion = "0"\ndependencies = [{listed}]\n'
    )
    return package


def test_every_package_declares_what_it_imports(run_script: RunScript) -> None:
    packages = sorted(ROOT.glob("packages/*/pyproject.toml"))
    assert len(packages) >= 6, packages
    result = run_script("check_dependencies.py")
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_check_finds_a_library_that_arrives_only_through_another(
    tmp_path: Path, run_script: RunScript
) -> None:
    # pydantic brings pydantic_core, and the workspace brings gabp: neither is declared here
    package = _package(
        tmp_path,
        ["pydantic>=2"],
        "import json\nimport pydantic\nfrom pydantic_core import PydanticUndefined\n"
        "def later():\n    from gabp import Connection\n",
    )
    result = run_script("check_dependencies.py", str(package))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == [
        "pydantic_core: demo-package does not declare pydantic-core",
        "gabp: demo-package does not declare gabp-runtime",
    ]


def test_an_optional_import_and_a_declared_one_pass(tmp_path: Path, run_script: RunScript) -> None:
    package = _package(
        tmp_path,
        ["anyio>=4", "gabp-runtime"],
        "import anyio\nfrom gabp import Connection\n"
        "try:\n    import uvloop\nexcept ImportError:\n    uvloop = None\n",
    )
    result = run_script("check_dependencies.py", str(package))
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_an_import_nothing_installed_provides_is_named(
    tmp_path: Path, run_script: RunScript
) -> None:
    package = _package(tmp_path, [], "import surely_not_installed_anywhere\n")
    result = run_script("check_dependencies.py", str(package))
    assert result.returncode == 1
    assert result.stdout.endswith(
        "surely_not_installed_anywhere: no installed distribution provides it\n"
    )
