"""Cached validators, readable error reports, and the public ``validate`` functions."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from gabp_schemas._errors import SchemaValidationError, UnknownSchemaError, ValidationIssue
from gabp_schemas._formats import format_checker
from gabp_schemas._patterns import Draft7EcmaValidator, additional_properties
from gabp_schemas._routing import ENVELOPE, checks_for
from gabp_schemas._schema_tree import (
    ALIASES,
    EXT_PREFIX,
    MOVED_TO_EXT,
    SchemaSet,
    registry,
    schema_documents,
)

__all__ = [
    "json_path",
    "load_schema",
    "schema_ids",
    "schema_names",
    "validate",
    "validate_document",
]

_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIZE_KEYWORDS = frozenset({"minLength", "maxLength", "minItems", "maxItems"})
_MAX_MESSAGE = 240


def schema_names(schema_set: SchemaSet | None = None) -> list[str]:
    """Short names of the schemas of one set, or of both (``ext/...`` for extension ones)."""
    names = list(schema_documents())
    if schema_set is None:
        return names
    wanted = schema_set == "ext"
    return [name for name in names if name.startswith(EXT_PREFIX) == wanted]


def schema_ids(schema_set: SchemaSet | None = None) -> list[str]:
    """The ``$id`` of every schema of one set (or both), sorted."""
    documents = schema_documents()
    return sorted(documents[name]["$id"] for name in schema_names(schema_set))


def resolve_name(name: str) -> str:
    """The short name for a short name, an ``$id`` or an earlier name (see ``ALIASES``).

    Names and ``$id``s in GABP's namespace resolve only to GABP's own schemas: an earlier name
    of an extension schema (``MOVED_TO_EXT``) raises, naming the ``ext/`` schema to use.
    """
    documents = schema_documents()
    if name in documents:
        return name
    for short, document in documents.items():
        if document["$id"] == name:
            return short
    if name in ALIASES:
        return ALIASES[name]
    if name in MOVED_TO_EXT:
        raise UnknownSchemaError(
            f"no schema named {name!r}: GABP 1.1.0 defines none; this package's extension "
            f"set has {MOVED_TO_EXT[name]!r}"
        )
    raise UnknownSchemaError(f"no schema named {name!r}; known: {', '.join(documents)}")


def load_schema(name: str) -> dict[str, Any]:
    """A copy of one schema, by short name (``common/attention``, ``ext/bridge/...``) or ``$id``."""
    return copy.deepcopy(schema_documents()[resolve_name(name)])


@cache
def _validator(name: str) -> Draft7Validator:
    schema = schema_documents()[name]
    Draft7Validator.check_schema(schema)
    # Enter through a reference to the schema's $id, so that relative references resolve
    # against it even where draft-07 ignores $id (beside a root $ref). Patterns are read as
    # ECMA-262 regular expressions, as JSON Schema asks (see _patterns).
    return Draft7EcmaValidator(
        {"$ref": schema["$id"]}, registry=registry(), format_checker=format_checker()
    )


def json_path(parts: Iterable[str | int]) -> str:
    """``["params", "token"]`` -> ``$.params.token``; odd keys are bracket-quoted."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _SIMPLE_KEY.fullmatch(part):
            out += f".{part}"
        else:
            out += "[" + json.dumps(part) + "]"
    return out


def _ruled_out(errors: list[ValidationError]) -> bool:
    """True when a ``oneOf`` branch fails on the kind of value (its type, or the ``type`` key)."""
    for error in errors:
        where = list(error.relative_path)
        if error.validator == "type" and not where:
            return True
        if error.validator == "const" and where == ["type"]:
            return True
    return False


_Issue = tuple[tuple[str | int, ...], str, str]
"""Where (path parts), what, and which keyword."""


def _leaves(error: ValidationError, instance: Any) -> Iterator[_Issue]:
    """The problems worth reporting for one error, each as path, message and keyword.

    A ``oneOf``/``anyOf`` whose only plausible branch is known reports that branch's own
    problems; ``additionalProperties`` reports each unexpected member at its own path.
    """
    where = tuple(error.absolute_path)
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.schema_path[0] if sub.schema_path else None, []).append(sub)
        plausible = [errors for errors in branches.values() if not _ruled_out(errors)]
        if len(plausible) == 1:
            for sub in plausible[0]:
                yield from _leaves(sub, instance)
            return
        types = [
            sub.validator_value
            for errors in branches.values()
            for sub in errors
            if sub.validator == "type" and not sub.relative_path
        ]
        if not plausible and len(types) == len(branches):
            wanted = ", ".join(repr(t) for t in dict.fromkeys(types))
            yield where, f"{error.instance!r} is not of type {wanted}", "type"
            return
        if not where and isinstance(error.instance, Mapping) and "type" not in error.instance:
            yield where, "'type' is a required property", "required"
            return
        kind = error.instance.get("type") if isinstance(error.instance, Mapping) else None
        if not plausible and not where and kind is not None:
            yield (
                ("type",),
                f"{kind!r} is not a message type (request, response or event)",
                "const",
            )
            return
    schema = error.schema
    if (
        error.validator == "additionalProperties"
        and isinstance(error.instance, Mapping)
        and isinstance(schema, Mapping)
    ):
        extra = additional_properties(error.instance, schema)
        if extra:
            for key in extra:
                yield (*where, key), _not_allowed(key, error.instance), "additionalProperties"
            return
    yield where, _describe(error), str(error.validator)


def _not_allowed(key: str, instance: Mapping[str, Any]) -> str:
    if key in ("result", "error") and "result" in instance and "error" in instance:
        return "not allowed together with the other of result and error (a response has one)"
    kind = instance.get("type")
    if kind in ("request", "response", "event") and isinstance(instance.get("v"), str):
        return f"not allowed in a {kind}"
    return "not allowed here (no such member)"


def _describe(error: ValidationError) -> str:
    keyword = error.validator
    if keyword == "not" and error.validator_value == {"required": ["result", "error"]}:
        return "a response carries exactly one of result and error, not both"
    if keyword == "anyOf" and error.validator_value == [
        {"required": ["result"]},
        {"required": ["error"]},
    ]:
        return "a response needs either 'result' or 'error'"
    if keyword == "oneOf" and not error.absolute_path and isinstance(error.instance, Mapping):
        return "not a GABP message: a request, a response or an event, each with its own members"
    message = str(error.message)
    if keyword in _SIZE_KEYWORDS:
        message = f"{message} ({keyword} {error.validator_value})"
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    return message


def issues_for(
    name: str, instance: Any, prefix: tuple[str | int, ...] = ()
) -> list[ValidationIssue]:
    """Every broken rule of ``instance`` under the schema ``name``, each once, sorted."""
    found: dict[tuple[str, str], ValidationIssue] = {}
    for error in _validator(name).iter_errors(instance):
        for where, message, keyword in _leaves(error, instance):
            issue = ValidationIssue(json_path((*prefix, *where)), message, keyword)
            found.setdefault((issue.path, issue.message), issue)
    return sorted(found.values(), key=lambda issue: (issue.path, issue.message))


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON, RFC 8259)."""
    return json.loads(text, parse_constant=_not_json)


def _parse(message: Any) -> Any:
    if isinstance(message, bytes | bytearray | memoryview):
        message = bytes(message).decode("utf-8")
    if isinstance(message, str):
        return loads(message)
    return message


def validate(
    message: dict[str, Any] | bytes | str,
    *,
    method: str | None = None,
    schema_set: SchemaSet = "gabp",
) -> None:
    """Check a GABP message against the schemas of ``schema_set`` (GABP's own by default).

    ``message`` may be a parsed object or the JSON body as ``bytes``/``str``. ``method`` names
    the method a response answers (a response does not say), or overrides a request's method
    or an event's channel. ``schema_set="ext"`` adds the extension set's rules. See
    ``checks_for`` for which schemas apply. Raises ``SchemaValidationError`` listing every broken
    rule with its JSON path, or ``UnknownSchemaError`` for an unknown ``method`` or set.
    """
    try:
        instance = _parse(message)
    except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError, NaN and the infinities
        raise SchemaValidationError(
            [ValidationIssue("$", f"not a JSON document: {exc}", "json")], schema=ENVELOPE
        ) from exc
    failed: list[str] = []
    issues: dict[tuple[str, str], ValidationIssue] = {}
    for check in checks_for(instance, method=method, schema_set=schema_set):
        prefix: tuple[str, ...] = (check.at,) if check.at else ()
        part = instance[check.at] if check.at else instance
        found = issues_for(check.schema, part, prefix)
        if found:
            failed.append(check.schema)
        for issue in found:
            issues.setdefault((issue.path, issue.message), issue)
    if issues:
        ordered = sorted(issues.values(), key=lambda issue: (issue.path, issue.message))
        raise SchemaValidationError(ordered, schema=" + ".join(failed))


def validate_document(document: Any, schema: str = "ext/bridge/blocked-call.result") -> None:
    """Check any JSON document against one named schema (short name, ``$id`` or earlier name)."""
    name = resolve_name(schema)
    issues = issues_for(name, document)
    if issues:
        raise SchemaValidationError(issues, schema=name)


def verdict(message: Any, *, method: str | None = None, schema_set: SchemaSet = "gabp") -> bool:
    """True when ``validate`` accepts the message (a convenience for tables and tests)."""
    try:
        validate(message, method=method, schema_set=schema_set)
    except SchemaValidationError:
        return False
    return True


def judged_by(
    message: Any, *, method: str | None = None, schema_set: SchemaSet = "gabp"
) -> Mapping[str, bool]:
    """Each schema that judges ``message`` and its verdict, e.g. ``{"envelope": False}``."""
    verdicts: dict[str, bool] = {}
    for check in checks_for(message, method=method, schema_set=schema_set):
        part = message[check.at] if check.at else message
        verdicts[check.schema] = not issues_for(check.schema, part)
    return verdicts
