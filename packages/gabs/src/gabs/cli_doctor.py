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
import json
import os
import stat
import time
from pathlib import Path

from gabs.cli_games import Failed, load
from gabs.config import ConfigError, GabsConfig, GameConfig
from gabs.launch import ResolveError, check_resolvable, resolve
from gabs.launch.steam import SteamApp, SteamError, ensure_appid_file, resolve_app
from gabs.lifecycle import TrackRecord, summary_line

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
    print(
        "Steam launch: "
        + ("managed executable mode" if game.launch_mode == "SteamManaged" else "launcher URL mode")
    )
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
        report.fail(f"Steam app id file: wrong id {content!r} at {app.appid_file}")


def _contexts(report: _Report, game: GameConfig, revision: str) -> None:
    for profile in sorted(game.profiles) or [""]:
        label = f"profile {profile!r}" if profile else "default context"
        try:
            resolved = resolve(game, profile=profile, revision=revision)
        except ResolveError as exc:
            report.fail(f"{label}: does not resolve ({exc.code}: {exc.message})")
            continue
        issues = check_resolvable(game, resolved)
        if issues:
            report.fail(f"{label}: does not resolve")
            for issue in issues:
                print(f"  {issue}")
        else:
            print(f"{label}: resolves (cwd {resolved.working_dir or '(inherited)'})")
        hook = resolved.lifecycle.status if resolved.lifecycle else None
        if hook is not None and os.path.basename(hook.command) in _CONFLATING:
            report.warn(
                f"{label}: the status hook runs {os.path.basename(hook.command)} directly; it "
                "exits 1 both when the workload is absent and when the daemon is unreachable, so "
                "a daemon hiccup reads as stopped. Wrap it: check reachability first and exit 2 "
                "when it cannot tell."
            )


def _permissions(config_dir: Path, game_id: str) -> None:
    for path, what in (
        (config_dir / "config.json", "config file"),
        (config_dir / game_id / "runtime.json", "runtime claim"),
        (config_dir / game_id / "bridge.json", "endpoint state file"),
    ):
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if mode & 0o077:
            _Report.warn(
                f"{what} is broadly readable ({stat.filemode(mode)}): {path} — it may contain "
                "secrets; tighten to 0600"
            )


def games_doctor(args: argparse.Namespace) -> int:
    report = _Report()
    try:
        config = GabsConfig.load(args.config_dir)
    except ConfigError as exc:
        report.fail("Configuration: invalid")
        for line in str(exc).splitlines():
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
        print(f"Launch Mode: {game.launch_mode}")
        if game.target:
            print(f"Target: {game.target}")
        print("Configuration: valid")
        for warning in config.game_warnings(game_id):
            report.warn(str(warning))
        _steam(report, game)
        _contexts(report, game, config.revision)
    _permissions(config.config_dir, game_id)
    record = TrackRecord(config.config_dir / game_id).load()
    print("Track record:")
    profiles = record.get("profiles", {})
    if not profiles:
        print("  none recorded")
    for profile in sorted(profiles):
        entry = profiles[profile]
        print(f"  profile {profile!r}{' (default)' if not profile else ''}: {summary_line(entry)}")
    if args.show_last_good:
        print("Last known good:")
        for profile in sorted(profiles):
            good = profiles[profile].get("lastGood")
            print(f"  profile {profile!r}: " + (json.dumps(good, indent=2) if good else "none"))
    return 0 if report.healthy else 1


def games_repair(args: argparse.Namespace) -> int:
    config = load(args)
    game = config.games.get(args.game_id)
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
        checked = GabsConfig.from_json({"games": {game.id: entry}})
        config.add_game(checked.game(game.id), replace=True)
        config.save()
        print(f"Updated '{game.id}' from SteamAppId to SteamManaged.")
    print(f"Steam app id file ready: {app.appid_file}")
    _print_app(app)
    return 0
