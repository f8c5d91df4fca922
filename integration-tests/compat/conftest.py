"""Fixtures of the bridge-agnostic compatibility suite (see README.md).

``--bridge "<command>"`` names the bridge to test (a shell-quoted command line; default: the
``gabs`` next to this Python).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import ConfigDir, OpenBridge, bridge_session, run_cli

BEYOND_GO = (
    "beyond_go: a case where our gabs goes further than the Go bridge 1.1.0 (deselect with "
    '-m "not beyond_go" when testing another bridge)'
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--bridge",
        default=None,
        help='the GABS bridge to test, as a command line (default: the "gabs" next to this Python)',
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", BEYOND_GO)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def bridge_command(pytestconfig: pytest.Config) -> list[str]:
    """The bridge's command line (``--bridge``, else our ``gabs``)."""
    raw = pytestconfig.getoption("--bridge", default=None)
    if raw:
        command = shlex.split(str(raw))
        if not command:
            raise pytest.UsageError("--bridge is empty")
        return command
    return [str(Path(sys.executable).parent / ("gabs.exe" if os.name == "nt" else "gabs"))]


@pytest.fixture
def config_dir(tmp_path: Path) -> ConfigDir:
    """A config directory to add games to; written when a session opens."""
    return ConfigDir(tmp_path / "gabs-config")


@pytest.fixture
def open_bridge(bridge_command: list[str], tmp_path: Path) -> OpenBridge:
    """``async with open_bridge(config_dir) as client``: an MCP session with the bridge."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return bridge_session(bridge_command, home)


@pytest.fixture
def gabs_cli(bridge_command: list[str], tmp_path: Path) -> Any:
    """``gabs_cli(config_dir, "games", "start", "x")``: the bridge's command line, run once."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)

    def run(config: ConfigDir, *arguments: str, env: dict[str, str] | None = None) -> Any:
        return run_cli(bridge_command, home, config, *arguments, env=env)

    return run
