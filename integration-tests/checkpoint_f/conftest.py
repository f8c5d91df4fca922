"""Checkpoint F fixtures: every test here runs on asyncio (the bridge's and the games' loop)."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
