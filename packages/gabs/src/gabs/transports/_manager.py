"""The game manager a transport serves: one per bridge process, with its notifier attached."""

from __future__ import annotations

from gabs.config import GabsConfig
from gabs.games import GameManager
from gabs.mcp import ToolListNotifier

__all__ = ["open_manager"]


def open_manager(config: GabsConfig, notifier: ToolListNotifier) -> GameManager:
    """A :class:`GameManager` for ``config`` that tells ``notifier`` when tools change.

    Use it as ``async with open_manager(config, notifier) as manager``.
    """
    return GameManager(config, on_tools_changed=notifier)
