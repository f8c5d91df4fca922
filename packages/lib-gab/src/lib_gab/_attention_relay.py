"""From the attention manager to the bridges: queued notifications, sent in order.

The manager tells its listener about every notification, on whichever thread reported. The
relay queues them and wakes its pump on the server's event loop; a call's handler flushes the
queue before its response is sent, so attention a call raised reaches the bridge first.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel

from gabp.messages import Attention
from lib_gab.attention import AttentionManager

__all__ = ["AttentionRelay"]


class AttentionRelay:
    """Queues the manager's notifications and sends them with ``emit``, in order."""

    def __init__(self, emit: Callable[[str, Any], Awaitable[int]]) -> None:
        self._emit = emit
        self._queue: deque[tuple[str, Attention]] = deque()
        self._wake: anyio.Event | None = None
        self._loop_thread: int | None = None
        self._token: anyio.lowlevel.EventLoopToken | None = None
        self._sending: anyio.Lock | None = None

    def bind_loop(self) -> None:
        """Called on the server's event loop before serving: where to wake the pump."""
        self._loop_thread = threading.get_ident()
        self._token = anyio.lowlevel.current_token()
        self._wake = anyio.Event()
        self._sending = anyio.Lock()

    def on_attention(self, channel: str, item: Attention) -> None:
        """The manager's listener: queue the event and wake the pump (from any thread)."""
        self._queue.append((channel, item))
        wake = self._wake
        if wake is None:
            return
        if threading.get_ident() == self._loop_thread:
            wake.set()
        elif self._token is not None:
            with contextlib.suppress(RuntimeError):
                anyio.from_thread.run_sync(wake.set, token=self._token)

    async def flush(self) -> None:
        """Send everything queued, oldest first (one sender at a time keeps the order)."""
        if not self._queue:
            return
        if self._sending is None:
            self._sending = anyio.Lock()
        async with self._sending:
            queue = self._queue
            while queue:
                channel, item = queue.popleft()
                await self._emit(channel, item.to_wire())

    async def pump(self, manager: AttentionManager) -> None:
        """Send queued events, and deferred (rate-limited) updates when they are due."""
        while True:
            due = manager.flush_due()
            await self.flush()
            assert self._wake is not None
            with anyio.move_on_after(1.0 if due is None else max(due, 0.0)):
                await self._wake.wait()
            self._wake = anyio.Event()
