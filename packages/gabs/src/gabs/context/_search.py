"""Horizontal search across sources, and the halting stage that re-runs it when the context
is not yet satisfying.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

from gabs.context._models import ContextError, ContextFragment, FragmentSource, estimate_tokens
from gabs.context._render import (
    fill,
    json_text,
    ledger_line,
    log_entries,
    log_line,
    operation_text,
    tool_text,
)
from gabs.context._run_state import RunState, StageOutput, args_id
from gabs.context._sources import ContextSourceError
from gabs.context._template import HaltingStage, HorizontalSearchConfig, HorizontalSearchStage

__all__ = ["Rerun", "evaluate", "halting", "search"]

Rerun = Callable[[Any, str, Any], Awaitable[None]]
"""Runs a stage again under a new name with a new config (the pipeline's ``run_stage``)."""


async def search(run: RunState, name: str, config: HorizontalSearchConfig) -> StageOutput:
    query = str(fill(config.query, run.values) or "")
    scorer = run.scorers.get(config.scorer)
    if scorer is None:
        raise ContextError(f"no scorer named {config.scorer!r} is registered")
    present = {(f.source, f.source_id) for f in run.fragments}
    candidates: list[tuple[FragmentSource, str, str, float]] = []
    sources = [s for s in config.sources if s in run.scope_sources]
    out = StageOutput()
    for game in run.games:
        if "ledger" in sources and run.sources.ledger is not None:
            run.take_query()
            for entry in run.sources.ledger.query(game_id=game, limit=config.ledger_limit):
                text = ledger_line(entry, config.item_chars)
                candidates.append(("ledger", f"ledger#{entry.seq}", text, entry.time))
        if "registry" in sources and run.sources.registry is not None:
            run.take_query()
            for tool in run.sources.registry.tools(game):
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
                    answer = await run.diagnostics_call(game, call)
                except ContextSourceError as exc:
                    out.notes.append(str(exc))
                    run.warnings.append(f"stage {name}: {exc}")
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
                        ("diagnostics", f"{call.tool}:{args_id(arguments)}", text, 0.0)
                    )
    if "file" in sources and run.sources.files is not None:
        for ref in config.file_refs:
            ref = str(fill(ref, run.values) or "")
            try:
                content = await run.bounded(
                    run.sources.files.read(ref, max_bytes=config.file_max_bytes)
                )
            except ContextSourceError as exc:
                out.notes.append(str(exc))
                run.warnings.append(f"stage {name}: {exc}")
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
                token_estimate=estimate_tokens(text, run.cpt),
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


async def halting(run: RunState, rerun: Rerun, stage: HaltingStage) -> StageOutput:
    config = stage.config
    satisfied, reason = evaluate(run, stage)
    notes = [reason]
    reruns = 0
    index = run.pipeline.index(stage)
    names = config.rerun_stages
    searches = [
        s
        for s in run.pipeline[:index]
        if isinstance(s, HorizontalSearchStage) and s.enabled and (names is None or s.name in names)
    ]
    while not satisfied and reruns < config.max_reruns:
        if not searches:
            notes.append("no search stage to re-run")
            break
        if run.stop is not None or run.elapsed_ms() >= run.budget.timeout_ms:
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
            await rerun(search, f"{search.name}#rerun{reruns}", relaxed)
            if run.stop is not None:
                break
        satisfied, reason = evaluate(run, stage)
        notes.append(f"after re-run {reruns}: {reason}")
    run.satisfied = satisfied
    decision = "satisfied: stop gathering" if satisfied else "not satisfied: continue"
    run.halting_detail = f"{stage.name}: {decision} ({reason})"
    notes.insert(0, decision)
    return StageOutput(notes=notes)


def evaluate(run: RunState, stage: HaltingStage) -> tuple[bool, str]:
    config = stage.config
    count, tokens = len(run.fragments), run.tokens
    sources = {f.source for f in run.fragments}
    wanted = [s for s in config.require_sources]
    covered = sum(1 for s in wanted if s in sources)
    covered += sum(1 for s in run.required_stages if run.produced_by.get(s, 0) > 0)
    total = len(wanted) + len(run.required_stages)
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
