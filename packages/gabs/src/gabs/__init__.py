"""GABS: one MCP server for many games, talking GABP to each.

The bridge launches games as processes (:class:`GameProcess`), hands each a loopback port and
a fresh token through its environment, and reads its games from ``<config-dir>/config.json``
(:class:`GabsConfig`, in the Go bridge's format plus optional keys of its own).
"""

from ._version import __version__
from .config import ConfigError, GabsConfig, GameConfig
from .launcher import GameProcess, LaunchError

__all__ = [
    "ConfigError",
    "GabsConfig",
    "GameConfig",
    "GameProcess",
    "LaunchError",
    "__version__",
]
