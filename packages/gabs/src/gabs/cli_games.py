"""``gabs games list|add|remove|show`` and ``gabs config check``: the config from the shell.

Output and exit codes follow the Go bridge (``games list`` prints one id per line; a missing
game is exit 1 with ``Game 'x' not found.``); ``--json`` is ours. ``games add ID`` on a terminal
asks its questions as the Go bridge does, writes a minimal entry when stdin is not a terminal,
and takes the whole entry from options (``--name``, ``--launch-mode``, ``--target``, ...).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Final

from gabs.config import (
    ConfigError,
    GabsConfig,
    new_game_refusal,
)
from gabs.games_text import arguments_label, describe_launch_contexts

__all__ = [
    "config_check",
    "games_add",
    "games_list",
    "games_remove",
    "games_show",
    "load",
]


class Failed(Exception):
    """Print ``message`` (to stdout when ``stdout``) and exit 1."""

    def __init__(self, message: str, *, stdout: bool = False, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.stdout = stdout
        self.code = code


def load(args: argparse.Namespace) -> GabsConfig:
    """The config of ``--configDir``; a note goes to stderr when an older location is used."""
    try:
        config = GabsConfig.load(args.config_dir)
    except ConfigError as exc:
        raise Failed(f"failed to load games config: {exc}") from None
    if config.location_note:
        print(f"gabs: note: {config.location_note}", file=sys.stderr)
    return config


def _dump(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def _hidden(entry: dict[str, Any]) -> dict[str, Any]:
    if entry.get("env"):
        entry = {**entry, "env": dict.fromkeys(entry["env"], "<hidden>")}
    return entry


def games_list(args: argparse.Namespace) -> int:
    config = load(args)
    ids = config.game_ids
    if args.json:
        _dump(
            [
                _hidden(config.games[i].to_json())
                if i in config.games
                else {"id": i, "configError": [str(p) for p in config.broken[i]]}
                for i in ids
            ]
        )
        return 0
    if not ids:
        print("No games configured. Use 'gabs games add <id>' to add games.")
        return 0
    for game_id in ids:
        print(game_id)
    return 0


def games_show(args: argparse.Namespace) -> int:
    config = load(args)
    game_id = args.game_id
    if game_id in config.broken:
        if args.json:
            _dump({"id": game_id, "configError": [str(p) for p in config.broken[game_id]]})
            return 1
        print(f"Game Configuration: {game_id}")
        print("  Invalid entry:")
        for issue in config.broken[game_id]:
            print(f"    {issue}")
        return 1
    game = config.games.get(game_id)
    if game is None:
        raise Failed(f"Game '{game_id}' not found.", stdout=True)
    if args.json:
        _dump(_hidden(game.to_json()))
        return 0
    print(f"Game Configuration: {game.id}")
    print(f"  Name: {game.name}")
    print(f"  Launch Mode: {game.shown_launch_mode}")
    print(f"  Target: {game.target}")
    if game.working_dir:
        print(f"  Working Directory: {game.working_dir}")
    if game.args:
        print(f"  {arguments_label(game)}: {' '.join(game.args)}")
    if game.stop_process_name:
        print(f"  Stop Process Name: {game.stop_process_name}")
    if game.gabp_mode:
        print(f"  GABP Mode: {game.gabp_mode}")
    if game.description:
        print(f"  Description: {game.description}")
    if game.env:
        print(f"  Environment: {', '.join(f'{k}=<hidden>' for k in sorted(game.env))}")
    print(f"  Attention Mode: {game.attention.mode}")
    print(describe_launch_contexts(game), end="")
    for warning in config.game_warnings(game_id):
        print(f"  Warning: {warning}")
    return 0


def _absolute_if_path(value: str) -> str:
    """A path made absolute from the current directory; a bare name (found on PATH) as is."""
    if "/" not in value and "\\" not in value and not value.startswith("~"):
        return value
    return str(Path(value).expanduser().absolute())


def _from_options(args: argparse.Namespace) -> dict[str, Any] | None:
    given = any(
        getattr(args, name, None)
        for name in (
            "name", "launch_mode", "target", "args", "working_dir", "env", "description",
            "attention_mode", "allow", "expose_game_tools", "stop_process_name",
        )
    )  # fmt: skip
    if not given:
        return None
    entry: dict[str, Any] = {
        "id": args.game_id,
        "name": args.name or args.game_id,
        "launchMode": args.launch_mode or "DirectPath",
        "target": _absolute_if_path(args.target) if args.target else "",
    }
    if args.args:
        entry["args"] = args.args
    if args.working_dir:
        entry["workingDir"] = str(Path(args.working_dir).expanduser().resolve())
    if args.stop_process_name:
        entry["stopProcessName"] = args.stop_process_name
    if args.env:
        env: dict[str, str] = {}
        for item in args.env:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise Failed(f"--env {item!r}: expected KEY=VALUE", code=2)
            env[key] = value
        entry["env"] = env
    if args.description:
        entry["description"] = args.description
    attention: dict[str, Any] = {}
    if args.attention_mode:
        attention["mode"] = args.attention_mode
    if args.allow:
        attention["allow"] = args.allow
    if attention:
        entry["attention"] = attention
    if args.expose_game_tools:
        entry["exposeGameTools"] = True
    return entry


#: How ``games add`` refuses an entry (the Go bridge's log message, then its error).
_REFUSED: Final = "invalid game configuration: "
#: The launch modes in the order the Go bridge offers them.
_PROMPT_MODES: Final = ("DirectPath", "SteamManaged", "SteamAppId", "EpicAppId", "CustomCommand")


def _ask(prompt: str, default: str = "") -> str:
    print(f"{prompt} [{default}]: " if default else f"{prompt}: ", end="", flush=True)
    line = sys.stdin.readline()
    return line.strip() or default


def _interactive(game_id: str) -> dict[str, Any]:
    print(f"Adding game configuration for '{game_id}':")
    entry: dict[str, Any] = {"id": game_id, "name": _ask("Game Name", game_id)}
    while True:
        mode = _ask(f"Launch Mode ({'|'.join(_PROMPT_MODES)})", "DirectPath")
        if mode in _PROMPT_MODES:
            break
        print(f"Invalid choice. Please select one of: {', '.join(_PROMPT_MODES)}")
    entry["launchMode"] = mode
    if mode == "DirectPath":
        what = "executable path or .app bundle" if sys.platform == "darwin" else "executable path"
    else:
        what = "Steam App ID" if mode in ("SteamManaged", "SteamAppId") else "path/id"
    entry["target"] = _ask(f"Target ({what})")
    if mode in ("DirectPath", "SteamManaged", "CustomCommand"):
        working = _ask("Working Directory (optional)")
        if working:
            entry["workingDir"] = working
    required = mode in ("SteamAppId", "EpicAppId")
    label = (
        f"Stop Process Name (REQUIRED for {mode} games)"
        if required
        else ("Stop Process Name (optional - for better game stopping)")
    )
    stop = _ask(label)
    while required and not stop:
        print(
            f"\u26a0\ufe0f  Stop Process Name is required for {mode} games to enable proper game "
            "termination.\n"
            "   Otherwise a stop reaches only the launcher, and the game itself keeps running.\n"
            "   Examples: 'MyGame.exe', or 'java' for a game that runs on Java."
        )
        stop = _ask(label)
        if not sys.stdin.isatty() and not stop:
            break
    if stop:
        entry["stopProcessName"] = stop
    description = _ask("Description (optional)")
    if description:
        entry["description"] = description
    return entry


def games_add(args: argparse.Namespace) -> int:
    config = load(args)
    game_id = args.game_id
    if game_id in config.game_ids and not args.replace:
        raise Failed(
            f"Game '{game_id}' already exists. Use 'gabs games show {game_id}' to view it.",
            stdout=True,
        )
    entry = _from_options(args)
    minimal = entry is None and not sys.stdin.isatty()
    if entry is None:
        entry = (
            {"id": game_id, "name": game_id, "launchMode": "DirectPath", "target": ""}
            if minimal
            else _interactive(game_id)
        )
    refusal = new_game_refusal(entry)
    if refusal:
        raise Failed(f"{_REFUSED}{refusal}")
    checked = GabsConfig.from_json({"version": "1.0", "games": {game_id: entry}})
    if game_id in checked.broken:
        problems = "".join(f"\n  {problem}" for problem in checked.broken[game_id])
        raise Failed(f"{_REFUSED}invalid configuration:{problems}")
    game = checked.game(game_id)
    try:
        config.add_game(game, replace=args.replace)
    except ConfigError as exc:
        raise Failed(f"{_REFUSED}{exc}") from None
    try:
        config.save()
    except ConfigError as exc:
        raise Failed(f"failed to save games config: {exc}") from None
    if minimal:
        print(
            f"Game '{game_id}' added with minimal configuration. Configure it manually or edit "
            "the config file."
        )
    else:
        print(f"Game '{game_id}' added successfully.")
    return 0


def games_remove(args: argparse.Namespace) -> int:
    config = load(args)
    if args.game_id not in config.game_ids:
        raise Failed(f"Game '{args.game_id}' not found.", stdout=True)
    config.remove_game(args.game_id)
    try:
        config.save()
    except ConfigError as exc:
        raise Failed(f"failed to save games config: {exc}") from None
    print(f"Game '{args.game_id}' removed successfully.")
    return 0


def config_check(args: argparse.Namespace) -> int:
    """Our ``gabs config check``: ``ok: ...`` (exit 0) or every problem (exit 2)."""
    try:
        config = GabsConfig.load(args.config_dir)
    except ConfigError as exc:
        print(f"invalid: {exc.summary}")
        for problem in exc.problems:
            print(f"  {problem}")
        return 2
    if config.location_note:
        print(f"note: {config.location_note}", file=sys.stderr)
    for warning in config.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    where = str(config.path) if config.path.exists() else f"{config.path} (no file yet)"
    broken = config.broken
    if broken:
        print(f"invalid: {len(broken)} of {len(config.game_ids)} games in {where}")
        for game_id in sorted(broken):
            for problem in broken[game_id]:
                print(f"  {problem}")
        return 2
    count = len(config.games)
    print(f"ok: {count} game{'' if count == 1 else 's'} in {where}")
    return 0
