"""Shared fixtures: the anyio backend, and a simulated RimBridge served on loopback TCP with a
bridge-side connection (``lib_gab.testing.bridge_session``) that records every event."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gabp import Connection
from gabp.messages import Event
from lib_gab.testing import bridge_session
from rimbridge_sim.integration import BridgeConfig, RimBridge

TOKEN = "7c1e" * 16


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Sim:
    """A running bridge and one bridge-side connection to it."""

    bridge: RimBridge
    conn: Connection
    events: list[Event] = field(default_factory=list)
    timeline: list[str] = field(default_factory=list)

    async def call(self, tool: str, /, request_id: str | None = None, **arguments: Any) -> Any:
        """tools/call; records ``response:<tool>`` in the timeline when it returns."""
        try:
            return await self.conn.request(
                "tools/call",
                {"name": tool, "arguments": arguments},
                timeout=10,
                request_id=request_id,
            )
        finally:
            self.timeline.append(f"response:{tool}")

    async def attention(self) -> Any:
        return (await self.conn.request("attention/current", {}, timeout=5))["attention"]

    def attention_events(self) -> list[tuple[str, dict[str, Any]]]:
        return [(e.channel, e.payload) for e in self.events if e.channel.startswith("attention/")]


OpenSim = Callable[..., AbstractAsyncContextManager[Sim]]


@pytest.fixture
def open_sim(tmp_path: Path) -> OpenSim:
    """``async with open_sim(**config) as sim``: a fresh bridge (port 0, tmp data dir)."""

    @asynccontextmanager
    async def open_(**options: Any) -> AsyncIterator[Sim]:
        options.setdefault("data_dir", tmp_path)
        options.setdefault("tick_rate", 240.0)
        options.setdefault("update_interval", 0.0)
        bridge = RimBridge(BridgeConfig(token=TOKEN, **options))
        holder: list[Sim] = []

        def on_event(event: Event) -> None:
            holder[0].events.append(event)
            holder[0].timeline.append(f"event:{event.channel}")

        async with (
            bridge.running() as address,
            bridge_session(address, TOKEN, on_event=on_event) as conn,
        ):
            sim = Sim(bridge, conn)
            holder.append(sim)
            await conn.request(
                "events/subscribe",
                {
                    "channels": [
                        "attention/opened",
                        "attention/updated",
                        "attention/cleared",
                    ]
                },
                timeout=5,
            )
            yield sim

    return open_
