"""The context assembler: resolve, merge, run, fall back, cache, and explain.

:meth:`ContextAssembler.assemble` is the only way context is built: it never raises for a
template or budget problem (the result carries ``error`` instead), never sends anything to the
model, and only reads its sources.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from gabs.context._models import (
    AssembledContext,
    BudgetUsed,
    ContextFragment,
    ContextRequest,
    HaltingReason,
    StageResult,
    estimate_tokens,
)
from gabs.context._pipeline import CustomHandler, PipelineRun, Sources
from gabs.context._resolution import TemplateSet, merge_required_context
from gabs.context._scoring import KeywordScorer, Scorer
from gabs.context._sources import (
    DiagnosticsSource,
    FileSource,
    GameDiagnostics,
    GameDirectory,
    GameRegistry,
    LedgerSource,
    RegistrySource,
)
from gabs.context._template import (
    ContextTemplate,
    TemplateError,
    parse_required_context,
)

__all__ = ["ContextAssembler", "trace_json"]

CacheKey = tuple[str, str, str, str | None, int | None, str | None]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ContextAssembler:
    """Builds what the model sees about attention, under each template's budget.

    ``templates`` is a :class:`TemplateSet` or the config's ``contextTemplates`` list (the
    built-in defaults sit under it). Sources left ``None`` make their stages skip. ``clock``
    (monotonic seconds) times the budget, the stages and the cache.
    """

    def __init__(
        self,
        templates: TemplateSet | Iterable[Mapping[str, Any] | ContextTemplate] | None = None,
        *,
        ledger: LedgerSource | None = None,
        registry: RegistrySource | None = None,
        files: FileSource | None = None,
        diagnostics: DiagnosticsSource | None = None,
        clock: Callable[[], float] = time.monotonic,
        scorers: Mapping[str, Scorer] | None = None,
        handlers: Mapping[str, CustomHandler] | None = None,
        cache_size: int = 256,
    ) -> None:
        if isinstance(templates, TemplateSet):
            self.templates = templates
        else:
            self.templates = TemplateSet(templates or ())
        self.sources = Sources(ledger, registry, files, diagnostics)
        self.clock = clock
        self.scorers: dict[str, Scorer] = {"keyword": KeywordScorer(), **(scorers or {})}
        self.handlers: dict[str, CustomHandler] = dict(handlers or {})
        self.cache_size = cache_size
        self._cache: OrderedDict[CacheKey, tuple[float, AssembledContext]] = OrderedDict()
        self._last: OrderedDict[tuple[Any, ...], AssembledContext] = OrderedDict()
        self.stats = {"assembled": 0, "cacheHits": 0}

    @classmethod
    def for_games(
        cls,
        manager: GameDirectory,
        *,
        templates: TemplateSet | Sequence[Mapping[str, Any]] | None = None,
        ledger: LedgerSource | None = None,
        files: FileSource | None = None,
        clock: Callable[[], float] = time.monotonic,
        diagnostics_timeout: float | None = None,
    ) -> ContextAssembler:
        """The bridge's assembler: registry and (read-only) diagnostics over ``manager``."""
        return cls(
            templates,
            ledger=ledger,
            registry=GameRegistry(manager),
            files=files,
            diagnostics=GameDiagnostics(manager, timeout=diagnostics_timeout),
            clock=clock,
        )

    def register_handler(self, name: str, handler: CustomHandler) -> None:
        """Make ``handler`` available to ``custom`` stages as ``config.handler: name``."""
        self.handlers[name] = handler

    # -- assembly -------------------------------------------------------------------------------

    async def assemble(self, request: ContextRequest) -> AssembledContext:
        started = self.clock()
        try:
            template, warnings = self.templates.resolve(request)
            required = parse_required_context(request.required_context)
            pipeline, added = merge_required_context(template, required)
        except TemplateError as exc:
            return self._failed(request.template_override or "", str(exc), [], [], started)
        key = self._key(template, request)
        if template.cache_ttl_seconds > 0:
            hit = self._cache.get(key)
            if hit is not None and hit[0] > started:
                self.stats["cacheHits"] += 1
                return replace(hit[1], from_cache=True)
            if hit is not None:
                del self._cache[key]
        run = PipelineRun(
            request,
            template,
            pipeline,
            required_stages=added,
            sources=self.sources,
            scorers=self.scorers,
            handlers=self.handlers,
            clock=self.clock,
        )
        run.warnings.extend(warnings)
        if added:
            run.warnings.append(f"required context added stages: {', '.join(added)}")
        await run.run()
        self.stats["assembled"] += 1
        result = self._finish(run, key)
        if result.error is None and result.halting_reason in ("completed", "satisfied"):
            self._remember(key, template, result)
        return result

    def _finish(self, run: PipelineRun, key: CacheKey) -> AssembledContext:
        template = run.template
        fragments, cut = run.fit(run.fragments, template.budget.max_context_tokens)
        if cut:
            run.warnings.append(
                f"dropped {cut} fragment(s) to keep the text within "
                f"{template.budget.max_context_tokens} tokens"
            )
        halting: HaltingReason = "satisfied" if run.satisfied else "completed"
        detail = run.halting_detail or "every stage ran"
        if run.stop is not None:
            detail = f"budget: {run.stop_detail}"
            fallback = template.fallback.on_timeout
            if fallback == "fail":
                return self._failed(
                    template.id,
                    f"context budget exhausted ({run.stop_detail}) and onTimeout is fail",
                    run.trace,
                    run.warnings,
                    run.started,
                    queries=run.queries,
                    template=template,
                )
            if fallback == "use_cached":
                cached = self._last.get(key[:-2] + key[-1:])
                if cached is not None:
                    warnings = (
                        *run.warnings,
                        f"budget: {run.stop_detail}; returned the last context assembled "
                        "for this item",
                    )
                    return replace(
                        cached,
                        pipeline_trace=tuple(run.trace),
                        warnings=warnings,
                        halting_reason="fallback",
                        halting_detail=f"{detail}; onTimeout use_cached",
                        from_cache=True,
                        budget_used=self._used(
                            run.started, run.queries, cached.context_text, template
                        ),
                    )
                run.warnings.append(
                    f"budget: {run.stop_detail}; no cached context for this item, "
                    "returned the partial context"
                )
            else:
                run.warnings.append(f"budget: {run.stop_detail}; returned the partial context")
            halting = "budget"
        text = run.render(fragments)
        if not fragments:
            if template.fallback.on_empty == "fail":
                return self._failed(
                    template.id,
                    "no context was assembled and onEmpty is fail",
                    run.trace,
                    run.warnings,
                    run.started,
                    queries=run.queries,
                    template=template,
                )
            run.warnings.append("no context was assembled (onEmpty: proceed_empty)")
        return AssembledContext(
            context_text=text,
            context_hash=_hash(text),
            fragments=tuple(fragments),
            template_id=template.id,
            pipeline_trace=tuple(run.trace),
            budget_used=self._used(run.started, run.queries, text, template),
            warnings=tuple(run.warnings),
            halting_reason=halting,
            halting_detail=detail,
            dropped=tuple(dict.fromkeys(run.dropped)),
        )

    def _used(
        self, started: float, queries: int, text: str, template: ContextTemplate | None
    ) -> BudgetUsed:
        budget = template.budget if template is not None else None
        return BudgetUsed(
            tokens=estimate_tokens(text, template.chars_per_token) if template else 0,
            queries=queries,
            elapsed_ms=(self.clock() - started) * 1000,
            max_context_tokens=budget.max_context_tokens if budget else 0,
            max_queries=budget.max_queries if budget else 0,
            timeout_ms=budget.timeout_ms if budget else 0,
        )

    def _failed(
        self,
        template_id: str,
        error: str,
        trace: Sequence[StageResult],
        warnings: Sequence[str],
        started: float,
        *,
        queries: int = 0,
        template: ContextTemplate | None = None,
    ) -> AssembledContext:
        return AssembledContext(
            context_text="",
            context_hash=_hash(""),
            fragments=(),
            template_id=template_id,
            pipeline_trace=tuple(trace),
            budget_used=self._used(started, queries, "", template),
            warnings=tuple(warnings),
            halting_reason="fallback",
            error=error,
            halting_detail=error,
        )

    # -- cache ----------------------------------------------------------------------------------

    @staticmethod
    def _key(template: ContextTemplate, request: ContextRequest) -> CacheKey:
        item = request.attention
        return (
            template.id,
            request.game_id,
            request.purpose,
            item.attention_id if item is not None else None,
            item.latest_sequence if item is not None else None,
            request.tool,
        )

    def _remember(self, key: CacheKey, template: ContextTemplate, result: AssembledContext) -> None:
        self._last[key[:-2] + key[-1:]] = result
        self._last.move_to_end(key[:-2] + key[-1:])
        while len(self._last) > self.cache_size:
            self._last.popitem(last=False)
        if template.cache_ttl_seconds <= 0:
            return
        self._cache[key] = (self.clock() + template.cache_ttl_seconds, result)
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._last.clear()


def trace_json(assembled: AssembledContext) -> dict[str, Any]:
    """The trace of one assembly as JSON (for ``games_get_attention {detail: "trace"}``)."""
    return {
        "templateId": assembled.template_id,
        "contextHash": assembled.context_hash,
        "haltingReason": assembled.halting_reason,
        "haltingDetail": assembled.halting_detail,
        "error": assembled.error,
        "fromCache": assembled.from_cache,
        "budget": assembled.budget_used.to_json(),
        "warnings": list(assembled.warnings),
        "stages": [stage.to_json() for stage in assembled.pipeline_trace],
        "fragments": [fragment.to_json(content=False) for fragment in assembled.fragments],
        "dropped": list(assembled.dropped),
    }


def fragments_json(fragments: Iterable[ContextFragment]) -> list[dict[str, Any]]:
    return [fragment.to_json() for fragment in fragments]
