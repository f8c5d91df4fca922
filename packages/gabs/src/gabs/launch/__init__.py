"""Launching games: resolution of profiles and launch inputs, the game's environment, Steam
libraries, static checks, the size check, lifecycle hooks and the process itself."""

from .checks import SpecIssue, check_resolvable
from .environment import game_environment, hook_environment
from .hooks import HookResult, classify_status, run_action_hook, run_hook, run_status_hook
from .resolve import (
    NOT_INT64,
    Resolved,
    ResolvedHook,
    ResolvedLifecycle,
    ResolveError,
    mode_incompatible_head,
    resolve,
)
from .size import ExecLimits, SizeIssue, check_process_size
from .spawn import LAUNCH_LOG, SpawnedGame, SpawnError, spawn
from .steam import SteamApp, SteamError, resolve_app

__all__ = [
    "LAUNCH_LOG",
    "NOT_INT64",
    "ExecLimits",
    "HookResult",
    "ResolveError",
    "Resolved",
    "ResolvedHook",
    "ResolvedLifecycle",
    "SizeIssue",
    "SpawnError",
    "SpawnedGame",
    "SpecIssue",
    "SteamApp",
    "SteamError",
    "check_process_size",
    "check_resolvable",
    "classify_status",
    "game_environment",
    "hook_environment",
    "mode_incompatible_head",
    "resolve",
    "resolve_app",
    "run_action_hook",
    "run_hook",
    "run_status_hook",
    "spawn",
]
