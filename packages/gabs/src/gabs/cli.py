"""The ``gabs`` command line: the Go bridge's commands and flags, and ours.

::

    gabs server [stdio|http] [--addr HOST:PORT] [--http HOST:PORT]   (the MCP server)
    gabs serve [--transport stdio|http] [--host H] [--port P] ...    (ours, the same server)
    gabs games list|add|remove|show|doctor|repair|start|status|stop|kill ...
    gabs config check                                                 (ours)
    gabs version
    gabs demo ...                                                     (ours)

Global flags, anywhere before ``--``: ``--configDir DIR`` (also ``--config-dir``),
``--log-level trace|debug|info|warn|error`` (default ``$GABS_LOG_LEVEL``, else info),
``--reconnectBackoff MIN..MAX`` (default ``100ms..1s``), ``--grace D`` (accepted, as in the Go
bridge, without effect). Results go to stdout, errors and progress to stderr. Exit codes: 0
success, 1 the operation failed (including an unusable config), 2 bad usage (and
``config check`` finding problems).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn, TextIO

from ._version import __version__
from .cli_args import (
    GlobalFlags,
    UsageError,
    hoist_global_flags,
    log_level,
    parse_backoff,
    parse_duration,
)
from .cli_games import Failed
from .cli_home import home_refusal
from .cli_pipe import end_by_sigpipe
from .cli_usage import NO_GAMES_ACTION, check_games_usage, games_arguments
from .config import LAUNCH_MODES
from .go_format import go_quote
from .launch.steam_ready import PROBE_ARGUMENT, run_probe_child
from .serving import SERVER_COMMANDS, interrupt

__all__ = ["EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "build_parser", "main", "run"]

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2
LOG_LEVEL_ENV: Final = "GABS_LOG_LEVEL"
DEFAULT_HTTP_ADDR: Final = "localhost:8080"
_COMMANDS: Final = frozenset({"server", "serve", "games", "config", "version", "demo"})

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """Usage errors raise instead of exiting (exit code 2 from :func:`run`)."""

    games: argparse.ArgumentParser | None = None

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise UsageError(f"{self.prog}: error: {message}")

    def games_help(self, file: TextIO) -> None:
        """The help of ``gabs games``."""
        (self.games or self).print_help(file)


def _handler(module: str, name: str) -> Handler:
    """A command implemented in another module, imported when it runs."""

    def call(args: argparse.Namespace) -> int:
        import importlib

        function: Handler = getattr(importlib.import_module(module, __package__), name)
        return function(args)

    return call


def _command(
    subparsers: Any, name: str, handler: Handler, help: str, description: str | None = None
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=description or help
    )
    parser.set_defaults(handler=handler, cli_action=name)
    return parser


def _json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="HTTP: the address to bind (default from --addr)")
    parser.add_argument("--port", type=int, help="HTTP: the port (default from --addr)")
    parser.add_argument(
        "--allow-remote", action="store_true", help="HTTP: allow a non-loopback address"
    )
    parser.add_argument(
        "--show-token", action="store_true", help="HTTP: print the bearer token to stderr"
    )


def _add_games(subparsers: Any) -> argparse.ArgumentParser:
    games: argparse.ArgumentParser = subparsers.add_parser(
        "games", help="manage game configurations and game processes"
    )
    commands = games.add_subparsers(title="games commands", metavar="COMMAND", required=True)
    parser = _command(
        commands, "list", _handler(".cli_games", "games_list"), "list configured game IDs"
    )
    _json(parser)
    parser = _command(
        commands, "show", _handler(".cli_games", "games_show"), "show details for a game"
    )
    parser.add_argument("game_id", metavar="ID")
    _json(parser)
    parser = _command(
        commands,
        "add",
        _handler(".cli_games", "games_add"),
        "add a game configuration",
        "Add a game. On a terminal without options it asks for each setting; with stdin not a "
        "terminal it writes a minimal entry to edit later; with options it writes those. "
        "Relative --target and --working-dir paths are made absolute.",
    )
    parser.add_argument("game_id", metavar="ID")
    parser.add_argument("--name", help="a display name (default: the id)")
    parser.add_argument("--launch-mode", choices=LAUNCH_MODES, help="how to start the game")
    parser.add_argument("--target", help="the executable, or the store's app id")
    parser.add_argument(
        "--arg",
        dest="args",
        action="append",
        metavar="ARG",
        help="an argument (repeatable; --arg=-x for dashes)",
    )
    parser.add_argument("--working-dir", metavar="DIR")
    parser.add_argument("--stop-process-name", metavar="NAME", help="the game's process name")
    parser.add_argument(
        "--env", action="append", metavar="KEY=VALUE", help="an environment variable (repeatable)"
    )
    parser.add_argument("--description")
    parser.add_argument("--attention-mode", choices=("off", "observe", "gate"))
    parser.add_argument(
        "--allow",
        action="append",
        metavar="TOOL",
        help="a tool the attention gate always lets through",
    )
    parser.add_argument("--expose-game-tools", action="store_true")
    parser.add_argument("--replace", action="store_true", help="replace an existing entry")
    parser = _command(
        commands, "remove", _handler(".cli_games", "games_remove"), "remove a game configuration"
    )
    parser.add_argument("game_id", metavar="ID")
    parser = _command(
        commands, "doctor", _handler(".cli_doctor", "games_doctor"), "diagnose one game"
    )
    parser.add_argument("game_id", metavar="ID")
    parser.add_argument(
        "--show-last-good", action="store_true", help="print the last context that started"
    )
    parser = _command(
        commands,
        "repair",
        _repair,
        "apply safe repairs for one game",
        "Steam games: write steam_appid.txt and switch SteamAppId to SteamManaged. "
        "--forget-runtime removes the game's runtime claim after showing it (confirm, or --yes).",
    )
    parser.add_argument("game_id", metavar="ID")
    parser.add_argument("--forget-runtime", action="store_true")
    parser.add_argument("--yes", "-y", action="store_true")
    parser = _command(
        commands,
        "start",
        _handler(".cli_lifecycle", "games_start"),
        "launch a game and verify it started",
        "Launch the game and verify its process runs; exit without connecting "
        "(started_attachment_deferred). The game keeps running; a server attaches to it with "
        "games_connect.",
    )
    parser.add_argument("game_id", metavar="ID")
    parser.add_argument(
        "options", nargs=argparse.REMAINDER, help="--profile NAME, --input NAME=VALUE ..."
    )
    parser.set_defaults(json=False)
    parser = _command(
        commands,
        "status",
        _handler(".cli_lifecycle", "games_status"),
        "show runtime status from the persisted claims",
    )
    parser.add_argument("game_id", metavar="ID", nargs="?")
    _json(parser)
    for name, help in (("stop", "stop a running game"), ("kill", "force terminate a running game")):
        parser = _command(commands, name, _handler(".cli_lifecycle", f"games_{name}"), help)
        parser.add_argument("game_id", metavar="ID")
        _json(parser)
    return games


def _repair(args: argparse.Namespace) -> int:
    if args.forget_runtime:
        from .cli_lifecycle import repair_forget

        return repair_forget(args)
    from .cli_doctor import games_repair

    return games_repair(args)


def build_parser() -> _Parser:
    parser = _Parser(
        prog="gabs",
        description="GABS: one MCP server for many games, talking GABP to each.",
        epilog="Global flags (anywhere): --configDir DIR, --log-level LEVEL, "
        "--reconnectBackoff MIN..MAX, --grace DURATION.",
    )
    parser.add_argument("--version", action="version", version=f"gabs {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    server = _command(subparsers, "server", _server, "start the MCP server (stdio, or HTTP)")
    server.add_argument(
        "mode", nargs="?", choices=("stdio", "http"), help="the transport (default stdio)"
    )
    _server_options(server)
    serve = _command(subparsers, "serve", _server, "start the MCP server (our spelling)")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    _server_options(serve)
    parser.games = _add_games(subparsers)
    config = subparsers.add_parser("config", help="inspect the config file")
    commands = config.add_subparsers(title="config commands", metavar="COMMAND", required=True)
    _command(commands, "check", _handler(".cli_games", "config_check"), "validate config.json")
    version = _command(subparsers, "version", _version, "print version information")
    _json(version)
    version.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    demo = subparsers.add_parser(
        "demo", help="run a scripted agent against rimbridge-sim (gabs demo --help)", add_help=False
    )
    demo.add_argument("rest", nargs=argparse.REMAINDER)
    demo.set_defaults(handler=_demo)
    return parser


def _demo(args: argparse.Namespace) -> int:
    # Imported here: the demo pulls in the MCP client, which the other commands do not need.
    from .demo import run as run_demo

    return run_demo(args.rest)


def _version(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({"name": "gabs", "version": __version__}))
    else:
        print(f"gabs {__version__}")
    return EXIT_OK


def _split_addr(addr: str) -> tuple[str, int]:
    host, sep, port = addr.strip().rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        # Exit 1, as the Go bridge, whose listener refuses such an address.
        raise Failed(f"invalid HTTP address {addr!r}: expected HOST:PORT, port 0 to 65535")
    return host.strip("[]") or "127.0.0.1", int(port)


def _server(args: argparse.Namespace) -> int:
    from .cli_args import setup_logging
    from .games import GameManager

    level, warning = log_level(args.log_level or os.environ.get(LOG_LEVEL_ENV))
    setup_logging(level, trace=(args.log_level or "").lower() == "trace")
    if warning:
        print(f"gabs: {warning}", file=sys.stderr)
    GameManager.default_backoff = args.backoff
    transport = getattr(args, "mode", None) or getattr(args, "transport", None)
    if transport is None:
        transport = "http" if args.http else "stdio"
    host, port = args.host, args.port
    if transport == "http" and (host is None or port is None):
        addr = (args.http if getattr(args, "mode", None) is None and args.http else args.addr) or (
            DEFAULT_HTTP_ADDR if args.command == "server" else None
        )
        if addr:
            default_host, default_port = _split_addr(addr)
            host, port = host or default_host, port if port is not None else default_port
    from .serving import serve

    return serve(
        args.config_dir,
        transport,
        host=host,
        port=port,
        allow_remote=args.allow_remote,
        show_token=args.show_token,
    )


def run(argv: Sequence[str] | None = None) -> int:
    """Parse and run; return the exit code instead of exiting."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] == PROBE_ARGUMENT:  # the Steam readiness probe child
        return run_probe_child(arguments, sys.stdout)
    serving = False
    try:
        flags, rest = hoist_global_flags(arguments)
        serving = bool(rest) and rest[0] in SERVER_COMMANDS
        if serving:  # a signal while the server starts up ends it as one while it serves
            signal.signal(signal.SIGTERM, interrupt)
        parser = build_parser()
        if not rest or rest[0] in ("help", "-h", "--help"):
            parser.print_help(sys.stderr)  # as the Go bridge: the usage on stderr
            return EXIT_OK if rest else EXIT_USAGE
        if rest[0] == "demo":
            return _demo(argparse.Namespace(rest=rest[1:]))
        backoff = _checked_flags(flags)  # before the command's own checks, as the Go bridge
        if rest[0] not in _COMMANDS and rest[0] != "--version":
            print(f"unknown subcommand: {rest[0]}", file=sys.stderr)
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        if rest[0] == "version":  # the Go bridge reads nothing after it; --json is ours
            words = rest[1 : rest.index("--")] if "--" in rest else rest[1:]
            return _version(argparse.Namespace(json="--json" in words))
        if rest[0] == "games":
            if not [token for token in rest[1:] if token != "--"]:
                print(f"{NO_GAMES_ACTION}\n", file=sys.stderr)
                parser.games_help(sys.stderr)
                return EXIT_USAGE
            check_games_usage(rest[1:])
            rest = ["games", *games_arguments(rest[1:])]
        args = parser.parse_args(rest)
        _apply_flags(args, flags, rest[0], backoff)
        refusal = home_refusal(args)
        if refusal is not None:
            return refusal.show()
        handler: Handler = args.handler
        return handler(args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except Failed as exc:
        print(exc.message, file=sys.stdout if exc.stdout else sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        if serving:
            return EXIT_OK  # SIGTERM or SIGINT: the Go bridge's server exits 0 on both
        print("gabs: interrupted", file=sys.stderr)
        return 130


def _checked_flags(flags: GlobalFlags) -> tuple[float, float]:
    """``--grace``, then ``--reconnectBackoff``: the Go bridge's order; the backoff window."""
    if flags.grace is not None:
        try:
            parse_duration(flags.grace)
        except ValueError:
            raise UsageError(
                f"invalid value {go_quote(flags.grace)} for flag -grace: parse error"
            ) from None
    return parse_backoff(flags.reconnect_backoff)


def _apply_flags(
    args: argparse.Namespace, flags: GlobalFlags, command: str, backoff: tuple[float, float]
) -> None:
    args.command = command
    args.config_dir = flags.config_dir or None
    args.log_level = flags.log_level
    args.backoff = backoff
    args.http = flags.http
    args.addr = flags.addr


def _serving(arguments: Sequence[str]) -> bool:
    try:
        rest = hoist_global_flags(arguments)[1]
    except UsageError:
        return False
    return bool(rest) and rest[0] in SERVER_COMMANDS


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The ``gabs`` console script.

    A closed stdout or stderr ends every command but the server as it ends the Go bridge:
    silently, by SIGPIPE (exit status 141 in a shell), with nothing more written.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if _serving(arguments):
        raise SystemExit(run(arguments))
    try:
        code = run(arguments)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        end_by_sigpipe()
    raise SystemExit(code)
