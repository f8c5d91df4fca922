"""The Go bridge's usage errors for ``gabs games ACTION ...``, checked before argparse runs.

The Go bridge answers a missing game id, an unknown action, an unknown flag of an action and
a surplus argument each with one short line on stderr (exit 2); scripts and users compare
those lines, so ``gabs`` prints the same ones. Our own flags (``--json``, the options of
``games add``) stay accepted; what argparse would refuse anyway keeps argparse's words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .cli_args import UsageError

__all__ = ["GAMES_ACTIONS", "NO_GAMES_ACTION", "check_games_usage", "games_arguments"]

GAMES_ACTIONS: Final = (
    "list",
    "show",
    "add",
    "remove",
    "doctor",
    "repair",
    "start",
    "status",
    "stop",
    "kill",
)
NO_GAMES_ACTION: Final = "Please specify what you'd like to do with games."

#: The flags of the actions that parse their own (Go's), and ours.
_OWN_FLAGS: Final = {
    "doctor": frozenset({"--show-last-good"}),
    "repair": frozenset({"--forget-runtime", "--yes", "-y"}),
}
#: Our options of ``games add`` that take a value (the next argument, or after ``=``).
_ADD_VALUE_OPTIONS: Final = frozenset(
    {
        "--name",
        "--launch-mode",
        "--target",
        "--arg",
        "--working-dir",
        "--stop-process-name",
        "--env",
        "--description",
        "--attention-mode",
        "--allow",
    }
)
_HELP: Final = frozenset({"-h", "--help"})
_JSON: Final = frozenset({"--json"})


def _split(tokens: Sequence[str]) -> tuple[list[str], list[str]]:
    """The tokens before a ``--`` and the ones after it."""
    if "--" in tokens:
        index = list(tokens).index("--")
        return list(tokens[:index]), list(tokens[index + 1 :])
    return list(tokens), []


def check_games_usage(tokens: Sequence[str]) -> None:
    """Raise :class:`UsageError` with the Go bridge's line when ``gabs games TOKENS`` is wrong.

    ``tokens`` are the arguments after ``games`` with the global flags already taken out. An
    empty action is left to the caller (it prints :data:`NO_GAMES_ACTION` and the help).
    """
    head, escaped = _split(tokens)
    escaped_action = not head
    if escaped_action:
        if not escaped:
            return
        head, escaped = escaped[:1], escaped[1:]
    action, rest = head[0], head[1:]
    if (action in _HELP and not escaped_action) or _HELP.intersection(rest):
        return
    if action not in GAMES_ACTIONS:
        raise UsageError(f"unknown games action: {action}")
    if action in ("add", "start"):
        if not rest and not escaped:
            raise UsageError(f"games {action} requires a game ID")
        if action == "start" and len(escaped) > 1:
            _check_own_flags(action, rest, escaped)
        if action == "add":
            _check_add_arity(rest, escaped)
        return  # their own options are checked where they are parsed
    if action in _OWN_FLAGS:
        _check_own_flags(action, rest, escaped)
        return
    allowance = 0 if action == "list" else 1
    extra: list[str] = []
    for token in rest:
        if token.startswith("-") and token not in _JSON:
            raise UsageError(
                f'unknown {action} flag: {token} (place a dash-prefixed game ID after "--")'
            )
        if token not in _JSON:
            extra.append(token)
    extra += escaped
    if len(extra) > allowance:
        raise UsageError(
            f"games {action} takes at most {allowance} argument(s); unexpected: "
            + " ".join(extra[allowance:])
        )
    if not extra and action not in ("list", "status"):
        raise UsageError(f"games {action} requires a game ID")


def _check_add_arity(rest: list[str], escaped: list[str]) -> None:
    """``games add`` takes one game id; our options (and their values) are not counted."""
    extra: list[str] = []
    index = 0
    while index < len(rest):
        token = rest[index]
        if token in _ADD_VALUE_OPTIONS:
            index += 1  # its value
        elif not token.startswith("-"):
            extra.append(token)
        index += 1
    extra += escaped
    if len(extra) > 1:
        raise UsageError(
            f"games add takes at most 1 argument(s); unexpected: {' '.join(extra[1:])}"
        )


def _check_own_flags(action: str, rest: list[str], escaped: list[str]) -> None:
    if len(escaped) > 1:
        raise UsageError(
            f'games {action} takes only the game ID after "--"; place flags before it '
            f"(unexpected: {' '.join(escaped[1:])})"
        )
    arguments = [*escaped, *rest]
    if not arguments:
        raise UsageError(f"games {action} requires a game ID")
    for token in arguments[1:]:
        if token not in _OWN_FLAGS[action]:
            raise UsageError(f"unknown {action} flag: {token}")


def games_arguments(tokens: Sequence[str]) -> list[str]:
    """``gabs games TOKENS`` reordered for the parser, as the Go bridge reads them.

    A ``--`` may come before the action (``games -- stop -dash``), and the tokens after it are
    positionals that fill the game id's slot before any flag is read (``games start --profile
    p -- -dash`` starts ``-dash`` with profile ``p``).
    """
    head, escaped = _split(tokens)
    if "--" not in tokens:
        return head
    if not head:
        head, escaped = escaped[:1], escaped[1:]
    action, rest = head[0], head[1:]
    if not escaped:
        return [action, *rest]
    if action == "start":
        return [action, "--", *escaped, *rest]  # the options after the id are read as such
    return [action, *rest, "--", *escaped]
