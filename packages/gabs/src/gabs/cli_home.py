"""A command that needs the home directory when there is none: the Go bridge's refusal.

The default config folder is ``~/.gabs``. With neither ``--configDir`` nor ``$GABS_CONFIG_DIR``
the Go bridge asks Go's ``os.UserHomeDir``, which fails when ``$HOME`` (``%USERPROFILE%`` on
Windows) is empty or unset; each command then ends with exit 1 and its own framing of
``failed to get home directory: $HOME is not defined``. ``gabs`` prints the same texts instead
of guessing a folder (Python would take ``/`` or the password database's entry).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Final

from .config import CONFIG_DIR_ENV

__all__ = ["HomeRefusal", "home_refusal"]

#: The commands that read the config folder.
_USES_CONFIG: Final = frozenset({"server", "serve", "games", "config"})


class HomeRefusal:
    """What to print (``stdout`` or stderr) and the exit code."""

    def __init__(self, text: str, *, stdout: bool = False, code: int = 1) -> None:
        self.text = text
        self.stdout = stdout
        self.code = code

    def show(self) -> int:
        print(self.text, file=sys.stdout if self.stdout else sys.stderr)
        return self.code


def _missing_home() -> str | None:
    """Go's ``os.UserHomeDir`` error, or None when the variable it reads is set."""
    name, shown = ("USERPROFILE", "%userprofile%") if sys.platform == "win32" else ("HOME", "$HOME")
    if os.environ.get(name):
        return None
    return f"failed to get home directory: {shown} is not defined"


def home_refusal(args: argparse.Namespace) -> HomeRefusal | None:
    """The Go bridge's output when ``args`` needs ``~/.gabs`` and there is no home, else None."""
    if args.command not in _USES_CONFIG or args.config_dir or os.environ.get(CONFIG_DIR_ENV):
        return None
    error = _missing_home()
    if error is None:
        return None
    game_id = getattr(args, "game_id", None) or ""
    action = getattr(args, "cli_action", "")
    return _refusal(args, action, game_id, error)


def _refusal(args: argparse.Namespace, action: str, game_id: str, error: str) -> HomeRefusal:
    if args.command in ("server", "serve"):
        return HomeRefusal(f"failed to resolve config path: {error}")
    if args.command == "config":  # ours: the form of its other refusals
        return HomeRefusal(f"invalid: {error}", stdout=True, code=2)
    if getattr(args, "forget_runtime", False):
        return HomeRefusal(f"Cannot access a runtime claim for '{game_id}': {error}", stdout=True)
    if action == "doctor":
        lines = [
            "Configuration: invalid",
            f"  {error}",
            f"Game '{game_id}': not found in configuration",
            f"Track record: unreadable ({error})",
        ]
        if args.show_last_good:
            lines.append("Last known good: none recorded")
        return HomeRefusal("\n".join(lines), stdout=True)
    if action == "status" and not game_id:
        return HomeRefusal(
            "warning: configuration could not be read: failed to create config paths: "
            f"{error} (listing runtime claims only)\n"
            f"warning: runtime claims could not be scanned: {error} (summary may be incomplete)"
        )
    if action == "status":
        return HomeRefusal(
            f"{game_id}: cannot read runtime claim: failed to read runtime state: {error}"
        )
    if action == "start":
        return HomeRefusal(f"config_invalid: {error}")
    if action in ("stop", "kill"):
        return HomeRefusal(
            f"blocked_unknown_state: the runtime claim for '{game_id}' is unreadable: failed to "
            f"read runtime state: {error}. Use 'gabs games repair {game_id} --forget-runtime' "
            "if the game is provably gone."
        )
    return HomeRefusal(f"failed to load games config: failed to create config paths: {error}")
