"""Templates: their format (pydantic, camelCase on the wire), parsing and JSON schema.

A template says, for the requests it applies to, which stages run in which order with which
configuration, under which budget. Every number a stage uses comes from its ``config`` here;
the field defaults below are documented defaults of the format, not values buried in stages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from gabs.context._models import ContextError, ContextRequest, Purpose, Severity
from gabs.ledger import LedgerKind

__all__ = [
    "TEMPLATE_SCHEMA_PATH",
    "AppliesTo",
    "AttentionConfig",
    "Budget",
    "ContextTemplate",
    "CustomConfig",
    "DiagnosticsCall",
    "DiagnosticsQueryConfig",
    "Fallback",
    "FileReadConfig",
    "HaltingConfig",
    "HorizontalSearchConfig",
    "LedgerQueryConfig",
    "RegistryQueryConfig",
    "RequiredContext",
    "ScopeSelectConfig",
    "Stage",
    "StructuringConfig",
    "TemplateError",
    "parse_required_context",
    "parse_template",
    "template_json_schema",
    "write_template_schema",
]

TEMPLATE_SCHEMA_PATH = Path(__file__).with_name("template.schema.json")

SourceName: TypeAlias = Literal["ledger", "registry", "file", "diagnostics"]
ALL_SOURCES: tuple[SourceName, ...] = ("ledger", "registry", "file", "diagnostics")
Ratio = Annotated[float, Field(ge=0.0, le=1.0)]
Positive = Annotated[int, Field(ge=1)]
NonNegative = Annotated[int, Field(ge=0)]


class TemplateError(ContextError):
    """A template (or a required context) is invalid, or resolution failed closed."""


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True
    )


# -- stage configs -----------------------------------------------------------------------------


class _Gathering(_Model):
    relevance: Ratio = 0.5
    """Relevance given to this stage's fragments (structuring drops the lowest first)."""
    max_tokens: Positive | None = None
    """Cap on this stage's own fragments (later ones are dropped, status ``truncated``)."""


class ScopeSelectConfig(_Model):
    games: list[str] = Field(default_factory=lambda: ["{request.gameId}"])
    """Games later stages read (placeholders allowed)."""
    sources: list[SourceName] = Field(default_factory=lambda: list(ALL_SOURCES))
    """Sources later stages may use; a stage whose source is not listed is skipped."""


class AttentionConfig(_Model):
    include: list[Literal["item", "next_steps"]] = Field(
        default_factory=lambda: ["item"]  # type: ignore[arg-type]
    )
    summary_chars: Positive = 240
    message_chars: Positive = 160
    sample_lines: NonNegative = 3
    next_steps: str | None = None
    """Next-steps text with placeholders (``{request.gameId}``, ``{attention.attentionId}``...)."""
    next_steps_when: Literal["always", "blocking", "open"] = "blocking"
    """``blocking``: the item is blocking and the game's mode is ``gate`` (it stops calls)."""
    none_text: str = "No attention item is open in game {request.gameId}."
    relevance: Ratio = 1.0
    pinned: bool = True
    """Pinned fragments are dropped last when structuring truncates."""


class LedgerQueryConfig(_Gathering):
    kinds: list[LedgerKind] | None = None
    attention_id: str | None = None
    operation_id: str | None = None
    tool: str | None = None
    session_id: str | None = None
    limit: Positive = 10
    summary_chars: Positive = 200
    skip_unresolved: bool = True
    """Skip the stage when a filter's placeholder has no value (instead of dropping the filter)."""


class RegistryQueryConfig(_Gathering):
    tools: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    include_result_description: bool = True
    include_input_schema: bool = False
    include_tags: bool = True
    include_capabilities: bool = False
    description_chars: Positive = 240
    relevance: Ratio = 0.7


class FileReadConfig(_Gathering):
    paths: Annotated[list[str], Field(min_length=1)]
    max_bytes: Positive = 8000
    tail: bool = False
    """Read the last ``maxBytes`` (a log tail) instead of the first."""
    relevance: Ratio = 0.4


class DiagnosticsCall(_Model):
    tool: Annotated[str, Field(min_length=1)]
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Values may be placeholders; a whole-string placeholder keeps its type, a missing value
    drops the key."""
    requires: list[str] = Field(default_factory=list)
    """Argument keys that must resolve, or the call is skipped."""


class DiagnosticsQueryConfig(_Gathering, DiagnosticsCall):
    render: Literal["auto", "logs", "operation", "json"] = "auto"
    max_items: Positive = 20
    item_chars: Positive = 200
    max_events: NonNegative = 5
    pages: Positive = 1
    """Follow ``nextCursor`` while ``hasMore``, up to this many calls (each counts a query)."""
    relevance: Ratio = 0.9


class HorizontalSearchConfig(_Model):
    query: Annotated[str, Field(min_length=1)]
    sources: list[SourceName] = Field(default_factory=lambda: list(ALL_SOURCES))
    scorer: str = "keyword"
    relevance_threshold: Ratio = 0.3
    max_results: Positive = 10
    ledger_limit: Positive = 200
    file_refs: list[str] = Field(default_factory=list)
    file_max_bytes: Positive = 8000
    diagnostics: list[DiagnosticsCall] = Field(default_factory=list)
    item_chars: Positive = 200
    min_term_length: Positive = 3
    max_tokens: Positive | None = None


class StructuringConfig(_Model):
    strategy: Literal["chronological", "relevance", "hierarchical"] = "hierarchical"
    """``hierarchical``: grouped by stage in pipeline order, chronological within a stage."""
    max_tokens: Positive | None = None
    """Token cap (the template's ``maxContextTokens`` when unset or larger)."""
    dedup: bool = True


class HaltingConfig(_Model):
    min_fragments: NonNegative = 1
    min_tokens: NonNegative = 0
    satisfaction_threshold: Ratio = 1.0
    """Required share of ``requireSources`` (and merged required context) that produced
    fragments."""
    require_sources: list[Literal["ledger", "registry", "file", "diagnostics", "attention"]] = (
        Field(default_factory=list)
    )
    rerun_stages: list[str] | None = None
    """Search stages to re-run when not satisfied (default: every earlier horizontal_search)."""
    max_reruns: NonNegative = 1
    relax_factor: Ratio = 0.5
    """Each re-run multiplies the relevance threshold by this."""
    results_growth: Annotated[float, Field(ge=1.0)] = 2.0
    """Each re-run multiplies ``maxResults`` by this."""


class CustomConfig(_Model):
    model_config = ConfigDict(
        extra="allow", alias_generator=to_camel, populate_by_name=True, frozen=True
    )
    handler: Annotated[str, Field(min_length=1)]


# -- stages ------------------------------------------------------------------------------------

StageName = Annotated[str, Field(min_length=1, max_length=100)]


class _StageBase(_Model):
    name: StageName
    enabled: bool = True


class ScopeSelectStage(_StageBase):
    type: Literal["scope_select"]
    config: ScopeSelectConfig = Field(default_factory=ScopeSelectConfig)


class AttentionStage(_StageBase):
    type: Literal["attention"]
    config: AttentionConfig = Field(default_factory=AttentionConfig)


class LedgerQueryStage(_StageBase):
    type: Literal["ledger_query"]
    config: LedgerQueryConfig = Field(default_factory=LedgerQueryConfig)


class RegistryQueryStage(_StageBase):
    type: Literal["registry_query"]
    config: RegistryQueryConfig = Field(default_factory=RegistryQueryConfig)


class FileReadStage(_StageBase):
    type: Literal["file_read"]
    config: FileReadConfig


class DiagnosticsQueryStage(_StageBase):
    type: Literal["diagnostics_query"]
    config: DiagnosticsQueryConfig


class HorizontalSearchStage(_StageBase):
    type: Literal["horizontal_search"]
    config: HorizontalSearchConfig


class StructuringStage(_StageBase):
    type: Literal["structuring"]
    config: StructuringConfig = Field(default_factory=StructuringConfig)


class HaltingStage(_StageBase):
    type: Literal["halting"]
    config: HaltingConfig = Field(default_factory=HaltingConfig)


class CustomStage(_StageBase):
    type: Literal["custom"]
    config: CustomConfig


Stage = Annotated[
    ScopeSelectStage
    | AttentionStage
    | LedgerQueryStage
    | RegistryQueryStage
    | FileReadStage
    | DiagnosticsQueryStage
    | HorizontalSearchStage
    | StructuringStage
    | HaltingStage
    | CustomStage,
    Field(discriminator="type"),
]

# -- the template ------------------------------------------------------------------------------


class AppliesTo(_Model):
    game_id: str | None = None
    purpose: Purpose | None = None
    severity: Severity | None = None

    def matches(self, request: ContextRequest) -> bool:
        return (
            (self.game_id is None or self.game_id == request.game_id)
            and (self.purpose is None or self.purpose == request.purpose)
            and (self.severity is None or self.severity == request.effective_severity)
        )

    @property
    def specificity(self) -> tuple[bool, bool, bool]:
        """Compared as a tuple: ``gameId`` outranks ``purpose`` outranks ``severity``."""
        return (self.game_id is not None, self.purpose is not None, self.severity is not None)


class Budget(_Model):
    max_context_tokens: Positive = 800
    max_queries: NonNegative = 6
    timeout_ms: Positive = 2000


class Fallback(_Model):
    on_timeout: Literal["return_partial", "fail", "use_cached"] = "return_partial"
    """Applied when any budget limit stops the pipeline."""
    on_empty: Literal["proceed_empty", "fail"] = "proceed_empty"


class ContextTemplate(_Model):
    """One context template (an entry of the gabs config's ``contextTemplates``)."""

    id: Annotated[str, Field(min_length=1, max_length=100)]
    description: str | None = None
    applies_to: AppliesTo = Field(default_factory=AppliesTo)
    budget: Budget = Field(default_factory=Budget)
    fallback: Fallback = Field(default_factory=Fallback)
    chars_per_token: Annotated[float, Field(gt=0)] = 4.0
    cache_ttl_seconds: Annotated[float, Field(ge=0)] = 30.0
    """0 turns the cache off for this template."""
    pipeline: list[Stage] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_stage_names(self) -> ContextTemplate:
        seen: set[str] = set()
        for stage in self.pipeline:
            if stage.name in seen:
                raise ValueError(f"stage names must be unique; {stage.name!r} appears twice")
            seen.add(stage.name)
        return self


class RequiredContext(_Model):
    """A game's ``requiredContext``: what its context must contain, whatever the template."""

    ledger_queries: list[LedgerQueryConfig] = Field(default_factory=list)
    tool_refs: list[str] = Field(default_factory=list)
    file_refs: list[str] = Field(default_factory=list)


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in item["loc"]) or "(root)"
        parts.append(f"{where}: {item['msg']}")
    more = len(error.errors()) - 5
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def parse_template(raw: Mapping[str, Any] | ContextTemplate) -> ContextTemplate:
    """Validate one template (the config's JSON shape); :class:`TemplateError` names the field."""
    if isinstance(raw, ContextTemplate):
        return raw
    try:
        return ContextTemplate.model_validate(raw)
    except ValidationError as exc:
        name = raw.get("id") if isinstance(raw, Mapping) else None
        raise TemplateError(
            f"context template {name or '(without id)'}: {_describe(exc)}"
        ) from None


def parse_required_context(raw: Mapping[str, Any] | RequiredContext | None) -> RequiredContext:
    if raw is None:
        return RequiredContext()
    if isinstance(raw, RequiredContext):
        return raw
    try:
        return RequiredContext.model_validate(raw)
    except ValidationError as exc:
        raise TemplateError(f"requiredContext: {_describe(exc)}") from None


def template_json_schema() -> dict[str, Any]:
    """The JSON Schema of one template, as shipped in ``template.schema.json``."""
    schema = ContextTemplate.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://gabp.dev/schemas/gabs/context-template.schema.json",
        **schema,
    }


def write_template_schema(path: Path = TEMPLATE_SCHEMA_PATH) -> None:
    """Regenerate the shipped schema file from the models."""
    path.write_text(json.dumps(template_json_schema(), indent=2) + "\n", encoding="utf-8")
