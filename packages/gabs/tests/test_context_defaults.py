"""The shipped defaults, the shipped schema, and the sources over the bridge's games and files."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gabp.messages import Attention, Capabilities
from gabs.context import (
    DEFAULT_TEMPLATES_JSON,
    TEMPLATE_SCHEMA_PATH,
    ContextAssembler,
    ContextRequest,
    ContextSourceError,
    DiagnosticsRefused,
    GameDiagnostics,
    GameRegistry,
    InMemoryDiagnostics,
    InMemoryRegistry,
    LocalFiles,
    estimate_tokens,
    template_json_schema,
    trace_json,
)
from gabs.game_tools import MirroredTool
from gabs.ledger import CallLedger
from gabs.session import CallOutcome

LEVELS = ("debug", "info", "warning", "error", "fatal")
DIAGNOSTIC = ("diagnostic", "read-only")

ITEM = Attention.model_validate(
    {
        "attentionId": "att-9",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": True,
        "summary": "error: Map lost while loading colony1 (and 1 more)",
        "openedAtSequence": 5001,
        "latestSequence": 5003,
        "totalUrgentEntries": 2,
        "causalOperationId": "op-load-1",
        "causalMethod": "colony/load_game",
        "diagnosticsCursor": 5000,
        "sample": [
            {
                "level": "error",
                "message": "Map lost while loading colony1",
                "repeatCount": 1,
                "latestSequence": 5001,
            },
            {
                "level": "warning",
                "message": "Pawn Tynan has no map",
                "repeatCount": 1,
                "latestSequence": 5003,
            },
        ],
    }
)


class RimbridgeLike:
    """list_logs / get_operation with rimbridge's answer shapes, over 6000 lines."""

    def __init__(self) -> None:
        self.logs: list[dict[str, Any]] = []
        for n in range(6000):
            level, message, op = "info", f"tick {n}: colonists working", None
            if n == 5001:
                level, message, op = "error", "Map lost while loading colony1", "op-load-1"
            elif n == 5003:
                level, message, op = "warning", "Pawn Tynan has no map", "op-load-1"
            self.logs.append(
                {
                    "sequence": n,
                    "level": level,
                    "message": message,
                    "source": "world",
                    "tick": n * 60,
                    "time": 1000.0 + n,
                    "operationId": op,
                    "rootOperationId": op,
                    "repeatCount": 1,
                    "firstSequence": n,
                    "latestSequence": n,
                    "latestTime": 1000.0 + n,
                }
            )
        self.calls: list[str] = []

    def list_logs(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append("rimbridge/list_logs")
        after = arguments.get("afterSequence")
        rank = LEVELS.index(arguments.get("minimumLevel", "debug"))
        limit = arguments.get("limit", 100)
        wanted = [e for e in self.logs if LEVELS.index(e["level"]) >= rank]
        if arguments.get("operationId"):
            wanted = [e for e in wanted if e["operationId"] == arguments["operationId"]]
        page = (
            [e for e in wanted if e["latestSequence"] > after][:limit]
            if after is not None
            else wanted[-limit:]
        )
        return {
            "entries": page,
            "nextCursor": page[-1]["latestSequence"] if page else (after or -1),
            "truncated": False,
            "hasMore": len(page) == limit,
            "oldestSequence": 0,
            "latestSequence": 5999,
        }

    def get_operation(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append("rimbridge/get_operation")
        return {
            "operationId": arguments["operationId"],
            "method": "colony/load_game",
            "parentId": None,
            "rootId": arguments["operationId"],
            "status": "failed",
            "startedAt": 1000.0,
            "finishedAt": 1001.0,
            "argumentsSummary": '{"save": "colony1"}',
            "resultSummary": None,
            "error": "save file colony1 is truncated",
            "children": [],
            "eventsDropped": 0,
            "events": [
                {"index": 1, "kind": "started", "time": 1000.0, "message": None},
                {"index": 2, "kind": "log", "time": 1000.5, "message": "reading colony1"},
                {"index": 3, "kind": "failed", "time": 1001.0, "message": "save truncated"},
            ],
        }


TOOLS = [
    MirroredTool(
        "colony/draft",
        "Draft",
        "Draft or undraft a pawn.",
        {},
        {"description": "The pawn's draft state."},
    ),
    MirroredTool("colony/load_game", "Load", "Load a saved colony.", {}, {}),
    MirroredTool(
        "rimbridge/list_logs", "Logs", "Read the log ring from a cursor.", {}, {}, DIAGNOSTIC
    ),
    MirroredTool(
        "rimbridge/get_operation", "Operation", "One operation's record.", {}, {}, DIAGNOSTIC
    ),
]


def ledger() -> CallLedger:
    calls = CallLedger()
    for n in range(30):
        calls.record(
            "result",
            session_id="s",
            game_id="rw",
            tool="colony/list_pawns",
            operation_id=f"op-{n}",
            summary="ok",
            executed=True,
        )
    calls.record(
        "result",
        session_id="s",
        game_id="rw",
        tool="colony/load_game",
        operation_id="op-load-1",
        attention_id="att-9",
        arguments={"save": "colony1"},
        summary="ok; attention att-9 (caused_by_call)",
        executed=True,
    )
    calls.record(
        "blocked",
        session_id="s",
        game_id="rw",
        tool="colony/draft",
        attention_id="att-9",
        arguments={"pawn": "Tynan"},
        summary="not executed: blocked_by_attention",
        executed=False,
    )
    return calls


def assembler(game: RimbridgeLike) -> ContextAssembler:
    return ContextAssembler(
        ledger=ledger(),
        registry=InMemoryRegistry({"rw": TOOLS}),
        diagnostics=InMemoryDiagnostics(
            {"rimbridge/list_logs": game.list_logs, "rimbridge/get_operation": game.get_operation}
        ),
    )


async def test_the_default_blocked_call_context_shows_the_causal_call_and_trigger_lines() -> None:
    game = RimbridgeLike()
    assembled = await assembler(game).assemble(
        ContextRequest(
            game_id="rw",
            purpose="blocked_call",
            attention=ITEM,
            tool="colony/draft",
            arguments={"pawn": "Tynan"},
            session_id="s",
        )
    )
    text = assembled.context_text
    assert assembled.template_id == "default-blocked-call"
    assert (assembled.error, assembled.warnings, assembled.halting_reason) == (
        None,
        (),
        "satisfied",
    )
    assert "Attention att-9 (BLOCKING, error) in game rw" in text
    assert "Operation op-load-1: colony/load_game failed" in text
    assert "error: save file colony1 is truncated" in text
    assert (
        "Log #5001 [error] (world, tick 300060, operation op-load-1): "
        "Map lost while loading colony1" in text
    )
    assert "Log #5003 [warning]" in text and "Pawn Tynan has no map" in text
    assert 'Call ledger #31: result colony/load_game {"save":"colony1"}' in text
    assert "Tool colony/draft: Draft or undraft a pawn. Returns: The pawn's draft state." in text
    assert text.endswith("then retry colony/draft.")
    assert "tick 4999" not in text  # never a raw log tail
    assert estimate_tokens(text, 4) == assembled.budget_used.tokens <= 700
    assert assembled.budget_used.queries <= 6
    assert sorted(game.calls) == ["rimbridge/get_operation", "rimbridge/list_logs"]
    trace = trace_json(assembled)
    assert [(s["stage"], s["status"]) for s in trace["stages"]] == [
        ("scope", "ok"),
        ("item", "ok"),
        ("causal-operation", "ok"),
        ("trigger-logs", "ok"),
        ("causal-call", "ok"),
        ("attention-calls", "ok"),
        ("blocked-tool", "ok"),
        ("next-steps", "ok"),
        ("halting", "ok"),
        ("structure", "ok"),
    ]
    assert json.loads(json.dumps(trace)) == trace


async def test_the_default_inspection_and_attached_result_stay_within_their_budgets() -> None:
    game = RimbridgeLike()
    context = assembler(game)
    inspection = await context.assemble(
        ContextRequest(game_id="rw", purpose="inspection", attention=ITEM)
    )
    attached = await context.assemble(
        ContextRequest(
            game_id="rw", purpose="attached_result", attention=ITEM, tool="colony/load_game"
        )
    )
    assert (inspection.template_id, attached.template_id) == (
        "default-inspection",
        "default-attached-result",
    )
    assert inspection.budget_used.tokens <= 1600 and attached.budget_used.tokens <= 300
    assert (
        "Log #5001 [error]" in inspection.context_text
        and "Log #5001 [error]" in attached.context_text
    )
    assert len(attached.context_text) < len(inspection.context_text)
    none_open = await context.assemble(ContextRequest(game_id="rw", purpose="inspection"))
    assert none_open.context_text.startswith("No attention item is open in game rw.")


def test_the_shipped_schema_is_the_one_the_models_generate() -> None:
    shipped = json.loads(TEMPLATE_SCHEMA_PATH.read_text(encoding="utf-8"))
    assert shipped == template_json_schema(), (
        "regenerate with: uv run python -c 'from gabs.context import write_template_schema; "
        "write_template_schema()'"
    )


def test_the_default_templates_are_valid_under_the_shipped_schema() -> None:
    schema = json.loads(TEMPLATE_SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    for raw in DEFAULT_TEMPLATES_JSON:
        validator.validate(raw)
    errors = list(validator.iter_errors({"id": "x", "pipeline": [{"name": "a", "type": "nope"}]}))
    assert errors


# -- over the bridge's games ----------------------------------------------------------------------


class FakeSession:
    def __init__(self, tools: list[MirroredTool]) -> None:
        self.tools = {t.name: t for t in tools}
        self.connected = True
        self.capabilities = Capabilities(methods=["tools/call"], events=["attention/opened"])
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], *, timeout: float | None = None
    ) -> CallOutcome:
        self.sent.append((tool, arguments))
        return CallOutcome(
            executed=True, status="ok", tool=tool, operation_id="x", result={"entries": []}
        )


class FakeRuntime:
    def __init__(self, session: FakeSession | None) -> None:
        self.session = session


class FakeManager:
    def __init__(self, session: FakeSession | None) -> None:
        self._runtime = FakeRuntime(session)

    def runtime(self, game_id: str) -> FakeRuntime:
        if game_id != "rw":
            raise KeyError(f"no game {game_id!r} is configured")
        return self._runtime


async def test_game_diagnostics_only_calls_tools_tagged_read_only_or_diagnostic() -> None:
    session = FakeSession(
        [
            *TOOLS,
            MirroredTool("colony/spawn", "Spawn", "Spawn things.", {}, {}, ("dev", "status")),
        ]
    )
    diagnostics = GameDiagnostics(FakeManager(session))  # type: ignore[arg-type]
    assert await diagnostics.call("rw", "rimbridge/list_logs", {"limit": 1}) == {"entries": []}
    for tool in ("colony/spawn", "colony/draft", "rimbridge/read_logs"):
        with pytest.raises(DiagnosticsRefused):
            await diagnostics.call("rw", tool, {})
    assert session.sent == [("rimbridge/list_logs", {"limit": 1})]


async def test_game_sources_report_a_game_that_is_not_connected() -> None:
    registry = GameRegistry(FakeManager(None))  # type: ignore[arg-type]
    diagnostics = GameDiagnostics(FakeManager(None))  # type: ignore[arg-type]
    with pytest.raises(ContextSourceError, match="not connected"):
        registry.tools("rw")
    with pytest.raises(ContextSourceError, match="not connected"):
        await diagnostics.call("rw", "rimbridge/list_logs", {})
    with pytest.raises(ContextSourceError, match="no game"):
        registry.tools("other")


def test_game_registry_reads_the_mirrored_tools_and_capabilities() -> None:
    registry = GameRegistry(FakeManager(FakeSession(TOOLS)))  # type: ignore[arg-type]
    assert [t.name for t in registry.tools("rw")] == [t.name for t in TOOLS]
    capabilities = registry.capabilities("rw")
    assert capabilities is not None and capabilities["methods"] == ["tools/call"]


async def test_a_failed_diagnostics_call_is_an_error_not_a_result() -> None:
    session = FakeSession(TOOLS)

    async def failing(
        tool: str, arguments: dict[str, Any], *, timeout: float | None = None
    ) -> CallOutcome:
        return CallOutcome(
            executed=True,
            status="error",
            tool=tool,
            error={"code": -32000, "message": "ring closed"},
        )

    session.call_tool = failing  # type: ignore[method-assign]
    with pytest.raises(ContextSourceError, match="failed: ring closed"):
        await GameDiagnostics(FakeManager(session)).call("rw", "rimbridge/list_logs", {})  # type: ignore[arg-type]


async def test_local_files_read_only_configured_files_within_max_bytes(tmp_path: Path) -> None:
    log = tmp_path / "game.log"
    log.write_text("first line\n" + "x" * 100 + "\nlast line\n", encoding="utf-8")
    secret = tmp_path / "token.txt"
    secret.write_text("s3cret", encoding="utf-8")
    files = LocalFiles({"rw:launch-log": log})
    tail = await files.read("rw:launch-log", max_bytes=10, tail=True)
    assert (tail.text, tail.truncated, tail.size) == ("last line\n", True, 122)
    head = await files.read(str(log), max_bytes=10)
    assert head.text == "first line"
    with pytest.raises(ContextSourceError, match="not configured"):
        await files.read(str(secret), max_bytes=100)
    with pytest.raises(ContextSourceError, match="not configured"):
        await files.read("../token.txt", max_bytes=100)
    log.unlink()
    with pytest.raises(ContextSourceError, match="rw:launch-log"):
        await files.read("rw:launch-log", max_bytes=10)
