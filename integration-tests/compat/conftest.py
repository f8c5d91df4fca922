"""Fixtures of the bridge-agnostic compatibility suite (see README.md).

``--bridge "<command>"`` names the bridge to test (a shell-quoted command line; default: the
``gabs`` next to this Python).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from .harness import ConfigDir, OpenBridge, bridge_session


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--bridge",
        default=None,
        help='the GABS bridge to test, as a command line (default: the "gabs" next to this Python)',
    )


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
