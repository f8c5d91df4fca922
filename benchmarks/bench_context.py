"""Cost of assembling context for an attention item, against rendering the raw item alone.

Setup (built once): a fake diagnostics source holding 100,000 log lines (rimbridge's
``list_logs`` answer shape, paged from a cursor by bisection as the real ring does, and
``get_operation``), a 10,000-entry :class:`gabs.ledger.CallLedger` for the game, the game's tool
registry, and an open blocking item near the end of the log (cursor, causal operation, sample).

Measured alternately in one event loop, the median of the rounds:

* ours: ``ContextAssembler.assemble`` with the default ``blocked_call`` template (cache off: each
  round asks for a new ``latestSequence``): the item, the causal operation via get_operation,
  the trigger's lines via list_logs from the cursor, the ledger for the causal operation and
  the attention id, the blocked tool's descriptor, next steps, halting, structuring;
* baseline: ``gabs.results.attention_text`` of the same item (what the bridge shows today).

Records (higher is better, ratio = ours / baseline):

* ``assembly within 5x raw``: ours = 5 x the raw rendering time, baseline = the assembly time;
  ratio >= 1.0 exactly when assembly costs at most 5x the raw rendering.
* ``tokens within budget``: ours = the template's ``maxContextTokens``, baseline = the tokens of
  the assembled text; ratio >= 1.0 exactly when the text fits the budget.

Usage: ``uv run python benchmarks/bench_context.py [--quick] [--json PATH]``.
"""

from __future__ import annotations

import bisect
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, parse_args, record, report
from gabp.messages import Attention
from gabs.context import (
    DEFAULT_TEMPLATES,
    ContextAssembler,
    ContextRequest,
    InMemoryDiagnostics,
    InMemoryRegistry,
)
from gabs.game_tools import MirroredTool
from gabs.ledger import CallLedger
from gabs.results import attention_text

LOG_LINES = 100_000
LEDGER_ENTRIES = 10_000
TRIGGER = 97_001
LEVELS = ("debug", "info", "warning", "error", "fatal")
BASELINE_NAME = "gabs.results.attention_text (the raw item)"


class LogStore:
    """100,000 lines; ``list_logs`` pages from a cursor by bisection, like the real ring."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        for n in range(LOG_LINES):
            level, message, op = "info", f"tick {n}: hauling steel to stockpile", None
            if n % 997 == 0:
                level, message = "warning", f"pawn {n % 13} is hungry"
            if n == TRIGGER:
                level, message, op = "error", "Map lost while loading colony1", "op-load"
            elif n in (TRIGGER + 2, TRIGGER + 5):
                level, message, op = "warning", "Pawn Tynan has no map", "op-load"
            self.entries.append(
                {
                    "sequence": n,
                    "level": level,
                    "message": message,
                    "source": "world",
                    "tick": n * 60,
                    "time": 1000.0 + n / 100,
                    "operationId": op,
                    "rootOperationId": op,
                    "repeatCount": 1,
                    "firstSequence": n,
                    "latestSequence": n,
                    "latestTime": 1000.0 + n / 100,
                }
            )
        self.keys = [e["latestSequence"] for e in self.entries]

    def list_logs(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        after = arguments.get("afterSequence", -1)
        limit = arguments.get("limit", 100)
        rank = LEVELS.index(arguments.get("minimumLevel", "debug"))
        operation = arguments.get("operationId")
        page: list[dict[str, Any]] = []
        index = bisect.bisect_right(self.keys, after)
        while index < len(self.entries) and len(page) < limit:
            entry = self.entries[index]
            if LEVELS.index(entry["level"]) >= rank and (
                operation is None or entry["operationId"] == operation
            ):
                page.append(entry)
            index += 1
        return {
            "entries": page,
            "nextCursor": page[-1]["latestSequence"] if page else after,
            "truncated": False,
            "hasMore": index < len(self.entries),
            "oldestSequence": 0,
            "latestSequence": LOG_LINES - 1,
        }

    def get_operation(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "operationId": arguments["operationId"],
            "method": "colony/load_game",
            "parentId": None,
            "rootId": arguments["operationId"],
            "status": "failed",
            "argumentsSummary": '{"save": "colony1"}',
            "error": "save file colony1 is truncated",
            "children": [],
            "events": [
                {"index": 1, "kind": "started", "time": 1.0, "message": None},
                {"index": 2, "kind": "failed", "time": 2.0, "message": "save truncated"},
            ],
        }


def build_ledger() -> CallLedger:
    ledger = CallLedger(capacity_per_session=LEDGER_ENTRIES)
    for n in range(LEDGER_ENTRIES - 2):
        ledger.record(
            "result",
            session_id="agent",
            game_id="rimworld",
            tool="colony/list_pawns",
            operation_id=f"op-{n}",
            arguments={"page": n},
            summary="ok",
            executed=True,
        )
    ledger.record(
        "result",
        session_id="agent",
        game_id="rimworld",
        tool="colony/load_game",
        operation_id="op-load",
        attention_id="att-1",
        arguments={"save": "colony1"},
        summary="ok; attention att-1 (caused_by_call)",
        executed=True,
    )
    ledger.record(
        "blocked",
        session_id="agent",
        game_id="rimworld",
        tool="colony/draft",
        attention_id="att-1",
        arguments={"pawn": "Tynan"},
        summary="not executed: blocked_by_attention",
        executed=False,
    )
    return ledger


def item(latest: int) -> Attention:
    return Attention.model_validate(
        {
            "attentionId": "att-1",
            "state": "open",
            "severity": "error",
            "blocking": True,
            "stateInvalidated": True,
            "summary": "error: Map lost while loading colony1 (and 2 more)",
            "openedAtSequence": TRIGGER,
            "latestSequence": latest,
            "totalUrgentEntries": 3,
            "causalOperationId": "op-load",
            "causalMethod": "colony/load_game",
            "diagnosticsCursor": TRIGGER - 1,
            "sample": [
                {
                    "level": "error",
                    "message": "Map lost while loading colony1",
                    "repeatCount": 1,
                    "latestSequence": TRIGGER,
                },
                {
                    "level": "warning",
                    "message": "Pawn Tynan has no map",
                    "repeatCount": 2,
                    "latestSequence": TRIGGER + 5,
                },
            ],
        }
    )


TOOLS = [
    MirroredTool(
        "colony/draft", "Draft", "Draft or undraft a pawn.", {}, {"description": "Draft state."}
    ),
    MirroredTool("colony/load_game", "Load", "Load a saved colony.", {}, {}),
    *(MirroredTool(f"colony/tool_{n}", f"Tool {n}", "Another tool.", {}, {}) for n in range(60)),
]


async def measure(rounds: int) -> tuple[float, float, int, int]:
    store = LogStore()
    assembler = ContextAssembler(
        ledger=build_ledger(),
        registry=InMemoryRegistry({"rimworld": TOOLS}),
        diagnostics=InMemoryDiagnostics(
            {"rimbridge/list_logs": store.list_logs, "rimbridge/get_operation": store.get_operation}
        ),
    )
    items = [item(TRIGGER + 5 + n) for n in range(rounds + 5)]
    raw: list[float] = []
    ours: list[float] = []
    tokens = 0
    for n, current in enumerate(items):
        started = time.perf_counter()
        for _ in range(10):
            attention_text(current, game_id="rimworld")
        raw_seconds = (time.perf_counter() - started) / 10
        started = time.perf_counter()
        assembled = await assembler.assemble(
            ContextRequest(
                game_id="rimworld",
                purpose="blocked_call",
                attention=current,
                tool="colony/draft",
                arguments={"pawn": "Tynan"},
                session_id="agent",
            )
        )
        ours_seconds = time.perf_counter() - started
        assert assembled.error is None and not assembled.from_cache, assembled
        assert "Map lost while loading colony1" in assembled.context_text
        assert "Operation op-load: colony/load_game failed" in assembled.context_text
        tokens = max(tokens, assembled.budget_used.tokens)
        if n >= 5:  # warm-up rounds
            raw.append(raw_seconds)
            ours.append(ours_seconds)
    budget = next(t for t in DEFAULT_TEMPLATES if t.id == "default-blocked-call").budget
    return median(raw), median(ours), tokens, budget.max_context_tokens


def main() -> None:
    args = parse_args(__doc__ or "")
    rounds = 50 if args.quick else 400
    raw, ours, tokens, budget = anyio.run(measure, rounds)
    print(
        f"raw rendering {raw * 1e6:.1f} us, assembly {ours * 1e6:.1f} us "
        f"({ours / raw:.1f}x), {tokens} tokens of {budget}",
        file=sys.stderr,
    )
    records = [
        record(
            benchmark="context assembly (100k log lines, 10k ledger)",
            metric="assembly within 5x raw",
            ours=5 * raw * 1e6,
            baseline=ours * 1e6,
            baseline_name="assemble() with default blocked_call, us (ours = 5 x raw us)",
            target=1.0,
        ),
        record(
            benchmark="context assembly (100k log lines, 10k ledger)",
            metric="tokens within budget",
            ours=float(budget),
            baseline=float(tokens),
            baseline_name="tokens of the assembled text (ours = maxContextTokens)",
            target=1.0,
        ),
    ]
    report(records, args.json_path)


if __name__ == "__main__":
    main()
