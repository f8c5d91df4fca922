"""The ``gabs`` command line.

Results go to stdout, progress and diagnostics to stderr. Exit codes are stable:
:data:`EXIT_OK` (0), :data:`EXIT_FAILURE` (1: the operation failed), :data:`EXIT_USAGE`
(2: bad usage or an invalid config).

Each command is added by one function taking the subparsers object (``add_version``,
``add_config``, ``add_games``, ``add_serve``, ``add_demo``; under ``games``: ``add_games_list``,
``add_games_show``, ``add_games_add``, ``add_games_remove``, ``add_games_start``,
``add_games_stop``, ``add_games_status``). An adder builds its parser and sets
``handler=<function(args) -> int>``; :data:`COMMANDS` and :data:`GAMES_COMMANDS` list them in
help order. Every command accepts ``--config-dir`` (or the Go bridge's ``--configDir``), also
before the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, NoReturn, TypeAlias

from ._version import __version__
from .config import (
    CONFIG_DIR_ENV,
    LAUNCHABLE_MODES,
    ConfigError,
    GabsConfig,
    GameConfig,
    UnknownGameError,
)

__all__ = [
    "COMMANDS",
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "GAMES_COMMANDS",
    "CommandError",
    "Handler",
    "Subparsers",
    "build_parser",
    "load_config",
    "main",
]

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2

Handler = Callable[[argparse.Namespace], int]
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class CommandError(Exception):
    """A command failed; ``exit_code`` is what the process exits with."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class _UsageError(CommandError):
    """A parser error; its message already names the command."""


def _err(message: str) -> None:
    print(message, file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Shared options


def _common_options() -> argparse.ArgumentParser:
    """Options every command takes. SUPPRESS keeps a value given before the command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config-dir",
        "--configDir",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="DIR",
        help=f"the config directory (default: ${CONFIG_DIR_ENV}, else ~/.gabs)",
    )
    return common


_COMMON: Final = _common_options()


def _json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def load_config(args: argparse.Namespace) -> GabsConfig:
    """The config of ``--config-dir`` (or ``$GABS_CONFIG_DIR``, or ``~/.gabs``)."""
    return GabsConfig.load(getattr(args, "config_dir", None))


def _add_command(
    subparsers: Subparsers,
    name: str,
    handler: Handler,
    help: str,
    description: str | None = None,
) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        name, parents=[_COMMON], help=help, description=description or help
    )
    parser.set_defaults(handler=handler)
    return parser


def _not_available(args: argparse.Namespace) -> int:
    _err(f"gabs: '{args.command_name}' is not available yet in this build")
    return EXIT_FAILURE


def _placeholder(
    subparsers: Subparsers, name: str, help: str, *, full_name: str | None = None
) -> argparse.ArgumentParser:
    """A command that is announced but not built yet: it says so and exits 1."""
    parser = _add_command(subparsers, name, _not_available, help)
    parser.set_defaults(command_name=full_name or name)
    return parser


# ---------------------------------------------------------------------------------------------
# gabs version


def add_version(subparsers: Subparsers) -> None:
    parser = _add_command(subparsers, "version", _version, "print the version")
    _json_option(parser)


def _version(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({"name": "gabs", "version": __version__}))
    else:
        print(f"gabs {__version__}")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# gabs config check


def add_config(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "config", help="inspect the config file", description="Inspect the config file."
    )
    commands = parser.add_subparsers(title="config commands", metavar="COMMAND", required=True)
    _add_command(
        commands,
        "check",
        _config_check,
        "validate config.json",
        "Validate <config-dir>/config.json; print 'ok: N games' or each problem (exit 2).",
    )


def _config_check(args: argparse.Namespace) -> int:
    try:
        config = load_config(args)
    except ConfigError as exc:
        print(f"invalid: {exc.summary}")
        for problem in exc.problems:
            print(f"  {problem}")
        return EXIT_USAGE
    for note in config.notes:
        _err(f"note: {note}")
    count = len(config.games)
    where = str(config.path) if config.path.exists() else f"{config.path} (no file yet)"
    print(f"ok: {count} game{'' if count == 1 else 's'} in {where}")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# gabs games ...


def add_games(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "games", help="list, add, start and stop games", description="Manage the games."
    )
    commands = parser.add_subparsers(title="games commands", metavar="COMMAND", required=True)
    for add in GAMES_COMMANDS:
        add(commands)


def add_games_list(subparsers: Subparsers) -> None:
    parser = _add_command(subparsers, "list", _games_list, "list the configured games")
    _json_option(parser)


def _games_list(args: argparse.Namespace) -> int:
    config = load_config(args)
    games = sorted(config.games.values(), key=lambda game: game.id)
    if args.json:
        print(json.dumps([_public_entry(game) for game in games], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not games:
        _err(f"no games configured in {config.path}; add one with 'gabs games add'")
        return EXIT_OK
    rows = [("ID", "NAME", "LAUNCH MODE", "ATTENTION", "TARGET")]
    rows += [(g.id, g.name, g.launch_mode, g.attention.mode, g.target) for g in games]
    _print_table(rows)
    return EXIT_OK


def add_games_show(subparsers: Subparsers) -> None:
    parser = _add_command(subparsers, "show", _games_show, "show one game's settings")
    parser.add_argument("game_id", metavar="ID")
    _json_option(parser)


def _games_show(args: argparse.Namespace) -> int:
    config = load_config(args)
    game = config.game(args.game_id)
    if args.json:
        print(json.dumps(_effective_entry(game), indent=2, ensure_ascii=False))
        return EXIT_OK
    timeouts = game.timeouts
    lines = [
        ("id", game.id),
        ("name", game.name),
        ("launch mode", game.launch_mode + ("" if game.launchable else " (cannot be started)")),
        ("target", game.target or "(empty)"),
        ("args", json.dumps(game.args, ensure_ascii=False)),
        ("working dir", game.working_dir or f"(the config dir: {config.config_dir})"),
        ("env", ", ".join(f"{key}=<hidden>" for key in sorted(game.env)) or "(none)"),
        ("description", game.description or "(none)"),
        ("attention mode", game.attention.mode),
        ("attention allow", ", ".join(game.attention.allow) or "(none)"),
        ("attention fail closed", str(game.attention.fail_closed).lower()),
        ("expose game tools", str(game.expose_game_tools).lower()),
        ("gabp port", str(game.gabp_port) if game.gabp_port else "(a free port per launch)"),
        (
            "timeouts",
            f"start {timeouts.start_seconds:g} s, call {timeouts.call_seconds:g} s, "
            f"stop grace {timeouts.stop_grace_seconds:g} s, "
            f"connect {timeouts.connect_seconds:g} s",
        ),
        ("runtime dir", str(config.game_dir(game.id))),
    ]
    if game.unset_env:
        lines.insert(7, ("unset env", ", ".join(game.unset_env)))
    width = max(len(label) for label, _ in lines)
    for label, value in lines:
        print(f"{label + ':':<{width + 1}} {value}")
    return EXIT_OK


def _public_entry(game: GameConfig) -> dict[str, Any]:
    """The entry as written in the file, with env values hidden (they may be secrets)."""
    entry = game.to_json()
    if "env" in entry:
        entry["env"] = dict.fromkeys(entry["env"], "<hidden>")
    return entry


def _effective_entry(game: GameConfig) -> dict[str, Any]:
    """Every setting with its default filled in, env values hidden."""
    entry = game.model_dump(mode="json", by_alias=True, exclude_none=True)
    entry["env"] = dict.fromkeys(entry.get("env", {}), "<hidden>")
    entry["launchable"] = game.launchable
    return entry


def add_games_add(subparsers: Subparsers) -> None:
    parser = _add_command(
        subparsers,
        "add",
        _games_add,
        "add a game",
        "Add a game to config.json. Relative --target and --working-dir paths are made "
        "absolute from the current directory. Give arguments that start with '-' as "
        "--arg=-flag.",
    )
    parser.add_argument("game_id", metavar="ID", help="the game id (letters, digits, _ and -)")
    parser.add_argument("--name", required=True, help="a display name")
    parser.add_argument(
        "--launch-mode", required=True, choices=LAUNCHABLE_MODES, help="how to start the game"
    )
    parser.add_argument(
        "--target",
        required=True,
        help="the executable (DirectPath: its path; CustomCommand: a path or a name on PATH)",
    )
    parser.add_argument(
        "--arg", dest="args", action="append", metavar="ARG", help="an argument (repeatable)"
    )
    parser.add_argument("--working-dir", metavar="DIR", help="the game's working directory")
    parser.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="an environment variable (repeatable)"
    )
    parser.add_argument("--description")
    parser.add_argument(
        "--attention-mode", choices=("off", "observe", "gate"), help="default: gate"
    )
    parser.add_argument(
        "--allow",
        action="append",
        metavar="TOOL",
        help="a tool the attention gate always lets through (repeatable)",
    )
    parser.add_argument(
        "--expose-game-tools",
        action="store_true",
        help="list the game's tools directly in the MCP tool list",
    )
    parser.add_argument("--replace", action="store_true", help="replace an existing entry")


def _absolute_if_path(value: str) -> str:
    """A path made absolute from the current directory; a bare name (found on PATH) as is."""
    if "/" not in value and "\\" not in value and not value.startswith("~"):
        return value
    return str(Path(value).expanduser().absolute())


def _games_add(args: argparse.Namespace) -> int:
    config = load_config(args)
    entry: dict[str, Any] = {
        "id": args.game_id,
        "name": args.name,
        "launchMode": args.launch_mode,
        "target": _absolute_if_path(args.target),
    }
    if args.args:
        entry["args"] = args.args
    if args.working_dir:
        entry["workingDir"] = str(Path(args.working_dir).expanduser().resolve())
    if args.env:
        env: dict[str, str] = {}
        for item in args.env:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise CommandError(f"--env {item!r}: expected KEY=VALUE", EXIT_USAGE)
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
    game = _validated_entry(entry)
    replacing = game.id in config.games
    config.add_game(game, replace=args.replace)
    path = config.save()
    print(f"{'replaced' if replacing else 'added'} game {game.id} in {path}")
    return EXIT_OK


def _validated_entry(entry: dict[str, Any]) -> GameConfig:
    """Check an entry as if it were in the file, so errors carry their config path."""
    checked = GabsConfig.from_json({"version": "1.0", "games": {entry["id"]: entry}})
    return checked.game(entry["id"])


def add_games_remove(subparsers: Subparsers) -> None:
    parser = _add_command(subparsers, "remove", _games_remove, "remove a game")
    parser.add_argument("game_id", metavar="ID")


def _games_remove(args: argparse.Namespace) -> int:
    config = load_config(args)
    config.remove_game(args.game_id)
    path = config.save()
    print(f"removed game {args.game_id} from {path}")
    return EXIT_OK


# Hook points: replaced by the real commands (they need the GABP session and the MCP server).


def add_games_start(subparsers: Subparsers) -> None:
    parser = _placeholder(
        subparsers,
        "start",
        full_name="games start",
        help="start a game and wait for its GABP server",
    )
    parser.add_argument("game_id", metavar="ID")


def add_games_stop(subparsers: Subparsers) -> None:
    parser = _placeholder(subparsers, "stop", full_name="games stop", help="stop a running game")
    parser.add_argument("game_id", metavar="ID")


def add_games_status(subparsers: Subparsers) -> None:
    parser = _placeholder(
        subparsers,
        "status",
        full_name="games status",
        help="show whether games run and are connected",
    )
    parser.add_argument("game_id", metavar="ID", nargs="?")


def add_serve(subparsers: Subparsers) -> None:
    parser = _placeholder(subparsers, "serve", "run the MCP server (stdio or Streamable HTTP)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)


def add_demo(subparsers: Subparsers) -> None:
    _placeholder(subparsers, "demo", "run a scripted demonstration against rimbridge-sim")


# ---------------------------------------------------------------------------------------------
# The parser and main

CommandAdder = Callable[[Subparsers], None]

#: Top-level commands, in help order.
COMMANDS: list[CommandAdder] = [add_serve, add_games, add_config, add_version, add_demo]
#: ``gabs games`` commands, in help order.
GAMES_COMMANDS: list[CommandAdder] = [
    add_games_list,
    add_games_show,
    add_games_add,
    add_games_remove,
    add_games_start,
    add_games_stop,
    add_games_status,
]


class _Parser(argparse.ArgumentParser):
    """Usage errors become :class:`CommandError` (exit :data:`EXIT_USAGE`).

    Subparsers are of the parent's class, so this holds for every command.
    """

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _UsageError(f"{self.prog}: error: {message}", EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The whole ``gabs`` parser, built from :data:`COMMANDS`."""
    parser: argparse.ArgumentParser = _Parser(
        prog="gabs",
        description="GABS: one MCP server for many games, talking GABP to each.",
        parents=[_common_options()],
    )
    parser.set_defaults(config_dir=None)
    parser.add_argument("--version", action="version", version=f"gabs {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for add in COMMANDS:
        add(subparsers)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    """Parse and run; return the exit code instead of exiting."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        handler: Handler = args.handler
        return handler(args)
    except _UsageError as exc:
        _err(str(exc))
        return exc.exit_code
    except CommandError as exc:
        _err(f"gabs: {exc}")
        return exc.exit_code
    except UnknownGameError as exc:
        _err(f"gabs: {exc}")
        return EXIT_USAGE
    except ConfigError as exc:
        _err(f"gabs: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("gabs: interrupted")
        return 130


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``gabs`` console script: run and exit with the command's code."""
    raise SystemExit(run(argv))


def _print_table(rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        print("  ".join(cells).rstrip())


# ---------------------------------------------------------------------------------------------
# gabs serve: the MCP server (gabs.serve_cli), replacing its placeholder in COMMANDS.


def _add_serve_command(subparsers: Subparsers) -> None:
    from .serve_cli import add_serve_command

    add_serve_command(subparsers, _add_command)


COMMANDS[COMMANDS.index(add_serve)] = _add_serve_command


def _add_demo_command(subparsers: Subparsers) -> None:
    from .demo import add_demo_command

    add_demo_command(subparsers, _add_command)


def _add_games_lifecycle(subparsers: Subparsers) -> None:
    from .games_cli import add_games_lifecycle_commands

    add_games_lifecycle_commands(subparsers, _add_command)


COMMANDS[COMMANDS.index(add_demo)] = _add_demo_command
for _placeholder_adder in (add_games_start, add_games_stop, add_games_status):
    GAMES_COMMANDS.remove(_placeholder_adder)
GAMES_COMMANDS.append(_add_games_lifecycle)
