"""The structuring stage: dedup, order, and fit the gathered fragments into the budget."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gabs.context._models import ContextFragment, StageStatus, estimate_tokens
from gabs.context._run_state import RunState
from gabs.context._template import StructuringStage

__all__ = ["dedup", "fit", "order", "render", "structure"]


def structure(run: RunState, stage: StructuringStage) -> None:
    started = run.clock()
    config = stage.config
    notes = []
    fragments = list(run.fragments)
    if config.dedup:
        fragments, removed = dedup(run, fragments)
        if removed:
            notes.append(f"removed {removed} duplicate(s)")
    fragments = order(run, fragments, config.strategy)
    cap = run.budget.max_context_tokens
    if config.max_tokens is not None:
        cap = min(cap, config.max_tokens)
    fragments, cut = fit(run, fragments, cap)
    status: StageStatus = "truncated" if cut else "ok"
    if cut:
        notes.append(f"dropped {cut} lowest-relevance fragment(s) to fit {cap} tokens")
    run.fragments = fragments
    run.structured = True
    text_tokens = estimate_tokens(render(fragments), run.cpt)
    notes.insert(0, f"strategy {config.strategy}, {len(fragments)} fragment(s)")
    run.record(
        stage,
        len(fragments),
        text_tokens,
        (run.clock() - started) * 1000,
        status,
        "; ".join(notes),
        0,
    )


def dedup(run: RunState, fragments: list[ContextFragment]) -> tuple[list[ContextFragment], int]:
    kept: list[ContextFragment] = []
    seen: dict[str, int] = {}
    for fragment in fragments:
        norm = " ".join(fragment.content.split())
        if norm in seen:
            index = seen[norm]
            if (fragment.relevance_score or 0) > (kept[index].relevance_score or 0):
                run.dropped.append(f"{kept[index].source}:{kept[index].source_id}")
                kept[index] = fragment
            else:
                run.dropped.append(f"{fragment.source}:{fragment.source_id}")
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
        if inside and (fragment.source, fragment.source_id) not in run.pinned:
            run.dropped.append(f"{fragment.source}:{fragment.source_id}")
            continue
        result.append(fragment)
    return result, len(fragments) - len(result)


def order(run: RunState, fragments: list[ContextFragment], strategy: str) -> list[ContextFragment]:
    if strategy == "relevance":
        return sorted(fragments, key=lambda f: -(f.relevance_score or 0.0))
    if strategy == "chronological":
        return sorted(fragments, key=lambda f: f.order_key)
    position = {stage.name: i for i, stage in enumerate(run.pipeline)}

    def stage_rank(fragment: ContextFragment) -> int:
        base = fragment.stage.split("#", 1)[0]
        return position.get(base, len(position))

    return sorted(fragments, key=lambda f: (stage_rank(f), f.order_key))


def render(fragments: Sequence[ContextFragment]) -> str:
    return "\n".join(f.content for f in fragments)


def fit(
    run: RunState, fragments: list[ContextFragment], cap: int
) -> tuple[list[ContextFragment], int]:
    """Drop the lowest-relevance fragments (pinned ones last, later ones first among
    equals) until the rendered text fits ``cap`` tokens; cut the text of a lone survivor."""
    kept = list(fragments)
    cut = 0
    while kept and estimate_tokens(render(kept), run.cpt) > cap:
        if len(kept) == 1:
            limit = max(int(cap * run.cpt) - 1, 0)
            only = kept[0]
            content = only.content[:limit] + "…" if limit else ""
            kept = [
                dataclasses.replace(
                    only,
                    content=content,
                    token_estimate=estimate_tokens(content, run.cpt),
                )
            ]
            if not content:
                kept = []
            break
        victim = min(
            range(len(kept)),
            key=lambda i: (
                (kept[i].source, kept[i].source_id) in run.pinned,
                kept[i].relevance_score or 0.0,
                -i,
            ),
        )
        run.dropped.append(f"{kept[victim].source}:{kept[victim].source_id}")
        del kept[victim]
        cut += 1
    return kept, cut
