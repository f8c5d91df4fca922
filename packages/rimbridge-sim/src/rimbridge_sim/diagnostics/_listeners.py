"""Who hears of the operation journal's events: listeners, each with an optional filter.

The journal asks :meth:`JournalListeners.select` under its lock which listeners an event goes
to, so that the record snapshot a listener gets (the operation as it is right after the event)
is only built when one is called; it calls them after the lock is released
(:meth:`JournalListeners.notify`). A tool call records two events, and the attention feed and
the event relay take only failures and some completions: with their filters most calls build
no snapshot and call no listener at all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeAlias

from rimbridge_sim.diagnostics._common import call_listeners
from rimbridge_sim.diagnostics._records import (
    JournalListener,
    OperationEvent,
    OperationRecord,
)
from rimbridge_sim.diagnostics._state import OperationState

__all__ = ["EventFilter", "JournalListeners", "Notice"]

EventFilter: TypeAlias = Callable[[OperationEvent], bool]
"""Which events a listener is called for (see :meth:`OperationJournal.subscribe`)."""
Notice: TypeAlias = tuple[tuple[JournalListener, ...], OperationRecord, OperationEvent]
"""An event to hand out: the listeners chosen, the record after the event, the event."""
_Subscription: TypeAlias = tuple[JournalListener, EventFilter | None]


class JournalListeners:
    """The journal's listeners (a tuple swapped whole, so an event in progress keeps the
    tuple it took)."""

    __slots__ = ("_lock", "active")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active: tuple[_Subscription, ...] = ()

    def add(self, listener: JournalListener, accepts: EventFilter | None) -> Callable[[], None]:
        """Subscribe ``listener`` (for the events ``accepts`` takes, all without a filter);
        returns a function that removes it again."""
        subscription: _Subscription = (listener, accepts)
        with self._lock:
            self.active = (*self.active, subscription)

        def unsubscribe() -> None:
            with self._lock:
                active = list(self.active)
                if subscription in active:
                    active.remove(subscription)
                self.active = tuple(active)

        return unsubscribe

    def select(
        self,
        operation: OperationState,
        event: OperationEvent,
        notices: list[Notice],
        record: OperationRecord | None = None,
    ) -> OperationRecord | None:
        """Add the notice of ``event`` for the listeners whose filter takes it, with
        ``record`` or, when there is none yet, a snapshot of ``operation`` (the journal's lock
        held); returns the record, given or built (``None`` when nobody took the event and
        none was given)."""
        chosen: tuple[JournalListener, ...] = ()
        for listener, accepts in self.active:
            if accepts is not None:
                try:
                    if not accepts(event):
                        continue
                except Exception:  # a filter that raises takes the event: its listener runs
                    pass
            chosen = (*chosen, listener)
        if chosen:
            if record is None:
                record = operation.snapshot()
            notices.append((chosen, record, event))
        return record

    @staticmethod
    def notify(notices: list[Notice]) -> None:
        """Call the chosen listeners (the lock released); a listener that raises is logged."""
        for listeners, record, event in notices:
            call_listeners(listeners, record, event)
