"""Context assembly: what the model sees about attention, built by a budgeted, traceable pipeline.

Given a :class:`ContextRequest` (a game, a purpose: ``blocked_call``, ``inspection`` or
``attached_result``, and usually the open attention item), :class:`ContextAssembler` resolves a
template (config templates over the built-in defaults), merges the game's ``requiredContext``,
runs the template's stages under its budget (tokens, queries, time) against four read-only
sources (the call ledger, the game's tool registry, operator-named files and the game's
read-only diagnostics tools), and returns an :class:`AssembledContext`: the text, its SHA-256,
the fragments with their sources, the trace of every stage, the budget used, warnings and why
it stopped. See ``docs/gabs/context-assembly.md``.

Example::

    assembler = ContextAssembler.for_games(manager, templates=raw_templates, ledger=ledger)
    assembled = await assembler.assemble(
        ContextRequest(game_id="rimworld", purpose="blocked_call", attention=item,
                       tool="colony/draft", arguments={"pawn": "Tynan"})
    )
    text = assembled.context_text if assembled.ok else fallback_text
    trace = trace_json(assembled)
"""

from gabs.context._assembler import ContextAssembler, trace_json
from gabs.context._defaults import DEFAULT_TEMPLATES, DEFAULT_TEMPLATES_JSON, MINIMAL_TEMPLATE
from gabs.context._models import (
    AssembledContext,
    BudgetUsed,
    ContextError,
    ContextFragment,
    ContextRequest,
    Purpose,
    StageResult,
    estimate_tokens,
)
from gabs.context._pipeline import CustomHandler
from gabs.context._resolution import TemplateSet, merge_required_context
from gabs.context._scoring import KeywordScorer, Scorer
from gabs.context._sources import (
    DIAGNOSTIC_TAGS,
    ContextSourceError,
    DiagnosticsRefused,
    DiagnosticsSource,
    FileContent,
    FileSource,
    GameDiagnostics,
    GameDirectory,
    GameRegistry,
    InMemoryDiagnostics,
    InMemoryFiles,
    InMemoryRegistry,
    LedgerSource,
    LocalFiles,
    RegistrySource,
    check_diagnostic_tool,
)
from gabs.context._template import (
    TEMPLATE_SCHEMA_PATH,
    ContextTemplate,
    RequiredContext,
    TemplateError,
    parse_required_context,
    parse_template,
    template_json_schema,
    write_template_schema,
)

__all__ = [
    "DEFAULT_TEMPLATES",
    "DEFAULT_TEMPLATES_JSON",
    "DIAGNOSTIC_TAGS",
    "MINIMAL_TEMPLATE",
    "TEMPLATE_SCHEMA_PATH",
    "AssembledContext",
    "BudgetUsed",
    "ContextAssembler",
    "ContextError",
    "ContextFragment",
    "ContextRequest",
    "ContextSourceError",
    "ContextTemplate",
    "CustomHandler",
    "DiagnosticsRefused",
    "DiagnosticsSource",
    "FileContent",
    "FileSource",
    "GameDiagnostics",
    "GameDirectory",
    "GameRegistry",
    "InMemoryDiagnostics",
    "InMemoryFiles",
    "InMemoryRegistry",
    "KeywordScorer",
    "LedgerSource",
    "LocalFiles",
    "Purpose",
    "RegistrySource",
    "RequiredContext",
    "Scorer",
    "StageResult",
    "TemplateError",
    "TemplateSet",
    "check_diagnostic_tool",
    "estimate_tokens",
    "merge_required_context",
    "parse_required_context",
    "parse_template",
    "template_json_schema",
    "trace_json",
    "write_template_schema",
]
