"""Drive a GABS bridge against a real game process and report what the agent sees.

Side check, not a test: it runs any GABS build (ours or the Go bridge) over stdio with the
official ``mcp`` client, configures one game whose command line is given, and walks the path an
agent walks: start, discover, call, overlap calls, trip the attention gate, acknowledge, stop::

    python scripts/probe_bridge_with_game.py --bridge "$(command -v gabs)" \\
        --game /usr/bin/mono --game-arg /path/MonoGame.exe > report.json

The game must offer four tools, as the small console game embedding Lib.GAB 1.0.3 (built with
Mono) described in ``docs/ports/lib-gab.md`` does: ``game/status``, ``game/repeat {count,
word}``, ``game/world`` (a result of about 300 KB) and ``game/fail`` (opens a blocking attention
item). The overlap step sends ``--overlap`` calls at once, large and small results
alternating, and counts the answers that come back whole and right: a bridge that overlaps
requests to a game that cannot take them (Lib.GAB 1.0.3 interleaves concurrent replies on its
socket) loses some. ``--max-concurrent N`` writes the game entry's ``maxConcurrentRequests``
(a key of ours, which the Go bridge does not read) to make ``gabs`` overlap them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types

GAME_ID = "probe"
TIMEOUT = 60.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bridge", required=True, help="the bridge's command line (shell words)")
    parser.add_argument("--game", required=True, help="the game's executable")
    parser.add_argument("--game-arg", action="append", default=[], help="one game argument")
    parser.add_argument("--overlap", type=int, default=32, help="calls sent at once (default 32)")
    parser.add_argument(
        "--max-concurrent", type=int, help="the game entry's maxConcurrentRequests (gabs only)"
    )
    return parser.parse_args()


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


def summary(result: types.CallToolResult) -> dict[str, Any]:
    """What an agent reads first: the error flag, the code, the first line of text."""
    content = result.structured_content or {}
    return {
        "isError": bool(result.is_error),
        "code": content.get("code"),
        "text": text_of(result).split("\n", 1)[0][:200],
    }


def write_config(
    directory: Path, game: str, arguments: list[str], max_concurrent: int | None
) -> None:
    entry: dict[str, Any] = {
        "id": GAME_ID,
        "name": "Probe game",
        "launchMode": "CustomCommand",
        "target": game,
        "args": arguments,
    }
    if max_concurrent is not None:
        entry["maxConcurrentRequests"] = max_concurrent
    config = {"version": "1.0", "games": {GAME_ID: entry}}
    (directory / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")


async def overlap(client: Client, count: int) -> dict[str, Any]:
    """``count`` calls at once, ``game/world`` and ``game/repeat`` alternating."""
    wrong: list[dict[str, Any]] = []

    async def one(index: int) -> None:
        if index % 2:
            arguments: dict[str, Any] = {"gameId": GAME_ID, "tool": "game/world"}
        else:
            word = f"w{index}"
            arguments = {
                "gameId": GAME_ID,
                "tool": "game/repeat",
                "arguments": {"count": 2, "word": word},
            }
        result = await client.call_tool("games_call_tool", arguments)
        content = result.structured_content or {}
        if index % 2:
            right = content.get("count") == 4000
        else:
            right = content.get("text") == f"w{index} w{index}"
        if result.is_error or not right:
            wrong.append({"index": index, **summary(result)})

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for index in range(count):
            group.start_soon(one, index)
    return {
        "sent": count,
        "whole": count - len(wrong),
        "seconds": round(time.perf_counter() - started, 3),
        "wrong": wrong[:5],
    }


async def walk(client: Client, overlap_count: int) -> dict[str, Any]:
    report: dict[str, Any] = {}
    report["start"] = summary(await client.call_tool("games_start", {"gameId": GAME_ID}))
    names = await client.call_tool("games_tool_names", {"gameId": GAME_ID})
    tools = (names.structured_content or {}).get("tools", [])
    report["tools"] = sorted(tool.get("localName") or tool.get("name") for tool in tools)
    repeat = await client.call_tool(
        "games_call_tool",
        {"gameId": GAME_ID, "tool": "game/repeat", "arguments": {"count": 3, "word": "hi"}},
    )
    report["repeat"] = {**summary(repeat), "result": repeat.structured_content}
    report["overlap"] = await overlap(client, overlap_count)
    report["fail"] = summary(
        await client.call_tool("games_call_tool", {"gameId": GAME_ID, "tool": "game/fail"})
    )
    await anyio.sleep(0.5)  # the attention event reaches the bridge
    while_open = {"count": 1, "word": "again"}
    report["call_while_item_open"] = summary(
        await client.call_tool(
            "games_call_tool",
            {"gameId": GAME_ID, "tool": "game/repeat", "arguments": while_open},
        )
    )
    attention = await client.call_tool("games_get_attention", {"gameId": GAME_ID})
    item = (attention.structured_content or {}).get("attention") or {}
    report["attention"] = {**summary(attention), "attentionId": item.get("attentionId")}
    ack = await client.call_tool(
        "games_ack_attention", {"gameId": GAME_ID, "attentionId": item.get("attentionId", "")}
    )
    report["ack"] = summary(ack)
    report["call_after_ack"] = summary(
        await client.call_tool("games_call_tool", {"gameId": GAME_ID, "tool": "game/status"})
    )
    report["stop"] = summary(await client.call_tool("games_stop", {"gameId": GAME_ID}))
    return report


async def session(server: StdioServerParameters, overlap_count: int) -> dict[str, Any]:
    with anyio.fail_after(10 * TIMEOUT):
        async with Client(server, mode="legacy", read_timeout_seconds=TIMEOUT) as client:
            return await walk(client, overlap_count)


def main() -> None:
    args = parse_args()
    bridge = shlex.split(args.bridge)
    with tempfile.TemporaryDirectory(prefix="gabs-probe-") as scratch:
        config_dir = Path(scratch, "config")
        home = Path(scratch, "home")
        config_dir.mkdir()
        home.mkdir()
        write_config(config_dir, args.game, args.game_arg, args.max_concurrent)
        environment = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("GABS_", "GABP_"))
        }
        environment["HOME"] = str(home)
        server = StdioServerParameters(
            command=bridge[0],
            args=[*bridge[1:], "server", "stdio", "--configDir", str(config_dir)],
            env=environment,
        )
        report = anyio.run(session, server, args.overlap)
    json.dump({"bridge": args.bridge, **report}, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
