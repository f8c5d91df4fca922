"""Launch resolution: one configured game, an optional profile and declared inputs, in; the
exact arguments, environment layers, working directory and hooks, out.

Pure: no files, no processes. The same resolution serves ``games_start`` and
``gabs games start``. The order is the Go bridge's: game ``args``, then the profile's, then
each supplied input's in input-name order; environment layers (later wins) inherited (without
``GABS_*``/``GABP_*``), game ``unsetEnv``+``env``, profile ``unsetEnv``+``env``, input ``env``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from gabs.config import (
    INPUT_MAX_LENGTH_DEFAULT,
    GameConfig,
    HookConfig,
    LaunchInputConfig,
    LifecycleConfig,
    full_match,
)
from gabs.go_format import go_quote

__all__ = [
    "ResolveError",
    "Resolved",
    "ResolvedHook",
    "ResolvedLifecycle",
    "profile_lifecycles",
    "resolve",
    "strip_reserved",
]

_CASE_INSENSITIVE: Final = os.name == "nt"
_STATUS_TIMEOUT: Final = 5
_STOP_TIMEOUT: Final = 30
_KILL_TIMEOUT: Final = 10
_VERIFY_TIMEOUT: Final = 15


class ResolveError(Exception):
    """A start request that cannot be resolved; ``code`` is the Go bridge's stable code."""

    def __init__(self, code: str, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.candidates = candidates or []


@dataclass(frozen=True)
class ResolvedHook:
    """One hook after placeholder substitution and defaults (as pinned in ``runtime.json``)."""

    command: str
    args: tuple[str, ...] = ()
    working_dir: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    unset_env: tuple[str, ...] = ()
    timeout_seconds: int = _STATUS_TIMEOUT
    verify_timeout_seconds: int = 0
    running_exit_codes: tuple[int, ...] = ()
    stopped_exit_codes: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"command": self.command}
        if self.args:
            data["args"] = list(self.args)
        if self.working_dir:
            data["workingDir"] = self.working_dir
        if self.env:
            data["env"] = dict(self.env)
        if self.unset_env:
            data["unsetEnv"] = list(self.unset_env)
        data["timeoutSeconds"] = self.timeout_seconds
        if self.verify_timeout_seconds:
            data["verifyTimeoutSeconds"] = self.verify_timeout_seconds
        if self.running_exit_codes:
            data["runningExitCodes"] = list(self.running_exit_codes)
        if self.stopped_exit_codes:
            data["stoppedExitCodes"] = list(self.stopped_exit_codes)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ResolvedHook:
        return cls(
            command=str(data.get("command") or ""),
            args=tuple(str(a) for a in data.get("args") or ()),
            working_dir=str(data.get("workingDir") or ""),
            env={str(k): str(v) for k, v in (data.get("env") or {}).items()},
            unset_env=tuple(str(k) for k in data.get("unsetEnv") or ()),
            timeout_seconds=int(data.get("timeoutSeconds") or _STATUS_TIMEOUT),
            verify_timeout_seconds=int(data.get("verifyTimeoutSeconds") or 0),
            running_exit_codes=tuple(int(c) for c in data.get("runningExitCodes") or ()),
            stopped_exit_codes=tuple(int(c) for c in data.get("stoppedExitCodes") or ()),
        )


@dataclass(frozen=True)
class ResolvedLifecycle:
    """The hooks that apply to one launch (a profile's override replaces a hook whole)."""

    status: ResolvedHook | None = None
    stop: ResolvedHook | None = None
    kill: ResolvedHook | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            kind: hook.to_json()
            for kind, hook in (("status", self.status), ("stop", self.stop), ("kill", self.kill))
            if hook is not None
        }

    @classmethod
    def from_json(cls, data: Any) -> ResolvedLifecycle | None:
        if not isinstance(data, Mapping) or not data:
            return None
        return cls(
            **{
                kind: ResolvedHook.from_json(data[kind])
                for kind in ("status", "stop", "kill")
                if isinstance(data.get(kind), Mapping)
            }
        )


@dataclass(frozen=True)
class Resolved:
    """What one start launches."""

    game_id: str
    profile: str
    applied_inputs: tuple[str, ...]
    args: tuple[str, ...]
    env: Mapping[str, str] = field(repr=False)
    """The config layers over the inherited environment (without the bridge's variables)."""
    context_env_keys: tuple[str, ...]
    """Names set by the config (for ``GABS_FORWARD_ENV``)."""
    absent_env_names: tuple[str, ...]
    """Names ``unsetEnv`` removed and nothing set again (``GABS_ABSENT_ENV``)."""
    working_dir: str
    lifecycle: ResolvedLifecycle | None
    config_revision: str
    input_values: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Each applied input's value as text (only for the track record's keyed digest; never
    written or shown)."""


def strip_reserved(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment without any ``GABS_*``/``GABP_*`` variable (any case)."""
    return {
        key: value
        for key, value in environ.items()
        if not key.upper().startswith(("GABS_", "GABP_"))
    }


class _Env:
    """Environment layers, with Windows' case-insensitive names where they apply."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, str]] = {}

    @staticmethod
    def fold(key: str) -> str:
        return key.upper() if _CASE_INSENSITIVE else key

    def set(self, key: str, value: str) -> None:
        self.entries[self.fold(key)] = (key, value)

    def unset(self, key: str) -> None:
        self.entries.pop(self.fold(key), None)

    def has(self, key: str) -> bool:
        return self.fold(key) in self.entries

    def to_dict(self) -> dict[str, str]:
        return dict(self.entries.values())


def mode_incompatible_head(game_id: str) -> str:
    """The first line of ``launch_mode_incompatible`` (the Go bridge's; the CLI prints it after
    the code, ``games_start`` with a capital letter), followed by ``:`` and the issues."""
    return (
        f"the launch mode of {go_quote(game_id)} cannot deliver launch context; remove the "
        "incompatible fields or switch modes"
    )


NOT_INT64: Final = "value is not a 64-bit integer"
"""The refusal of an integer input that is not one (the Go bridge's words, without the value)."""


def _input_value(name: str, spec: LaunchInputConfig, value: Any) -> tuple[str, bool]:
    """The value's text for ``${value}`` and whether the input applies."""

    def invalid(why: str, candidates: list[str] | None = None) -> ResolveError:
        message = f"launch input {go_quote(name)}: {why}"
        return ResolveError("launch_input_invalid", message, candidates)

    if spec.type == "boolean":
        if not isinstance(value, bool):
            raise invalid("value must be a boolean")
        return "", value
    if spec.type == "string":
        if not isinstance(value, str):
            raise invalid("value must be a string")
        if "\x00" in value:
            raise invalid("value must not contain NUL")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a command-line byte that is not UTF-8, or a lone surrogate
            raise invalid("value must be valid UTF-8") from None
        limit = spec.max_length or INPUT_MAX_LENGTH_DEFAULT
        if len(value) > limit:
            raise invalid(f"value is {len(value)} code points, maxLength is {limit}")
        if spec.enum and value not in spec.enum:
            raise invalid("value is not in the declared enum", list(spec.enum))
        if spec.pattern and not full_match(spec.pattern, value):
            raise invalid(f"value does not match pattern {go_quote(spec.pattern)} (full match)")
        return value, True
    if spec.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float):
                raise invalid(NOT_INT64)
            raise invalid("value must be an integer")
        if not -(2**63) <= value < 2**63:
            raise invalid(NOT_INT64)
        # The Go bridge echoes the value in these two; a launch input's value never is.
        if spec.minimum is not None and value < spec.minimum:
            raise invalid(f"value is below minimum {spec.minimum}")
        if spec.maximum is not None and value > spec.maximum:
            raise invalid(f"value is above maximum {spec.maximum}")
        return str(value), True
    raise invalid(f"unknown declared type {spec.type}")


def resolve(
    game: GameConfig,
    *,
    profile: str = "",
    inputs: Mapping[str, Any] | None = None,
    inherited: Mapping[str, str] | None = None,
    revision: str = "",
) -> Resolved:
    """Resolve one start of ``game``; :class:`ResolveError` with the Go bridge's code."""
    inputs = dict(inputs or {})
    names = sorted(game.profiles)
    if profile and not game.profiles:
        raise ResolveError(
            "profiles_not_configured",
            f"game {go_quote(game.id)} has no profiles configured; edit the config to add them "
            "(changes apply without restart)",
        )
    if profile and profile not in game.profiles:
        raise ResolveError(
            "profile_not_found",
            f"game {go_quote(game.id)} has no profile {go_quote(profile)}",
            names,
        )
    selected_name = profile or (game.default_profile if game.profiles else "")
    selected = game.profiles.get(selected_name)

    applied: list[tuple[str, list[str], dict[str, str]]] = []
    shown: dict[str, str] = {}
    for name in sorted(inputs):
        spec = game.launch_inputs.get(name)
        if spec is None:
            raise ResolveError(
                "launch_input_not_declared",
                f"launch input {go_quote(name)} is not declared for game {go_quote(game.id)}",
                sorted(game.launch_inputs),
            )
        text, applies = _input_value(name, spec, inputs[name])
        if not applies:
            continue
        if spec.profiles and selected_name not in spec.profiles:
            raise ResolveError(
                "launch_input_invalid",
                f"launch input {go_quote(name)} is not applicable to profile "
                f"{go_quote(selected_name)}",
                list(spec.profiles),
            )
        shown[name] = "true" if inputs[name] is True else text
        applied.append(
            (
                name,
                [arg.replace("${value}", text) for arg in spec.args],
                {key: value.replace("${value}", text) for key, value in spec.env.items()},
            )
        )

    args = [*game.args, *(selected.args if selected else ())]
    for _, extra, _ in applied:
        args += extra

    env = _Env()
    for key, value in strip_reserved(os.environ if inherited is None else inherited).items():
        env.set(key, value)
    unset_names: dict[str, str] = {}
    context_names: dict[str, str] = {}

    def layer(unset: tuple[str, ...], values: Mapping[str, str]) -> None:
        for key in unset:
            env.unset(key)
            unset_names[env.fold(key)] = key
        for key in sorted(values):
            env.set(key, values[key])
            context_names[env.fold(key)] = key

    layer(game.unset_env, game.env)
    if selected is not None:
        layer(selected.unset_env, selected.env)
    for _, _, values in applied:
        layer((), values)

    working_dir = (selected.working_dir if selected and selected.working_dir else "") or (
        game.working_dir or ""
    )
    return Resolved(
        game_id=game.id,
        profile=selected_name,
        applied_inputs=tuple(name for name, _, _ in applied),
        args=tuple(args),
        env=env.to_dict(),
        context_env_keys=tuple(sorted(context_names.values())),
        absent_env_names=tuple(sorted(k for k in unset_names.values() if not env.has(k))),
        working_dir=working_dir,
        lifecycle=_lifecycle(game, selected_name, selected.lifecycle if selected else None),
        config_revision=revision,
        input_values=shown,
    )


def profile_lifecycles(game: GameConfig) -> dict[str, ResolvedLifecycle]:
    """Every profile's resolved hooks (``""`` for a game without profiles)."""
    if not game.profiles:
        found = _lifecycle(game, "", None)
        return {"": found} if found is not None else {}
    result = {}
    for name, profile in game.profiles.items():
        found = _lifecycle(game, name, profile.lifecycle)
        if found is not None:
            result[name] = found
    return result


def _pin_command(command: str) -> str:
    """A bare command name resolved on PATH now, so a later process needs no PATH."""
    if not command or "/" in command or os.sep in command:
        return command
    found = shutil.which(command)
    return os.path.abspath(found) if found else command


def _lifecycle(
    game: GameConfig, profile: str, overrides: LifecycleConfig | None
) -> ResolvedLifecycle | None:
    def pick(kind: str) -> HookConfig | None:
        if overrides is not None and getattr(overrides, kind) is not None:
            hook: HookConfig | None = getattr(overrides, kind)
            return hook
        return getattr(game.lifecycle, kind) if game.lifecycle is not None else None

    def sub(text: str) -> str:
        text = text.replace("${gameId}", game.id)
        return text.replace("${profile}", profile) if profile else text

    def one(kind: str) -> ResolvedHook | None:
        hook = pick(kind)
        if hook is None:
            return None
        timeout = {"status": _STATUS_TIMEOUT, "stop": _STOP_TIMEOUT, "kill": _KILL_TIMEOUT}[kind]
        return ResolvedHook(
            command=_pin_command(hook.command),
            args=tuple(sub(arg) for arg in hook.args),
            working_dir=sub(hook.working_dir),
            env={key: sub(value) for key, value in hook.env.items()},
            unset_env=tuple(hook.unset_env),
            timeout_seconds=hook.timeout_seconds or timeout,
            verify_timeout_seconds=(
                0 if kind == "status" else hook.verify_timeout_seconds or _VERIFY_TIMEOUT
            ),
            running_exit_codes=(hook.running_exit_codes or (0,)) if kind == "status" else (),
            stopped_exit_codes=(hook.stopped_exit_codes or (1,)) if kind == "status" else (),
        )

    status, stop, kill = one("status"), one("stop"), one("kill")
    if status is None and stop is None and kill is None:
        return None
    return ResolvedLifecycle(status=status, stop=stop, kill=kill)
