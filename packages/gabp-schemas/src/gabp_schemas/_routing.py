"""Which schemas judge a message, in each schema set.

GABP's schemas are of two kinds: whole-message schemas for each method's request and success
response and for events, and the envelope, which fits any message. A message is judged by the
most specific schema GABP has for it, the envelope when there is none:

* a **request** by its method's request schema (``methods/tools.call.request``), or the
  envelope for a method GABP defines no schema for (a custom one);
* a **success response** by the response schema of the method it answers, which the message
  itself does not name (pass ``method=``), else by the envelope; a response with an ``error``
  member always by the envelope, which checks the error object (GABP's method response schemas
  other than ``tools/call``'s admit no ``error``, so the verdict is the same);
* an **event** by ``events/event.message``, and on an attention channel its payload also by
  ``events/attention.payload``.

The extension set judges by all of that, plus its own schema where it has one: the attention
lifecycle event, the subscribe and unsubscribe responses, the welcome (concurrency capability),
and the attention/current and attention/ack responses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from gabp_schemas._errors import UnknownSchemaError
from gabp_schemas._schema_tree import SCHEMA_SETS, SchemaSet, schema_documents

__all__ = ["ATTENTION_CHANNELS", "ENVELOPE", "METHODS", "Check", "checks_for", "schema_name_for"]

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
"""The protocol methods GABP defines (custom methods are judged by the envelope)."""

ATTENTION_CHANNELS: tuple[str, ...] = ("attention/opened", "attention/updated", "attention/cleared")

ENVELOPE: Final = "envelope"
EVENT: Final = "events/event.message"
ATTENTION_PAYLOAD: Final = "events/attention.payload"
EXT_ATTENTION_EVENT: Final = "ext/events/attention.event"

_RESPONSE_SCHEMA: Final[dict[str, str]] = {"session/hello": "methods/session.welcome.response"}
"""GABP names the hello response schema after the welcome it carries."""


class Check(NamedTuple):
    """One schema applied to one part of a message (``at`` is ``""`` or ``"payload"``)."""

    schema: str
    at: str = ""


def _stem(method: str) -> str:
    return "methods/" + method.replace("/", ".")


def _existing(name: str) -> str | None:
    return name if name in schema_documents() else None


def _response_schema(method: str, prefix: str = "") -> str | None:
    return _existing(prefix + _RESPONSE_SCHEMA.get(method, f"{_stem(method)}.response"))


def checks_for(
    message: Any, *, method: str | None = None, schema_set: SchemaSet = "gabp"
) -> list[Check]:
    """The schemas that judge ``message`` in ``schema_set``, general first, specific last.

    ``method`` names the method a response answers, or overrides a request's method or an
    event's channel. Raises :class:`UnknownSchemaError` for an unknown ``schema_set``, or a
    ``method`` that names no GABP method for a request or response.
    """
    if schema_set not in SCHEMA_SETS:
        raise UnknownSchemaError(f"no schema set {schema_set!r}; known: {', '.join(SCHEMA_SETS)}")
    if not isinstance(message, Mapping):
        return [Check(ENVELOPE)]
    kind = message.get("type")
    if kind == "event":
        return _event_checks(message, method, schema_set)
    if kind not in ("request", "response"):
        return [Check(ENVELOPE)]
    if method is not None and method not in METHODS:
        raise UnknownSchemaError(
            f"no schema for method {method!r}; known methods: {', '.join(METHODS)}"
        )
    if kind == "request":
        routed = method if method is not None else message.get("method")
        if routed in METHODS:
            return [Check(f"{_stem(routed)}.request")]
        return [Check(ENVELOPE)]
    if method is None or "error" in message:
        return [Check(ENVELOPE)]
    normative = _response_schema(method)
    checks = [Check(normative if normative is not None else ENVELOPE)]
    if schema_set == "ext":
        extension = _response_schema(method, "ext/")
        if extension is not None:
            checks.append(Check(extension))
    return checks


def _event_checks(
    message: Mapping[str, Any], method: str | None, schema_set: SchemaSet
) -> list[Check]:
    channel = method if method is not None else message.get("channel")
    checks = [Check(EVENT)]
    if channel in ATTENTION_CHANNELS and "payload" in message:
        checks.append(Check(ATTENTION_PAYLOAD, "payload"))
    if channel in ATTENTION_CHANNELS and schema_set == "ext":
        checks.append(Check(EXT_ATTENTION_EVENT))
    return checks


def schema_name_for(
    message: Any, *, method: str | None = None, schema_set: SchemaSet = "gabp"
) -> str:
    """The short name of the most specific schema that judges ``message`` (see ``checks_for``).

    For an event on an attention channel in the ``gabp`` set that is the event schema (its
    payload is judged by ``events/attention.payload`` too).
    """
    checks = checks_for(message, method=method, schema_set=schema_set)
    whole = [check for check in checks if not check.at]
    return whole[-1].schema
