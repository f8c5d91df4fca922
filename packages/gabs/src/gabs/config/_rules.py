"""The Go bridge's rules for game ids and the launch-context keys (profiles, launch inputs,
lifecycle hooks, ``env``/``unsetEnv``), with the same JSON pointers and wording.

A game without any of those keys gets no issue at all, so old entries stay warning-free.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Final

from ..go_format import go_quote
from ._issues import MODE_INCOMPATIBLE, ConfigIssue, escape_pointer, game_pointer
from ._model import GameConfig, HookConfig, LaunchInputConfig, LifecycleConfig, ProfileConfig
from ._re2 import Re2Error, compile_matcher

__all__ = [
    "INPUT_MAX_LENGTH",
    "INPUT_MAX_LENGTH_DEFAULT",
    "NAME_PATTERN",
    "check_extensions",
    "check_game_id",
    "directory_key",
    "full_match",
    "new_game_refusal",
]

NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_NAME: Final = re.compile(NAME_PATTERN)
_ENV_KEY: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLACEHOLDER: Final = re.compile(r"\$\{([^}]*)\}")
INPUT_MAX_LENGTH_DEFAULT: Final = 1024
INPUT_MAX_LENGTH: Final = 65536
STATUS_TIMEOUT_MAX: Final = 60
ACTION_TIMEOUT_MAX: Final = 600
VERIFY_TIMEOUT_MAX: Final = 600
_URL_HINT: Final = (
    "launches via a launcher URL and cannot deliver launch context to the game; use "
    "SteamManaged, DirectPath, or CustomCommand"
)
_CASE_INSENSITIVE_ENV: Final = os.name == "nt"
#: The platform whose hook rules apply (Windows refuses script hooks run directly).
_HOOK_RULES_OS: Final = os.name


def check_game_id(game_id: str) -> str | None:
    """Why ``game_id`` cannot name a runtime folder, or None when it can (the Go rule).

    Any characters are allowed (``minecraft.paper``, even ``team/a``) as long as the id is a
    canonical relative path: not empty, no NUL, no backslash, not absolute, and no ``.``,
    ``..``, ``//`` or trailing ``/`` that would alias another id's folder.
    """
    if not game_id:
        return "game ID is required"
    if "\x00" in game_id:
        return f"game ID {go_quote(game_id)} must not contain a NUL byte"
    if "\\" in game_id:
        return (
            f"game ID {go_quote(game_id)} must not contain a backslash "
            "(a path separator on Windows)"
        )
    if game_id.startswith("/") or (
        len(game_id) >= 2 and game_id[1] == ":" and game_id[0].isascii() and game_id[0].isalpha()
    ):
        return f"game ID {go_quote(game_id)} must not be an absolute path"
    if posixpath.normpath("/" + game_id).lstrip("/") != game_id:
        return (
            f"game ID {go_quote(game_id)} is not in canonical form; it aliases another ID's "
            "runtime directory (avoid '.', '..', '//' and a trailing '/')"
        )
    return None


def directory_key(game_id: str) -> str:
    """The folder key two ids collide on with a case- or normalization-insensitive disk."""
    return "/".join(
        unicodedata.normalize("NFC", _simple_lower(unicodedata.normalize("NFC", part)))
        for part in game_id.split("/")
    )


def _simple_lower(text: str) -> str:
    """Lower case one character at a time, as the Go bridge does: no final sigma by position,
    and the dotted capital I becomes a plain ``i`` (``str.lower`` keeps its dot)."""
    return "".join("i" if char == "\u0130" else char.lower() for char in text)


def full_match(pattern: str, value: str) -> bool:
    """``pattern`` matched against the whole of ``value``: the Go bridge anchors it,
    ``^(?:pattern)$``, and asks ``MatchString`` (a search, which differs from a full match only
    for a pattern that closes the anchoring group itself, such as ``a)|(b``), in time linear in
    the length of ``value``, as Go's engine takes."""
    return compile_matcher(pattern).search(value)


class _Check:
    def __init__(self) -> None:
        self.issues: list[ConfigIssue] = []

    def add(self, path: str, message: str, code: str = "") -> None:
        self.issues.append(ConfigIssue(path, message, code))

    def nul(self, path: str, text: str, what: str) -> None:
        if "\x00" in text:
            self.add(path, f"{what} must not contain NUL")

    def env_key(self, path: str, key: str) -> None:
        if not _ENV_KEY.match(key):
            self.add(
                path,
                f"environment key {go_quote(key)} must match the portable identifier grammar "
                "^[A-Za-z_][A-Za-z0-9_]*$",
            )
        elif key.upper().startswith(("GABS_", "GABP_")):
            self.add(
                path, "environment keys with the reserved prefixes GABS_/GABP_ are not allowed"
            )

    def env_layer(self, base: str, env: Mapping[str, str], unset: Iterable[str]) -> None:
        fold = str.upper if _CASE_INSENSITIVE_ENV else str
        seen: dict[str, str] = {}
        for key in sorted(env):
            path = f"{base}/env/{escape_pointer(key)}"
            self.env_key(path, key)
            self.nul(path, env[key], "environment value")
            if fold(key) in seen:
                self.add(
                    path,
                    f"environment keys {go_quote(seen[fold(key)])} and {go_quote(key)} "
                    "collide after case folding",
                )
            else:
                seen[fold(key)] = key
        unset_seen: dict[str, str] = {}
        for index, key in enumerate(unset):
            path = f"{base}/unsetEnv/{index}"
            self.env_key(path, key)
            if fold(key) in unset_seen:
                first = unset_seen[fold(key)]
                self.add(
                    path,
                    f"duplicate unsetEnv entry {go_quote(key)}"
                    if first == key
                    else f"unsetEnv entries {go_quote(first)} and {go_quote(key)} collide after "
                    "case folding",
                )
                continue
            unset_seen[fold(key)] = key
            if fold(key) in seen:
                self.add(
                    path, f"key {go_quote(key)} appears in both env and unsetEnv of the same layer"
                )

    def placeholders(self, path: str, text: str, profiled: bool) -> None:
        for name in _PLACEHOLDER.findall(text):
            if name == "gameId":
                continue
            if name == "profile":
                if not profiled:
                    self.add(path, "${profile} placeholder requires configured profiles")
                continue
            self.add(path, f"unknown placeholder ${{{name}}}")

    def hook(self, path: str, hook: HookConfig, kind: str, profiled: bool) -> None:
        if not hook.command.strip():
            self.add(f"{path}/command", "command is required")
        else:
            self.nul(f"{path}/command", hook.command, "command")
        if _PLACEHOLDER.search(hook.command):
            self.add(f"{path}/command", "command does not support placeholders")
        if _HOOK_RULES_OS == "nt" and os.path.splitext(hook.command)[1].lower() in (
            ".bat",
            ".cmd",
            ".ps1",
            ".vbs",
            ".js",
        ):
            self.add(
                f"{path}/command",
                "script hooks are not run directly on Windows; set command to the interpreter "
                "(e.g. cmd.exe) and pass the script via args (e.g. /c, script path)",
            )
        if hook.timeout_seconds is not None:
            limit = STATUS_TIMEOUT_MAX if kind == "status" else ACTION_TIMEOUT_MAX
            if not 1 <= hook.timeout_seconds <= limit:
                self.add(
                    f"{path}/timeoutSeconds",
                    f"timeoutSeconds must be between 1 and {limit} for {kind} hooks",
                )
        if hook.verify_timeout_seconds is not None:
            if kind == "status":
                self.add(
                    f"{path}/verifyTimeoutSeconds",
                    "verifyTimeoutSeconds is not valid for status hooks",
                )
            elif not 1 <= hook.verify_timeout_seconds <= VERIFY_TIMEOUT_MAX:
                self.add(
                    f"{path}/verifyTimeoutSeconds",
                    f"verifyTimeoutSeconds must be between 1 and {VERIFY_TIMEOUT_MAX}",
                )
        sets: dict[str, set[int]] = {}
        for name, codes in (
            ("runningExitCodes", hook.running_exit_codes),
            ("stoppedExitCodes", hook.stopped_exit_codes),
        ):
            if codes is None:
                sets[name] = set()
                continue
            if kind != "status":
                self.add(f"{path}/{name}", f"{name} is only valid for status hooks")
                sets[name] = set()
                continue
            if not codes:
                self.add(f"{path}/{name}", f"{name} must not be empty when specified")
            seen: set[int] = set()
            for code in codes:  # each repetition is a problem of its own, as in Go
                if code in seen:
                    self.add(f"{path}/{name}", f"duplicate exit code {code}")
                seen.add(code)
            sets[name] = seen
        for code in sorted(sets["runningExitCodes"] & sets["stoppedExitCodes"]):
            self.add(
                path,
                f"runningExitCodes and stoppedExitCodes must be disjoint (both contain {code})",
            )
        if hook.working_dir:
            if "\x00" in hook.working_dir:
                self.add(f"{path}/workingDir", "working directory must not contain NUL")
            elif not os.path.isabs(_PLACEHOLDER.sub("x", hook.working_dir)):
                self.add(
                    f"{path}/workingDir",
                    "working directory must be an absolute path (after placeholder substitution)",
                )
            self.placeholders(f"{path}/workingDir", hook.working_dir, profiled)
        for index, arg in enumerate(hook.args):
            self.nul(f"{path}/args/{index}", arg, "argument")
            self.placeholders(f"{path}/args/{index}", arg, profiled)
        self.env_layer(path, hook.env, hook.unset_env)
        for key in sorted(hook.env):
            self.placeholders(f"{path}/env/{escape_pointer(key)}", hook.env[key], profiled)

    def lifecycle(self, base: str, lifecycle: LifecycleConfig | None, profiled: bool) -> None:
        if lifecycle is None:
            return
        for kind, hook in lifecycle.hooks().items():
            self.hook(f"{base}/lifecycle/{kind}", hook, kind, profiled)

    def profile(self, path: str, name: str, profile: ProfileConfig) -> None:
        if not _NAME.match(name):
            self.add(path, f"invalid profile name (must match {NAME_PATTERN})")
        self.env_layer(path, profile.env, profile.unset_env)
        for index, arg in enumerate(profile.args):
            self.nul(f"{path}/args/{index}", arg, "argument")
        if profile.working_dir:
            if "\x00" in profile.working_dir:
                self.add(f"{path}/workingDir", "working directory must not contain NUL")
            elif not os.path.isabs(profile.working_dir):
                self.add(f"{path}/workingDir", "working directory must be an absolute path")
        self.lifecycle(path, profile.lifecycle, True)

    def launch_input(
        self, path: str, name: str, spec: LaunchInputConfig, profiles: Mapping[str, ProfileConfig]
    ) -> None:
        if not _NAME.match(name):
            self.add(path, f"invalid launch input name (must match {NAME_PATTERN})")
        if not spec.description.strip():
            self.add(f"{path}/description", "description is required")
        if spec.type not in ("boolean", "string", "integer"):
            self.add(f"{path}/type", "type must be one of boolean, string, integer")
            return
        if not spec.args and not spec.env:
            self.add(path, "launch input must declare at least one args or env binding")
        uses = sum(arg.count("${value}") for arg in spec.args) + sum(
            value.count("${value}") for value in spec.env.values()
        )
        if spec.type == "boolean" and uses:
            self.add(path, "boolean inputs must not use ${value} in their bindings")
        elif spec.type != "boolean" and not uses and (spec.args or spec.env):
            self.add(
                path, f"{spec.type} inputs must use ${{value}} at least once in their bindings"
            )
        if spec.enum and spec.type != "string":
            self.add(f"{path}/enum", "enum is only valid for string inputs")
        if (spec.minimum is not None or spec.maximum is not None) and spec.type != "integer":
            self.add(f"{path}/minimum", "minimum/maximum are only valid for integer inputs")
        if spec.max_length is not None and spec.type != "string":
            self.add(f"{path}/maxLength", "maxLength is only valid for string inputs")
        if spec.pattern and spec.type != "string":
            self.add(f"{path}/pattern", "pattern is only valid for string inputs")
        if spec.minimum is not None and spec.maximum is not None and spec.minimum > spec.maximum:
            self.add(path, "minimum must not exceed maximum")
        if spec.max_length is not None and not 1 <= spec.max_length <= INPUT_MAX_LENGTH:
            self.add(f"{path}/maxLength", f"maxLength must be between 1 and {INPUT_MAX_LENGTH}")
        pattern_ok = True
        if spec.pattern and spec.type == "string":
            try:
                compile_matcher(spec.pattern)
            except Re2Error as exc:
                pattern_ok = False
                self.add(
                    f"{path}/pattern",
                    f"invalid pattern (RE2, matched against the entire value): {exc}",
                )
        if spec.type == "string":
            # A declared maxLength counts even when it is itself refused (0 or less), as in Go.
            limit = INPUT_MAX_LENGTH_DEFAULT if spec.max_length is None else spec.max_length
            seen: set[str] = set()
            for index, value in enumerate(spec.enum):
                item = f"{path}/enum/{index}"
                self.nul(item, value, "enum value")
                if value in seen:
                    self.add(item, f"duplicate enum value {go_quote(value)}")
                seen.add(value)
                if len(value) > limit:
                    self.add(
                        item,
                        f"enum value {go_quote(value)} exceeds maxLength {limit}; "
                        "every start would reject it",
                    )
                if spec.pattern and pattern_ok and not full_match(spec.pattern, value):
                    self.add(
                        item,
                        f"enum value {go_quote(value)} does not match the declared pattern; "
                        "every start would reject it",
                    )
        for index, arg in enumerate(spec.args):
            self.nul(f"{path}/args/{index}", arg, "argument")
        self.env_layer(path, spec.env, ())
        listed: set[str] = set()
        for index, profile in enumerate(spec.profiles):
            item = f"{path}/profiles/{index}"
            if profile in listed:
                self.add(item, f"duplicate profile reference {go_quote(profile)}")
                continue
            listed.add(profile)
            if profile not in profiles:
                self.add(item, f"references unknown profile {go_quote(profile)}")

    def input_conflicts(self, base: str, inputs: Mapping[str, LaunchInputConfig]) -> None:
        fold = str.upper if _CASE_INSENSITIVE_ENV else str
        names = sorted(inputs)
        for position, first in enumerate(names):
            for second in names[position + 1 :]:
                a, b = inputs[first], inputs[second]
                if a.profiles and b.profiles and not set(a.profiles) & set(b.profiles):
                    continue
                for key in sorted(a.env):
                    for other in sorted(b.env):
                        if fold(key) == fold(other):
                            self.add(
                                f"{base}/launchInputs",
                                f"inputs {go_quote(first)} and {go_quote(second)} can both set "
                                f"environment key {go_quote(key)}",
                            )


def check_extensions(game: GameConfig) -> list[ConfigIssue]:
    """The Go bridge's checks of one game's launch-context keys (none for an old entry)."""
    base = game_pointer(game.id)
    profiled_lifecycle = any(p.lifecycle is not None for p in game.profiles.values())
    if not (
        game.env
        or game.unset_env
        or game.default_profile
        or game.profiles
        or game.launch_inputs
        or game.lifecycle is not None
        or profiled_lifecycle
    ):
        return []
    check = _Check()
    has_profiles = bool(game.profiles)
    if game.url_mode:
        hint = f"{game.launch_mode} {_URL_HINT}"
        if game.profiles or game.default_profile:
            check.add(f"{base}/profiles", hint, MODE_INCOMPATIBLE)
        if game.launch_inputs:
            check.add(f"{base}/launchInputs", hint, MODE_INCOMPATIBLE)
        if game.env:
            check.add(f"{base}/env", hint, MODE_INCOMPATIBLE)
        if game.unset_env:
            check.add(f"{base}/unsetEnv", hint, MODE_INCOMPATIBLE)
        check.lifecycle(base, game.lifecycle, has_profiles)
        if not game.stop_process_name and not game.has_url_hook_alternative:
            check.add(
                base,
                f"{game.launch_mode} games must declare stopProcessName, or a game-level status "
                "hook plus a stop or kill hook",
            )
        return check.issues
    check.env_layer(base, game.env, game.unset_env)
    for name in sorted(game.profiles):
        check.profile(f"{base}/profiles/{escape_pointer(name)}", name, game.profiles[name])
    if has_profiles and not game.default_profile:
        check.add(
            f"{base}/defaultProfile", "defaultProfile is required when profiles are configured"
        )
    elif game.default_profile and not has_profiles:
        check.add(f"{base}/defaultProfile", "defaultProfile is set but no profiles are configured")
    elif game.default_profile and game.default_profile not in game.profiles:
        check.add(
            f"{base}/defaultProfile",
            f"defaultProfile {go_quote(game.default_profile)} does not name a configured profile",
        )
    for name in sorted(game.launch_inputs):
        check.launch_input(
            f"{base}/launchInputs/{escape_pointer(name)}",
            name,
            game.launch_inputs[name],
            game.profiles,
        )
    check.input_conflicts(base, game.launch_inputs)
    check.lifecycle(base, game.lifecycle, has_profiles)
    return check.issues


#: The launch modes in the order the Go bridge lists them when it refuses one.
_VALID_MODES: Final = ("DirectPath", "SteamAppId", "SteamManaged", "EpicAppId", "CustomCommand")


def new_game_refusal(entry: Mapping[str, object]) -> str | None:
    """The first rule an entry breaks that the Go bridge checks before adding it (``gabs games
    add``), as its plain message, in its order; None when it breaks none of them. The id's form
    and the launch-context keys are checked after this, with pointers, as on loading. An entry
    made by ``games add`` has no lifecycle hooks, so a URI mode needs ``stopProcessName``."""
    mode = entry.get("launchMode") or ""
    if not entry.get("id"):
        return "game ID is required"
    if not entry.get("name"):
        return "game name is required"
    if not mode:
        return "launch mode is required"
    if not entry.get("target") and mode != "DirectPath":
        return f"target is required for {mode} launch mode"
    if mode not in _VALID_MODES:
        return f"invalid launch mode '{mode}', must be one of: {', '.join(_VALID_MODES)}"
    if mode in ("SteamAppId", "EpicAppId") and not entry.get("stopProcessName"):
        return (
            f"stopProcessName is required for {mode} games to enable proper game termination "
            "(or a game-level status hook plus a stop or kill hook). Without it, GABS can only "
            "stop the launcher process, not the actual game"
        )
    return None
