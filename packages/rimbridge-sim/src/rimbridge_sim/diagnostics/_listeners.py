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

__all__ = ["EventFilter", "JournalListeners", "KindFilter", "Notice"]

EventFilter: TypeAlias = Callable[[OperationEvent], bool]
"""Which events a listener is called for (see :meth:`OperationJournal.subscribe`)."""
KindFilter: TypeAlias = Callable[[str, str], bool]
"""Which events a listener is called for, by ``(event kind, operation method)``: asked before
the event is built, so an event no listener takes is never built at all."""
Notice: TypeAlias = tuple[tuple[JournalListener, ...], OperationRecord, OperationEvent]
"""An event to hand out: the listeners chosen, the record after the event, the event."""
_Subscription: TypeAlias = tuple[JournalListener, EventFilter | None, KindFilter | None]


class JournalListeners:
    """The journal's listeners (a tuple swapped whole, so an event in progress keeps the
    tuple it took)."""

    __slots__ = ("_lock", "active")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active: tuple[_Subscription, ...] = ()

    def add(
        self, listener: JournalListener, accepts: EventFilter | None, takes: KindFilter | None
    ) -> Callable[[], None]:
        """Subscribe ``listener`` (for the events ``takes`` and ``accepts`` both take, all
        without a filter); returns a function that removes it again."""
        subscription: _Subscription = (listener, accepts, takes)
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
        kind: str,
        event: OperationEvent | None,
        notices: list[Notice],
        record: OperationRecord | None = None,
    ) -> OperationRecord | None:
        """Add the notice of the event of ``kind`` just recorded for ``operation`` for the
        listeners whose filters take it (the journal's lock held). ``event`` is built from
        ``operation`` (its start or its outcome, by ``kind``) only when a filter or a listener
        needs it, and so is ``record`` (a snapshot of ``operation``) when none is given;
        returns the record, given or built (``None`` when nobody took the event and none was
        given)."""
        chosen: tuple[JournalListener, ...] = ()
        for listener, accepts, takes in self.active:
            if takes is not None:
                try:
                    if not takes(kind, operation.method):
                        continue
                except Exception:  # a filter that raises takes the event: its listener runs
                    pass
            if accepts is not None:
                if event is None:
                    event = _built(operation, kind)
                try:
                    if not accepts(event):
                        continue
                except Exception:
                    pass
            chosen = (*chosen, listener)
        if chosen:
            if event is None:
                event = _built(operation, kind)
            if record is None:
                record = operation.snapshot()
            notices.append((chosen, record, event))
        return record

    @staticmethod
    def notify(notices: list[Notice]) -> None:
        """Call the chosen listeners (the lock released); a listener that raises is logged."""
        for listeners, record, event in notices:
            call_listeners(listeners, record, event)


def _built(operation: OperationState, kind: str) -> OperationEvent:
    """The start or the outcome of ``operation``, as recorded (the only events not built at
    once: :class:`OperationState`)."""
    return operation.started_event() if kind == "started" else operation.outcome_event()
