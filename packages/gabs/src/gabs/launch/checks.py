"""Stage 1 of a start: does what the config names exist on this machine?

Each problem names the config's JSON pointer and the path it checked, so
``launch_spec_unresolvable`` tells the user exactly what to fix. Nothing runs here.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gabs.config import GameConfig, escape_pointer, game_pointer

from .bundle import bundle_target
from .resolve import Resolved, ResolvedHook
from .steam import SteamError, resolve_app

__all__ = ["SpecIssue", "check_resolvable"]


@dataclass(frozen=True)
class SpecIssue:
    """One thing in a resolved launch that does not exist here."""

    path: str
    fs_path: str
    message: str

    def __str__(self) -> str:
        return f"{self.message} ({self.path} -> {self.fs_path})"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "fsPath": self.fs_path, "message": self.message}


def _has_separator(text: str) -> bool:
    return "/" in text or os.sep in text


def _check_executable(
    target: str, working_dir: str, env: Mapping[str, str]
) -> tuple[str, str] | None:
    """(checked path, problem) when ``target`` cannot be executed, else None."""
    if _has_separator(target):
        path = Path(target).expanduser()
        if not path.is_absolute() and working_dir:
            path = Path(working_dir) / path
        if not path.exists():
            return str(path), "target does not exist"
        if path.is_dir():
            return str(path), "target is a directory, not an executable"
        if sys.platform != "win32" and not os.access(path, os.X_OK):
            return str(path), "target is not executable"
        return None
    if shutil.which(target, path=env.get("PATH", os.defpath)) is None:
        return target, "target is not resolvable via PATH"
    return None


def check_resolvable(
    game: GameConfig, resolved: Resolved, env: Mapping[str, str] | None = None
) -> list[SpecIssue]:
    """Every missing target, working directory or hook command of this launch."""
    env = os.environ if env is None else env
    base = game_pointer(game.id)
    issues: list[SpecIssue] = []
    mode = game.launch_mode
    if mode in ("DirectPath", "CustomCommand"):
        if not game.target.strip():
            issues.append(
                SpecIssue(f"{base}/target", "", "target is empty; set it before starting")
            )
        else:
            target = bundle_target(os.path.expanduser(game.target))  # an .app: its executable
            problem = _check_executable(target, resolved.working_dir, env)
            if problem is not None:
                checked, message = problem
                if mode == "CustomCommand" and " " in game.target and "does not exist" in message:
                    message += (
                        " (CustomCommand targets are executed as a single executable path; "
                        "put arguments in args)"
                    )
                issues.append(SpecIssue(f"{base}/target", checked, message))
    elif mode == "SteamManaged":
        try:
            app = resolve_app(game.target, env)
        except SteamError as exc:
            issues.append(
                SpecIssue(f"{base}/target", game.target, f"Steam app is not resolvable: {exc}")
            )
        else:
            if not app.executable.exists():
                issues.append(
                    SpecIssue(
                        f"{base}/target",
                        str(app.executable),
                        "resolved Steam executable does not exist",
                    )
                )
    elif not game.target.strip():
        issues.append(SpecIssue(f"{base}/target", "", "target is empty; set it before starting"))

    if resolved.working_dir:
        pointer = f"{base}/workingDir"
        chosen = game.profiles.get(resolved.profile)
        if chosen is not None and chosen.working_dir:
            pointer = f"{base}/profiles/{escape_pointer(resolved.profile)}/workingDir"
        folder = Path(resolved.working_dir).expanduser()
        if not folder.exists():
            issues.append(SpecIssue(pointer, str(folder), "working directory does not exist"))
        elif not folder.is_dir():
            issues.append(SpecIssue(pointer, str(folder), "working directory is not a directory"))

    lifecycle = resolved.lifecycle
    if lifecycle is not None:
        for kind, hook in (
            ("status", lifecycle.status),
            ("stop", lifecycle.stop),
            ("kill", lifecycle.kill),
        ):
            if hook is not None:
                issues += _check_hook(game, resolved, kind, hook, env)
    return issues


def _check_hook(
    game: GameConfig, resolved: Resolved, kind: str, hook: ResolvedHook, env: Mapping[str, str]
) -> list[SpecIssue]:
    base = game_pointer(game.id)
    pointer = f"{base}/lifecycle/{kind}"
    chosen = game.profiles.get(resolved.profile)
    if chosen is not None and chosen.lifecycle is not None and getattr(chosen.lifecycle, kind):
        pointer = f"{base}/profiles/{escape_pointer(resolved.profile)}/lifecycle/{kind}"
    issues = []
    if hook.working_dir and not Path(hook.working_dir).is_dir():
        issues.append(
            SpecIssue(
                f"{pointer}/workingDir", hook.working_dir, "hook working directory does not exist"
            )
        )
    problem = _check_executable(hook.command, hook.working_dir, env)
    if problem is not None:
        checked, message = problem
        issues.append(
            SpecIssue(
                f"{pointer}/command",
                checked,
                f"{kind} " + message.replace("target", "hook command"),
            )
        )
    return issues
