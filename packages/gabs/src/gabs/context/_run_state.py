"""The state of one pipeline run: its budget, what it gathered, its trace.

:class:`RunState` is what every stage works on. Every source access goes through
:meth:`RunState.take_query` (ledger, registry and diagnostics calls count; file reads count
tokens only) and every await on a source is bounded by the time left (:meth:`RunState.bounded`).
A stage returns a :class:`StageOutput`; :class:`QueryDenied` and :class:`TimedOut` end a stage
when the budget runs out.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import anyio

from gabs.context._models import (
    ContextFragment,
    ContextRequest,
    FragmentSource,
    StageResult,
    StageStatus,
    estimate_tokens,
)
from gabs.context._render import fill, fill_arguments, placeholder_values
from gabs.context._scoring import Scorer
from gabs.context._sources import (
    ContextSourceError,
    DiagnosticsSource,
    FileSource,
    LedgerSource,
    RegistrySource,
)
from gabs.context._template import ALL_SOURCES, ContextTemplate, DiagnosticsCall

__all__ = [
    "LAST",
    "CustomHandler",
    "QueryDenied",
    "RunState",
    "Sources",
    "StageOutput",
    "StopReason",
    "TimedOut",
    "args_id",
]

CustomHandler = Callable[
    [ContextRequest, Mapping[str, Any]],
    Sequence[ContextFragment] | Awaitable[Sequence[ContextFragment]],
]
StopReason = Literal["queries", "tokens", "timeout"]
LAST = sys.float_info.max
T = TypeVar("T")


@dataclass(frozen=True)
class Sources:
    ledger: LedgerSource | None
    registry: RegistrySource | None
    files: FileSource | None
    diagnostics: DiagnosticsSource | None


class QueryDenied(Exception):
    """The run's ``maxQueries`` is reached."""


class TimedOut(Exception):
    """The run's ``timeoutMs`` is reached."""


@dataclass
class StageOutput:
    fragments: list[ContextFragment] = field(default_factory=list)
    status: StageStatus = "ok"
    notes: list[str] = field(default_factory=list)


class RunState:
    """State of one assembly (see the module doc)."""

    def __init__(
        self,
        request: ContextRequest,
        template: ContextTemplate,
        pipeline: Sequence[Any],
        *,
        required_stages: Sequence[str],
        sources: Sources,
        scorers: Mapping[str, Scorer],
        handlers: Mapping[str, CustomHandler],
        clock: Callable[[], float],
    ) -> None:
        self.request = request
        self.template = template
        self.pipeline = list(pipeline)
        self.required_stages = list(required_stages)
        self.sources = sources
        self.scorers = scorers
        self.handlers = handlers
        self.clock = clock
        self.started = clock()
        self.values = placeholder_values(request)
        self.cpt = template.chars_per_token
        self.budget = template.budget
        self.queries = 0
        self.fragments: list[ContextFragment] = []
        self.pinned: set[tuple[str, str]] = set()
        self.trace: list[StageResult] = []
        self.warnings: list[str] = []
        self.dropped: list[str] = []
        self.stop: StopReason | None = None
        self.stop_detail = ""
        self.satisfied = False
        self.halting_detail = ""
        self.games: list[str] = [request.game_id]
        self.scope_sources: set[str] = set(ALL_SOURCES)
        self.produced_by: dict[str, int] = {}
        self.structured = False

    # -- budget ---------------------------------------------------------------------------------

    def elapsed_ms(self) -> float:
        return (self.clock() - self.started) * 1000

    def remaining_s(self) -> float:
        return max(self.budget.timeout_ms - self.elapsed_ms(), 0.0) / 1000

    @property
    def tokens(self) -> int:
        return sum(f.token_estimate for f in self.fragments)

    def take_query(self) -> None:
        """Count one query, or refuse it (budget is law: no query beyond ``maxQueries``)."""
        if self.queries >= self.budget.max_queries:
            raise QueryDenied
        self.queries += 1

    async def bounded(self, awaitable: Awaitable[T]) -> T:
        """Await a source within the time left, or raise :class:`TimedOut`."""
        remaining = self.remaining_s()
        if remaining <= 0:
            raise TimedOut
        with anyio.move_on_after(remaining):
            return await awaitable
        raise TimedOut

    def halt(self, reason: StopReason, detail: str) -> None:
        if self.stop is None:
            self.stop, self.stop_detail = reason, detail

    def fragment(
        self,
        source: FragmentSource,
        source_id: str,
        content: str,
        *,
        stage: str,
        relevance: float | None,
        order_key: float = 0.0,
    ) -> ContextFragment:
        return ContextFragment(
            source=source,
            source_id=source_id,
            content=content,
            token_estimate=estimate_tokens(content, self.cpt),
            relevance_score=relevance,
            order_key=order_key,
            stage=stage,
        )

    def record(
        self,
        stage: Any,
        fragments: int,
        tokens: int,
        duration_ms: float,
        status: StageStatus,
        detail: str,
        queries: int,
        name: str | None = None,
    ) -> None:
        self.trace.append(
            StageResult(
                stage=name or stage.name,
                type=stage.type,
                fragments_produced=fragments,
                tokens_produced=tokens,
                duration_ms=duration_ms,
                status=status,
                detail=detail,
                queries=queries,
            )
        )

    def keep(
        self, fragments: list[ContextFragment], cap: int | None
    ) -> tuple[list[ContextFragment], int, int]:
        """The stage's new fragments within its cap; also how many were repeats or over it."""
        present = {(f.source, f.source_id) for f in self.fragments}
        kept: list[ContextFragment] = []
        total = repeated = capped = 0
        for fragment in fragments:
            key = (fragment.source, fragment.source_id)
            if key in present:
                repeated += 1
                continue
            if cap is not None and total + fragment.token_estimate > cap:
                self.dropped.append(f"{fragment.source}:{fragment.source_id}")
                capped += 1
                continue
            present.add(key)
            total += fragment.token_estimate
            kept.append(fragment)
        return kept, repeated, capped

    def filters(self, config: Any, names: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
        resolved: dict[str, Any] = {}
        missing: list[str] = []
        for key in names:
            raw = getattr(config, key)
            if raw is None:
                continue
            value = fill(raw, self.values)
            if value is None or value == "":
                missing.append(key)
            else:
                resolved[key] = str(value)
        return resolved, missing

    async def diagnostics_call(
        self, game: str, call: DiagnosticsCall
    ) -> tuple[dict[str, Any], Any] | None:
        """Fill and make one diagnostics call (one query); None when a required key is missing."""
        diagnostics = self.sources.diagnostics
        if diagnostics is None:
            raise ContextSourceError("no diagnostics source")
        arguments = fill_arguments(call.arguments, self.values)
        if any(key not in arguments for key in call.requires):
            return None
        self.take_query()
        return arguments, await self.bounded(diagnostics.call(game, call.tool, arguments))


def args_id(arguments: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(arguments.items())) or "-"
