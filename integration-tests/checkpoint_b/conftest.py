"""Checkpoint B fixtures: lib_gab's example games run as real processes."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio
import pytest

ExampleProcess = Callable[[str, str], AbstractAsyncContextManager[int]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def _example_process(module: str, token: str) -> AsyncIterator[int]:
    """Run ``python -m <module> --port 0`` with the GABS environment; yield its port."""
    env = {**os.environ, "GABP_TOKEN": token, "GABS_GAME_ID": "checkpoint-b"}
    env.pop("GABP_SERVER_PORT", None)
    async with await anyio.open_process(
        [sys.executable, "-m", module, "--port", "0"], env=env, stdout=None
    ) as process:
        assert process.stderr is not None
        seen = b""
        with anyio.fail_after(20):
            while (match := re.search(rb"listening on 127\.0\.0\.1:(\d+)", seen)) is None:
                seen += await process.stderr.receive()
        try:
            yield int(match.group(1))
        finally:
            process.terminate()
            with anyio.fail_after(10):
                await process.wait()


@pytest.fixture
def example_process() -> ExampleProcess:
    """``async with example_process(module, token) as port``: an example game, running."""
    return _example_process
