"""Choosing a template for a request (:class:`TemplateSet`) and adding a game's required
context to its pipeline (:func:`merge_required_context`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gabs.context._defaults import DEFAULT_TEMPLATES, MINIMAL_TEMPLATE
from gabs.context._models import ContextRequest
from gabs.context._template import (
    ContextTemplate,
    FileReadConfig,
    FileReadStage,
    HaltingStage,
    LedgerQueryStage,
    RegistryQueryConfig,
    RegistryQueryStage,
    RequiredContext,
    StructuringStage,
    TemplateError,
    parse_template,
)

__all__ = ["TemplateSet", "merge_required_context"]


# -- resolution --------------------------------------------------------------------------------


class TemplateSet:
    """Config templates over built-in defaults.

    Resolution: ``template_override`` names a template (config or default) or fails. Otherwise
    the config templates whose ``appliesTo`` matches are ranked by specificity (``gameId`` >
    ``purpose`` > ``severity``); only when none matches are the built-in defaults ranked the
    same way (a config template with a default's id replaces that default). Two matches at the
    top specificity fail closed, naming both. No match at all: the ``minimal`` template, with a
    warning.
    """

    def __init__(
        self,
        templates: Iterable[Mapping[str, Any] | ContextTemplate] = (),
        *,
        defaults: Iterable[ContextTemplate] | None = None,
        minimal: ContextTemplate | None = None,
    ) -> None:
        self.configured: tuple[ContextTemplate, ...] = tuple(parse_template(t) for t in templates)
        ids = [t.id for t in self.configured]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise TemplateError(f"context template ids must be unique: {', '.join(duplicates)}")
        chosen_defaults = DEFAULT_TEMPLATES if defaults is None else tuple(defaults)
        self.defaults: tuple[ContextTemplate, ...] = tuple(
            t for t in chosen_defaults if t.id not in ids
        )
        self.minimal = minimal or MINIMAL_TEMPLATE

    @classmethod
    def from_config(cls, raw: Sequence[Mapping[str, Any]] | None) -> TemplateSet:
        """From the config's ``contextTemplates`` list (``None``: the defaults only)."""
        if raw is not None and not isinstance(raw, Sequence):
            raise TemplateError("contextTemplates must be a list of templates")
        return cls(raw or ())

    def get(self, template_id: str) -> ContextTemplate | None:
        for template in (*self.configured, *self.defaults, self.minimal):
            if template.id == template_id:
                return template
        return None

    def resolve(self, request: ContextRequest) -> tuple[ContextTemplate, list[str]]:
        """The template for ``request`` and any warnings; :class:`TemplateError` if ambiguous."""
        if request.template_override is not None:
            found = self.get(request.template_override)
            if found is None:
                raise TemplateError(f"no context template {request.template_override!r}")
            return found, []
        for layer in (self.configured, self.defaults):
            matching = [t for t in layer if t.applies_to.matches(request)]
            if not matching:
                continue
            best = max(t.applies_to.specificity for t in matching)
            top = [t for t in matching if t.applies_to.specificity == best]
            if len(top) > 1:
                names = ", ".join(repr(t.id) for t in top)
                raise TemplateError(
                    f"ambiguous context templates for game {request.game_id!r}, purpose "
                    f"{request.purpose!r}, severity {request.effective_severity!r}: {names} "
                    "match with the same specificity"
                )
            return top[0], []
        return self.minimal, [
            f"no context template matches game {request.game_id!r}, purpose "
            f"{request.purpose!r}, severity {request.effective_severity!r}; using "
            f"{self.minimal.id!r}"
        ]


# -- required-context merge --------------------------------------------------------------------


def merge_required_context(
    template: ContextTemplate, required: RequiredContext
) -> tuple[list[Any], list[str]]:
    """The template's pipeline with the required context's stages added where missing.

    Returns the stages and the names of the added ones. Template stages keep their place and
    priority; added stages (named ``required:...``) go before the first structuring or halting
    stage. Equivalence: a ledger query equal to a template ``ledger_query`` config, a tool
    named in a template ``registry_query``, a path named in a template ``file_read``.
    """
    pipeline: list[Any] = list(template.pipeline)
    added: list[Any] = []
    ledger_configs = [s.config for s in pipeline if isinstance(s, LedgerQueryStage)]
    for index, query in enumerate(required.ledger_queries, start=1):
        if query not in ledger_configs:
            added.append(
                LedgerQueryStage(name=f"required:ledger:{index}", type="ledger_query", config=query)
            )
            ledger_configs.append(query)
    known_tools = {t for s in pipeline if isinstance(s, RegistryQueryStage) for t in s.config.tools}
    tools = [t for t in dict.fromkeys(required.tool_refs) if t not in known_tools]
    if tools:
        added.append(
            RegistryQueryStage(
                name="required:tools",
                type="registry_query",
                config=RegistryQueryConfig(tools=tools),
            )
        )
    known_paths = {p for s in pipeline if isinstance(s, FileReadStage) for p in s.config.paths}
    paths = [p for p in dict.fromkeys(required.file_refs) if p not in known_paths]
    if paths:
        added.append(
            FileReadStage(
                name="required:files", type="file_read", config=FileReadConfig(paths=paths)
            )
        )
    if not added:
        return pipeline, []
    at = next(
        (i for i, s in enumerate(pipeline) if isinstance(s, StructuringStage | HaltingStage)),
        len(pipeline),
    )
    pipeline[at:at] = added
    return pipeline, [s.name for s in added]
