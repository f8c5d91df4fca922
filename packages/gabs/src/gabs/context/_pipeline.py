"""One pipeline run: the stages of a resolved, merged pipeline in order, within the budget.

A :class:`PipelineRun` executes the pipeline for one request. Every stage reads its numbers
from its config; the gathering stages live in :mod:`gabs.context._gather`, search and halting in
:mod:`gabs.context._search`, structuring in :mod:`gabs.context._structure`, the budget and the
trace in :mod:`gabs.context._run_state`. A limit reached stops the pipeline: later gathering
stages are recorded as skipped, structuring stages still run (they only remove).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gabs.context import _gather, _search, _structure
from gabs.context._models import ContextError, ContextFragment, StageStatus
from gabs.context._run_state import (
    CustomHandler,
    QueryDenied,
    RunState,
    Sources,
    StageOutput,
    TimedOut,
)
from gabs.context._template import (
    AttentionStage,
    CustomStage,
    DiagnosticsQueryStage,
    FileReadStage,
    HaltingStage,
    HorizontalSearchStage,
    LedgerQueryStage,
    RegistryQueryStage,
    ScopeSelectStage,
    StructuringStage,
)

__all__ = ["CustomHandler", "PipelineRun", "Sources"]


class PipelineRun(RunState):
    """One assembly: runs the stages in order (see the module doc)."""

    async def run(self) -> None:
        for stage in self.pipeline:
            if isinstance(stage, StructuringStage):
                if not stage.enabled:
                    self.record(stage, 0, 0, 0.0, "skipped", "disabled", 0)
                else:
                    _structure.structure(self, stage)
                continue
            if not stage.enabled:
                self.record(stage, 0, 0, 0.0, "skipped", "disabled", 0)
                continue
            if self.stop is not None:
                self.record(stage, 0, 0, 0.0, "skipped", f"budget: {self.stop_detail}", 0)
                continue
            if self.satisfied:
                self.record(stage, 0, 0, 0.0, "skipped", "halted: context satisfied", 0)
                continue
            if self.elapsed_ms() >= self.budget.timeout_ms:
                self.halt("timeout", f"timeoutMs {self.budget.timeout_ms} reached")
                self.record(stage, 0, 0, 0.0, "skipped", f"budget: {self.stop_detail}", 0)
                continue
            await self._run_stage(stage, stage.name)
            if self.stop is None and self.tokens >= self.budget.max_context_tokens:
                self.halt(
                    "tokens",
                    f"maxContextTokens {self.budget.max_context_tokens} reached "
                    f"({self.tokens} gathered)",
                )

    async def _run_stage(self, stage: Any, name: str, config: Any = None) -> None:
        started = self.clock()
        queries_before = self.queries
        output = StageOutput()
        status: StageStatus
        try:
            output = await self._dispatch(stage, name, config)
            status = output.status
        except QueryDenied:
            self.halt("queries", f"maxQueries {self.budget.max_queries} reached")
            status = "budget"
            output.notes.append(self.stop_detail)
        except TimedOut:
            self.halt("timeout", f"timeoutMs {self.budget.timeout_ms} reached")
            status = "timeout"
            output.notes.append(f"a source did not answer within {self.budget.timeout_ms} ms")
        except Exception as exc:  # fail open on a single stage: warn and continue
            status = "error"
            message = str(exc) or type(exc).__name__
            output.notes.append(message)
            self.warnings.append(f"stage {name} ({stage.type}) failed: {message}")
        cap = getattr(config or stage.config, "max_tokens", None)
        kept, repeated, capped = self.keep(output.fragments, cap)
        if repeated:
            output.notes.append(f"{repeated} already gathered by an earlier stage")
        if capped:
            output.notes.append(f"dropped {capped} fragment(s) over the stage's maxTokens {cap}")
            if status == "ok":
                status = "truncated"
        if status == "ok" and not kept and not isinstance(stage, ScopeSelectStage | HaltingStage):
            status = "empty"
        self.fragments.extend(kept)
        self.produced_by[name] = self.produced_by.get(name, 0) + len(kept)
        self.record(
            stage,
            len(kept),
            sum(f.token_estimate for f in kept),
            (self.clock() - started) * 1000,
            status,
            "; ".join(output.notes),
            self.queries - queries_before,
            name=name,
        )

    async def _dispatch(self, stage: Any, name: str, config: Any) -> StageOutput:
        if isinstance(stage, ScopeSelectStage):
            return _gather.scope(self, stage)
        if isinstance(stage, AttentionStage):
            return _gather.attention(self, stage)
        needed_by: dict[type, str] = {
            LedgerQueryStage: "ledger",
            RegistryQueryStage: "registry",
            FileReadStage: "file",
            DiagnosticsQueryStage: "diagnostics",
        }
        needed = needed_by.get(type(stage))
        if needed is not None and needed not in self.scope_sources:
            return StageOutput(status="skipped", notes=[f"source {needed} is not in scope"])
        if isinstance(stage, LedgerQueryStage):
            return _gather.ledger(self, stage)
        if isinstance(stage, RegistryQueryStage):
            return _gather.registry(self, stage)
        if isinstance(stage, FileReadStage):
            return await _gather.files(self, stage)
        if isinstance(stage, DiagnosticsQueryStage):
            return await _gather.diagnostics(self, stage)
        if isinstance(stage, HorizontalSearchStage):
            return await _search.search(self, name, config or stage.config)
        if isinstance(stage, HaltingStage):
            return await _search.halting(self, self._run_stage, stage)
        if isinstance(stage, CustomStage):
            return await _gather.custom(self, stage)
        raise ContextError(f"unknown stage type {stage.type!r}")

    @staticmethod
    def render(fragments: Sequence[ContextFragment]) -> str:
        return _structure.render(fragments)

    def fit(self, fragments: list[ContextFragment], cap: int) -> tuple[list[ContextFragment], int]:
        """See :func:`gabs.context._structure.fit`."""
        return _structure.fit(self, fragments, cap)
