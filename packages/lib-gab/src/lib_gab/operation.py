"""The current operation: which bridge request a piece of game-side work belongs to.

While ``lib_gab`` serves a ``tools/call``, the request's id is the current operation and the
tool's name its method. Anything the tool does (tasks it starts, sync code it runs in a worker
thread, log lines it writes) sees the same operation, because it travels in a context
variable. Attention raised under an operation records it as ``causalOperationId`` and
``causalMethod``, so the bridge can tell which of its calls caused an item.

Integrations that continue work later (a job queue, a long in-game event) capture the
operation with :func:`current_operation` and restore it with :func:`use_operation`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Final

__all__ = ["Operation", "current_operation", "use_operation"]


@dataclass(frozen=True, slots=True, init=False)
class Operation:
    """One bridge request being served: its GABP request id and the tool (or method) name."""

    id: str
    method: str
    close_connection: Callable[[str], None] | None = field(default=None, compare=False, repr=False)
    """For the bridge call that started it: close that bridge's connection, with a reason,
    once the call's answer is sent (None for operations not served over a connection)."""

    def __init__(
        self, id: str, method: str, close_connection: Callable[[str], None] | None = None
    ) -> None:
        # the generated __init__ of a frozen dataclass sets each field through
        # object.__setattr__ by name, at twice this cost; every served call makes one
        _set_id(self, id)
        _set_method(self, method)
        _set_close_connection(self, close_connection)


_set_id: Final = vars(Operation)["id"].__set__
_set_method: Final = vars(Operation)["method"].__set__
_set_close_connection: Final = vars(Operation)["close_connection"].__set__


_current: ContextVar[Operation | None] = ContextVar("lib_gab_operation", default=None)


def current_operation() -> Operation | None:
    """The operation the calling code runs under, or None outside any request."""
    return _current.get()


@contextmanager
def use_operation(operation: Operation | None) -> Iterator[Operation | None]:
    """Run a block under ``operation`` (e.g. one captured earlier with current_operation())."""
    token = _current.set(operation)
    try:
        yield operation
    finally:
        _current.reset(token)


def enter_operation(operation: Operation | None) -> Token[Operation | None]:
    """:func:`use_operation` without a context manager, for the server's call path; pass the
    returned token to :func:`leave_operation` (not part of the public API)."""
    return _current.set(operation)


def leave_operation(token: Token[Operation | None]) -> None:
    _current.reset(token)
