"""Test, lint and benchmark sessions for the GABP workspace.

Every session installs the workspace from ``uv.lock`` (``uv sync --locked``) into the
session's own virtual environment, so what runs here is exactly what the lock pins.
``checkpoint-X`` runs every checkpoint up to and including X; from F on, also the
bridge-agnostic compatibility suite (``integration-tests/compat``) against our ``gabs`` and the
host tests (``integration-tests/hosts``: the official TypeScript MCP SDK client and the MCP
Inspector, installed with npm). ``compat`` runs that suite alone: ``nox -s compat -- --bridge
"<command>"`` tests another GABS build (the Go bridge, for example); ``hosts`` runs the host
tests alone.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
CHECKPOINTS = sorted(
    p.name.removeprefix("checkpoint_")
    for p in (ROOT / "integration-tests").glob("checkpoint_*")
    if p.is_dir()
)
PYTEST_PARALLEL = ["-n", os.environ.get("GABP_TEST_WORKERS", "auto")]
COMPAT = "integration-tests/compat"
HOSTS = "integration-tests/hosts"
#: The first checkpoint whose session also runs the compatibility suite and the host tests.
COMPAT_FROM = "f"


def _sync(session: nox.Session) -> None:
    session.run_install(
        "uv",
        "sync",
        "--locked",
        "--all-packages",
        f"--python={session.virtualenv.location}",
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
    )


def _unit_test_paths() -> list[str]:
    """The workspace's own tests (house rules, the architecture page), then each package's."""
    packages = sorted(str(p) for p in (ROOT / "packages").glob("*/tests") if p.is_dir())
    return [str(ROOT / "tests"), *packages]


def _checkpoint_session(letter: str) -> None:
    upto = CHECKPOINTS[: CHECKPOINTS.index(letter) + 1]

    @nox.session(name=f"checkpoint-{letter}")
    def session(session: nox.Session) -> None:
        _sync(session)
        paths = _unit_test_paths() + [f"integration-tests/checkpoint_{c}" for c in upto]
        if letter >= COMPAT_FROM:
            paths += [COMPAT, HOSTS]
        session.run("pytest", *PYTEST_PARALLEL, *paths, *session.posargs)

    session.__doc__ = f"Unit tests and checkpoints {', '.join(c.upper() for c in upto)}" + (
        ", the compatibility suite and the host tests." if letter >= COMPAT_FROM else "."
    )


for _letter in CHECKPOINTS:
    _checkpoint_session(_letter)


#: The Python versions ``pythons`` runs the tests on, beside the one nox itself runs on (the one
#: CI uses); ``GABP_TEST_PYTHONS`` (comma-separated versions or interpreter paths) overrides.
OTHER_PYTHONS = os.environ.get("GABP_TEST_PYTHONS", "3.12,3.13,3.14").split(",")


@nox.session(python=OTHER_PYTHONS)
def pythons(session: nox.Session) -> None:
    """Unit tests, every checkpoint, the compatibility suite and the host tests on each Python of
    ``OTHER_PYTHONS`` this machine has (nox skips one it cannot find)."""
    _sync(session)
    paths = _unit_test_paths() + [f"integration-tests/checkpoint_{c}" for c in CHECKPOINTS]
    session.run("pytest", *PYTEST_PARALLEL, *paths, COMPAT, HOSTS, *session.posargs)


@nox.session
def compat(session: nox.Session) -> None:
    """The compatibility suite; pass ``-- --bridge "<command>"`` to test another GABS build."""
    _sync(session)
    session.run("pytest", *PYTEST_PARALLEL, COMPAT, *session.posargs)


@nox.session
def hosts(session: nox.Session) -> None:
    """Real MCP hosts against gabs: the TypeScript SDK client and the Inspector (Node.js, npm)."""
    _sync(session)
    session.run("pytest", *PYTEST_PARALLEL, HOSTS, *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Every unit and integration test."""
    _sync(session)
    session.run("pytest", *PYTEST_PARALLEL, *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint and format check) and mypy on the typed packages."""
    _sync(session)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    """Every benchmark; pass --quick for a short run. Results go to bench-results/.

    ``bench_e2e`` also writes ``bench-results/bench_e2e.png``; with ``GABS_GO_BRIDGE`` set to a
    Go bridge executable it measures that bridge beside ours. Its MCP paths run with the Python
    SDK's client and, where Node.js and npm are on PATH, also with the TypeScript SDK's
    (``GABS_BENCH_CLIENTS`` overrides: ``python``, ``ts`` or ``python,ts``). Run one script with
    ``-- --scripts bench_e2e`` (names without ``.py``, comma-separated).
    """
    _sync(session)
    if "GABS_BENCH_CLIENTS" not in os.environ:
        has_node = shutil.which("node") and shutil.which("npm")
        session.env["GABS_BENCH_CLIENTS"] = "python,ts" if has_node else "python"
        if not has_node:
            session.log("no Node.js/npm on PATH: bench_e2e runs the Python SDK client only")
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    extra = list(session.posargs)
    only: set[str] = set()
    if "--scripts" in extra:
        at = extra.index("--scripts")
        only = set(extra[at + 1].split(","))
        del extra[at : at + 2]
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        if only and script.stem not in only:
            continue
        session.run("python", str(script), "--json", str(out / f"{script.stem}.json"), *extra)
