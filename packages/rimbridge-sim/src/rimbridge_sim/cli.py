"""``rimbridge-sim``: run the simulated RimWorld with its RimBridge integration.

Port, token and agent id come from the GABS handoff (``GABP_SERVER_PORT``, ``GABP_TOKEN``,
``GABS_GAME_ID``) when set, else from ``--port``, ``--token`` and ``--agent-id``; a bridge that
launched the game must win over flags in its launch arguments, because it connects where the
environment told it to. Without any token one is generated and printed once to stderr.

Prints ``listening on 127.0.0.1:<port>`` to stderr once connections are accepted; SIGTERM and
SIGINT stop it cleanly (exit 0). Exit 2: bad configuration, or the port cannot be listened on
(one line on stderr says why, as ``rimbridge-sim: error: cannot listen on 127.0.0.1:<port>:
Address already in use``).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio

from gabp import generate_token
from lib_gab import ServerConfigError, is_running_under_gabs
from rimbridge_sim.integration import BridgeConfig, RimBridge
from rimbridge_sim.policy import PolicyError
from rimbridge_sim.scenarios import SCENARIOS

__all__ = ["build_parser", "config_from_args", "main"]

logger = logging.getLogger("rimbridge_sim.cli")

EXIT_CONFIG = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rimbridge-sim",
        description="A simulated RimWorld colony served over GABP, with attention.",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="TCP port on 127.0.0.1 when GABP_SERVER_PORT is not set (default 0: the OS picks one)",
    )
    parser.add_argument(
        "--token",
        help="bridge token when GABP_TOKEN is not set (default: generate one and "
        "print it); prefer the variable: arguments are visible to other local users",
    )
    parser.add_argument(
        "--agent-id", default="rimworld", help="agent id when GABS_GAME_ID is not set"
    )
    parser.add_argument(
        "--policy",
        default="recommended",
        help="attention policy: faithful, recommended (default) or the path of a JSON policy",
    )
    parser.add_argument("--seed", type=int, default=0, help="world seed (default 0)")
    parser.add_argument(
        "--tick-rate",
        type=float,
        default=60.0,
        help="main-loop frames per second (default 60; 0 stops game time except step_game_ticks)",
    )
    parser.add_argument(
        "--scenario", choices=sorted(SCENARIOS), help="a named fault scenario to run"
    )
    parser.add_argument(
        "--enable-test-tools",
        action="store_true",
        help="register the sim/* fault-injection tools",
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        help="stderr logging level (DEBUG also mirrors the game's log ring)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="RimWorld's user data folder: Saves/, screenshots, Config/ (default: a temp dir)",
    )
    parser.add_argument(
        "--start-game",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="start a debug game at launch (default); --no-start-game begins at the main menu",
    )
    parser.add_argument(
        "--sample-limit", type=int, default=5, help="distinct samples kept per attention item"
    )
    parser.add_argument(
        "--message-limit", type=int, default=500, help="characters kept of an attention message"
    )
    parser.add_argument(
        "--log-capacity", type=int, default=2000, help="entries kept in the log ring (default 2000)"
    )
    parser.add_argument(
        "--update-interval",
        type=float,
        default=0.25,
        help="seconds between attention/updated events of one item (default 0.25)",
    )
    return parser


def config_from_args(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[BridgeConfig, bool]:
    """The bridge configuration, and whether the token was generated here."""
    raw_port = env.get("GABP_SERVER_PORT")
    if raw_port:
        try:
            port = int(raw_port)
        except ValueError:
            raise ServerConfigError(
                f"GABP_SERVER_PORT must be a port number, got {raw_port!r}"
            ) from None
    else:
        port = args.port
    token = env.get("GABP_TOKEN") or args.token
    generated = token is None
    if token is None:
        token = generate_token()
    config = BridgeConfig(
        token=token,
        port=port,
        agent_id=env.get("GABS_GAME_ID") or args.agent_id,
        launched_by_gabs=is_running_under_gabs(env),
        seed=args.seed,
        policy=args.policy,
        tick_rate=args.tick_rate,
        scenario=args.scenario,
        enable_test_tools=args.enable_test_tools,
        data_dir=args.data_dir,
        start_game=args.start_game,
        sample_limit=args.sample_limit,
        message_limit=args.message_limit,
        log_capacity=args.log_capacity,
        update_interval=args.update_interval,
    )
    return config, generated


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=str(args.log_level).upper(),
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        config, generated = config_from_args(args, os.environ)
        bridge = RimBridge(config)
    except (ServerConfigError, PolicyError, ValueError) as error:
        parser.exit(EXIT_CONFIG, f"{parser.prog}: error: {error}\n")
    if generated:
        print(
            f"rimbridge-sim: no GABP_TOKEN or --token given; generated bridge token "
            f"(give it to your bridge as GABP_TOKEN): {config.token}",
            file=sys.stderr,
            flush=True,
        )
    listening: list[str] = []
    refused: BaseException | None = None
    try:
        anyio.run(_serve, bridge, listening)
    except* OSError as failed:
        if listening:
            raise  # not a start-up failure: let it show in full
        refused = _first_leaf(failed)
    if refused is not None:
        reason = refused.strerror if isinstance(refused, OSError) and refused.strerror else refused
        where = f"127.0.0.1:{config.port}"
        parser.exit(EXIT_CONFIG, f"{parser.prog}: error: cannot listen on {where}: {reason}\n")
    sys.exit(0)


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def _serve(bridge: RimBridge, listening: list[str]) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async with anyio.create_task_group() as tg:
            address = await tg.start(bridge.serve)
            listening.append(str(address))
            print(f"listening on {address}", file=sys.stderr, flush=True)
            async for signum in signals:
                logger.info("stopping on %s", signal.Signals(signum).name)
                tg.cancel_scope.cancel()
                break


if __name__ == "__main__":
    main()
