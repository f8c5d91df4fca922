"""A game that summarizes attention itself and publishes whole items, the way RimBridgeServer
does with Lib.GAB: ``python -m lib_gab.publisher_example``.

Its log journal feeds an aggregator; every error or warning it records updates a summary
the aggregator builds (its own ids ``game-attn-<n>``, its own summary text, a sample per
distinct message) and publishes whole with :meth:`~lib_gab.AttentionManager.publish`. Once the
bridge acknowledges the item (the manager no longer holds it), the aggregator starts over with a
new id. ``game/recover`` clears the item from the game's side with
:meth:`~lib_gab.AttentionManager.clear`. Port, token and agent id as in ``lib_gab.example``.

Tools: ``game/status``, ``game/log {level, message}``, ``game/fail {message}`` (logs an error:
blocking, state invalidated), ``game/recover`` (clears what is open).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from lib_gab import AttentionManager, GabpServer, current_operation
from lib_gab._cli import build_server, serve_announced

LogLevel = Literal["info", "warning", "error", "fatal"]


@dataclass
class _Summary:
    attention_id: str
    severity: LogLevel
    opened_at: int
    latest: int = 0
    total: int = 0
    blocking: bool = False
    causal: tuple[str, str] | None = None
    samples: dict[str, dict[str, Any]] = field(default_factory=dict)


class AttentionAggregator:
    """Turns log entries into one published attention item (RimBridgeServer's pattern)."""

    _RANK = {"info": 0, "warning": 1, "error": 2, "fatal": 3}

    def __init__(self, manager: AttentionManager) -> None:
        self._manager = manager
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._summary: _Summary | None = None

    def record(self, sequence: int, level: LogLevel, message: str) -> None:
        if level == "info":
            return
        with self._lock:
            summary = self._summary
            open_now = self._manager.current()
            if summary is not None and (
                open_now is None or open_now.attention_id != summary.attention_id
            ):
                summary = None  # acknowledged or cleared: the next problem is a new item
            if summary is None:
                summary = _Summary(f"game-attn-{next(self._ids)}", level, sequence)
                operation = current_operation()
                summary.causal = (operation.id, operation.method) if operation else None
                self._summary = summary
            if self._RANK[level] > self._RANK[summary.severity]:
                summary.severity = level
            summary.blocking = summary.blocking or level in ("error", "fatal")
            summary.latest = sequence
            summary.total += 1
            sample = summary.samples.setdefault(
                message, {"level": level, "message": message, "repeatCount": 0}
            )
            sample["repeatCount"] += 1
            sample["latestSequence"] = sequence
            item: dict[str, Any] = {
                "attentionId": summary.attention_id,
                "severity": summary.severity,
                "blocking": summary.blocking,
                "stateInvalidated": summary.blocking,
                "summary": f"{summary.total} problem(s) since sequence {summary.opened_at}: "
                f"{next(iter(summary.samples))}",
                "openedAtSequence": summary.opened_at,
                "latestSequence": summary.latest,
                "diagnosticsCursor": summary.latest,
                "totalUrgentEntries": summary.total,
                "sample": [dict(s) for s in list(summary.samples.values())[-5:]],
            }
            if summary.causal is not None:
                item["causalOperationId"], item["causalMethod"] = summary.causal
            self._manager.publish(item)

    def forget(self) -> None:
        with self._lock:
            self._summary = None


def make_server(env: Mapping[str, str] | None = None, **options: Any) -> GabpServer:
    server = GabpServer.from_gabs_environment(
        app_name="lib-gab publisher example",
        app_version="0.1.0",
        env=env,
        agent_id="publisher-example",
        **options,
    )
    manager = server.enable_attention()
    aggregator = AttentionAggregator(manager)
    sequence = itertools.count(1)

    def log(level: LogLevel, message: str) -> int:
        number = next(sequence)
        aggregator.record(number, level, message)
        return number

    @server.tool("game/status", description="Say the game runs.", tags=["status", "read-only"])
    def status() -> dict[str, str]:
        return {"status": "running"}

    @server.tool("game/log", description="Write one line to the game's log.")
    def write(level: LogLevel, message: str) -> dict[str, int]:
        return {"sequence": log(level, message)}

    @server.tool("game/fail", description="Run an operation that fails and logs an error.")
    def fail(message: str = "operation failed") -> dict[str, Any]:
        return {"sequence": log("error", message), "failed": True}

    @server.tool(
        "game/recover", description="Recover from the open problem and clear its attention."
    )
    async def recover() -> dict[str, Any]:
        cleared = await server.clear_attention({"summary": "The game recovered on its own."})
        aggregator.forget()
        return {"cleared": cleared.attention_id if cleared is not None else None}

    return server


def main(argv: Sequence[str] | None = None) -> None:
    server = build_server(__doc__.splitlines()[0], argv, make_server)
    anyio.run(serve_announced, server)


if __name__ == "__main__":
    main()
