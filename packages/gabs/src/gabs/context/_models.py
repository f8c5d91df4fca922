"""The request, the result and their parts; plain data, no behaviour beyond JSON shapes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from gabp.messages import Attention

__all__ = [
    "AssembledContext",
    "BudgetUsed",
    "ContextError",
    "ContextFragment",
    "ContextRequest",
    "FragmentSource",
    "HaltingReason",
    "Purpose",
    "Severity",
    "StageResult",
    "StageStatus",
    "estimate_tokens",
]

Purpose: TypeAlias = Literal["blocked_call", "inspection", "attached_result"]
Severity: TypeAlias = Literal["info", "warning", "error", "fatal"]
FragmentSource: TypeAlias = Literal[
    "ledger", "registry", "file", "search", "diagnostics", "attention"
]
StageStatus: TypeAlias = Literal[
    "ok", "truncated", "timeout", "empty", "skipped", "error", "budget"
]
HaltingReason: TypeAlias = Literal["budget", "satisfied", "completed", "fallback"]


class ContextError(Exception):
    """Context assembly was misconfigured (a template, a required context, a handler)."""


def estimate_tokens(text: str, chars_per_token: float) -> int:
    """``ceil(len(text) / chars_per_token)``: a tokenizer-free estimate for budgeting."""
    if chars_per_token <= 0:
        raise ValueError("chars_per_token must be positive")
    return math.ceil(len(text) / chars_per_token)


@dataclass(frozen=True)
class ContextRequest:
    """Who needs context about which game, and why.

    ``severity`` defaults to the item's; ``required_context`` is the game's ``requiredContext``
    from the config (``{ledgerQueries, toolRefs, fileRefs}``), merged into the template.
    """

    game_id: str
    purpose: Purpose
    attention: Attention | None = None
    severity: Severity | None = None
    tool: str | None = None
    arguments: Mapping[str, Any] | None = None
    session_id: str | None = None
    template_override: str | None = None
    required_context: Mapping[str, Any] | None = None
    gated: bool = True
    """Whether the game's attention mode enforces blocking items (``gate``); in ``observe``
    the model must not be told that calls are refused."""

    @property
    def effective_severity(self) -> Severity | None:
        if self.severity is not None:
            return self.severity
        return self.attention.severity if self.attention is not None else None


@dataclass(frozen=True)
class ContextFragment:
    """One piece of assembled context, naming where it came from.

    ``source_id`` names the exact entry, tool, file or call (for example
    ``rimbridge/list_logs#120`` or ``ledger#42``); ``stage`` is the pipeline stage that produced
    it; ``order_key`` orders fragments chronologically within a source (a sequence or a time).
    """

    source: FragmentSource
    source_id: str
    content: str
    token_estimate: int
    relevance_score: float | None = None
    order_key: float = 0.0
    stage: str = ""

    def to_json(self, *, content: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.source,
            "sourceId": self.source_id,
            "stage": self.stage,
            "tokens": self.token_estimate,
            "relevance": self.relevance_score,
            "orderKey": self.order_key,
        }
        if content:
            data["content"] = self.content
        return data


@dataclass(frozen=True)
class StageResult:
    """What one stage did: for the trace."""

    stage: str
    type: str
    fragments_produced: int
    tokens_produced: int
    duration_ms: float
    status: StageStatus
    detail: str = ""
    queries: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "type": self.type,
            "status": self.status,
            "fragments": self.fragments_produced,
            "tokens": self.tokens_produced,
            "queries": self.queries,
            "durationMs": round(self.duration_ms, 3),
            "detail": self.detail,
        }


@dataclass(frozen=True)
class BudgetUsed:
    """What the assembly consumed, next to the template's limits."""

    tokens: int
    queries: int
    elapsed_ms: float
    max_context_tokens: int
    max_queries: int
    timeout_ms: int

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "queries": self.queries,
            "elapsedMs": round(self.elapsed_ms, 3),
            "maxContextTokens": self.max_context_tokens,
            "maxQueries": self.max_queries,
            "timeoutMs": self.timeout_ms,
        }


@dataclass(frozen=True)
class AssembledContext:
    """The result of one assembly.

    ``context_text`` is what the model reads (empty when ``error`` is set);
    ``halting_reason`` says why the pipeline stopped: ``completed`` (every stage ran),
    ``satisfied`` (a halting stage found enough), ``budget`` (a limit stopped it and the partial
    result was kept) or ``fallback`` (a fallback replaced the result: a cached context, an
    error, or an empty context refused).
    """

    context_text: str
    context_hash: str
    fragments: tuple[ContextFragment, ...]
    template_id: str
    pipeline_trace: tuple[StageResult, ...]
    budget_used: BudgetUsed
    warnings: tuple[str, ...]
    halting_reason: HaltingReason
    error: str | None = None
    from_cache: bool = False
    halting_detail: str = ""
    dropped: tuple[str, ...] = field(default=())
    """``source:sourceId`` of fragments gathered but left out (dedup or budget)."""

    @property
    def ok(self) -> bool:
        return self.error is None
