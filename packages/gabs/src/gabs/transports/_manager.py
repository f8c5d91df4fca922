"""The game manager a transport serves: one per bridge process, with its notifier attached."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier

__all__ = ["bridge_executable", "open_manager"]


def bridge_executable() -> str | None:
    """The path of the ``gabs`` executable, told to games as ``GABS_BRIDGE_PATH``."""
    found = shutil.which("gabs")
    if found:
        return found
    argv0 = Path(sys.argv[0])
    return str(argv0.resolve()) if argv0.name == "gabs" and argv0.exists() else None


def open_manager(config: GabsConfig, notifier: ToolListNotifier) -> GameManager:
    """A :class:`GameManager` for ``config`` that tells ``notifier`` when tools change.

    Use it as ``async with open_manager(config, notifier) as manager``.
    """
    return GameManager(config, bridge_path=bridge_executable(), on_tools_changed=notifier)
