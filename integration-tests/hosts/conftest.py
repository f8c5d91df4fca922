"""Fixtures of the host tests (see README.md): the npm packages installed once per run, a
private home for Node processes, and a config folder with the simulated RimWorld."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .flow import GabsConfig, stop_leftover_game
from .node import NodeSetupError, ensure_installed, node_environment


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def npm_packages() -> None:
    """The pinned npm packages, installed (``npm ci``) once for every worker of the run."""
    try:
        ensure_installed()
    except NodeSetupError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def node_env(tmp_path: Path, npm_packages: None) -> dict[str, str]:
    """The environment of Node processes and of the bridges they start (a private home)."""
    home = tmp_path / "home"
    home.mkdir()
    return node_environment(home)


@pytest.fixture
def gabs_config(tmp_path: Path, node_env: dict[str, str]) -> Iterator[GabsConfig]:
    """A config folder serving the simulated RimWorld as ``colony``; a game a failed test left
    running is killed afterwards."""
    config = GabsConfig.write(tmp_path / "gabs-config")
    yield config
    stop_leftover_game(config, node_env)
