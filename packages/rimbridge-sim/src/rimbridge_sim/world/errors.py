"""Why a world operation was refused.

Every refusal is a :class:`WorldError` with a message meant for the caller (it names the id,
cell or argument and the rule) and a stable ``code`` the tool layer can put into a payload.
"""

from __future__ import annotations

import os

__all__ = [
    "InvalidArgumentError",
    "InvalidCellError",
    "LongEventError",
    "MissingArgumentError",
    "NoGameError",
    "NotFoundError",
    "RefusedError",
    "StaleIdError",
    "UnknownIdError",
    "WorldError",
    "argument_exception",
    "argument_out_of_range",
]


class WorldError(Exception):
    """A world operation was refused; nothing changed."""

    code = "world_error"

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code


class NoGameError(WorldError):
    """The operation needs a game but the world is at the main menu."""

    code = "no_game"

    def __init__(self, message: str = "No current map is active.") -> None:
        super().__init__(message)


class LongEventError(WorldError):
    """A long event (a load) is running; game operations wait until it ends."""

    code = "long_event"


class StaleIdError(WorldError):
    """The id belonged to a game that was replaced by a load or a new game."""

    code = "stale_id"


class UnknownIdError(WorldError):
    """No pawn, thing, designation, letter, window or save has that id."""

    code = "unknown_id"


class InvalidCellError(WorldError):
    """The cell is outside the map or cannot take what was asked."""

    code = "invalid_cell"


class InvalidArgumentError(WorldError):
    """An argument breaks a rule (its message names the argument and the rule)."""

    code = "invalid_argument"


class MissingArgumentError(InvalidArgumentError):
    """A blank or missing argument that the mod answers in its payload (``A designator id is
    required.``), not by throwing: the tools that can meet one answer it as a payload failure
    with code ``invalid_argument``. Other invalid arguments stay exceptions."""


class RefusedError(WorldError):
    """The game is not in a state that allows the action (busy, wrong screen, ...); the
    tools answer it as a payload failure, as the real mod does."""

    code = "refused"


class NotFoundError(RefusedError):
    """Nothing matches the id or query the caller named (an architect category or designator,
    a debug action, an installed mod or settings surface, a main tab, a language, an open
    window, tab or menu a screen target names), where the mod answers ``Could not find ...`` in
    its payload: answered as every refusal is, with code ``unknown_id``."""

    code = "unknown_id"


def argument_exception(message: str, parameter: str) -> str:
    """The message of .NET's ``ArgumentException(message, parameter)`` as a game on Unity's
    Mono shows it (RimWorld runs there): the parameter's name after ``Environment.NewLine``,
    the line separator of the machine the game runs on. (.NET Core would write
    ``<message> (Parameter 'operationId')`` on one line.)"""
    return f"{message}{os.linesep}Parameter name: {parameter}"


def argument_out_of_range(parameter: str) -> str:
    """The message of .NET's ``ArgumentOutOfRangeException(parameter)`` as Mono shows it (see
    :func:`argument_exception`)."""
    return argument_exception("Specified argument was out of the range of valid values.", parameter)
