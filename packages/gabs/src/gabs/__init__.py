"""GABS: one MCP server for many games, talking GABP to each.

The bridge reads its games from ``<config-dir>/config.json`` (:class:`GabsConfig`, in the Go
bridge's format plus optional keys of its own), launches them as processes that outlive it,
records each launch in a runtime claim shared with other bridge processes and the CLI
(:mod:`gabs.lifecycle`), and hands each game a loopback port and a fresh token through its
environment.
"""

from ._version import __version__
from .config import ConfigError, ConfigStore, GabsConfig, GameConfig
from .lifecycle import Lifecycle, LifecycleError

__all__ = [
    "ConfigError",
    "ConfigStore",
    "GabsConfig",
    "GameConfig",
    "Lifecycle",
    "LifecycleError",
    "__version__",
]
