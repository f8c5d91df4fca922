"""What can be wrong with a config: issues with their JSON pointer, and the errors raised."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..go_format import go_reason

__all__ = [
    "ConfigError",
    "ConfigIssue",
    "UnknownGameError",
    "escape_pointer",
    "game_pointer",
    "read_failure",
]

#: ``ConfigIssue.code`` of an issue where a store launch mode refuses launch context.
MODE_INCOMPATIBLE = "mode_incompatible"

#: How a config file that cannot be read is reported when loading it (the Go bridge's words).
READ_FAILED = "failed to read config file: "
#: How a config file that is not JSON is reported (the Go bridge's words).
PARSE_FAILED = "failed to parse config file: "


def escape_pointer(token: str) -> str:
    """One RFC 6901 JSON pointer token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def game_pointer(game_id: str) -> str:
    """``/games/<id>`` with the id escaped."""
    return "/games/" + escape_pointer(game_id)


@dataclass(frozen=True)
class ConfigIssue:
    """One finding: where (an RFC 6901 pointer such as ``/games/x/target``) and why.

    ``code`` classifies an issue for a stable outcome (``mode_incompatible``); it is empty
    for most issues.
    """

    path: str
    message: str
    code: str = ""

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.message}"

    def owner(self) -> str | None:
        """The game id the issue belongs to (``/games/<id>/...``), else None."""
        if not self.path.startswith("/games/"):
            return None
        token = self.path[len("/games/") :].split("/", 1)[0]
        return token.replace("~1", "/").replace("~0", "~") or None


class ConfigError(ValueError):
    """The configuration cannot be read, is invalid, or an operation on it is refused.

    ``problems`` lists each validation issue (empty for errors that are not about the contents,
    such as an unreadable file); ``source`` is the file, when there is one; ``revision`` the
    content revision of an invalid file.
    """

    def __init__(
        self,
        message: str,
        problems: Iterable[ConfigIssue] = (),
        *,
        source: Path | None = None,
        revision: str | None = None,
    ) -> None:
        self.problems: tuple[ConfigIssue, ...] = tuple(problems)
        self.source = source
        self.revision = revision
        self.summary = message
        lines = [message, *(f"  {problem}" for problem in self.problems)]
        super().__init__("\n".join(lines))

    def invalid_text(self) -> str:
        """The Go bridge's ``configuration <revision> is invalid: <error>`` (doctor, server)."""
        text = str(self)
        if text.startswith(READ_FAILED):
            text = text[len(READ_FAILED) :]
        return f"configuration {self.revision or 'unreadable'} is invalid: {text}"


def read_failure(path: Path, exc: OSError) -> str:
    """An unreadable file as the Go bridge words it: ``read <path>: is a directory``."""
    verb = "read" if isinstance(exc, IsADirectoryError) else "open"
    return f"{verb} {path}: {go_reason(exc)}"


class UnknownGameError(ConfigError, LookupError):
    """No game with this id is configured."""

    def __init__(self, game_id: str, known: Iterable[str]) -> None:
        self.game_id = game_id
        self.known: tuple[str, ...] = tuple(sorted(known))
        listing = ", ".join(self.known) if self.known else "none"
        super().__init__(f"no game {game_id!r} is configured (configured games: {listing})")
