"""The bridge's configuration: ``<config-dir>/config.json`` and the per-game runtime folders.

The file has the Go bridge's shape, so existing configs keep working::

    {"version": "1.0",
     "games": {"rimworld": {"id": "rimworld", "name": "RimWorld", "launchMode": "DirectPath",
                            "target": "/path/to/game", "args": [], "workingDir": "/path",
                            "env": {"KEY": "value"}, "profiles": {...}, "lifecycle": {...}}},
     "apiKey": "...", "portRanges": {...}, "timeouts": {...}, "toolNormalization": {...}}

plus optional keys of our own, per game (``attention``, ``exposeGameTools``, ``timeouts``,
``gabpPort``, ``requiredContext``) and for the whole bridge (``bridge``, ``contextTemplates``).
Every problem is reported with its RFC 6901 JSON pointer, as the Go bridge does
(``/games/rimworld/launchMode: must be one of ...``).
"""

from ._file import (
    CONFIG_DIR_ENV,
    CONFIG_FILE_NAME,
    CONFIG_VERSION,
    GabsConfig,
    config_revision,
    game_runtime_dir,
    resolve_config_dir,
    resolve_config_location,
)
from ._issues import (
    MODE_INCOMPATIBLE,
    ConfigError,
    ConfigIssue,
    UnknownGameError,
    escape_pointer,
    game_pointer,
    read_failure,
)
from ._model import (
    LAUNCH_MODES,
    URL_MODES,
    AttentionMode,
    AttentionSettings,
    BridgeSettings,
    GameConfig,
    GameTimeouts,
    HookConfig,
    LaunchInputConfig,
    LifecycleConfig,
    PortRange,
    ProfileConfig,
    Settings,
    StartupTimeouts,
    ToolNormalization,
)
from ._paths import LooseGameDir, ensure_game_dir, game_dir_problem
from ._rules import (
    INPUT_MAX_LENGTH_DEFAULT,
    NAME_PATTERN,
    check_game_id,
    full_match,
    new_game_refusal,
)
from ._store import ConfigStore, Snapshot
from ._values import json_kind

#: Kept for callers of the earlier API: every problem is a :class:`ConfigIssue`.
ConfigProblem = ConfigIssue

__all__ = [
    "CONFIG_DIR_ENV",
    "CONFIG_FILE_NAME",
    "CONFIG_VERSION",
    "INPUT_MAX_LENGTH_DEFAULT",
    "LAUNCH_MODES",
    "MODE_INCOMPATIBLE",
    "NAME_PATTERN",
    "URL_MODES",
    "AttentionMode",
    "AttentionSettings",
    "BridgeSettings",
    "ConfigError",
    "ConfigIssue",
    "ConfigProblem",
    "ConfigStore",
    "GabsConfig",
    "GameConfig",
    "GameTimeouts",
    "HookConfig",
    "LaunchInputConfig",
    "LifecycleConfig",
    "LooseGameDir",
    "PortRange",
    "ProfileConfig",
    "Settings",
    "Snapshot",
    "StartupTimeouts",
    "ToolNormalization",
    "UnknownGameError",
    "check_game_id",
    "config_revision",
    "ensure_game_dir",
    "escape_pointer",
    "full_match",
    "game_dir_problem",
    "game_pointer",
    "game_runtime_dir",
    "json_kind",
    "new_game_refusal",
    "read_failure",
    "resolve_config_dir",
    "resolve_config_location",
]
