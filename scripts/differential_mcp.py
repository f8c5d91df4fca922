"""Send the same random tool calls to our ``gabs`` and to the Go bridge; print where they disagree.

Side check, not a test (not run in CI): it needs a built Go bridge (pardeike/GABS)::

    uv run --frozen python scripts/differential_mcp.py --go /path/to/gabs [--seed 1] [--calls 300]

Each bridge serves MCP over stdio with its own temporary config directory and ``HOME``, and
starts its own copy of the compatibility suite's game (``integration-tests/compat/
compat_game.py``: ``compat/echo {text}``, ``compat/add {a, b}`` and a few more). Then both get
the same sequence of discovery, call, attention and status calls, drawn at random from
arguments that are right, wrong in type, blank, unknown or out of range. A call one bridge
answers and the other refuses (``isError``) is printed with both texts; with ``--keys`` also
a result whose structured keys differ (our additions, such as ``nextActions``, make many such
lines: see ``docs/gabs/compatibility-tools.md``). Exit status 0 when nothing disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "integration-tests" / "compat" / "compat_game.py"
OURS = Path(sys.executable).parent / ("gabs.exe" if os.name == "nt" else "gabs")
TIMEOUT = 60.0
TOOLS: dict[str, tuple[str, ...]] = {
    "games_tool_names": ("gameId", "query", "prefix", "limit", "cursor", "brief"),
    "games_tools": ("gameId", "query", "prefix", "limit", "cursor"),
    "games_tool_detail": ("gameId", "tool"),
    "games_call_tool": ("gameId", "tool", "arguments", "timeout"),
    "games_get_attention": ("gameId", "timeout"),
    "games_ack_attention": ("gameId", "attentionId", "timeout"),
    "games_status": ("gameId",),
    "games_show": ("gameId",),
}
VALUES: tuple[Any, ...] = (None, True, 0, -1, 3, 2.5, "", " ", "compat", "compat/echo", "echo")
VALUES += ("COMPAT", "c", "x" * 200, [], {}, "10", " 2 ", "true", 10**20)
GAME_TOOLS = ("compat/echo", "compat.echo", "compat_compat_echo", "compat/add", "compat/nothing")
GAME_ARGUMENTS = ({"text": "hi"}, {"a": 1, "b": 2}, {}, {"text": 5}, {"a": "1", "b": 2.0})


def calls(seed: int, count: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    drawn = []
    for _ in range(count):
        tool = rng.choice(list(TOOLS))
        arguments = {name: rng.choice(VALUES) for name in TOOLS[tool] if rng.random() < 0.5}
        if tool == "games_call_tool" and rng.random() < 0.7:
            arguments["tool"] = rng.choice(GAME_TOOLS)
            arguments["arguments"] = rng.choice(GAME_ARGUMENTS)
        if "gameId" in TOOLS[tool] and rng.random() < 0.5:
            arguments["gameId"] = "compat"
        drawn.append((tool, arguments))
    return drawn


def config(directory: Path) -> None:
    game = {
        "id": "compat",
        "name": "Compat game",
        "launchMode": "CustomCommand",
        "target": sys.executable,
        "args": [str(GAME)],
        "env": {"COMPAT_GAME_DIR": str(directory / "games")},
    }
    (directory / "games").mkdir(parents=True)
    document = {"version": "1.0", "games": {"compat": game}}
    (directory / "config.json").write_text(json.dumps(document), encoding="utf-8")


async def answers(command: str, drawn: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """What ``command`` (a bridge) answers to each call, after starting the game."""
    from mcp import Client, StdioServerParameters

    with tempfile.TemporaryDirectory(prefix="gabs-differential-") as scratch:
        root = Path(scratch)
        config(root / "config")
        (root / "home").mkdir()
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("GABS_", "GABP_"))}
        env = {**keep, "HOME": str(root / "home"), "USERPROFILE": str(root / "home")}
        server = ["server", "stdio", "--configDir", str(root / "config"), "--log-level", "warn"]
        params = StdioServerParameters(command=command, args=server, env=env)
        found = []
        async with Client(params, mode="legacy", read_timeout_seconds=TIMEOUT) as client:
            with anyio.fail_after(TIMEOUT):
                started = await client.call_tool("games_start", {"gameId": "compat"})
            if started.is_error:
                raise SystemExit(f"{command}: the game did not start")
            for tool, arguments in drawn:
                with anyio.fail_after(TIMEOUT):
                    result = await client.call_tool(tool, arguments)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                keys = sorted(result.structured_content or {})
                found.append({"error": bool(result.is_error), "keys": keys, "text": text})
            with anyio.fail_after(TIMEOUT):
                await client.call_tool("games_stop", {"gameId": "compat"})
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--go", required=True, help="the Go bridge's executable")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--keys", action="store_true", help="also compare structured keys")
    args = parser.parse_args(argv)
    drawn = calls(args.seed, args.calls)
    go = anyio.run(answers, args.go, drawn)
    ours = anyio.run(answers, str(OURS), drawn)
    seen: set[tuple[str, bool, bool]] = set()
    disagreements = 0
    for (tool, arguments), theirs, mine in zip(drawn, go, ours, strict=True):
        differ = theirs["error"] != mine["error"]
        if args.keys and not differ:
            differ = not theirs["error"] and theirs["keys"] != mine["keys"]
        key = (tool, theirs["error"], mine["error"])
        if not differ or (key in seen and not args.keys):
            continue
        seen.add(key)
        disagreements += 1
        print(f"DIFF {tool} {json.dumps(arguments)[:160]}")
        for name, answer in (("go", theirs), ("ours", mine)):
            shown = answer["text"][:200].replace("\n", " | ")
            state = "isError" if answer["error"] else f"ok {answer['keys']}"
            print(f"  {name:<4} {state}: {shown}")
    print(f"{len(drawn)} calls, {disagreements} shown disagreements (seed {args.seed})")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
