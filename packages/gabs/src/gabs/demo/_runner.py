"""Running the demo: the temporary config, the ``gabs serve`` it drives, the report, and the
``gabs demo`` command (registered by :mod:`gabs.cli`; ``python -m gabs.demo`` runs the same)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import anyio
from mcp import Client, StdioServerParameters

from gabs.demo._agent import GAME, LEGACY_GAME, DemoAgent, DemoSetupError, ScenarioFailed
from gabs.demo._scenarios import DEFAULT_SCENARIO, SCENARIOS, Scenario
from gabs.demo._transcript import DemoReport, DemoStep, render_step

__all__ = [
    "add_demo_command",
    "demo_command",
    "demo_config",
    "find_executable",
    "main",
    "run",
    "run_demo",
]

EXIT_OK: Final = 0
EXIT_FAILURE: Final = 1
EXIT_USAGE: Final = 2
STEP_TIMEOUT: Final = 20.0
RUN_TIMEOUT: Final = 180.0


def find_executable(name: str) -> Path:
    """``name`` next to this Python (the same environment), else on ``PATH``."""
    folder = Path(sys.executable).parent
    for candidate in (folder / name, folder / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    raise DemoSetupError(
        f"cannot find the {name!r} executable next to {sys.executable} or on PATH; install "
        f"the {name!r} package beside gabs (pip install {name}), or in the workspace run the "
        f"demo with its Python (uv run gabs demo)"
    )


def demo_config(scenarios: Sequence[str]) -> dict[str, Any]:
    """The demo's ``config.json``: ``rimworld`` (rimbridge-sim, gate on), plus the legacy
    ``lib_gab`` game when a scenario needs it."""
    timeouts = {"startSeconds": 20, "callSeconds": 10, "stopGraceSeconds": 3}
    games: dict[str, Any] = {
        GAME: {
            "id": GAME,
            "name": "RimWorld (simulated)",
            "launchMode": "CustomCommand",
            "target": str(find_executable("rimbridge-sim")),
            "args": ["--enable-test-tools", "--seed", "7"],
            "description": "rimbridge-sim with its sim/* test tools",
            "attention": {"mode": "gate"},
            "timeouts": timeouts,
            # rimbridge-sim serves overlapping requests (lib_gab has one writer); the crash
            # scenario asks for diagnostics while a call is in flight
            "maxConcurrentRequests": 16,
        }
    }
    if any(SCENARIOS[name].needs_legacy for name in scenarios):
        if importlib.util.find_spec("lib_gab") is None:
            raise DemoSetupError(
                "the no-attention scenario runs `python -m lib_gab.legacy_example`, but lib_gab "
                f"is not installed for {sys.executable}"
            )
        games[LEGACY_GAME] = {
            "id": LEGACY_GAME,
            "name": "Legacy example (no attention)",
            "launchMode": "CustomCommand",
            "target": sys.executable,
            "args": ["-m", "lib_gab.legacy_example"],
            "description": "a lib_gab server that never enabled attention",
            "attention": {"mode": "gate"},
            "timeouts": timeouts,
        }
    return {"version": "1.0", "games": games}


def _progress(message: str) -> None:
    print(f"gabs demo: {message}", file=sys.stderr, flush=True)


async def run_demo(
    scenarios: Sequence[str],
    *,
    config_dir: Path,
    step_timeout: float = STEP_TIMEOUT,
    on_step: Callable[[DemoStep], None] | None = None,
    on_scenario: Callable[[Scenario], None] | None = None,
    gabs_path: Path | None = None,
) -> DemoReport:
    """Run ``scenarios`` against a ``gabs serve`` using ``config_dir`` (already written)."""
    report = DemoReport(scenarios=list(scenarios), config_dir=str(config_dir))
    gabs = gabs_path or find_executable("gabs")
    params = StdioServerParameters(
        command=str(gabs),
        args=["serve", "--config-dir", str(config_dir), "--log-level", "WARNING"],
        env={"GABS_CONFIG_DIR": str(config_dir)},
    )
    _progress(f"starting {gabs} serve (MCP over stdio)")
    async with Client(params, read_timeout_seconds=step_timeout + 5) as client:
        agent = DemoAgent(
            client,
            config_dir=config_dir,
            step_timeout=step_timeout,
            on_step=on_step or (lambda step: None),
        )
        for name in scenarios:
            scenario = SCENARIOS[name]
            agent.scenario = name
            _progress(f"scenario {name}: {scenario.summary}")
            if on_scenario is not None:
                on_scenario(scenario)
            try:
                await scenario.run(agent)
            except ScenarioFailed:
                report.failed_scenarios.append(name)
            finally:
                for game_id in sorted(agent.started):
                    with contextlib.suppress(Exception), anyio.CancelScope(shield=True):
                        await agent.raw_call("games_kill", {"gameId": game_id}, timeout=10)
                agent.started.clear()
        report.steps = agent.steps
        _progress("stopping gabs")
    return report


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenario",
        choices=[*SCENARIOS, "all"],
        default=DEFAULT_SCENARIO,
        help=f"which flow to run (default {DEFAULT_SCENARIO}; all: every one)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print a machine-readable report instead"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary config dir (game logs)"
    )
    parser.add_argument(
        "--step-timeout",
        type=float,
        default=STEP_TIMEOUT,
        metavar="SECONDS",
        help=f"how long one step may take (default {STEP_TIMEOUT:g})",
    )


def demo_command(args: argparse.Namespace) -> int:
    """Run the demo as ``args`` say; return the exit code."""
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    if args.step_timeout <= 0:
        print("gabs demo: --step-timeout must be positive", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = demo_config(names)
        gabs = find_executable("gabs")
    except DemoSetupError as exc:
        print(f"gabs demo: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config_dir = Path(tempfile.mkdtemp(prefix="gabs-demo-"))
    (config_dir / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    _progress(f"config in {config_dir}")

    def on_step(step: DemoStep) -> None:
        if not args.json:
            print(render_step(step), flush=True)

    def on_scenario(scenario: Scenario) -> None:
        if not args.json:
            print(f"\n=== scenario {scenario.name}: {scenario.summary}\n", flush=True)

    started = time.perf_counter()
    report = DemoReport(scenarios=names, config_dir=str(config_dir))
    try:

        async def main() -> DemoReport:
            with anyio.fail_after(RUN_TIMEOUT):
                return await run_demo(
                    names,
                    config_dir=config_dir,
                    step_timeout=args.step_timeout,
                    on_step=on_step,
                    on_scenario=on_scenario,
                    gabs_path=gabs,
                )

        report = anyio.run(main)
    except TimeoutError:
        report.error = f"the demo did not finish within {RUN_TIMEOUT:g} s"
    except Exception as exc:  # the bridge could not be started or talked to
        report.error = f"{type(exc).__name__}: {exc}"
    finally:
        report.duration_s = time.perf_counter() - started
        if args.keep:
            _progress(f"kept {config_dir}")
        else:
            shutil.rmtree(config_dir, ignore_errors=True)
            report.config_dir = None
    passed = sum(step.ok for step in report.steps)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        verdict = "PASS" if report.ok else "FAIL"
        print(
            f"\n{verdict}: {passed} of {len(report.steps)} steps as expected in "
            f"{len(names)} scenario(s), {report.duration_s:.1f} s"
            + (
                f"; failed: {', '.join(report.failed_scenarios)}" if report.failed_scenarios else ""
            ),
            flush=True,
        )
    if report.error:
        print(f"gabs demo: {report.error}", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_FAILURE


# ---------------------------------------------------------------------------------------------
# The `gabs demo` command (registered by gabs.cli)

_DESCRIPTION: Final = (
    "Run a scripted agent through the real bridge: start `gabs serve` (MCP over stdio) with a "
    "temporary config whose game is rimbridge-sim, call its tools through the official MCP "
    "client, print what the model saw at each step, and check it. Exit 0 if every step "
    "behaved as expected, 1 if not, 2 on setup errors. Scenarios: "
    + "; ".join(f"{s.name}: {s.summary}" for s in SCENARIOS.values())
    + "."
)


def add_demo_command(subparsers: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add ``demo`` to ``gabs`` (``add_command(subparsers, name, handler, help, description)``)."""
    parser = add_command(
        subparsers,
        "demo",
        demo_command,
        "run a scripted agent against rimbridge-sim through the real bridge",
        _DESCRIPTION,
    )
    add_demo_arguments(parser)


def run(argv: Sequence[str] | None = None) -> int:
    """``python -m gabs.demo``: the same as ``gabs demo``."""
    parser = argparse.ArgumentParser(prog="gabs demo", description=_DESCRIPTION)
    add_demo_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return demo_command(args)


def main(argv: Sequence[str] | None = None) -> None:
    raise SystemExit(run(argv))
