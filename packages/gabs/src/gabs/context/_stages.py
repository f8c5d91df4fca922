"""One pipeline run: the budget, the stages and the structuring of what they gathered.

A :class:`PipelineRun` executes a resolved, merged pipeline for one request. Every stage reads
its numbers from its config; every source access goes through :meth:`PipelineRun.take_query`
(ledger, registry and diagnostics calls count; file reads count tokens only) and every await on
a source is bounded by the time left. A limit reached stops the pipeline: later gathering
stages are recorded as skipped, structuring stages still run (they only remove).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import anyio

from gabs.context._models import (
    ContextError,
    ContextFragment,
    ContextRequest,
    FragmentSource,
    StageResult,
    StageStatus,
    estimate_tokens,
)
from gabs.context._render import (
    attention_lines,
    fill,
    fill_arguments,
    json_text,
    ledger_line,
    log_entries,
    log_line,
    operation_text,
    placeholder_values,
    tool_text,
    unwrap_result,
)
from gabs.context._scoring import Scorer
from gabs.context._sources import (
    ContextSourceError,
    DiagnosticsSource,
    FileSource,
    LedgerSource,
    RegistrySource,
)
from gabs.context._template import (
    ALL_SOURCES,
    AttentionStage,
    ContextTemplate,
    CustomStage,
    DiagnosticsCall,
    DiagnosticsQueryStage,
    FileReadStage,
    HaltingStage,
    HorizontalSearchConfig,
    HorizontalSearchStage,
    LedgerQueryStage,
    RegistryQueryStage,
    ScopeSelectStage,
    StructuringStage,
)

__all__ = ["CustomHandler", "PipelineRun", "Sources"]

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


class _QueryDenied(Exception):
    pass


class _TimedOut(Exception):
    pass


@dataclass
class _Output:
    fragments: list[ContextFragment] = field(default_factory=list)
    status: StageStatus = "ok"
    notes: list[str] = field(default_factory=list)


class PipelineRun:
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
            raise _QueryDenied
        self.queries += 1

    async def bounded(self, awaitable: Awaitable[T]) -> T:
        """Await a source within the time left, or raise :class:`_TimedOut`."""
        remaining = self.remaining_s()
        if remaining <= 0:
            raise _TimedOut
        with anyio.move_on_after(remaining):
            return await awaitable
        raise _TimedOut

    def _halt(self, reason: StopReason, detail: str) -> None:
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

    # -- the loop -------------------------------------------------------------------------------

    async def run(self) -> None:
        for stage in self.pipeline:
            if isinstance(stage, StructuringStage):
                if not stage.enabled:
                    self._record(stage, 0, 0, 0.0, "skipped", "disabled", 0)
                else:
                    self._structure(stage)
                continue
            if not stage.enabled:
                self._record(stage, 0, 0, 0.0, "skipped", "disabled", 0)
                continue
            if self.stop is not None:
                self._record(stage, 0, 0, 0.0, "skipped", f"budget: {self.stop_detail}", 0)
                continue
            if self.satisfied:
                self._record(stage, 0, 0, 0.0, "skipped", "halted: context satisfied", 0)
                continue
            if self.elapsed_ms() >= self.budget.timeout_ms:
                self._halt("timeout", f"timeoutMs {self.budget.timeout_ms} reached")
                self._record(stage, 0, 0, 0.0, "skipped", f"budget: {self.stop_detail}", 0)
                continue
            await self._run_stage(stage, stage.name)
            if self.stop is None and self.tokens >= self.budget.max_context_tokens:
                self._halt(
                    "tokens",
                    f"maxContextTokens {self.budget.max_context_tokens} reached "
                    f"({self.tokens} gathered)",
                )

    def _record(
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

    async def _run_stage(self, stage: Any, name: str, config: Any = None) -> None:
        started = self.clock()
        queries_before = self.queries
        output = _Output()
        status: StageStatus
        try:
            output = await self._dispatch(stage, name, config)
            status = output.status
        except _QueryDenied:
            self._halt("queries", f"maxQueries {self.budget.max_queries} reached")
            status = "budget"
            output.notes.append(self.stop_detail)
        except _TimedOut:
            self._halt("timeout", f"timeoutMs {self.budget.timeout_ms} reached")
            status = "timeout"
            output.notes.append(f"a source did not answer within {self.budget.timeout_ms} ms")
        except Exception as exc:  # fail open on a single stage: warn and continue
            status = "error"
            message = str(exc) or type(exc).__name__
            output.notes.append(message)
            self.warnings.append(f"stage {name} ({stage.type}) failed: {message}")
        cap = getattr(config or stage.config, "max_tokens", None)
        kept, repeated, capped = self._keep(output.fragments, cap)
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
        self._record(
            stage,
            len(kept),
            sum(f.token_estimate for f in kept),
            (self.clock() - started) * 1000,
            status,
            "; ".join(output.notes),
            self.queries - queries_before,
            name=name,
        )

    def _keep(
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

    async def _dispatch(self, stage: Any, name: str, config: Any) -> _Output:
        if isinstance(stage, ScopeSelectStage):
            return self._scope(stage)
        if isinstance(stage, AttentionStage):
            return self._attention(stage)
        needed_by: dict[type, str] = {
            LedgerQueryStage: "ledger",
            RegistryQueryStage: "registry",
            FileReadStage: "file",
            DiagnosticsQueryStage: "diagnostics",
        }
        needed = needed_by.get(type(stage))
        if needed is not None and needed not in self.scope_sources:
            return _Output(status="skipped", notes=[f"source {needed} is not in scope"])
        if isinstance(stage, LedgerQueryStage):
            return self._ledger(stage)
        if isinstance(stage, RegistryQueryStage):
            return self._registry(stage)
        if isinstance(stage, FileReadStage):
            return await self._files(stage)
        if isinstance(stage, DiagnosticsQueryStage):
            return await self._diagnostics(stage)
        if isinstance(stage, HorizontalSearchStage):
            return await self._search(name, config or stage.config)
        if isinstance(stage, HaltingStage):
            return await self._halting(stage)
        if isinstance(stage, CustomStage):
            return await self._custom(stage)
        raise ContextError(f"unknown stage type {stage.type!r}")

    # -- stages ---------------------------------------------------------------------------------

    def _scope(self, stage: ScopeSelectStage) -> _Output:
        games = [fill(g, self.values) for g in stage.config.games]
        self.games = [str(g) for g in dict.fromkeys(games) if g]
        self.scope_sources = set(stage.config.sources)
        return _Output(
            notes=[f"games={','.join(self.games)} sources={','.join(stage.config.sources)}"]
        )

    def _attention(self, stage: AttentionStage) -> _Output:
        config = stage.config
        item = self.request.attention
        out = _Output()
        if "item" in config.include:
            if item is not None:
                text = attention_lines(
                    item,
                    game_id=self.request.game_id,
                    summary_chars=config.summary_chars,
                    message_chars=config.message_chars,
                    sample_lines=config.sample_lines,
                )
                source_id = item.attention_id
            else:
                text, source_id = str(fill(config.none_text, self.values)), "none"
            out.fragments.append(
                self.fragment(
                    "attention", source_id, text, stage=stage.name, relevance=config.relevance
                )
            )
        if "next_steps" in config.include:
            wanted = {
                "always": True,
                "open": item is not None,
                "blocking": item is not None and item.blocking and self.request.gated,
            }[config.next_steps_when]
            if config.next_steps is None:
                out.notes.append("no nextSteps text configured")
            elif not wanted:
                out.notes.append(f"next steps only when {config.next_steps_when}")
            else:
                out.fragments.append(
                    self.fragment(
                        "attention",
                        "next-steps",
                        str(fill(config.next_steps, self.values)),
                        stage=stage.name,
                        relevance=config.relevance,
                        order_key=LAST,
                    )
                )
        if config.pinned:
            self.pinned.update((f.source, f.source_id) for f in out.fragments)
        return out

    def _filters(self, config: Any, names: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
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

    def _ledger(self, stage: LedgerQueryStage) -> _Output:
        config = stage.config
        ledger = self.sources.ledger
        if ledger is None:
            return _Output(status="skipped", notes=["no ledger source"])
        filters, missing = self._filters(
            config, ("attention_id", "operation_id", "tool", "session_id")
        )
        if missing and config.skip_unresolved:
            return _Output(status="skipped", notes=[f"unresolved filter {', '.join(missing)}"])
        out = _Output()
        for game in self.games:
            self.take_query()
            entries = ledger.query(game_id=game, kinds=config.kinds, limit=config.limit, **filters)
            for entry in entries:
                out.fragments.append(
                    self.fragment(
                        "ledger",
                        f"ledger#{entry.seq}",
                        ledger_line(entry, config.summary_chars),
                        stage=stage.name,
                        relevance=config.relevance,
                        order_key=entry.time,
                    )
                )
        return out

    def _registry(self, stage: RegistryQueryStage) -> _Output:
        config = stage.config
        registry = self.sources.registry
        if registry is None:
            return _Output(status="skipped", notes=["no registry source"])
        names = [str(n) for n in (fill(t, self.values) for t in config.tools) if n]
        if config.tools and not names and not config.tags and not config.include_capabilities:
            return _Output(status="skipped", notes=["no tool name resolved"])
        out = _Output()
        for game in self.games:
            if names or config.tags:
                self.take_query()
                tools = registry.tools(game)
                by_name = {t.name: t for t in tools}
                chosen = [by_name[n] for n in names if n in by_name]
                for name in names:
                    if name not in by_name:
                        out.notes.append(f"tool {name} not found in game {game}")
                        self.warnings.append(
                            f"stage {stage.name}: tool {name} not found in game {game}"
                        )
                if config.tags:
                    chosen += [
                        t for t in tools if set(config.tags) & set(t.tags) and t not in chosen
                    ]
                for tool in chosen:
                    out.fragments.append(
                        self.fragment(
                            "registry",
                            f"{game}:{tool.name}",
                            tool_text(
                                tool,
                                description_chars=config.description_chars,
                                include_result_description=config.include_result_description,
                                include_input_schema=config.include_input_schema,
                                include_tags=config.include_tags,
                            ),
                            stage=stage.name,
                            relevance=config.relevance,
                        )
                    )
            if config.include_capabilities:
                self.take_query()
                capabilities = registry.capabilities(game) or {}
                methods = ", ".join(str(m) for m in capabilities.get("methods", []))
                events = ", ".join(str(e) for e in capabilities.get("events", []))
                out.fragments.append(
                    self.fragment(
                        "registry",
                        f"{game}:capabilities",
                        f"Game {game} capabilities: methods {methods or '-'}; "
                        f"events {events or '-'}",
                        stage=stage.name,
                        relevance=config.relevance,
                    )
                )
        return out

    async def _files(self, stage: FileReadStage) -> _Output:
        config = stage.config
        files = self.sources.files
        if files is None:
            return _Output(status="skipped", notes=["no file source"])
        out = _Output()
        for raw in config.paths:
            ref = str(fill(raw, self.values) or "")
            try:
                content = await self.bounded(
                    files.read(ref, max_bytes=config.max_bytes, tail=config.tail)
                )
            except ContextSourceError as exc:
                out.notes.append(str(exc))
                self.warnings.append(f"stage {stage.name}: {exc}")
                continue
            part = (
                f"last {len(content.text)} of {content.size} bytes"
                if config.tail
                else (f"first {len(content.text)} of {content.size} bytes")
            )
            header = f"File {ref}" + (f" ({part})" if content.truncated else "") + ":"
            out.fragments.append(
                self.fragment(
                    "file",
                    ref,
                    f"{header}\n{content.text}",
                    stage=stage.name,
                    relevance=config.relevance,
                )
            )
        return out

    async def _call(self, game: str, call: DiagnosticsCall) -> tuple[dict[str, Any], Any] | None:
        """Fill and make one diagnostics call (one query); None when a required key is missing."""
        diagnostics = self.sources.diagnostics
        if diagnostics is None:
            raise ContextSourceError("no diagnostics source")
        arguments = fill_arguments(call.arguments, self.values)
        if any(key not in arguments for key in call.requires):
            return None
        self.take_query()
        return arguments, await self.bounded(diagnostics.call(game, call.tool, arguments))

    async def _diagnostics(self, stage: DiagnosticsQueryStage) -> _Output:
        config = stage.config
        out = _Output()
        for game in self.games:
            call: DiagnosticsCall = config
            for page in range(config.pages):
                answer = await self._call(game, call)
                if answer is None:
                    missing = [
                        k
                        for k in config.requires
                        if k not in fill_arguments(config.arguments, self.values)
                    ]
                    return _Output(status="skipped", notes=[f"unresolved {', '.join(missing)}"])
                arguments, result = answer
                entries = log_entries(result) if config.render in ("auto", "logs") else None
                if entries is not None:
                    room = config.max_items - len(out.fragments)
                    for entry in entries[: max(room, 0)]:
                        out.fragments.append(
                            self.fragment(
                                "diagnostics",
                                f"{config.tool}#{entry.get('sequence')}",
                                log_line(entry, config.item_chars),
                                stage=stage.name,
                                relevance=config.relevance,
                                order_key=float(entry.get("sequence") or 0),
                            )
                        )
                    payload = unwrap_result(result)
                    more = bool(payload.get("hasMore")) and payload.get("nextCursor") is not None
                    if len(entries) > room:
                        out.notes.append(f"kept {max(room, 0)} of {len(entries)} log entries")
                    if not more or len(out.fragments) >= config.max_items:
                        break
                    if page + 1 < config.pages:
                        call = DiagnosticsCall(
                            tool=config.tool,
                            arguments={**arguments, "afterSequence": payload["nextCursor"]},
                        )
                    continue
                text = None
                if config.render in ("auto", "operation"):
                    text = operation_text(
                        result, item_chars=config.item_chars, max_events=config.max_events
                    )
                source_id = f"{config.tool}:{arguments.get('operationId', '')}"
                if text is None:
                    if config.render in ("logs", "operation"):
                        out.notes.append(f"the answer is not {config.render}-shaped; shown as JSON")
                    text = json_text(result, config.item_chars)
                    source_id = f"{config.tool}:{_args_id(arguments)}"
                out.fragments.append(
                    self.fragment(
                        "diagnostics",
                        source_id,
                        text,
                        stage=stage.name,
                        relevance=config.relevance,
                    )
                )
                break
        return out

    async def _search(self, name: str, config: HorizontalSearchConfig) -> _Output:
        query = str(fill(config.query, self.values) or "")
        scorer = self.scorers.get(config.scorer)
        if scorer is None:
            raise ContextError(f"no scorer named {config.scorer!r} is registered")
        present = {(f.source, f.source_id) for f in self.fragments}
        candidates: list[tuple[FragmentSource, str, str, float]] = []
        sources = [s for s in config.sources if s in self.scope_sources]
        out = _Output()
        for game in self.games:
            if "ledger" in sources and self.sources.ledger is not None:
                self.take_query()
                for entry in self.sources.ledger.query(game_id=game, limit=config.ledger_limit):
                    text = ledger_line(entry, config.item_chars)
                    candidates.append(("ledger", f"ledger#{entry.seq}", text, entry.time))
            if "registry" in sources and self.sources.registry is not None:
                self.take_query()
                for tool in self.sources.registry.tools(game):
                    text = tool_text(
                        tool,
                        description_chars=config.item_chars,
                        include_result_description=True,
                        include_input_schema=False,
                        include_tags=True,
                    )
                    candidates.append(("registry", f"{game}:{tool.name}", text, 0.0))
            if "diagnostics" in sources:
                for call in config.diagnostics:
                    try:
                        answer = await self._call(game, call)
                    except ContextSourceError as exc:
                        out.notes.append(str(exc))
                        self.warnings.append(f"stage {name}: {exc}")
                        continue
                    if answer is None:
                        continue
                    arguments, result = answer
                    entries = log_entries(result)
                    if entries is not None:
                        for log in entries:
                            candidates.append(
                                (
                                    "diagnostics",
                                    f"{call.tool}#{log.get('sequence')}",
                                    log_line(log, config.item_chars),
                                    float(log.get("sequence") or 0),
                                )
                            )
                    else:
                        text = operation_text(
                            result, item_chars=config.item_chars, max_events=0
                        ) or json_text(result, config.item_chars)
                        candidates.append(
                            ("diagnostics", f"{call.tool}:{_args_id(arguments)}", text, 0.0)
                        )
        if "file" in sources and self.sources.files is not None:
            for ref in config.file_refs:
                ref = str(fill(ref, self.values) or "")
                try:
                    content = await self.bounded(
                        self.sources.files.read(ref, max_bytes=config.file_max_bytes)
                    )
                except ContextSourceError as exc:
                    out.notes.append(str(exc))
                    self.warnings.append(f"stage {name}: {exc}")
                    continue
                for number, line in enumerate(content.text.splitlines(), start=1):
                    if line.strip():
                        candidates.append(("file", f"{ref}:{number}", line, float(number)))
        fresh = [c for c in candidates if (c[0], c[1]) not in present]
        scores = scorer.score(query, [c[2] for c in fresh], min_term_length=config.min_term_length)
        ranked = sorted(
            (
                (score, candidate)
                for score, candidate in zip(scores, fresh, strict=True)
                if score >= config.relevance_threshold and score > 0
            ),
            key=lambda pair: -pair[0],
        )
        for score, (source, source_id, text, order_key) in ranked[: config.max_results]:
            out.fragments.append(
                ContextFragment(
                    source=source,
                    source_id=source_id,
                    content=text,
                    token_estimate=estimate_tokens(text, self.cpt),
                    relevance_score=round(score, 4),
                    order_key=order_key,
                    stage=name,
                )
            )
        out.notes.insert(
            0,
            f"query {query!r}: {len(ranked)} of {len(fresh)} candidates at or above "
            f"{config.relevance_threshold:g}, kept {min(len(ranked), config.max_results)}",
        )
        return out

    async def _halting(self, stage: HaltingStage) -> _Output:
        config = stage.config
        satisfied, reason = self._evaluate(stage)
        notes = [reason]
        reruns = 0
        index = self.pipeline.index(stage)
        names = config.rerun_stages
        searches = [
            s
            for s in self.pipeline[:index]
            if isinstance(s, HorizontalSearchStage)
            and s.enabled
            and (names is None or s.name in names)
        ]
        while not satisfied and reruns < config.max_reruns:
            if not searches:
                notes.append("no search stage to re-run")
                break
            if self.stop is not None or self.elapsed_ms() >= self.budget.timeout_ms:
                notes.append("no budget left to re-run search")
                break
            reruns += 1
            for search in searches:
                relaxed = search.config.model_copy(
                    update={
                        "relevance_threshold": search.config.relevance_threshold
                        * config.relax_factor**reruns,
                        "max_results": math.ceil(
                            search.config.max_results * config.results_growth**reruns
                        ),
                    }
                )
                await self._run_stage(search, f"{search.name}#rerun{reruns}", relaxed)
                if self.stop is not None:
                    break
            satisfied, reason = self._evaluate(stage)
            notes.append(f"after re-run {reruns}: {reason}")
        self.satisfied = satisfied
        decision = "satisfied: stop gathering" if satisfied else "not satisfied: continue"
        self.halting_detail = f"{stage.name}: {decision} ({reason})"
        notes.insert(0, decision)
        return _Output(notes=notes)

    def _evaluate(self, stage: HaltingStage) -> tuple[bool, str]:
        config = stage.config
        count, tokens = len(self.fragments), self.tokens
        sources = {f.source for f in self.fragments}
        wanted = [s for s in config.require_sources]
        covered = sum(1 for s in wanted if s in sources)
        covered += sum(1 for s in self.required_stages if self.produced_by.get(s, 0) > 0)
        total = len(wanted) + len(self.required_stages)
        coverage = covered / total if total else 1.0
        satisfied = (
            count >= config.min_fragments
            and tokens >= config.min_tokens
            and coverage >= config.satisfaction_threshold
        )
        return satisfied, (
            f"fragments {count}/{config.min_fragments}, tokens {tokens}/{config.min_tokens}, "
            f"coverage {coverage:.2f}/{config.satisfaction_threshold:g}"
        )

    async def _custom(self, stage: CustomStage) -> _Output:
        handler = self.handlers.get(stage.config.handler)
        if handler is None:
            raise ContextError(f"no custom handler {stage.config.handler!r} is registered")
        produced = handler(self.request, stage.config.model_dump(by_alias=True))
        if inspect.isawaitable(produced):
            produced = await self.bounded(produced)
        fragments = []
        for fragment in produced:
            if not isinstance(fragment, ContextFragment):
                raise ContextError(f"handler {stage.config.handler} returned {fragment!r}")
            fragments.append(
                fragment if fragment.stage else dataclasses.replace(fragment, stage=stage.name)
            )
        return _Output(fragments=fragments)

    # -- structuring ----------------------------------------------------------------------------

    def _structure(self, stage: StructuringStage) -> None:
        started = self.clock()
        config = stage.config
        notes = []
        fragments = list(self.fragments)
        if config.dedup:
            fragments, removed = self._dedup(fragments)
            if removed:
                notes.append(f"removed {removed} duplicate(s)")
        fragments = self._order(fragments, config.strategy)
        cap = self.budget.max_context_tokens
        if config.max_tokens is not None:
            cap = min(cap, config.max_tokens)
        fragments, cut = self.fit(fragments, cap)
        status: StageStatus = "truncated" if cut else "ok"
        if cut:
            notes.append(f"dropped {cut} lowest-relevance fragment(s) to fit {cap} tokens")
        self.fragments = fragments
        self.structured = True
        text_tokens = estimate_tokens(self.render(fragments), self.cpt)
        notes.insert(0, f"strategy {config.strategy}, {len(fragments)} fragment(s)")
        self._record(
            stage,
            len(fragments),
            text_tokens,
            (self.clock() - started) * 1000,
            status,
            "; ".join(notes),
            0,
        )

    def _dedup(self, fragments: list[ContextFragment]) -> tuple[list[ContextFragment], int]:
        kept: list[ContextFragment] = []
        seen: dict[str, int] = {}
        for fragment in fragments:
            norm = " ".join(fragment.content.split())
            if norm in seen:
                index = seen[norm]
                if (fragment.relevance_score or 0) > (kept[index].relevance_score or 0):
                    self.dropped.append(f"{kept[index].source}:{kept[index].source_id}")
                    kept[index] = fragment
                else:
                    self.dropped.append(f"{fragment.source}:{fragment.source_id}")
                continue
            seen[norm] = len(kept)
            kept.append(fragment)
        result: list[ContextFragment] = []
        norms = [" ".join(f.content.split()) for f in kept]
        for index, fragment in enumerate(kept):
            inside = any(
                other != index
                and len(norms[other]) > len(norms[index])
                and norms[index] in norms[other]
                for other in range(len(kept))
            )
            if inside and (fragment.source, fragment.source_id) not in self.pinned:
                self.dropped.append(f"{fragment.source}:{fragment.source_id}")
                continue
            result.append(fragment)
        return result, len(fragments) - len(result)

    def _order(self, fragments: list[ContextFragment], strategy: str) -> list[ContextFragment]:
        if strategy == "relevance":
            return sorted(fragments, key=lambda f: -(f.relevance_score or 0.0))
        if strategy == "chronological":
            return sorted(fragments, key=lambda f: f.order_key)
        position = {stage.name: i for i, stage in enumerate(self.pipeline)}

        def stage_rank(fragment: ContextFragment) -> int:
            base = fragment.stage.split("#", 1)[0]
            return position.get(base, len(position))

        return sorted(fragments, key=lambda f: (stage_rank(f), f.order_key))

    @staticmethod
    def render(fragments: Sequence[ContextFragment]) -> str:
        return "\n".join(f.content for f in fragments)

    def fit(self, fragments: list[ContextFragment], cap: int) -> tuple[list[ContextFragment], int]:
        """Drop the lowest-relevance fragments (pinned ones last, later ones first among
        equals) until the rendered text fits ``cap`` tokens; cut the text of a lone survivor."""
        kept = list(fragments)
        cut = 0
        while kept and estimate_tokens(self.render(kept), self.cpt) > cap:
            if len(kept) == 1:
                limit = max(int(cap * self.cpt) - 1, 0)
                only = kept[0]
                content = only.content[:limit] + "…" if limit else ""
                kept = [
                    dataclasses.replace(
                        only,
                        content=content,
                        token_estimate=estimate_tokens(content, self.cpt),
                    )
                ]
                if not content:
                    kept = []
                break
            victim = min(
                range(len(kept)),
                key=lambda i: (
                    (kept[i].source, kept[i].source_id) in self.pinned,
                    kept[i].relevance_score or 0.0,
                    -i,
                ),
            )
            self.dropped.append(f"{kept[victim].source}:{kept[victim].source_id}")
            del kept[victim]
            cut += 1
        return kept, cut


def _args_id(arguments: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(arguments.items())) or "-"
