"""``gabs games doctor ID [--show-last-good]`` and ``gabs games repair ID``.

Doctor checks everything it can about one game and reports each finding (a failed check never
hides the rest): the config, the launch target and working directory of every profile, the
hooks (a raw ``docker``/``podman`` status hook cannot tell "stopped" from "daemon down"), files
others can read, and the track record. It exits 1 when a check failed. Repair makes the safe
changes for Steam games: ``steam_appid.txt`` beside the executable, and ``SteamAppId`` entries
switched to ``SteamManaged`` (the config is backed up first).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gabs.cli_games import Failed, load
from gabs.config import ConfigError, GabsConfig, GameConfig, game_dir_problem
from gabs.go_format import go_quote
from gabs.launch import ResolveError, check_resolvable, resolve
from gabs.launch.resolve import ResolvedHook
from gabs.launch.steam import SteamApp, SteamError, ensure_appid_file, resolve_app
from gabs.lifecycle import TrackRecord, summary_line
from gabs.lifecycle.history import age_text, context_hash

__all__ = ["games_doctor", "games_repair"]

_CONFLATING = {"docker", "docker.exe", "podman", "podman.exe"}


def _print_app(app: SteamApp) -> None:
    print(f"Steam app: {app.app_id}" + (f" ({app.name})" if app.name else ""))
    print(f"Install path: {app.install_path}")
    print(f"Executable: {app.executable}")
    print(f"Working directory: {app.working_dir}")


class _Report:
    def __init__(self) -> None:
        self.healthy = True

    def fail(self, line: str) -> None:
        self.healthy = False
        print(line)

    @staticmethod
    def warn(line: str) -> None:
        print(f"  ! {line}")


def _steam(report: _Report, game: GameConfig) -> None:
    if game.launch_mode not in ("SteamAppId", "SteamManaged"):
        return
    if game.launch_mode == "SteamManaged":
        print("Steam launch: managed executable mode")
    else:
        print("Steam launch: launcher URL mode")
        print("Bridge environment: not guaranteed on the real game process")
    try:
        app = resolve_app(game.target)
    except SteamError as exc:
        report.fail(f"Managed Steam readiness: failed ({exc})")
        return
    _print_app(app)
    if game.launch_mode == "SteamAppId":
        print(f"Recommended repair: gabs games repair {game.id}")
        return
    try:
        content = app.appid_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        report.fail(f"Steam app id file: missing ({app.appid_file})")
        print(f"Recommended repair: gabs games repair {game.id}")
        return
    if content == app.app_id:
        print(f"Steam app id file: ready ({app.appid_file})")
    else:
        report.fail(f"Steam app id file: wrong id {go_quote(content)} at {app.appid_file}")


def _hook(kind: str, hook: ResolvedHook | None) -> None:
    """The resolved hook as it will run, and a warning when its absolute command is missing."""
    if hook is None:
        return
    print(f"  {kind} hook: " + " ".join((hook.command, *hook.args)) + _cwd(hook.working_dir))
    if hook.command and os.path.isabs(hook.command) and not os.path.exists(hook.command):
        _Report.warn(f"{kind} hook command not found on disk: {hook.command}")


def _cwd(folder: str) -> str:
    return f" (cwd {folder})" if folder else ""


def _contexts(report: _Report, game: GameConfig, revision: str) -> None:
    """Every context a start can run: the default one (no profile named), then each profile."""
    for profile in ["", *sorted(game.profiles)]:
        label = f"profile {go_quote(profile)}" if profile else "default context"
        try:
            resolved = resolve(game, profile=profile, revision=revision)
        except ResolveError as exc:
            report.fail(f"{label}: does not resolve ({exc.code}: {exc.message})")
            continue
        issues = check_resolvable(game, resolved)
        if issues:
            report.fail(f"{label}: unresolvable")
            for issue in issues:
                print(f"    {issue}")
        else:
            print(f"{label}: resolves (cwd {resolved.working_dir or '(inherited)'})")
        lifecycle = resolved.lifecycle
        if lifecycle is None:
            continue
        _hook("status", lifecycle.status)
        _hook("stop", lifecycle.stop)
        _hook("kill", lifecycle.kill)
        hook = lifecycle.status
        if hook is not None and os.path.basename(hook.command).lower() in _CONFLATING:
            report.warn(
                f"{label} status hook: it runs {os.path.basename(hook.command)} directly, which "
                "exits 1 both when the workload is absent and when the daemon is unreachable, so "
                "a daemon hiccup reads as stopped. Wrap it: check reachability first and exit 2 "
                "when it cannot tell."
            )


def _older_bridges(game: GameConfig) -> None:
    """Launch-context fields are new in GABS 1.1.0; older bridges drop them without a word."""
    if not (game.profiles or game.launch_inputs or game.lifecycle or game.env or game.unset_env):
        return
    _Report.warn(
        "this game uses launch-context fields (profiles, launch inputs, lifecycle hooks or "
        "game-level env/unsetEnv). GABS bridges older than 1.1.0 read such a config without "
        "complaint but leave these fields out, so the game would start without the arguments "
        "and environment they add. Make sure every bridge that reads this config directory is "
        "GABS 1.1.0 or newer (or gabs)."
    )


#: What each file of a game's folder is, by name (the Go bridge's labels), and what it holds.
_FILES: dict[str, tuple[str, str]] = {
    "config.json": ("config file", "it may hold the HTTP API key and game environment values"),
    "runtime.json": ("runtime state file", "it may hold the bridge token of the current launch"),
    "bridge.json": ("endpoint state file", "it may hold the bridge token of the current launch"),
    "launch.log": ("launch log", "it holds the game's own output"),
    "history.json": ("history file", "it holds launch targets, arguments and folders"),
    # ours: the track record keeps the last good context (target, arguments, folder and the
    # environment values of the config) as Go's history.json does
    "track-record.json": (
        "history file",
        "it holds launch targets, arguments, folders and configured environment values",
    ),
    "transition.lock": ("coordination lock", "keep the game's runtime folder private as a whole"),
    "bridge.lock": ("coordination lock", "keep the game's runtime folder private as a whole"),
    "track-record.lock": ("coordination lock", "keep the game's runtime folder private as a whole"),
}


def _permissions(config_dir: Path, game_id: str) -> None:
    """Every file of the config and of the game's runtime folder that others can read."""
    paths = [config_dir / "config.json"]
    with contextlib.suppress(OSError):
        paths += sorted(p for p in (config_dir / game_id).iterdir() if not p.is_dir())
    for path in paths:
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if mode & 0o077:
            what, holds = _FILES.get(
                path.name, ("runtime file", "it may hold runtime or diagnostic details")
            )
            _Report.warn(
                f"{what} is broadly readable (-{stat.filemode(mode)[1:]}): {path} — {holds}; "
                "tighten to 0600"
            )


def _profile_label(profile: str) -> str:
    return 'profile "" (default)' if not profile else f"profile {go_quote(profile)}"


def _ago(moment: Any) -> str:
    try:
        when = datetime.fromisoformat(str(moment))
    except ValueError:
        return "unknown time"
    return age_text((datetime.now(UTC) - when).total_seconds())


def _track_record(profiles: dict[str, Any]) -> None:
    if not profiles:
        print("Track record: none recorded")
        return
    print("Track record:")
    for profile in sorted(profiles):
        entry = profiles[profile]
        print(f"  {_profile_label(profile)}: {summary_line(entry)}")
        failure = entry.get("lastFailure")
        if isinstance(failure, dict):
            names = failure.get("inputNames")
            inputs = ""
            if isinstance(names, list) and names:
                inputs = f" [inputs: {', '.join(map(str, names))}]"
            print(
                f"      last failure: {failure.get('outcome')} / "
                f"{failure.get('class') or 'unclassified'}, {_ago(failure.get('at'))} ago{inputs}"
            )


def _last_good(record: dict[str, Any], game: GameConfig | None) -> None:
    """Go's ``doctorLastGood``: the last context each profile started with, kept beside the
    profiles so an edit that reset the profile's counts leaves it readable."""
    found = record.get("lastGood")
    proven = {
        name: good
        for name, good in (found.items() if isinstance(found, dict) else ())
        if isinstance(good, dict)
    }
    if not proven:
        print("Last known good: none recorded")
        return
    print("Last known good:")
    for profile in sorted(proven):
        good = proven[profile]
        snapshot = good.get("entrySnapshot")
        if not isinstance(snapshot, dict):
            snapshot = {}
        print(f"  {_profile_label(profile)} (recorded {_ago(good.get('at'))} ago):")
        print(f"      context hash: {good.get('contextHash', '')}")
        print(f"      target: {snapshot.get('target', '')}  mode: {snapshot.get('mode', '')}")
        if snapshot.get("args"):
            print(f"      args: {' '.join(map(str, snapshot['args']))}")
        if snapshot.get("workingDir"):
            print(f"      workingDir: {snapshot['workingDir']}")
        current = context_hash(game, profile) if game is not None else ""
        if current and current != good.get("contextHash"):
            print(
                "      NOTE: the current context differs from this proven one — it was edited. "
                "Compare or restore by hand; GABS never restores automatically."
            )


def games_doctor(args: argparse.Namespace) -> int:
    report = _Report()
    try:
        config = GabsConfig.load(args.config_dir)
    except ConfigError as exc:
        report.fail("Configuration: invalid")
        for line in exc.invalid_text().splitlines():
            print(f"  {line}")
        config = GabsConfig(args.config_dir)
    game_id = args.game_id
    game = config.games.get(game_id)
    if game_id in config.broken:
        report.fail(f"Game: {game_id}\nConfiguration: invalid")
        for issue in config.broken[game_id]:
            print(f"  {issue}")
    elif game is None:
        report.fail(f"Game '{game_id}': not found in configuration")
    else:
        print(f"Game: {game.id}")
        print(f"Launch Mode: {game.shown_launch_mode}")
        if game.target:
            print(f"Target: {game.target}")
        print("Configuration: valid")
        for warning in config.game_warnings(game_id):
            report.warn(str(warning))
        _steam(report, game)
        _contexts(report, game, config.revision)
        _older_bridges(game)
    _permissions(config.config_dir, game_id)
    problem = game_dir_problem(config.config_dir, game_id)
    record: dict[str, Any] = {}
    if problem is not None:  # never read a track record out of the config folder
        print(f"Track record: unreadable ({problem})")
    else:
        record = TrackRecord(config.config_dir / game_id).load()
        _track_record(record.get("profiles", {}))
    if args.show_last_good:
        _last_good(record, game)
    return 0 if report.healthy else 1


def games_repair(args: argparse.Namespace) -> int:
    config = load(args)
    game = config.games.get(args.game_id)
    broken = config.broken.get(args.game_id)
    if broken:
        # A broken entry is ours to name (the Go bridge refuses the whole file instead).
        raise Failed(
            f"Game '{args.game_id}' has an invalid entry; fix it first:\n"
            + "\n".join(f"  {issue}" for issue in broken),
            stdout=True,
        )
    if game is None:
        raise Failed(f"Game '{args.game_id}' not found.", stdout=True)
    if game.launch_mode not in ("SteamAppId", "SteamManaged"):
        print(f"No automatic repair available for launch mode {game.launch_mode}.")
        return 0
    try:
        app = resolve_app(game.target)
    except SteamError as exc:
        raise Failed(f"Steam repair failed: {exc}", stdout=True) from None
    try:
        ensure_appid_file(app)
    except (SteamError, OSError) as exc:
        raise Failed(f"Steam app id repair failed: {exc}", stdout=True) from None
    if game.launch_mode == "SteamAppId":
        backup = config.path.with_name(f"{config.path.name}.bak.{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            backup.write_bytes(config.path.read_bytes())
            os.chmod(backup, 0o600)
        except OSError as exc:
            raise Failed(f"Failed to back up config: {exc}", stdout=True) from None
        entry = dict(config.raw_entry(game.id) or game.to_json())
        entry["launchMode"] = "SteamManaged"
        try:
            checked = GabsConfig.from_json({"games": {game.id: entry}})
            config.add_game(checked.game(game.id), replace=True)
            config.save()
        except (ConfigError, OSError) as exc:  # exit 1 with one line, as the Go bridge
            raise Failed(f"failed to save games config: {exc}") from None
        print(f"Updated '{game.id}' from SteamAppId to SteamManaged.")
    print(f"Steam app id file ready: {app.appid_file}")
    _print_app(app)
    return 0
