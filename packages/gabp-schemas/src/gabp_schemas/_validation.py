"""Schema selection (routing), cached validators, and readable error reports."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from gabp_schemas._errors import SchemaValidationError, UnknownSchemaError, ValidationIssue
from gabp_schemas._schema_tree import BASE_URI, registry, schema_documents

METHODS: tuple[str, ...] = (
    "session/hello",
    "tools/list",
    "tools/call",
    "events/subscribe",
    "events/unsubscribe",
    "resources/list",
    "resources/read",
    "state/get",
    "state/set",
    "attention/current",
    "attention/ack",
)
ATTENTION_CHANNELS: tuple[str, ...] = ("attention/opened", "attention/updated", "attention/cleared")

ENVELOPE = "envelope"
GENERIC_EVENT = "events/event.message"
ATTENTION_EVENT = "events/attention.payload"

_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIZE_KEYWORDS = frozenset({"minLength", "maxLength", "minItems", "maxItems"})
_MAX_MESSAGE = 240


def _stem(method: str) -> str:
    return "methods/" + method.replace("/", ".")


def schema_name_for(message: Any, *, method: str | None = None) -> str:
    """The short name of the schema ``validate`` applies to ``message``.

    Requests go by their own ``method`` (or ``method=``); events by their ``channel`` (or
    ``method=``), the attention channels to the attention event schema and any other channel
    to the generic event schema. A response does not name its method, so only ``method=``
    selects a typed result schema; without it the envelope alone applies (which still checks
    an ``error`` member in full). Anything else gets the envelope, which reports what is wrong.

    Raises ``UnknownSchemaError`` when ``method=`` names no known method for a request or
    response.
    """
    if not isinstance(message, Mapping):
        return ENVELOPE
    kind = message.get("type")
    if kind == "event":
        channel = method if method is not None else message.get("channel")
        return ATTENTION_EVENT if channel in ATTENTION_CHANNELS else GENERIC_EVENT
    if kind not in ("request", "response"):
        return ENVELOPE
    if method is not None and method not in METHODS:
        known = ", ".join(METHODS)
        raise UnknownSchemaError(f"no schema for method {method!r}; known methods: {known}")
    if kind == "request":
        routed = method if method is not None else message.get("method")
        return f"{_stem(routed)}.request" if routed in METHODS else ENVELOPE
    return f"{_stem(method)}.response" if method is not None else ENVELOPE


def schema_names() -> list[str]:
    """Short names of every schema in the tree, e.g. ``methods/tools.call.request``."""
    return list(schema_documents())


def schema_ids() -> list[str]:
    """The ``$id`` of every schema in the tree, sorted."""
    return sorted(doc["$id"] for doc in schema_documents().values())


def _resolve_name(name: str) -> str:
    key = name.removeprefix(BASE_URI).removesuffix(".json").removesuffix(".schema")
    if key in schema_documents():
        return key
    raise UnknownSchemaError(f"no schema named {name!r}; known: {', '.join(schema_documents())}")


def load_schema(name: str) -> dict[str, Any]:
    """A copy of one schema, by short name (``common/attention``) or by ``$id``."""
    return copy.deepcopy(schema_documents()[_resolve_name(name)])


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = schema_documents()[name]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(
        schema,
        registry=registry(),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
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


def _describe(error: ValidationError, root: Any) -> str:
    keyword = error.validator
    if keyword == "not" and error.validator_value == {}:  # the member is forbidden here
        key = error.absolute_path[-1] if error.absolute_path else None
        if key == "error" and isinstance(root, Mapping) and "result" in root:
            return "not allowed together with 'result' (a response has exactly one of the two)"
        return "not allowed in this message"
    if (
        keyword == "required"
        and error.validator_value == ["error"]
        and "else" in list(error.schema_path)
    ):
        return "a response needs either 'result' or 'error'"
    message = str(error.message)
    if keyword in _SIZE_KEYWORDS:
        message = f"{message} ({keyword} {error.validator_value})"
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    return message


def _issues(name: str, instance: Any) -> list[ValidationIssue]:
    found: dict[tuple[str, str], ValidationIssue] = {}
    for error in _validator(name).iter_errors(instance):
        issue = ValidationIssue(
            path=json_path(error.absolute_path),
            message=_describe(error, instance),
            keyword=str(error.validator),
        )
        found.setdefault((issue.path, issue.message), issue)
    return sorted(found.values(), key=lambda issue: (issue.path, issue.message))


def _parse(message: Any) -> Any:
    if isinstance(message, bytes | bytearray | memoryview):
        message = bytes(message).decode("utf-8")
    if isinstance(message, str):
        return json.loads(message)
    return message


def validate(message: dict[str, Any] | bytes | str, *, method: str | None = None) -> None:
    """Check a GABP message: its envelope and, where one applies, its method's schema.

    ``message`` may be a parsed object or the JSON body as ``bytes``/``str``. See
    ``schema_name_for`` for which schema applies. Raises ``SchemaValidationError`` listing
    every broken rule with its JSON path, or ``UnknownSchemaError`` for an unknown ``method=``.
    """
    try:
        instance = _parse(message)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SchemaValidationError(
            [ValidationIssue("$", f"not a JSON document: {exc}", "json")], schema=ENVELOPE
        ) from exc
    name = schema_name_for(instance, method=method)
    issues = _issues(name, instance)
    if issues:
        raise SchemaValidationError(issues, schema=name)


def validate_document(document: Any, schema: str = "bridge/blocked-call.result") -> None:
    """Check any JSON document against one named schema (short name or ``$id``)."""
    name = _resolve_name(schema)
    issues = _issues(name, document)
    if issues:
        raise SchemaValidationError(issues, schema=name)
