"""How one game-bound call ended, and which attention belongs to it.

:class:`CallOutcome` is what :meth:`gabs.session.GameSession.call_tool` returns. Its
``executed`` field answers "did it run?" (ARCHITECTURE decision 5): ``False`` when the gate or
the game refused the call before running it (:data:`NOT_RUN_CODES`), ``True`` when the game
answered, ``"unknown"`` when the connection died or the call timed out first.
:func:`attach_attention` decides which attention item goes with the result (decision 4), from
what a :class:`CallWatch` saw while the call was in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gabp import (
    ConnectionClosed,
    ErrorCode,
    GabpError,
    MessageError,
    MessageTooLarge,
    RemoteError,
    RequestTimeout,
)
from gabp.messages import Attention
from gabs.attention import GateDecision

__all__ = [
    "NOT_RUN_CODES",
    "CallOutcome",
    "CallWatch",
    "NotSent",
    "attach_attention",
    "record_failure",
]

#: Errors that mean the game refused the call before running it.
NOT_RUN_CODES = frozenset(
    {
        ErrorCode.PARSE_ERROR,
        ErrorCode.INVALID_REQUEST,
        ErrorCode.METHOD_NOT_FOUND,
        ErrorCode.INVALID_PARAMS,
        ErrorCode.AUTHENTICATION_FAILED,
        ErrorCode.SESSION_NOT_ESTABLISHED,
        ErrorCode.TOOL_NOT_FOUND,
        ErrorCode.METHOD_NOT_ALLOWED,
    }
)


@dataclass
class CallOutcome:
    """How one game-bound call ended."""

    executed: bool | Literal["unknown"]
    status: Literal["ok", "error", "blocked_by_attention", "attention_unavailable", "unknown"]
    tool: str
    operation_id: str | None = None
    result: Any = None
    error: dict[str, Any] | None = None
    attention: Attention | None = None
    attention_relation: (
        Literal["caused_by_call", "opened_during_call", "open_before_call", "blocking"] | None
    ) = None
    gate: GateDecision | None = None
    duration_ms: float = 0.0
    sent: bool = True
    """``False`` when the bridge never sent the call (no request slot came free in time)."""


class NotSent(ConnectionClosed):
    """A request that never reached the game: it had no connection, or no request slot came
    free in time."""


def record_failure(outcome: CallOutcome, exc: GabpError) -> bool:
    """Fill ``outcome`` from the error its call to the game ended with; ``False`` for an error
    that says nothing about the call (the caller raises it)."""
    server = int(ErrorCode.SERVER_ERROR)
    if isinstance(exc, NotSent | MessageTooLarge):  # the request never left: not run
        outcome.executed, outcome.status, outcome.sent = False, "error", False
        outcome.error = {"code": server, "message": str(exc)}
    elif isinstance(exc, RemoteError):
        outcome.executed = exc.code not in NOT_RUN_CODES
        outcome.status = "error"
        outcome.error = exc.to_wire()
    elif isinstance(exc, RequestTimeout):
        outcome.error = {"code": server, "message": str(exc)}
    elif isinstance(exc, ConnectionClosed):
        outcome.error = {"code": server, "message": f"connection lost: {exc.reason}"}
    elif isinstance(exc, MessageError):
        # The game answered, but not with a GABP response: whether the tool ran is unknown.
        outcome.error = {"code": server, "message": f"unreadable answer ({exc})"}
    else:
        return False
    return True


@dataclass
class CallWatch:
    """Attention seen while one call (``operation_id``, its GABP request id) was in flight."""

    operation_id: str
    seen: list[Attention] = field(default_factory=list)


def attach_attention(
    outcome: CallOutcome,
    *,
    before: Attention | None,
    current: Attention | None,
    watch: CallWatch,
) -> None:
    """Attach the attention the call caused, met or saw open to ``outcome``.

    ``before`` is the open item when the call was sent, ``current`` the one open now. An item
    whose ``causalOperationId`` is the call's is ``caused_by_call``; one that opened while the
    call ran is ``opened_during_call``; the same item open before and after is
    ``open_before_call``.
    """
    caused = [item for item in watch.seen if item.causal_operation_id == watch.operation_id]
    if current is not None and current.causal_operation_id == watch.operation_id:
        outcome.attention, outcome.attention_relation = current, "caused_by_call"
    elif caused:
        outcome.attention, outcome.attention_relation = caused[-1], "caused_by_call"
    elif watch.seen and current is not None:
        outcome.attention, outcome.attention_relation = current, "opened_during_call"
    elif current is not None and before is not None and current.attention_id == before.attention_id:
        outcome.attention, outcome.attention_relation = current, "open_before_call"
    elif current is not None:
        outcome.attention, outcome.attention_relation = current, "opened_during_call"
