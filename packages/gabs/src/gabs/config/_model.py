"""The configuration's parts as immutable values (the file's camelCase keys in ``to_json``).

Game entries carry the Go bridge's keys (``id`` ... ``lifecycle``) and ours (``attention``,
``exposeGameTools``, ``timeouts``, ``gabpPort``, ``requiredContext``); keys nobody knows are
kept in ``extra`` and written back unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = [
    "DEFAULT_PROCESS_START_SECONDS",
    "LAUNCH_MODES",
    "URL_MODES",
    "AttentionMode",
    "AttentionSettings",
    "BridgeSettings",
    "GameConfig",
    "GameTimeouts",
    "HookConfig",
    "LaunchInputConfig",
    "LifecycleConfig",
    "PortRange",
    "ProfileConfig",
    "Settings",
    "StartupTimeouts",
    "ToolNormalization",
]

#: Every launch mode of the Go bridge, all of which this bridge starts.
LAUNCH_MODES: Final[tuple[str, ...]] = (
    "DirectPath",
    "CustomCommand",
    "SteamManaged",
    "SteamAppId",
    "EpicAppId",
)
#: The modes that hand a store URI to the platform's opener (no args, env or cwd reach the game).
URL_MODES: Final[tuple[str, ...]] = ("SteamAppId", "EpicAppId")
#: The process-start wait once ``timeouts.startup`` is written (the Go bridge's 10 s).
DEFAULT_PROCESS_START_SECONDS: Final = 10
AttentionMode = Literal["off", "observe", "gate"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_json()  # type: ignore[attr-defined]
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


class _Json:
    """``to_json``: camelCase keys, only the fields that differ from their defaults."""

    _json_names: Mapping[str, str] = {}

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for item in dataclasses.fields(self):  # type: ignore[arg-type]
            if item.name == "extra" or item.metadata.get("json") is False:
                continue
            value = getattr(self, item.name)
            if item.default is not dataclasses.MISSING and value == item.default:
                continue
            if item.default_factory is not dataclasses.MISSING and value == item.default_factory():
                continue
            data[self._json_names.get(item.name, _camel(item.name))] = _plain(value)
        data.update(getattr(self, "extra", {}) or {})
        return data


@dataclass(frozen=True, kw_only=True)
class HookConfig(_Json):
    """One lifecycle command: an executable and its arguments, never a shell."""

    command: str
    args: tuple[str, ...] = ()
    working_dir: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    timeout_seconds: int | None = None
    verify_timeout_seconds: int | None = None
    running_exit_codes: tuple[int, ...] | None = None
    stopped_exit_codes: tuple[int, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class LifecycleConfig(_Json):
    """The ``status``, ``stop`` and ``kill`` hooks (each optional)."""

    status: HookConfig | None = None
    stop: HookConfig | None = None
    kill: HookConfig | None = None

    def hooks(self) -> dict[str, HookConfig]:
        return {
            kind: hook
            for kind, hook in (("status", self.status), ("stop", self.stop), ("kill", self.kill))
            if hook is not None
        }


@dataclass(frozen=True, kw_only=True)
class ProfileConfig(_Json):
    """A named launch-context overlay: args appended, env overrides, cwd, hook overrides."""

    description: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    working_dir: str = ""
    lifecycle: LifecycleConfig | None = None


@dataclass(frozen=True, kw_only=True)
class LaunchInputConfig(_Json):
    """A declared, typed value a caller may supply per start (``boolean|string|integer``)."""

    description: str = ""
    type: str = ""
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_length: int | None = None
    pattern: str = ""
    profiles: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class AttentionSettings(_Json):
    """How the bridge treats the game's attention items.

    ``mode``: ``off`` (ignored), ``observe`` (shown, never blocks) or ``gate`` (game-bound
    calls refused while a blocking item is open, except ``allow``-listed tools).
    ``fail_closed``: when the game supports attention but cannot be asked, refuse calls.
    """

    mode: AttentionMode = "gate"
    allow: tuple[str, ...] = ()
    fail_closed: bool = True


@dataclass(frozen=True, kw_only=True)
class GameTimeouts(_Json):
    """Seconds, all optional. ``start_seconds``: the whole wait for the GABP server on start
    (default: the bridge's ``timeouts.startup.gabpConnectSeconds``); ``call_seconds``: a game
    call; ``stop_grace_seconds``: how long a built-in stop waits for the game to end (default
    15); ``connect_seconds``: one connection attempt and hello."""

    start_seconds: float | None = None
    call_seconds: float = 30.0
    stop_grace_seconds: float | None = None
    connect_seconds: float = 10.0


@dataclass(frozen=True, kw_only=True)
class GameConfig(_Json):
    """One entry of ``games`` (the Go bridge's keys plus ours)."""

    _json_names = {"expose_game_tools": "exposeGameTools", "gabp_port": "gabpPort"}

    id: str
    name: str = ""
    launch_mode: str = "DirectPath"
    target: str = ""
    args: tuple[str, ...] = ()
    working_dir: str | None = None
    stop_process_name: str = ""
    gabp_mode: str = ""
    description: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    default_profile: str = ""
    profiles: Mapping[str, ProfileConfig] = field(default_factory=dict)
    launch_inputs: Mapping[str, LaunchInputConfig] = field(default_factory=dict)
    lifecycle: LifecycleConfig | None = None
    # Ours.
    attention: AttentionSettings = field(default_factory=AttentionSettings)
    expose_game_tools: bool = False
    timeouts: GameTimeouts = field(default_factory=GameTimeouts)
    gabp_port: int | None = None
    max_concurrent_requests: int | None = None
    """Requests the bridge sends this game at once; replaces what the game declares."""
    required_context: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    written_launch_mode: str | None = field(
        default=None, compare=False, repr=False, metadata={"json": False}
    )
    """What the file says when it leaves ``launchMode`` out or empty: ``""`` (it is started as
    ``DirectPath``, as the Go bridge starts it, and shown as written, as the Go bridge shows
    it); None otherwise."""

    @property
    def shown_launch_mode(self) -> str:
        """The launch mode as the file writes it (empty when it is left out)."""
        return self.launch_mode if self.written_launch_mode is None else self.written_launch_mode

    @property
    def launchable(self) -> bool:
        """Whether the launch mode is one this bridge starts (every Go mode)."""
        return self.launch_mode in LAUNCH_MODES

    @property
    def url_mode(self) -> bool:
        """``SteamAppId`` or ``EpicAppId``: started by handing a URI to the platform opener."""
        return self.launch_mode in URL_MODES

    @property
    def has_url_hook_alternative(self) -> bool:
        """A game-level status hook plus a stop or kill hook (stands in for stopProcessName)."""
        lifecycle = self.lifecycle
        return (
            lifecycle is not None
            and lifecycle.status is not None
            and (lifecycle.stop is not None or lifecycle.kill is not None)
        )

    def to_json(self) -> dict[str, Any]:
        rest = super().to_json()
        data = {
            "id": self.id,
            "name": self.name,
            "launchMode": self.launch_mode,
            "target": self.target,
        }
        data.update((key, value) for key, value in rest.items() if key not in data)
        return data


@dataclass(frozen=True, kw_only=True)
class ToolNormalization(_Json):
    """``toolNormalization``: MCP tool names made safe for strict clients."""

    _json_names = {"enable_openai_normalization": "enableOpenAINormalization"}

    enable_openai_normalization: bool = True
    max_tool_name_length: int = 64
    preserve_original_name: bool = True


@dataclass(frozen=True, kw_only=True)
class PortRange(_Json):
    """One inclusive range of ``portRanges.customRanges``."""

    min: int
    max: int


@dataclass(frozen=True, kw_only=True)
class StartupTimeouts(_Json):
    """``timeouts.startup``: seconds to see the process start, and the whole GABP wait."""

    process_start_seconds: int | None = None
    """None (no ``timeouts.startup`` section): 10 s, or 60 s for the store modes, as the Go
    bridge waits; with the section it is always set (10 unless written positive)."""
    gabp_connect_seconds: int = 60

    def process_start_budget(self, launch_mode: str) -> float:
        """Seconds to see a launched game running before a start is ``unobserved``."""
        if self.process_start_seconds:
            return float(self.process_start_seconds)
        return 60.0 if launch_mode in URL_MODES else float(DEFAULT_PROCESS_START_SECONDS)


@dataclass(frozen=True, kw_only=True)
class BridgeSettings(_Json):
    """Bridge-wide settings of ours for the Streamable HTTP transport (all optional)."""

    host: str | None = None
    port: int | None = None
    token_file: str | None = None
    allowed_origins: tuple[str, ...] | None = None
    ledger_jsonl: bool = False
    """Also append the call ledger to ``<config-dir>/ledger.jsonl`` (bounded, rotated, 0600)."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The top-level settings, read when the bridge starts (a change needs a restart)."""

    api_key: str = field(default="", repr=False)
    tool_normalization: ToolNormalization = field(default_factory=ToolNormalization)
    strip_output_schema: bool = False
    port_ranges: tuple[PortRange, ...] = ()
    startup: StartupTimeouts = field(default_factory=StartupTimeouts)
    owner_lease_seconds: int = 30
    bridge: BridgeSettings = field(default_factory=BridgeSettings)
    context_templates: tuple[Mapping[str, Any], ...] = ()
