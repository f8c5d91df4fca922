"""Context assembly: resolution, merge, stages, budget, output, cache, estimation, invariants.

The handoff's 40 behaviours, retargeted to the bridge's sources (call ledger, tool registry,
operator files, read-only game diagnostics), with in-memory sources and a fake clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gabp.messages import Attention
from gabs.context import (
    AssembledContext,
    BudgetUsed,
    ContextAssembler,
    ContextFragment,
    ContextRequest,
    InMemoryDiagnostics,
    InMemoryFiles,
    InMemoryRegistry,
    StageResult,
    TemplateError,
    TemplateSet,
    estimate_tokens,
    trace_json,
)
from gabs.game_tools import MirroredTool
from gabs.ledger import CallLedger

LEVELS = ("debug", "info", "warning", "error", "fatal")


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def attention(**changes: Any) -> Attention:
    base = {
        "attentionId": "att-3",
        "state": "open",
        "severity": "error",
        "blocking": True,
        "stateInvalidated": False,
        "summary": "error: Map lost after loading",
        "openedAtSequence": 42,
        "latestSequence": 44,
        "totalUrgentEntries": 2,
        "causalOperationId": "op-7",
        "causalMethod": "colony/load_game",
        "diagnosticsCursor": 41,
        "sample": [
            {"level": "error", "message": "Map lost", "repeatCount": 2, "latestSequence": 44}
        ],
    }
    return Attention.model_validate(base | changes)


class FakeGame:
    """Diagnostics shaped like rimbridge's list_logs and get_operation."""

    def __init__(self, lines: int = 60, trigger: int = 42) -> None:
        self.logs = [
            {
                "sequence": n,
                "level": "error" if n == trigger else "info",
                "message": "Map lost: the save file is truncated" if n == trigger else f"tick {n}",
                "source": "world",
                "tick": n,
                "operationId": "op-7" if n == trigger else None,
                "rootOperationId": "op-7" if n == trigger else None,
                "repeatCount": 1,
            }
            for n in range(lines)
        ]
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def list_logs(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append(("rimbridge/list_logs", dict(arguments)))
        after = arguments.get("afterSequence", -1)
        rank = LEVELS.index(arguments.get("minimumLevel", "debug"))
        limit = arguments.get("limit", 50)
        operation = arguments.get("operationId")
        found = [
            e
            for e in self.logs
            if e["sequence"] > after
            and LEVELS.index(e["level"]) >= rank
            and (operation is None or e["operationId"] == operation)
        ]
        page = found[:limit]
        return {
            "entries": page,
            "nextCursor": page[-1]["sequence"] if page else after,
            "truncated": False,
            "hasMore": len(found) > limit,
        }

    def get_operation(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append(("rimbridge/get_operation", dict(arguments)))
        return {
            "operationId": arguments["operationId"],
            "method": "colony/load_game",
            "status": "failed",
            "error": "the save file is truncated",
            "argumentsSummary": '{"save":"colony1"}',
            "children": [],
            "events": [{"kind": "started", "message": None}, {"kind": "failed", "message": "boom"}],
        }

    def diagnostics(self) -> InMemoryDiagnostics:
        return InMemoryDiagnostics(
            {"rimbridge/list_logs": self.list_logs, "rimbridge/get_operation": self.get_operation}
        )


TOOLS = [
    MirroredTool(
        "colony/draft", "Draft", "Draft a pawn.", {}, {"description": "The drafted pawn."}
    ),
    MirroredTool("colony/load_game", "Load", "Load a saved game.", {}, {}),
    MirroredTool(
        "rimbridge/list_logs", "Logs", "Read the log ring.", {}, {}, ("diagnostic", "read-only")
    ),
]


def registry() -> InMemoryRegistry:
    return InMemoryRegistry({"rw": TOOLS}, capabilities={"rw": {"methods": ["tools/call"]}})


def filled_ledger() -> CallLedger:
    ledger = CallLedger()
    ledger.record(
        "result",
        session_id="s",
        game_id="rw",
        tool="colony/load_game",
        operation_id="op-7",
        attention_id="att-3",
        arguments={"save": "colony1"},
        summary="ok; attention att-3 (caused_by_call)",
        executed=True,
    )
    ledger.record(
        "blocked",
        session_id="s",
        game_id="rw",
        tool="colony/draft",
        attention_id="att-3",
        arguments={"pawn": "Tynan"},
        summary="not executed",
        executed=False,
    )
    return ledger


def template(template_id: str, pipeline: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": template_id, "pipeline": pipeline, **extra}


def make(
    templates: list[dict[str, Any]],
    *,
    clock: FakeClock | None = None,
    game: FakeGame | None = None,
    **sources: Any,
) -> ContextAssembler:
    sources.setdefault("ledger", filled_ledger())
    sources.setdefault("registry", registry())
    sources.setdefault("diagnostics", (game or FakeGame()).diagnostics())
    return ContextAssembler(
        TemplateSet(templates, defaults=()), clock=clock or FakeClock(), **sources
    )


def request(**changes: Any) -> ContextRequest:
    base: dict[str, Any] = {
        "game_id": "rw",
        "purpose": "blocked_call",
        "attention": attention(),
        "tool": "colony/draft",
    }
    return ContextRequest(**(base | changes))


ITEM = {"name": "item", "type": "attention"}
LEDGER = {
    "name": "calls",
    "type": "ledger_query",
    "config": {"attentionId": "{attention.attentionId}"},
}
STRUCTURE = {"name": "structure", "type": "structuring"}


def stages(assembled: AssembledContext) -> list[tuple[str, str]]:
    return [(s.stage, s.status) for s in assembled.pipeline_trace]


# -- template resolution ------------------------------------------------------------------------


def test_resolve_by_purpose() -> None:
    templates = TemplateSet(
        [
            template("inspect", [ITEM], appliesTo={"purpose": "inspection"}),
            template("blocked", [ITEM], appliesTo={"purpose": "blocked_call"}),
        ],
        defaults=(),
    )
    chosen, warnings = templates.resolve(request())
    assert (chosen.id, warnings) == ("blocked", [])


def test_resolve_by_game_id_outranks_purpose_and_severity() -> None:
    templates = TemplateSet(
        [
            template("by-purpose", [ITEM], appliesTo={"purpose": "blocked_call"}),
            template("by-game", [ITEM], appliesTo={"gameId": "rw"}),
            template(
                "by-both-others", [ITEM], appliesTo={"purpose": "blocked_call", "severity": "error"}
            ),
        ],
        defaults=(),
    )
    assert templates.resolve(request())[0].id == "by-game"


def test_resolve_by_severity() -> None:
    templates = TemplateSet(
        [
            template("fatal", [ITEM], appliesTo={"severity": "fatal"}),
            template("error", [ITEM], appliesTo={"severity": "error"}),
        ],
        defaults=(),
    )
    assert templates.resolve(request())[0].id == "error"
    assert templates.resolve(request(severity="fatal"))[0].id == "fatal"


def test_specificity_order_is_game_then_purpose_then_severity() -> None:
    raw = [
        template("any", [ITEM]),
        template("severity", [ITEM], appliesTo={"severity": "error"}),
        template("purpose", [ITEM], appliesTo={"purpose": "blocked_call"}),
        template(
            "purpose+severity", [ITEM], appliesTo={"purpose": "blocked_call", "severity": "error"}
        ),
        template("game", [ITEM], appliesTo={"gameId": "rw"}),
    ]
    order = []
    while raw:
        chosen = TemplateSet(raw, defaults=()).resolve(request())[0].id
        order.append(chosen)
        raw = [t for t in raw if t["id"] != chosen]
    assert order == ["game", "purpose+severity", "purpose", "severity", "any"]


def test_no_match_uses_the_minimal_default_and_warns() -> None:
    templates = TemplateSet(
        [template("inspect", [ITEM], appliesTo={"purpose": "inspection"})], defaults=()
    )
    chosen, warnings = templates.resolve(request())
    assert chosen.id == "minimal"
    assert warnings == [
        "no context template matches game 'rw', purpose 'blocked_call', severity 'error'; "
        "using 'minimal'"
    ]


async def test_two_matches_at_the_same_specificity_fail_closed_naming_both() -> None:
    assembler = make(
        [
            template("first", [ITEM], appliesTo={"purpose": "blocked_call"}),
            template("second", [ITEM], appliesTo={"purpose": "blocked_call"}),
        ]
    )
    assembled = await assembler.assemble(request())
    assert assembled.error is not None
    assert "'first'" in assembled.error and "'second'" in assembled.error
    assert (assembled.context_text, assembled.halting_reason) == ("", "fallback")


async def test_template_override_bypasses_matching_and_an_unknown_one_fails() -> None:
    assembler = make(
        [
            template("matching", [ITEM], appliesTo={"purpose": "blocked_call"}),
            template("forced", [ITEM, STRUCTURE], appliesTo={"purpose": "inspection"}),
        ]
    )
    assert (await assembler.assemble(request(template_override="forced"))).template_id == "forced"
    missing = await assembler.assemble(request(template_override="nope"))
    assert missing.error == "no context template 'nope'"


def test_config_templates_come_before_the_defaults_and_replace_them_by_id() -> None:
    own = template("mine", [ITEM], appliesTo={"purpose": "blocked_call"})
    assert TemplateSet([own]).resolve(request())[0].id == "mine"
    assert TemplateSet([]).resolve(request())[0].id == "default-blocked-call"
    replaced = TemplateSet([template("default-blocked-call", [ITEM])])
    chosen = replaced.resolve(request())[0]
    assert (chosen.id, len(chosen.pipeline)) == ("default-blocked-call", 1)


def test_an_invalid_template_is_refused_naming_the_field() -> None:
    bad = template("bad", [{"name": "x", "type": "ledger_query", "config": {"limit": 0}}])
    with pytest.raises(TemplateError, match=r"context template bad: pipeline\.0\.ledger_query"):
        TemplateSet([bad])
    with pytest.raises(TemplateError, match="unique"):
        TemplateSet([template("a", [ITEM, ITEM])])
    with pytest.raises(TemplateError, match="ids must be unique"):
        TemplateSet([template("a", [ITEM]), template("a", [ITEM])])


# -- required-context merge ---------------------------------------------------------------------


async def test_merge_adds_the_games_ledger_queries_as_ledger_stages() -> None:
    assembler = make([template("t", [ITEM, STRUCTURE])])
    assembled = await assembler.assemble(
        request(required_context={"ledgerQueries": [{"kinds": ["blocked"], "limit": 1}]})
    )
    assert stages(assembled) == [("item", "ok"), ("required:ledger:1", "ok"), ("structure", "ok")]
    assert "Call ledger #2: blocked colony/draft" in assembled.context_text


async def test_merge_turns_tool_refs_into_a_registry_stage() -> None:
    assembler = make([template("t", [ITEM, STRUCTURE])])
    assembled = await assembler.assemble(
        request(required_context={"toolRefs": ["colony/load_game"]})
    )
    assert ("required:tools", "ok") in stages(assembled)
    assert "Tool colony/load_game: Load a saved game." in assembled.context_text


async def test_merge_turns_file_refs_into_a_file_stage() -> None:
    assembler = make(
        [template("t", [ITEM, STRUCTURE])], files=InMemoryFiles({"rw:log": "started\nloaded"})
    )
    assembled = await assembler.assemble(request(required_context={"fileRefs": ["rw:log"]}))
    assert ("required:files", "ok") in stages(assembled)
    assert "File rw:log:\nstarted\nloaded" in assembled.context_text


async def test_template_stages_take_priority_and_are_not_duplicated() -> None:
    pipeline = [
        ITEM,
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
        {"name": "calls", "type": "ledger_query", "config": {"kinds": ["blocked"], "limit": 1}},
        STRUCTURE,
    ]
    assembler = make([template("t", pipeline)])
    assembled = await assembler.assemble(
        request(
            required_context={
                "ledgerQueries": [{"kinds": ["blocked"], "limit": 1}],
                "toolRefs": ["colony/draft", "colony/load_game"],
            }
        )
    )
    assert [s.stage for s in assembled.pipeline_trace] == [
        "item",
        "tools",
        "calls",
        "required:tools",
        "structure",
    ]
    assert assembled.context_text.count("Tool colony/draft") == 1


# -- pipeline execution -------------------------------------------------------------------------


async def test_stages_run_in_the_order_the_template_gives() -> None:
    pipeline = [
        {"name": "tools", "type": "registry_query", "config": {"tools": ["{request.tool}"]}},
        LEDGER,
        ITEM,
    ]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert [s.stage for s in assembled.pipeline_trace] == ["tools", "calls", "item"]
    assert assembled.context_text.index("Tool colony/draft") < assembled.context_text.index(
        "Attention att-3"
    )


async def test_a_disabled_stage_is_skipped_and_recorded() -> None:
    pipeline = [ITEM, {**LEDGER, "enabled": False}]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert assembled.pipeline_trace[1] == StageResult(
        stage="calls",
        type="ledger_query",
        fragments_produced=0,
        tokens_produced=0,
        duration_ms=0.0,
        status="skipped",
        detail="disabled",
        queries=0,
    )
    assert "Call ledger" not in assembled.context_text


async def test_ledger_query_produces_one_fragment_per_matching_entry() -> None:
    assembled = await make([template("t", [LEDGER])]).assemble(request())
    assert [(f.source, f.source_id, f.stage) for f in assembled.fragments] == [
        ("ledger", "ledger#1", "calls"),
        ("ledger", "ledger#2", "calls"),
    ]
    assert assembled.fragments[0].content == (
        'Call ledger #1: result colony/load_game {"save":"colony1"} (operation op-7, attention '
        "att-3, executed=true): ok; attention att-3 (caused_by_call)"
    )


async def test_registry_query_produces_descriptors_with_result_descriptions() -> None:
    pipeline = [
        {
            "name": "tools",
            "type": "registry_query",
            "config": {
                "tools": ["{request.tool}"],
                "tags": ["diagnostic"],
                "includeCapabilities": True,
            },
        }
    ]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert [f.content for f in assembled.fragments] == [
        "Tool colony/draft: Draft a pawn. Returns: The drafted pawn.",
        "Tool rimbridge/list_logs: Read the log ring. [tags: diagnostic, read-only]",
        "Game rw capabilities: methods tools/call; events -",
    ]
    assert assembled.budget_used.queries == 2


async def test_file_read_produces_the_files_content_within_max_bytes() -> None:
    files = InMemoryFiles({"rw:log": "line one\nline two\nline three"})
    pipeline = [
        {
            "name": "log",
            "type": "file_read",
            "config": {"paths": ["rw:log"], "maxBytes": 10, "tail": True},
        }
    ]
    assembled = await make([template("t", pipeline)], files=files).assemble(request())
    assert [f.content for f in assembled.fragments] == [
        "File rw:log (last 10 of 28 bytes):\nline three"
    ]


async def test_a_missing_file_warns_and_the_pipeline_continues() -> None:
    pipeline = [{"name": "log", "type": "file_read", "config": {"paths": ["gone"]}}, ITEM]
    assembled = await make([template("t", pipeline)], files=InMemoryFiles({})).assemble(request())
    assert stages(assembled) == [("log", "empty"), ("item", "ok")]
    assert assembled.warnings == ("stage log: file 'gone' not found",)
    assert assembled.error is None


async def test_diagnostics_query_fills_argument_templates_from_the_item() -> None:
    game = FakeGame()
    pipeline = [
        {
            "name": "op",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/get_operation",
                "arguments": {"operationId": "{attention.causalOperationId}"},
                "requires": ["operationId"],
            },
        },
        {
            "name": "logs",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/list_logs",
                "arguments": {"afterSequence": "{attention.diagnosticsCursor}", "limit": 2},
            },
        },
    ]
    assembled = await make([template("t", pipeline)], game=game).assemble(request())
    assert game.calls == [
        ("rimbridge/get_operation", {"operationId": "op-7"}),
        ("rimbridge/list_logs", {"afterSequence": 41, "limit": 2}),
    ]
    assert [f.source_id for f in assembled.fragments] == [
        "rimbridge/get_operation:op-7",
        "rimbridge/list_logs#42",
        "rimbridge/list_logs#43",
    ]
    skipped = await make([template("t", pipeline)], game=game).assemble(
        request(attention=attention(causalOperationId=None))
    )
    assert skipped.pipeline_trace[0].status == "skipped"


async def test_diagnostics_query_follows_pages_up_to_its_limit() -> None:
    game = FakeGame()
    pipeline = [
        {
            "name": "logs",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/list_logs",
                "arguments": {"afterSequence": 9, "limit": 2},
                "pages": 3,
                "maxItems": 10,
            },
        }
    ]
    assembled = await make([template("t", pipeline)], game=game).assemble(request())
    assert [c[1]["afterSequence"] for c in game.calls] == [9, 11, 13]
    assert len(assembled.fragments) == 6
    assert assembled.budget_used.queries == 3


async def test_scope_select_limits_the_sources_later_stages_use() -> None:
    pipeline = [
        {"name": "scope", "type": "scope_select", "config": {"sources": ["registry"]}},
        LEDGER,
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
    ]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert stages(assembled) == [("scope", "ok"), ("calls", "skipped"), ("tools", "ok")]
    assert assembled.pipeline_trace[1].detail == "source ledger is not in scope"


async def test_horizontal_search_scores_candidates_across_sources() -> None:
    pipeline = [
        {
            "name": "search",
            "type": "horizontal_search",
            "config": {
                "query": "map lost truncated save",
                "sources": ["ledger", "registry", "diagnostics"],
                "relevanceThreshold": 0.5,
                "maxResults": 5,
                "diagnostics": [
                    {"tool": "rimbridge/list_logs", "arguments": {"afterSequence": -1}}
                ],
            },
        }
    ]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert [(f.source, f.source_id, f.relevance_score) for f in assembled.fragments] == [
        ("diagnostics", "rimbridge/list_logs#42", 1.0)
    ]
    assert assembled.budget_used.queries == 3
    assert assembled.pipeline_trace[0].detail.startswith(
        "query 'map lost truncated save': 1 of 55 candidates at or above 0.5, kept 1"
    )


async def test_horizontal_search_uses_a_registered_scorer() -> None:
    class Everything:
        def score(self, query: str, texts: Any, *, min_term_length: int) -> list[float]:
            return [0.75] * len(texts)

    pipeline = [
        {
            "name": "search",
            "type": "horizontal_search",
            "config": {"query": "x", "sources": ["registry"], "scorer": "all", "maxResults": 2},
        }
    ]
    assembler = make([template("t", pipeline)])
    assembler.scorers["all"] = Everything()
    assembled = await assembler.assemble(request())
    assert [f.relevance_score for f in assembled.fragments] == [0.75, 0.75]


async def test_structuring_deduplicates_overlapping_content() -> None:
    def twice(req: ContextRequest, config: Mapping[str, Any]) -> list[ContextFragment]:
        return [
            ContextFragment("search", "a", "Map lost", 2, 0.4),
            ContextFragment("search", "b", "Map lost", 2, 0.9),
            ContextFragment("search", "c", "Map lost while loading colony1", 8, 0.5),
        ]

    pipeline = [{"name": "x", "type": "custom", "config": {"handler": "twice"}}, STRUCTURE]
    assembler = make([template("t", pipeline)])
    assembler.register_handler("twice", twice)
    assembled = await assembler.assemble(request())
    assert [f.source_id for f in assembled.fragments] == ["c"]
    assert assembled.dropped == ("search:a", "search:b")
    assert assembled.pipeline_trace[-1].detail == (
        "strategy hierarchical, 1 fragment(s); removed 2 duplicate(s)"
    )


async def test_structuring_truncates_the_lowest_relevance_fragments_to_its_cap() -> None:
    def many(req: ContextRequest, config: Mapping[str, Any]) -> list[ContextFragment]:
        return [
            ContextFragment("search", str(n), f"fragment {n} " + "x" * 26, 10, n / 10)
            for n in range(5)
        ]

    pipeline = [
        {"name": "x", "type": "custom", "config": {"handler": "many"}},
        {
            "name": "structure",
            "type": "structuring",
            "config": {"strategy": "relevance", "maxTokens": 20},
        },
    ]
    assembler = make([template("t", pipeline)], handlers={"many": many})
    assembled = await assembler.assemble(request())
    assert [f.source_id for f in assembled.fragments] == ["4", "3"]
    assert assembled.pipeline_trace[-1].status == "truncated"
    assert assembled.budget_used.tokens <= 20


async def test_structuring_orders_chronologically_when_asked() -> None:
    pipeline = [
        {
            "name": "logs",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/list_logs",
                "arguments": {"afterSequence": 3, "limit": 2},
            },
        },
        {
            "name": "early",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/list_logs",
                "arguments": {"afterSequence": 0, "limit": 2},
            },
        },
        {"name": "structure", "type": "structuring", "config": {"strategy": "chronological"}},
    ]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert [f.source_id.split("#")[1] for f in assembled.fragments] == ["1", "2", "4", "5"]


async def test_halting_when_satisfied_stops_gathering_explicitly() -> None:
    pipeline = [
        ITEM,
        {"name": "halt", "type": "halting", "config": {"minFragments": 1}},
        LEDGER,
        STRUCTURE,
    ]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert stages(assembled) == [
        ("item", "ok"),
        ("halt", "ok"),
        ("calls", "skipped"),
        ("structure", "ok"),
    ]
    assert assembled.halting_reason == "satisfied"
    assert assembled.halting_detail == (
        "halt: satisfied: stop gathering (fragments 1/1, tokens 57/0, coverage 1.00/1)"
    )


async def test_halting_when_unsatisfied_reruns_search_with_relaxed_parameters() -> None:
    pipeline = [
        {
            "name": "search",
            "type": "horizontal_search",
            "config": {
                "query": "map lost truncated save",
                "sources": ["diagnostics"],
                "relevanceThreshold": 0.8,
                "maxResults": 1,
                "diagnostics": [
                    {"tool": "rimbridge/list_logs", "arguments": {"afterSequence": -1}}
                ],
            },
        },
        {
            "name": "halt",
            "type": "halting",
            "config": {"minFragments": 2, "maxReruns": 2, "relaxFactor": 0.1},
        },
    ]
    game = FakeGame()
    game.logs[10]["message"] = "the save was truncated"
    assembled = await make([template("t", pipeline)], game=game).assemble(request())
    assert stages(assembled) == [("search", "ok"), ("search#rerun1", "ok"), ("halt", "ok")]
    assert [f.source_id for f in assembled.fragments] == [
        "rimbridge/list_logs#42",
        "rimbridge/list_logs#10",
    ]
    assert assembled.halting_reason == "satisfied"
    assert assembled.budget_used.queries == 2


async def test_halting_records_an_unsatisfied_decision_and_continues() -> None:
    pipeline = [ITEM, {"name": "halt", "type": "halting", "config": {"minFragments": 5}}, LEDGER]
    assembled = await make([template("t", pipeline)]).assemble(request())
    assert assembled.pipeline_trace[1].detail.startswith("not satisfied: continue; fragments 1/5")
    assert assembled.pipeline_trace[1].detail.endswith("no search stage to re-run")
    assert (assembled.halting_reason, len(assembled.fragments)) == ("completed", 3)


async def test_a_custom_stage_calls_its_registered_handler_with_its_config() -> None:
    seen: list[Any] = []

    async def handler(req: ContextRequest, config: Mapping[str, Any]) -> list[ContextFragment]:
        seen.append((req.game_id, dict(config)))
        return [ContextFragment("search", "custom-1", "from the handler", 4, 0.5)]

    pipeline = [{"name": "mine", "type": "custom", "config": {"handler": "h", "depth": 3}}]
    assembled = await make([template("t", pipeline)], handlers={"h": handler}).assemble(request())
    assert seen == [("rw", {"handler": "h", "depth": 3})]
    assert assembled.fragments == (
        ContextFragment("search", "custom-1", "from the handler", 4, 0.5, stage="mine"),
    )
    unknown = await make(
        [template("t", [{"name": "x", "type": "custom", "config": {"handler": "?"}}])]
    ).assemble(request())
    assert unknown.warnings == (
        "stage x (custom) failed: no custom handler '?' is registered",
        "no context was assembled (onEmpty: proceed_empty)",
    )


# -- budget ---------------------------------------------------------------------------------------


async def test_the_token_budget_stops_the_pipeline() -> None:
    pipeline = [
        ITEM,
        LEDGER,
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
        STRUCTURE,
    ]
    assembled = await make([template("t", pipeline, budget={"maxContextTokens": 60})]).assemble(
        request()
    )
    assert stages(assembled) == [
        ("item", "ok"),
        ("calls", "ok"),
        ("tools", "skipped"),
        ("structure", "truncated"),
    ]
    assert assembled.pipeline_trace[2].detail.startswith("budget: maxContextTokens 60 reached")
    assert assembled.halting_reason == "budget"
    assert assembled.budget_used.tokens <= 60


async def test_the_query_budget_stops_the_pipeline_before_one_more_query() -> None:
    game = FakeGame()
    pipeline = [
        LEDGER,
        {
            "name": "op",
            "type": "diagnostics_query",
            "config": {"tool": "rimbridge/get_operation", "arguments": {"operationId": "op-7"}},
        },
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
    ]
    assembled = await make([template("t", pipeline, budget={"maxQueries": 1})], game=game).assemble(
        request()
    )
    assert stages(assembled) == [("calls", "ok"), ("op", "budget"), ("tools", "skipped")]
    assert game.calls == []
    assert assembled.budget_used.queries == 1
    assert assembled.halting_reason == "budget"


async def test_the_timeout_stops_the_pipeline() -> None:
    clock = FakeClock()

    def slow(arguments: Mapping[str, Any]) -> dict[str, Any]:
        clock.advance(0.3)
        return {"entries": []}

    diagnostics = InMemoryDiagnostics({"rimbridge/list_logs": slow})
    call = {"type": "diagnostics_query", "config": {"tool": "rimbridge/list_logs"}}
    pipeline = [ITEM, {"name": "a", **call}, {"name": "b", **call}, LEDGER]
    assembled = await make(
        [template("t", pipeline, budget={"timeoutMs": 500})], clock=clock, diagnostics=diagnostics
    ).assemble(request())
    assert stages(assembled) == [
        ("item", "ok"),
        ("a", "empty"),
        ("b", "empty"),
        ("calls", "skipped"),
    ]
    assert assembled.pipeline_trace[-1].detail == "budget: timeoutMs 500 reached"
    assert assembled.budget_used.elapsed_ms == pytest.approx(600.0)


async def test_a_source_that_does_not_answer_is_cut_off_at_the_timeout() -> None:
    async def hang(arguments: Mapping[str, Any]) -> None:
        await anyio.sleep_forever()

    diagnostics = InMemoryDiagnostics({"rimbridge/list_logs": hang})
    pipeline = [
        ITEM,
        {"name": "hang", "type": "diagnostics_query", "config": {"tool": "rimbridge/list_logs"}},
        LEDGER,
    ]
    assembler = ContextAssembler(
        TemplateSet([template("t", pipeline, budget={"timeoutMs": 50})], defaults=()),
        diagnostics=diagnostics,
        ledger=filled_ledger(),
    )
    with anyio.fail_after(5):
        assembled = await assembler.assemble(request())
    assert stages(assembled) == [("item", "ok"), ("hang", "timeout"), ("calls", "skipped")]
    assert (assembled.halting_reason, assembled.error) == ("budget", None)
    assert "Attention att-3" in assembled.context_text


async def test_fallback_return_partial_keeps_what_was_gathered() -> None:
    pipeline = [
        ITEM,
        LEDGER,
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
    ]
    assembled = await make(
        [
            template(
                "t", pipeline, budget={"maxQueries": 1}, fallback={"onTimeout": "return_partial"}
            )
        ]
    ).assemble(request())
    assert [f.source for f in assembled.fragments] == ["attention", "ledger", "ledger"]
    assert assembled.warnings[-1] == "budget: maxQueries 1 reached; returned the partial context"
    assert (assembled.halting_reason, assembled.error) == ("budget", None)


async def test_fallback_fail_returns_an_error_and_no_context() -> None:
    pipeline = [
        ITEM,
        LEDGER,
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
    ]
    assembled = await make(
        [template("t", pipeline, budget={"maxQueries": 1}, fallback={"onTimeout": "fail"})]
    ).assemble(request())
    assert assembled.error == (
        "context budget exhausted (maxQueries 1 reached) and onTimeout is fail"
    )
    assert (assembled.context_text, assembled.fragments, assembled.halting_reason) == (
        "",
        (),
        "fallback",
    )
    assert len(assembled.pipeline_trace) == 3


async def test_fallback_use_cached_returns_the_last_context_for_the_item() -> None:
    game = FakeGame()
    budget_calls = {"n": 0}

    def flaky(arguments: Mapping[str, Any]) -> dict[str, Any]:
        budget_calls["n"] += 1
        return game.list_logs(arguments)

    pipeline = [
        ITEM,
        {
            "name": "logs",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/list_logs",
                "arguments": {"afterSequence": 41, "limit": 1},
            },
        },
        LEDGER,
    ]
    raw = template("t", pipeline, budget={"maxQueries": 2}, fallback={"onTimeout": "use_cached"})
    assembler = make([raw], diagnostics=InMemoryDiagnostics({"rimbridge/list_logs": flaky}))
    first = await assembler.assemble(request())
    assert first.halting_reason == "completed"
    tighter = make(
        [{**raw, "budget": {"maxQueries": 1}}],
        diagnostics=InMemoryDiagnostics({"rimbridge/list_logs": flaky}),
    )
    tighter._last = assembler._last  # same process, same item: what a config reload keeps
    second = await tighter.assemble(request(attention=attention(latestSequence=50)))
    assert second.context_text == first.context_text
    assert (second.halting_reason, second.from_cache) == ("fallback", True)
    assert second.warnings[-1] == (
        "budget: maxQueries 1 reached; returned the last context assembled for this item"
    )
    nothing_cached = await make([{**raw, "budget": {"maxQueries": 1}}]).assemble(request())
    assert nothing_cached.halting_reason == "budget"


async def test_fallback_on_empty_proceed_returns_an_empty_context() -> None:
    pipeline = [{"name": "calls", "type": "ledger_query", "config": {"tool": "nothing/here"}}]
    assembled = await make(
        [template("t", pipeline, fallback={"onEmpty": "proceed_empty"})]
    ).assemble(request())
    assert (assembled.context_text, assembled.error, assembled.halting_reason) == (
        "",
        None,
        "completed",
    )
    assert assembled.warnings == ("no context was assembled (onEmpty: proceed_empty)",)


async def test_fallback_on_empty_fail_returns_an_error() -> None:
    pipeline = [{"name": "calls", "type": "ledger_query", "config": {"tool": "nothing/here"}}]
    assembled = await make([template("t", pipeline, fallback={"onEmpty": "fail"})]).assemble(
        request()
    )
    assert assembled.error == "no context was assembled and onEmpty is fail"
    assert assembled.halting_reason == "fallback"


# -- output ---------------------------------------------------------------------------------------


async def test_the_context_hash_is_the_sha256_of_the_text() -> None:
    assembled = await make([template("t", [ITEM, LEDGER])]).assemble(request())
    assert assembled.context_hash == hashlib.sha256(assembled.context_text.encode()).hexdigest()


async def test_every_stage_is_in_the_trace_and_the_trace_is_json() -> None:
    pipeline = [ITEM, LEDGER, {**LEDGER, "name": "off", "enabled": False}, STRUCTURE]
    assembled = await make([template("t", pipeline)]).assemble(request())
    trace = trace_json(assembled)
    assert [s["stage"] for s in trace["stages"]] == ["item", "calls", "off", "structure"]
    assert trace["templateId"] == "t"
    assert trace["haltingReason"] == "completed"
    assert [f["sourceId"] for f in trace["fragments"]] == ["att-3", "ledger#1", "ledger#2"]
    assert "content" not in trace["fragments"][0]


async def test_the_budget_used_is_reported() -> None:
    clock = FakeClock()

    def timed(arguments: Mapping[str, Any]) -> dict[str, Any]:
        clock.advance(0.25)
        return {"entries": [{"sequence": 1, "level": "error", "message": "x"}]}

    pipeline = [
        ITEM,
        LEDGER,
        {"name": "d", "type": "diagnostics_query", "config": {"tool": "rimbridge/list_logs"}},
    ]
    assembled = await make(
        [
            template(
                "t", pipeline, budget={"maxContextTokens": 500, "maxQueries": 5, "timeoutMs": 900}
            )
        ],
        clock=clock,
        diagnostics=InMemoryDiagnostics({"rimbridge/list_logs": timed}),
    ).assemble(request())
    assert assembled.budget_used == BudgetUsed(
        tokens=estimate_tokens(assembled.context_text, 4),
        queries=2,
        elapsed_ms=250.0,
        max_context_tokens=500,
        max_queries=5,
        timeout_ms=900,
    )


async def test_warnings_from_every_stage_are_collected() -> None:
    pipeline = [
        {"name": "log", "type": "file_read", "config": {"paths": ["gone"]}},
        {"name": "tools", "type": "registry_query", "config": {"tools": ["no/such"]}},
        {"name": "x", "type": "custom", "config": {"handler": "missing"}},
    ]
    assembled = await make([template("t", pipeline)], files=InMemoryFiles({})).assemble(request())
    assert assembled.warnings == (
        "stage log: file 'gone' not found",
        "stage tools: tool no/such not found in game rw",
        "stage x (custom) failed: no custom handler 'missing' is registered",
        "no context was assembled (onEmpty: proceed_empty)",
    )


# -- cache ----------------------------------------------------------------------------------------


async def test_the_same_key_within_the_ttl_is_served_from_the_cache() -> None:
    game = FakeGame()
    pipeline = [
        ITEM,
        {
            "name": "op",
            "type": "diagnostics_query",
            "config": {"tool": "rimbridge/get_operation", "arguments": {"operationId": "op-7"}},
        },
    ]
    assembler = make([template("t", pipeline, cacheTtlSeconds=10)], game=game)
    first = await assembler.assemble(request())
    second = await assembler.assemble(request())
    assert (first.from_cache, second.from_cache) == (False, True)
    assert second.context_text == first.context_text
    assert len(game.calls) == 1


async def test_a_different_key_runs_the_pipeline() -> None:
    game = FakeGame()
    pipeline = [
        ITEM,
        {
            "name": "op",
            "type": "diagnostics_query",
            "config": {"tool": "rimbridge/get_operation", "arguments": {"operationId": "op-7"}},
        },
    ]
    assembler = make([template("t", pipeline, cacheTtlSeconds=10)], game=game)
    await assembler.assemble(request())
    newer = await assembler.assemble(request(attention=attention(latestSequence=45)))
    other_item = await assembler.assemble(request(attention=attention(attentionId="att-4")))
    assert (newer.from_cache, other_item.from_cache) == (False, False)
    assert len(game.calls) == 3


async def test_an_expired_cache_entry_runs_the_pipeline_again() -> None:
    clock = FakeClock()
    game = FakeGame()
    pipeline = [
        ITEM,
        {
            "name": "op",
            "type": "diagnostics_query",
            "config": {"tool": "rimbridge/get_operation", "arguments": {"operationId": "op-7"}},
        },
    ]
    assembler = make([template("t", pipeline, cacheTtlSeconds=10)], game=game, clock=clock)
    await assembler.assemble(request())
    clock.advance(10.5)
    again = await assembler.assemble(request())
    assert again.from_cache is False
    assert len(game.calls) == 2


# -- token estimation -----------------------------------------------------------------------------


def test_the_token_estimate_is_characters_over_chars_per_token_rounded_up() -> None:
    assert [estimate_tokens("x" * n, 4) for n in (0, 1, 4, 5, 400)] == [0, 1, 1, 2, 100]


async def test_chars_per_token_comes_from_the_template() -> None:
    four = await make([template("t", [ITEM])]).assemble(request())
    two = await make([template("t", [ITEM], charsPerToken=2)]).assemble(request())
    assert four.context_text == two.context_text
    assert two.budget_used.tokens == estimate_tokens(two.context_text, 2)
    assert two.fragments[0].token_estimate == 2 * four.fragments[0].token_estimate - (
        1 if len(four.context_text) % 4 in (1, 2) else 0
    )


# -- invariants -----------------------------------------------------------------------------------


async def test_only_read_only_diagnostics_are_ever_called() -> None:
    called: list[str] = []

    def spawn(arguments: Mapping[str, Any]) -> dict[str, Any]:
        called.append("colony/spawn")
        return {}

    diagnostics = InMemoryDiagnostics(
        {"colony/spawn": spawn, "rimbridge/list_logs": FakeGame().list_logs},
        tags={"colony/spawn": ["dev"], "rimbridge/list_logs": ["diagnostic"]},
    )
    pipeline = [
        {"name": "bad", "type": "diagnostics_query", "config": {"tool": "colony/spawn"}},
        {
            "name": "search",
            "type": "horizontal_search",
            "config": {
                "query": "x",
                "sources": ["diagnostics"],
                "diagnostics": [{"tool": "colony/spawn"}],
            },
        },
        {
            "name": "good",
            "type": "diagnostics_query",
            "config": {"tool": "rimbridge/list_logs", "arguments": {"limit": 1}},
        },
    ]
    assembled = await make([template("t", pipeline)], diagnostics=diagnostics).assemble(request())
    assert called == []
    assert stages(assembled) == [("bad", "error"), ("search", "empty"), ("good", "ok")]
    refusal = (
        "colony/spawn in game rw is not tagged diagnostic or read-only; context assembly only "
        "calls read-only diagnostics"
    )
    assert assembled.warnings == (
        f"stage bad (diagnostics_query) failed: {refusal}",
        f"stage search: {refusal}",
    )
    assert assembled.budget_used.queries == 3  # every attempted call counts


async def test_a_failing_stage_warns_and_the_rest_still_runs() -> None:
    def broken(arguments: Mapping[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the ring is gone")

    pipeline = [
        ITEM,
        {"name": "logs", "type": "diagnostics_query", "config": {"tool": "rimbridge/list_logs"}},
        LEDGER,
    ]
    assembled = await make(
        [template("t", pipeline)], diagnostics=InMemoryDiagnostics({"rimbridge/list_logs": broken})
    ).assemble(request())
    assert stages(assembled) == [("item", "ok"), ("logs", "error"), ("calls", "ok")]
    assert assembled.warnings == ("stage logs (diagnostics_query) failed: the ring is gone",)
    assert assembled.error is None


@settings(max_examples=40, deadline=None)
@given(
    max_tokens=st.integers(min_value=1, max_value=400),
    limit=st.integers(min_value=1, max_value=40),
    cpt=st.sampled_from([1.0, 2.5, 4.0]),
    with_structuring=st.booleans(),
)
def test_budget_is_law_and_every_fragment_names_its_source_and_halting_is_explicit(
    max_tokens: int, limit: int, cpt: float, with_structuring: bool
) -> None:
    pipeline: list[dict[str, Any]] = [
        ITEM,
        {
            "name": "logs",
            "type": "diagnostics_query",
            "config": {
                "tool": "rimbridge/list_logs",
                "arguments": {"afterSequence": -1, "limit": limit},
                "maxItems": limit,
            },
        },
        LEDGER,
        {"name": "tools", "type": "registry_query", "config": {"tools": ["colony/draft"]}},
    ]
    if with_structuring:
        pipeline.append(STRUCTURE)
    raw = template(
        "t", pipeline, budget={"maxContextTokens": max_tokens, "maxQueries": 3}, charsPerToken=cpt
    )
    assembled = anyio.run(make([raw]).assemble, request())
    assert estimate_tokens(assembled.context_text, cpt) <= max_tokens
    assert assembled.budget_used.tokens <= max_tokens
    assert assembled.budget_used.queries <= 3
    assert assembled.halting_reason in ("budget", "satisfied", "completed", "fallback")
    assert assembled.halting_detail
    for fragment in assembled.fragments:
        assert fragment.source in (
            "ledger",
            "registry",
            "file",
            "search",
            "diagnostics",
            "attention",
        )
        assert fragment.source_id and fragment.stage
    assert assembled.context_text == "\n".join(f.content for f in assembled.fragments)
