"""The script step that is running now, as the log ring stamps it on every line.

The script runner enters :func:`in_script_step` around each call it makes; a line logged
inside (on the same task, or in a worker thread started from it: ``anyio.to_thread`` copies
the context) carries the step's ids and call, as the mod's log entries carry
``ScriptStatementId``, ``ScriptStepId`` and ``ScriptCall`` from its operation context. A
nested script's step replaces the outer one until it ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NamedTuple

__all__ = ["ScriptStep", "current_script_step", "in_script_step"]


class ScriptStep(NamedTuple):
    """The ids and call of a running script step (one shared tuple per step, not per line)."""

    statement_id: str
    """The statement's id (``id``, else the generated ``step-<n>``)."""
    step_id: str
    """This execution's id in the report (``<statement id>#<n>`` from the second run on)."""
    call: str
    """The tool the step calls, as written in the script."""


_CURRENT: ContextVar[ScriptStep | None] = ContextVar("rimbridge_sim_script_step", default=None)

current_script_step = _CURRENT.get
"""The running step, ``None`` outside any script step (one context lookup)."""


@contextmanager
def in_script_step(statement_id: str, step_id: str, call: str) -> Iterator[ScriptStep]:
    """Mark the code in the block as running script step ``step_id``."""
    step = ScriptStep(statement_id, step_id, call)
    token = _CURRENT.set(step)
    try:
        yield step
    finally:
        _CURRENT.reset(token)
