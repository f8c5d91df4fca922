"""What every host test drives: our ``gabs`` with the simulated RimWorld, the attention flow's
steps, and the checks each host's results must pass.

The flow is the one an agent runs (see ``docs/gabs/attention-guide.md``): ``games_start``, a
call that succeeds, a call that opens blocking attention (``sim/inject_log`` with an error, as
a game logging an exception during an action), the next call refused by the gate
(``executed: false``), ``games_get_attention``, ``games_ack_attention`` with the id it gave,
the retry that succeeds, ``games_stop``.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio

__all__ = [
    "CALL",
    "CORE_TOOLS",
    "GABS",
    "GAME",
    "STEPS",
    "TROUBLE",
    "GabsConfig",
    "check_flow",
    "gabs_http",
    "stop_leftover_game",
]

BIN: Final = Path(sys.executable).parent
GABS: Final = BIN / "gabs"
SIM: Final = BIN / "rimbridge-sim"
GAME: Final = "colony"
#: A call that succeeds while no blocking attention is open (and is refused while one is).
CALL: Final[dict[str, Any]] = {"tool": "rimworld/list_colonists", "arguments": {}}
#: A call that makes the game log an error: blocking attention caused by this call.
TROUBLE: Final[dict[str, Any]] = {
    "tool": "sim/inject_log",
    "arguments": {"level": "error", "message": "Exception in Pawn.Tick"},
}
#: The steps of the flow, in order, by the names the reports use.
STEPS: Final = ("start", "call", "trouble", "blocked", "inspect", "ack", "retry", "stop")
CORE_TOOLS: Final = frozenset(
    {
        "games_list",
        "games_show",
        "games_start",
        "games_stop",
        "games_kill",
        "games_status",
        "games_connect",
        "games_tool_names",
        "games_tool_detail",
        "games_tools",
        "games_call_tool",
        "games_get_attention",
        "games_ack_attention",
    }
)
_URL: Final = re.compile(rb"MCP Streamable HTTP on (http://\S+/mcp)")


@dataclass
class GabsConfig:
    """A config folder in the Go bridge's format with the simulated RimWorld as ``colony``, and
    an ``apiKey`` (the HTTP bearer token)."""

    path: Path
    api_key: str

    @classmethod
    def write(cls, path: Path) -> GabsConfig:
        api_key = secrets.token_hex(24)
        document = {
            "version": "1.0",
            "apiKey": api_key,
            "games": {
                GAME: {
                    "id": GAME,
                    "name": "RimWorld (simulated)",
                    "launchMode": "CustomCommand",
                    "target": str(SIM),
                    "args": ["--enable-test-tools"],
                }
            },
        }
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
        return cls(path, api_key)

    def stdio_command(self) -> list[str]:
        return [str(GABS), "server", "stdio", "--configDir", str(self.path), "--log-level", "warn"]


def stop_leftover_game(config: GabsConfig, env: Mapping[str, str]) -> None:
    """Kill the game if a failed flow left it running (games outlive the bridge by design)."""
    if (config.path / GAME / "runtime.json").exists():
        subprocess.run(
            [str(GABS), "games", "kill", GAME, "--configDir", str(config.path)],
            env=dict(env),
            capture_output=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )


@asynccontextmanager
async def gabs_http(config: GabsConfig, env: Mapping[str, str]) -> AsyncIterator[str]:
    """``gabs server http --addr 127.0.0.1:0`` serving ``config``; yields its ``/mcp`` URL."""
    command = [
        str(GABS),
        "server",
        "http",
        "--addr",
        "127.0.0.1:0",
        "--configDir",
        str(config.path),
        "--log-level",
        "warn",
    ]
    output = bytearray()
    found = anyio.Event()
    url = ""

    async with (
        await anyio.open_process(command, env=dict(env), stdout=subprocess.DEVNULL) as process,
        anyio.create_task_group() as tg,
    ):

        async def drain() -> None:
            nonlocal url
            assert process.stderr is not None
            async for chunk in process.stderr:
                output.extend(chunk)
                if not found.is_set() and (match := _URL.search(output)):
                    url = match.group(1).decode()
                    found.set()
            found.set()  # the server ended before it said where it listens

        tg.start_soon(drain)
        try:
            with anyio.fail_after(60):
                await found.wait()
            assert url, f"gabs server http did not start: {output.decode(errors='replace')}"
            yield url
        finally:
            if process.returncode is None:
                process.terminate()
                with anyio.move_on_after(15, shield=True):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
            tg.cancel_scope.cancel()


def _meta_call(step: Mapping[str, Any]) -> dict[str, Any]:
    meta = step.get("meta") or step.get("_meta") or {}
    call: dict[str, Any] = meta.get("gabs/call") or {}
    return call


def check_flow(steps: Mapping[str, Mapping[str, Any]]) -> None:
    """Assert that a host saw the flow as the contract says. ``steps`` maps each name of
    :data:`STEPS` to what the host got: ``isError``, ``structuredContent``, ``meta`` (the
    result's ``_meta``) and ``text``."""
    assert list(steps) == list(STEPS), list(steps)
    start, call, trouble, blocked = (steps[n] for n in ("start", "call", "trouble", "blocked"))
    inspect, ack, retry, stop = (steps[n] for n in ("inspect", "ack", "retry", "stop"))

    assert not start["isError"], start["text"]
    assert start["structuredContent"]["code"] == "started_connected", start["text"]

    # a game call: the game's own result, what the bridge adds in _meta
    assert not call["isError"], call["text"]
    assert call["structuredContent"]["count"] == len(call["structuredContent"]["colonists"]) > 0
    assert _meta_call(call)["executed"] is True

    # the call that opened blocking attention gets it attached, in _meta and as text
    assert not trouble["isError"], trouble["text"]
    opened = _meta_call(trouble)
    assert opened["executed"] is True and opened["attentionRelation"] == "caused_by_call"
    attention = opened["attention"]
    assert attention["blocking"] is True and attention["state"] == "open"
    attention_id = attention["attentionId"]
    assert attention_id in trouble["text"] and "BLOCKING" in trouble["text"]

    # the next call is refused before it reaches the game
    assert blocked["isError"], blocked["text"]
    refused = blocked["structuredContent"]
    assert (refused["executed"], refused["status"], refused["code"]) == (
        False,
        "blocked_by_attention",
        "blocked_by_attention",
    )
    assert refused["attentionId"] == attention_id
    assert "games_ack_attention" in {action["tool"] for action in refused["nextActions"]}

    assert not inspect["isError"], inspect["text"]
    assert inspect["structuredContent"]["attention"]["attentionId"] == attention_id
    assert inspect["structuredContent"]["blocking"] is True

    assert not ack["isError"], ack["text"]
    assert ack["structuredContent"]["acknowledged"] is True
    assert ack["structuredContent"]["attentionId"] == attention_id

    assert not retry["isError"], retry["text"]
    assert _meta_call(retry)["executed"] is True
    assert "attention" not in _meta_call(retry)
    assert retry["structuredContent"]["colonists"] == call["structuredContent"]["colonists"]

    assert not stop["isError"], stop["text"]
    assert stop["structuredContent"]["code"] == "terminated", stop["text"]
