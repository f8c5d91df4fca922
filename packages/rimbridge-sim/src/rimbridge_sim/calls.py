"""How a tool body runs and how it answers: the vocabulary tool modules share.

A tool module imports this module and :mod:`rimbridge_sim.host`, never the integration, so
dependencies point one way: ``integration`` -> ``tools`` -> ``calls`` / ``host`` -> ``world``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from lib_gab import current_operation
from rimbridge_sim.world import NoGameError, World

__all__ = [
    "DEFAULT_PAYLOAD_CODES",
    "NO_GAME_MESSAGE",
    "CallSpec",
    "MainLoopTimeout",
    "call_spec",
    "close_connection_after_response",
    "payload_failure",
    "spec_of",
    "without_game",
]

DEFAULT_PAYLOAD_CODES: Final[frozenset[str]] = frozenset(
    {"unknown_id", "stale_id", "invalid_cell", "refused"}
)
"""World error codes that a game tool answers as a payload failure (``success: false``): the
caller pointed at something that is not there (or no longer), or at a cell that cannot take
the action, or the game refused what was asked in its current state (``refused``, as the
mod answers such cases). Every other refusal is an exception (see the package README)."""

_ATTRIBUTE = "__rimbridge_call__"


class MainLoopTimeout(Exception):
    """The main loop (the world lock) did not become free in time."""


@dataclass(frozen=True)
class CallSpec:
    """How the integration runs a tool (behaviour, not metadata: that lives in annotations).

    ``world``: the body touches the world, so it runs under the world lock (the main loop) and
    inside ``world.caused_by(operation)``. ``payload_codes``: world error codes answered as a
    payload failure instead of an exception. Async bodies never hold the lock for their
    whole run: they take it in short steps through ``host.on_main_thread``.
    """

    world: bool = False
    payload_codes: frozenset[str] = DEFAULT_PAYLOAD_CODES
    quick: bool = False
    """A short read of the world (no disk, no rendering): it runs on the event loop when the
    world lock is free at that moment, and in a worker thread (waiting for the lock) otherwise."""


_PLAIN = CallSpec()


def call_spec(
    *,
    world: bool = False,
    payload_codes: frozenset[str] = DEFAULT_PAYLOAD_CODES,
    quick: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark how a tool function runs (see :class:`CallSpec`)."""
    spec = CallSpec(world=world, payload_codes=payload_codes, quick=quick)

    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        setattr(function, _ATTRIBUTE, spec)
        return function

    return mark


def spec_of(function: Callable[..., Any]) -> CallSpec:
    spec = getattr(getattr(function, "__func__", function), _ATTRIBUTE, None)
    return spec if isinstance(spec, CallSpec) else _PLAIN


def payload_failure(message: str, code: str, **extra: Any) -> dict[str, Any]:
    """The result of a tool that ran and refused: ``{"success": false, "message", "code"}``."""
    return {"success": False, "message": message, "code": code, **extra}


NO_GAME_MESSAGE: Final = "No game is currently loaded"
"""The mod's answer when a tool that needs a game finds none; some of its tools end it with a
full stop (:data:`NO_GAME_SENTENCE`), others do not (each tool passes its own text to
:func:`without_game`)."""
NO_GAME_SENTENCE: Final = NO_GAME_MESSAGE + "."


def without_game(world: World, message: str) -> dict[str, Any] | None:
    """The payload failure a tool gives with the mod's ``message`` when no game is loaded,
    ``None`` when one is. A load that is still running stays an exception (``long_event``)."""
    try:
        world.require_colony()
    except NoGameError:
        return payload_failure(message, NoGameError.code)
    return None


def close_connection_after_response(reason: str) -> bool:
    """Ask lib_gab to close the calling bridge's connection once this call is answered.

    False when the current operation was not served over a connection (a script step run
    inside another call still closes the caller's connection: it runs under that operation).
    """
    operation = current_operation()
    if operation is None or operation.close_connection is None:
        return False
    operation.close_connection(reason)
    return True
