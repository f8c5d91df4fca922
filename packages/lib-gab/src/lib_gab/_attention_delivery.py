"""Handing attention notifications to the listener: in order, one thread at a time, never
under the manager's lock."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from gabp.messages import Attention
from lib_gab._attention_item import Capture, build

__all__ = ["Outbox"]

logger = logging.getLogger("lib_gab.attention")

Listener = Callable[[str, Attention], None]


class Outbox:
    """Notifications waiting for the listener.

    :meth:`put` is called with the manager's lock held (so notifications queue in the order the
    state changed); :meth:`deliver` without it. Only one thread delivers at a time. A thread that
    finds another one delivering (or itself, re-entered from the listener) leaves its
    notifications to that thread and returns at once: it never waits for a listener that may be
    waiting for it.
    """

    def __init__(self, lock: threading.Lock, listener: Listener | None) -> None:
        self._lock = lock
        self.listener = listener
        self._queued: list[tuple[str, Capture]] = []
        self._deliverer: int | None = None  # thread id of the one delivering, if any

    def put(self, channel: str, data: Capture) -> None:
        """Queue one notification (lock held by the caller)."""
        self._queued.append((channel, data))

    def deliver(self) -> None:
        """Hand queued notifications to the listener, one at a time and in order."""
        with self._lock:
            if self._deliverer is not None:
                return
            self._deliverer = threading.get_ident()
        try:
            while True:
                with self._lock:
                    if not self._queued:
                        self._deliverer = None
                        return
                    batch = self._queued
                    self._queued = []
                    listener = self.listener
                for channel, data in batch:
                    if listener is None:
                        continue
                    try:
                        listener(channel, build(data))
                    except Exception:
                        logger.exception("attention listener failed on %s", channel)
        except BaseException:
            with self._lock:
                self._deliverer = None
            raise
