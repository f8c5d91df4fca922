"""The gathering stages: scope, attention, ledger, registry, files, diagnostics, custom.

Each takes the run's state and its stage, reads its numbers from the stage's config and returns
a :class:`~gabs.context._run_state.StageOutput`; the pipeline keeps what fits.
"""

from __future__ import annotations

import dataclasses
import inspect

from gabs.context._models import ContextError, ContextFragment
from gabs.context._render import (
    attention_lines,
    fill,
    fill_arguments,
    json_text,
    ledger_line,
    log_entries,
    log_line,
    operation_text,
    tool_text,
    unwrap_result,
)
from gabs.context._run_state import LAST, RunState, StageOutput, args_id
from gabs.context._sources import ContextSourceError
from gabs.context._template import (
    AttentionStage,
    CustomStage,
    DiagnosticsCall,
    DiagnosticsQueryStage,
    FileReadStage,
    LedgerQueryStage,
    RegistryQueryStage,
    ScopeSelectStage,
)

__all__ = ["attention", "custom", "diagnostics", "files", "ledger", "registry", "scope"]


def scope(run: RunState, stage: ScopeSelectStage) -> StageOutput:
    games = [fill(g, run.values) for g in stage.config.games]
    run.games = [str(g) for g in dict.fromkeys(games) if g]
    run.scope_sources = set(stage.config.sources)
    return StageOutput(
        notes=[f"games={','.join(run.games)} sources={','.join(stage.config.sources)}"]
    )


def attention(run: RunState, stage: AttentionStage) -> StageOutput:
    config = stage.config
    item = run.request.attention
    out = StageOutput()
    if "item" in config.include:
        if item is not None:
            text = attention_lines(
                item,
                game_id=run.request.game_id,
                summary_chars=config.summary_chars,
                message_chars=config.message_chars,
                sample_lines=config.sample_lines,
            )
            source_id = item.attention_id
        else:
            text, source_id = str(fill(config.none_text, run.values)), "none"
        out.fragments.append(
            run.fragment("attention", source_id, text, stage=stage.name, relevance=config.relevance)
        )
    if "next_steps" in config.include:
        wanted = {
            "always": True,
            "open": item is not None,
            "blocking": item is not None and item.blocking and run.request.gated,
        }[config.next_steps_when]
        if config.next_steps is None:
            out.notes.append("no nextSteps text configured")
        elif not wanted:
            out.notes.append(f"next steps only when {config.next_steps_when}")
        else:
            out.fragments.append(
                run.fragment(
                    "attention",
                    "next-steps",
                    str(fill(config.next_steps, run.values)),
                    stage=stage.name,
                    relevance=config.relevance,
                    order_key=LAST,
                )
            )
    if config.pinned:
        run.pinned.update((f.source, f.source_id) for f in out.fragments)
    return out


def ledger(run: RunState, stage: LedgerQueryStage) -> StageOutput:
    config = stage.config
    ledger = run.sources.ledger
    if ledger is None:
        return StageOutput(status="skipped", notes=["no ledger source"])
    filters, missing = run.filters(config, ("attention_id", "operation_id", "tool", "session_id"))
    if missing and config.skip_unresolved:
        return StageOutput(status="skipped", notes=[f"unresolved filter {', '.join(missing)}"])
    out = StageOutput()
    for game in run.games:
        run.take_query()
        entries = ledger.query(game_id=game, kinds=config.kinds, limit=config.limit, **filters)
        for entry in entries:
            out.fragments.append(
                run.fragment(
                    "ledger",
                    f"ledger#{entry.seq}",
                    ledger_line(entry, config.summary_chars),
                    stage=stage.name,
                    relevance=config.relevance,
                    order_key=entry.time,
                )
            )
    return out


def registry(run: RunState, stage: RegistryQueryStage) -> StageOutput:
    config = stage.config
    registry = run.sources.registry
    if registry is None:
        return StageOutput(status="skipped", notes=["no registry source"])
    names = [str(n) for n in (fill(t, run.values) for t in config.tools) if n]
    if config.tools and not names and not config.tags and not config.include_capabilities:
        return StageOutput(status="skipped", notes=["no tool name resolved"])
    out = StageOutput()
    for game in run.games:
        if names or config.tags:
            run.take_query()
            tools = registry.tools(game)
            by_name = {t.name: t for t in tools}
            chosen = [by_name[n] for n in names if n in by_name]
            for name in names:
                if name not in by_name:
                    out.notes.append(f"tool {name} not found in game {game}")
                    run.warnings.append(f"stage {stage.name}: tool {name} not found in game {game}")
            if config.tags:
                chosen += [t for t in tools if set(config.tags) & set(t.tags) and t not in chosen]
            for tool in chosen:
                out.fragments.append(
                    run.fragment(
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
            run.take_query()
            capabilities = registry.capabilities(game) or {}
            methods = ", ".join(str(m) for m in capabilities.get("methods", []))
            events = ", ".join(str(e) for e in capabilities.get("events", []))
            out.fragments.append(
                run.fragment(
                    "registry",
                    f"{game}:capabilities",
                    f"Game {game} capabilities: methods {methods or '-'}; events {events or '-'}",
                    stage=stage.name,
                    relevance=config.relevance,
                )
            )
    return out


async def files(run: RunState, stage: FileReadStage) -> StageOutput:
    config = stage.config
    files = run.sources.files
    if files is None:
        return StageOutput(status="skipped", notes=["no file source"])
    out = StageOutput()
    for raw in config.paths:
        ref = str(fill(raw, run.values) or "")
        try:
            content = await run.bounded(
                files.read(ref, max_bytes=config.max_bytes, tail=config.tail)
            )
        except ContextSourceError as exc:
            out.notes.append(str(exc))
            run.warnings.append(f"stage {stage.name}: {exc}")
            continue
        part = (
            f"last {len(content.text)} of {content.size} bytes"
            if config.tail
            else (f"first {len(content.text)} of {content.size} bytes")
        )
        header = f"File {ref}" + (f" ({part})" if content.truncated else "") + ":"
        out.fragments.append(
            run.fragment(
                "file",
                ref,
                f"{header}\n{content.text}",
                stage=stage.name,
                relevance=config.relevance,
            )
        )
    return out


async def diagnostics(run: RunState, stage: DiagnosticsQueryStage) -> StageOutput:
    config = stage.config
    out = StageOutput()
    for game in run.games:
        call: DiagnosticsCall = config
        for page in range(config.pages):
            answer = await run.diagnostics_call(game, call)
            if answer is None:
                missing = [
                    k
                    for k in config.requires
                    if k not in fill_arguments(config.arguments, run.values)
                ]
                return StageOutput(status="skipped", notes=[f"unresolved {', '.join(missing)}"])
            arguments, result = answer
            entries = log_entries(result) if config.render in ("auto", "logs") else None
            if entries is not None:
                room = config.max_items - len(out.fragments)
                for entry in entries[: max(room, 0)]:
                    out.fragments.append(
                        run.fragment(
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
                source_id = f"{config.tool}:{args_id(arguments)}"
            out.fragments.append(
                run.fragment(
                    "diagnostics",
                    source_id,
                    text,
                    stage=stage.name,
                    relevance=config.relevance,
                )
            )
            break
    return out


async def custom(run: RunState, stage: CustomStage) -> StageOutput:
    handler = run.handlers.get(stage.config.handler)
    if handler is None:
        raise ContextError(f"no custom handler {stage.config.handler!r} is registered")
    produced = handler(run.request, stage.config.model_dump(by_alias=True))
    if inspect.isawaitable(produced):
        produced = await run.bounded(produced)
    fragments = []
    for fragment in produced:
        if not isinstance(fragment, ContextFragment):
            raise ContextError(f"handler {stage.config.handler} returned {fragment!r}")
        fragments.append(
            fragment if fragment.stage else dataclasses.replace(fragment, stage=stage.name)
        )
    return StageOutput(fragments=fragments)
