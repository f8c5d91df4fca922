"""A small GABP game for the compatibility suite, built on ``lib_gab``.

A bridge launches it (``CustomCommand``: this Python, this file) with ``GABP_SERVER_PORT``,
``GABP_TOKEN`` and ``GABS_GAME_ID`` in its environment, as every GABS bridge does. Tools:

* ``compat/echo {text}``: returns ``{"text": text}``.
* ``compat/add {a, b}``: returns ``{"sum": a + b}``.
* ``compat/status``: returns ``{"status": "ok"}`` (read-only).
* ``compat/big {size}``: returns ``{"text": <size characters>, "size": size}``.
* ``compat/numbers {count}``: returns the list ``[1, ..., count]`` (not an object).
* ``compat/describe``: returns ``{"game": "compat", "items": [1, 2, 3]}`` (no ``text``).
* ``compat/a_tool_with_a_name_long_enough_to_pass_the_limit_of_sixty_four``: returns
  ``{"long": true}`` (its MCP name needs the length limit and hash suffix).
* ``compat/raise {summary}`` (only with ``COMPAT_ATTENTION=1``, which also serves attention):
  opens a blocking error item ``attn_compat_<n>`` (a new id on each call, replacing the open
  one, as Lib.GAB's ``PublishAsync`` does) and returns ``{"attentionId": id}``.

When ``COMPAT_GAME_DIR`` is set (the suite puts it in the game's ``env``), the game writes its
process id to ``<dir>/<gameId>.pid`` once it listens, so a test can see it end, and what it was
handed (its arguments, working directory and the bridge's variables) to
``<dir>/<gameId>.launch.json`` as it starts. ``COMPAT_DELAY`` (seconds) delays its GABP server,
as a game with a long load would; ``COMPAT_EXIT`` (an exit code) makes it print a line and end
at once, as a game that crashes while starting.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import anyio

from lib_gab import GabpServer, ServerConfigError


def make_server() -> GabpServer:
    server = GabpServer.from_gabs_environment(app_name="compat game", app_version="1.0.0")

    @server.tool(
        "compat/echo",
        description="Return the given text unchanged.",
        result_description="The text, as {text}.",
    )
    def echo(text: str) -> dict[str, str]:
        return {"text": text}

    @server.tool("compat/add", description="Add two integers.", result_description="{sum}.")
    def add(a: int, b: int) -> dict[str, int]:
        return {"sum": a + b}

    @server.tool(
        "compat/status", description="Report that the game is up.", tags=["status", "read-only"]
    )
    def status() -> dict[str, str]:
        return {"status": "ok"}

    @server.tool(
        "compat/big",
        description="Return a large text result of the given size.",
        result_description="{text, size}.",
    )
    def big(size: int) -> dict[str, object]:
        text = ("0123456789abcdef" * (size // 16 + 1))[:size]
        return {"text": text, "size": size}

    @server.tool("compat/numbers", description="Return the numbers 1 to count as a list.")
    def numbers(count: int) -> list[int]:
        return list(range(1, count + 1))

    @server.tool("compat/describe", description="Describe the game as an object without text.")
    def describe() -> dict[str, object]:
        return {"game": "compat", "items": [1, 2, 3]}

    @server.tool(
        "compat/a_tool_with_a_name_long_enough_to_pass_the_limit_of_sixty_four",
        description="A tool whose MCP name is too long without the hash suffix.",
    )
    def long_named() -> dict[str, bool]:
        return {"long": True}

    if os.environ.get("COMPAT_ATTENTION") == "1":
        add_attention(server)
    return server


def add_attention(server: GabpServer) -> None:
    server.enable_attention()
    raised = [0]

    @server.tool(
        "compat/raise",
        description="Open a blocking error attention item (a new id on each call).",
        result_description="{attentionId}.",
    )
    async def raise_item(summary: str = "compat/raise was called") -> dict[str, str]:
        raised[0] += 1
        attention_id = f"attn_compat_{raised[0]}"
        await server.publish_attention(
            {
                "attentionId": attention_id,
                "severity": "error",
                "blocking": True,
                "stateInvalidated": True,
                "summary": summary,
                "openedAtSequence": raised[0],
                "latestSequence": raised[0],
                "totalUrgentEntries": 1,
                "sample": [
                    {
                        "level": "error",
                        "message": "simulated failure",
                        "repeatCount": 1,
                        "latestSequence": raised[0],
                    }
                ],
            }
        )
        return {"attentionId": attention_id}


async def serve(server: GabpServer) -> None:
    async with server.running() as address:
        print(f"compat game listening on {address}", file=sys.stderr, flush=True)
        folder = os.environ.get("COMPAT_GAME_DIR")
        if folder:
            game_id = os.environ.get("GABS_GAME_ID", "compat").replace("/", "_")
            (Path(folder) / f"{game_id}.pid").write_text(str(os.getpid()), encoding="utf-8")
        await anyio.sleep_forever()


def report_launch() -> None:
    folder = os.environ.get("COMPAT_GAME_DIR")
    if not folder:
        return
    game_id = os.environ.get("GABS_GAME_ID", "compat").replace("/", "_")
    names = set(os.environ.get("GABS_FORWARD_ENV", "").split(",")) - {""}
    names |= {key for key in os.environ if key.startswith(("GABS_", "COMPAT_", "Steam"))}
    names.add("GABP_SERVER_PORT")
    report = {
        "argv": sys.argv[1:],
        "cwd": os.getcwd(),
        "env": {name: os.environ[name] for name in sorted(names) if name in os.environ},
        "hasToken": len(os.environ.get("GABP_TOKEN", "")) == 64,
    }
    (Path(folder) / f"{game_id}.launch.json").write_text(json.dumps(report), encoding="utf-8")


def main() -> None:
    report_launch()
    if os.environ.get("COMPAT_EXIT"):
        print("compat game: cannot load the save, giving up", file=sys.stderr, flush=True)
        sys.exit(int(os.environ["COMPAT_EXIT"]))
    time.sleep(float(os.environ.get("COMPAT_DELAY", "0")))
    try:
        server = make_server()
    except ServerConfigError as exc:
        sys.exit(f"compat game: {exc}")
    anyio.run(serve, server)


if __name__ == "__main__":
    main()
