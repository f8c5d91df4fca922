"""Turning decoded JSON into the configuration's values (structure and types only).

The Go bridge's rules about what the values mean (profiles, launch inputs, hooks, env names)
are in :mod:`._rules`; this module checks shapes, so that a wrong type is an issue at its
pointer instead of an exception.
"""

from __future__ import annotations

from typing import Any, Final

from ..go_format import go_quote
from ._issues import escape_pointer, game_pointer
from ._model import (
    DEFAULT_PROCESS_START_SECONDS,
    LAUNCH_MODES,
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
from ._values import Values

__all__ = ["GAME_KEYS", "GO_TOP_KEYS", "TOP_KEYS", "read_game", "read_settings"]

#: Top-level keys the Go bridge reads, in the order it writes them.
GO_TOP_KEYS: Final = (
    "version",
    "games",
    "toolNormalization",
    "apiKey",
    "portRanges",
    "timeouts",
    "stripOutputSchema",
)
#: Top-level keys the Go bridge reads, then ours.
TOP_KEYS: Final = (*GO_TOP_KEYS, "bridge", "contextTemplates")
GO_GAME_KEYS: Final = (
    "id",
    "name",
    "launchMode",
    "target",
    "args",
    "workingDir",
    "stopProcessName",
    "gabpMode",
    "description",
    "env",
    "unsetEnv",
    "defaultProfile",
    "profiles",
    "launchInputs",
    "lifecycle",
)
OUR_GAME_KEYS: Final = (
    "attention",
    "exposeGameTools",
    "timeouts",
    "gabpPort",
    "maxConcurrentRequests",
    "requiredContext",
)
GAME_KEYS: Final = GO_GAME_KEYS + OUR_GAME_KEYS
_PROFILE_KEYS: Final = ("description", "args", "env", "unsetEnv", "workingDir", "lifecycle")
_INPUT_KEYS: Final = (
    "description",
    "type",
    "enum",
    "minimum",
    "maximum",
    "maxLength",
    "pattern",
    "profiles",
    "args",
    "env",
)
_HOOK_KEYS: Final = (
    "command",
    "args",
    "workingDir",
    "env",
    "unsetEnv",
    "timeoutSeconds",
    "verifyTimeoutSeconds",
    "runningExitCodes",
    "stoppedExitCodes",
)
_ATTENTION_MODES: Final = ("off", "observe", "gate")


def _nul(values: Values, text: str | None, path: str, what: str) -> None:
    if text is not None and "\x00" in text:
        values.error(path, f"{what} must not contain NUL")


def read_hook(values: Values, raw: Any, path: str) -> HookConfig | None:
    found = values.obj(raw, path)
    if found is None:
        return None
    values.unknown_keys(found, _HOOK_KEYS, path, strict=True)
    return HookConfig(
        command=values.string(found.get("command"), f"{path}/command") or "",
        args=values.strings(found.get("args"), f"{path}/args") or (),
        working_dir=values.string(found.get("workingDir"), f"{path}/workingDir") or "",
        env=values.string_map(found.get("env"), f"{path}/env") or {},
        unset_env=values.strings(found.get("unsetEnv"), f"{path}/unsetEnv") or (),
        timeout_seconds=values.integer(found.get("timeoutSeconds"), f"{path}/timeoutSeconds"),
        verify_timeout_seconds=values.integer(
            found.get("verifyTimeoutSeconds"), f"{path}/verifyTimeoutSeconds"
        ),
        running_exit_codes=values.integers(
            found.get("runningExitCodes"), f"{path}/runningExitCodes"
        ),
        stopped_exit_codes=values.integers(
            found.get("stoppedExitCodes"), f"{path}/stoppedExitCodes"
        ),
    )


def read_lifecycle(values: Values, raw: Any, path: str) -> LifecycleConfig | None:
    found = values.obj(raw, path)
    if found is None:
        return None
    values.unknown_keys(found, ("status", "stop", "kill"), path, strict=True)
    return LifecycleConfig(
        status=read_hook(values, found.get("status"), f"{path}/status"),
        stop=read_hook(values, found.get("stop"), f"{path}/stop"),
        kill=read_hook(values, found.get("kill"), f"{path}/kill"),
    )


def _read_profile(values: Values, raw: Any, path: str) -> ProfileConfig:
    found = values.obj(raw, path) or {}
    values.unknown_keys(found, _PROFILE_KEYS, path, strict=True)
    return ProfileConfig(
        description=values.string(found.get("description"), f"{path}/description") or "",
        args=values.strings(found.get("args"), f"{path}/args") or (),
        env=values.string_map(found.get("env"), f"{path}/env") or {},
        unset_env=values.strings(found.get("unsetEnv"), f"{path}/unsetEnv") or (),
        working_dir=values.string(found.get("workingDir"), f"{path}/workingDir") or "",
        lifecycle=read_lifecycle(values, found.get("lifecycle"), f"{path}/lifecycle"),
    )


def _read_input(values: Values, raw: Any, path: str) -> LaunchInputConfig:
    found = values.obj(raw, path) or {}
    values.unknown_keys(found, _INPUT_KEYS, path, strict=True)
    return LaunchInputConfig(
        description=values.string(found.get("description"), f"{path}/description") or "",
        type=values.string(found.get("type"), f"{path}/type") or "",
        enum=values.strings(found.get("enum"), f"{path}/enum") or (),
        minimum=values.integer(found.get("minimum"), f"{path}/minimum"),
        maximum=values.integer(found.get("maximum"), f"{path}/maximum"),
        max_length=values.integer(found.get("maxLength"), f"{path}/maxLength"),
        pattern=values.string(found.get("pattern"), f"{path}/pattern") or "",
        profiles=values.strings(found.get("profiles"), f"{path}/profiles") or (),
        args=values.strings(found.get("args"), f"{path}/args") or (),
        env=values.string_map(found.get("env"), f"{path}/env") or {},
    )


def _read_named(values: Values, raw: Any, path: str, reader: Any) -> dict[str, Any]:
    found = values.obj(raw, path) or {}
    return {
        name: reader(values, item, f"{path}/{escape_pointer(name)}") for name, item in found.items()
    }


def _read_attention(values: Values, raw: Any, path: str) -> AttentionSettings:
    found = values.obj(raw, path)
    if found is None:
        return AttentionSettings()
    values.unknown_keys(found, ("mode", "allow", "failClosed"), path, strict=True)
    mode = values.string(found.get("mode"), f"{path}/mode")
    if mode is not None and mode not in _ATTENTION_MODES:
        values.error(f"{path}/mode", "must be one of off, observe, gate")
        mode = None
    allow = values.strings(found.get("allow"), f"{path}/allow") or ()
    for index, name in enumerate(allow):
        if not name.strip() or name != name.strip():
            values.error(
                f"{path}/allow/{index}", "tool names must be non-empty, without outer spaces"
            )
    fail_closed = values.boolean(found.get("failClosed"), f"{path}/failClosed")
    return AttentionSettings(
        mode=mode or "gate",  # type: ignore[arg-type]
        allow=allow,
        fail_closed=True if fail_closed is None else fail_closed,
    )


def _read_timeouts(values: Values, raw: Any, path: str) -> GameTimeouts:
    found = values.obj(raw, path)
    if found is None:
        return GameTimeouts()
    keys = ("startSeconds", "callSeconds", "stopGraceSeconds", "connectSeconds")
    values.unknown_keys(found, keys, path, strict=True)
    # As with the bridge-wide timeouts, 0 or less reads as unset (a grace of 0 is a real value).
    start = values.number(found.get("startSeconds"), f"{path}/startSeconds")
    call = values.number(found.get("callSeconds"), f"{path}/callSeconds")
    grace = values.number(found.get("stopGraceSeconds"), f"{path}/stopGraceSeconds")
    connect = values.number(found.get("connectSeconds"), f"{path}/connectSeconds")
    return GameTimeouts(
        start_seconds=start if start is not None and start > 0 else None,
        call_seconds=call if call is not None and call > 0 else 30.0,
        stop_grace_seconds=grace if grace is not None and grace >= 0 else None,
        connect_seconds=connect if connect is not None and connect > 0 else 10.0,
    )


def read_game(values: Values, game_id: str, raw: Any) -> GameConfig | None:
    """One ``games`` entry, or None when it is not even an object."""
    path = game_pointer(game_id)
    found = values.obj(raw, path)
    if found is None:
        if raw is None:
            values.error(path, "must be an object, not null")
        return None
    extra = values.unknown_keys(found, GAME_KEYS, path, strict=False)
    declared = values.string(found.get("id"), f"{path}/id")
    if declared and declared != game_id:
        values.error(
            f"{path}/id",
            f"entry is keyed {go_quote(game_id)} but declares id {go_quote(declared)}; "
            "they must match",
        )
    written_mode = values.string(found.get("launchMode"), f"{path}/launchMode")
    mode = written_mode or "DirectPath"
    if mode not in LAUNCH_MODES:
        values.error(f"{path}/launchMode", f"must be one of {', '.join(LAUNCH_MODES)}")
    target = values.string(found.get("target"), f"{path}/target") or ""
    _nul(values, target, f"{path}/target", "target")
    args = values.strings(found.get("args"), f"{path}/args") or ()
    for index, arg in enumerate(args):
        _nul(values, arg, f"{path}/args/{index}", "argument")
    working_dir = values.string(found.get("workingDir"), f"{path}/workingDir")
    _nul(values, working_dir, f"{path}/workingDir", "working directory")
    port = values.integer(found.get("gabpPort"), f"{path}/gabpPort", low=1, high=65535)
    slots = values.integer(
        found.get("maxConcurrentRequests"), f"{path}/maxConcurrentRequests", low=1, high=1024
    )
    expose = values.boolean(found.get("exposeGameTools"), f"{path}/exposeGameTools")
    return GameConfig(
        id=game_id,
        name=values.string(found.get("name"), f"{path}/name") or "",
        launch_mode=mode,
        written_launch_mode=None if written_mode else "",
        target=target,
        args=args,
        working_dir=working_dir or None,
        stop_process_name=values.string(found.get("stopProcessName"), f"{path}/stopProcessName")
        or "",
        gabp_mode=values.string(found.get("gabpMode"), f"{path}/gabpMode") or "",
        description=values.string(found.get("description"), f"{path}/description") or None,
        env=values.string_map(found.get("env"), f"{path}/env") or {},
        unset_env=values.strings(found.get("unsetEnv"), f"{path}/unsetEnv") or (),
        default_profile=values.string(found.get("defaultProfile"), f"{path}/defaultProfile") or "",
        profiles=_read_named(values, found.get("profiles"), f"{path}/profiles", _read_profile),
        launch_inputs=_read_named(
            values, found.get("launchInputs"), f"{path}/launchInputs", _read_input
        ),
        lifecycle=read_lifecycle(values, found.get("lifecycle"), f"{path}/lifecycle"),
        attention=_read_attention(values, found.get("attention"), f"{path}/attention"),
        expose_game_tools=bool(expose),
        timeouts=_read_timeouts(values, found.get("timeouts"), f"{path}/timeouts"),
        gabp_port=port,
        max_concurrent_requests=slots,
        required_context=values.obj(found.get("requiredContext"), f"{path}/requiredContext"),
        extra=extra,
    )


def _read_bridge(values: Values, raw: Any) -> BridgeSettings:
    found = values.obj(raw, "/bridge")
    if found is None:
        return BridgeSettings()
    keys = ("host", "port", "tokenFile", "allowedOrigins", "ledgerJsonl")
    values.unknown_keys(found, keys, "/bridge", strict=True)
    return BridgeSettings(
        host=values.string(found.get("host"), "/bridge/host"),
        port=values.integer(found.get("port"), "/bridge/port", low=0, high=65535),
        token_file=values.string(found.get("tokenFile"), "/bridge/tokenFile"),
        allowed_origins=values.strings(found.get("allowedOrigins"), "/bridge/allowedOrigins"),
        ledger_jsonl=bool(values.boolean(found.get("ledgerJsonl"), "/bridge/ledgerJsonl")),
    )


def _read_port_ranges(values: Values, raw: Any) -> tuple[PortRange, ...]:
    found = values.obj(raw, "/portRanges")
    if found is None:
        return ()
    values.unknown_keys(found, ("customRanges",), "/portRanges", strict=False)
    ranges = found.get("customRanges")
    if ranges is None:
        return ()
    if not isinstance(ranges, list):
        values.error("/portRanges/customRanges", "must be an array of {min, max} objects")
        return ()
    result = []
    for index, item in enumerate(ranges):
        path = f"/portRanges/customRanges/{index}"
        entry = values.obj(item, path)
        if entry is None:
            continue
        values.unknown_keys(entry, ("min", "max"), path, strict=False)
        low = values.integer(entry.get("min"), f"{path}/min")
        high = values.integer(entry.get("max"), f"{path}/max")
        if low is not None and high is not None:
            result.append(PortRange(min=low, max=high))
    return tuple(result)


def _positive(value: int | None, default: int) -> int:
    """A timeout or length of 0 or less reads as unset (the default), as in the Go bridge."""
    return value if value is not None and value > 0 else default


def _process_start(values: Values, startup: dict[str, Any] | None) -> int | None:
    """``processStartSeconds``: None (the per-mode default) when ``timeouts.startup`` is absent;
    once the section is there, 10 s for every mode unless set positive (as the Go bridge reads it).
    """
    if startup is None:
        return None
    found = values.integer(
        startup.get("processStartSeconds"), "/timeouts/startup/processStartSeconds"
    )
    return _positive(found, DEFAULT_PROCESS_START_SECONDS)


def read_settings(values: Values, document: dict[str, Any]) -> Settings:
    """The top-level settings; unknown top-level keys are warnings."""
    values.unknown_keys(document, TOP_KEYS, "", strict=False)
    values.string(document.get("version"), "/version")
    normalization = values.obj(document.get("toolNormalization"), "/toolNormalization") or {}
    keys = ("enableOpenAINormalization", "maxToolNameLength", "preserveOriginalName")
    values.unknown_keys(normalization, keys, "/toolNormalization", strict=False)
    timeouts = values.obj(document.get("timeouts"), "/timeouts") or {}
    values.unknown_keys(timeouts, ("startup", "session"), "/timeouts", strict=False)
    startup_section = values.obj(timeouts.get("startup"), "/timeouts/startup")
    startup = startup_section or {}
    start_keys = ("processStartSeconds", "gabpConnectSeconds")
    values.unknown_keys(startup, start_keys, "/timeouts/startup", strict=False)
    session = values.obj(timeouts.get("session"), "/timeouts/session") or {}
    values.unknown_keys(session, ("ownerLeaseSeconds",), "/timeouts/session", strict=False)
    templates = document.get("contextTemplates")
    if templates is not None and not (
        isinstance(templates, list) and all(isinstance(t, dict) for t in templates)
    ):
        values.error("/contextTemplates", "must be an array of objects")
        templates = None
    enable = values.boolean(
        normalization.get("enableOpenAINormalization"),
        "/toolNormalization/enableOpenAINormalization",
    )
    preserve = values.boolean(
        normalization.get("preserveOriginalName"), "/toolNormalization/preserveOriginalName"
    )
    length = values.integer(
        normalization.get("maxToolNameLength"), "/toolNormalization/maxToolNameLength"
    )
    return Settings(
        api_key=values.string(document.get("apiKey"), "/apiKey") or "",
        tool_normalization=ToolNormalization(
            # An absent section means the defaults (all on); a present one reads as written.
            enable_openai_normalization=bool(enable) if normalization else True,
            max_tool_name_length=_positive(length, 64),
            preserve_original_name=bool(preserve) if normalization else True,
        ),
        strip_output_schema=bool(
            values.boolean(document.get("stripOutputSchema"), "/stripOutputSchema")
        ),
        port_ranges=_read_port_ranges(values, document.get("portRanges")),
        startup=StartupTimeouts(
            process_start_seconds=_process_start(values, startup_section),
            gabp_connect_seconds=_positive(
                values.integer(
                    startup.get("gabpConnectSeconds"), "/timeouts/startup/gabpConnectSeconds"
                ),
                60,
            ),
        ),
        owner_lease_seconds=_positive(
            values.integer(session.get("ownerLeaseSeconds"), "/timeouts/session/ownerLeaseSeconds"),
            30,
        ),
        bridge=_read_bridge(values, document.get("bridge")),
        context_templates=tuple(templates or ()),
    )
