"""Whole attention items published by an integration: how they are read and normalized.

The rules are Lib.GAB's (``PublishAsync`` and ``ClearAsync``): a published item is always open;
republishing the open item's id updates it, and a zero ``openedAtSequence``, ``latestSequence``
or ``totalUrgentEntries`` keeps the open item's value; a new id with no ``latestSequence`` takes
its ``openedAtSequence``. Clearing takes the given item (or the open one), fills what it leaves
empty from the open item, and marks it cleared and not blocking.

Where this port is stricter: a published item is checked against the wire contract (a clear
``ValueError`` instead of an invalid event on the wire), and it may be a mapping with Lib.GAB's
defaults for the members it leaves out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from gabp.messages import Attention

__all__ = ["normalize_cleared", "normalize_published", "read_item"]

_DEFAULTS: dict[str, Any] = {
    "state": "open",
    "severity": "error",
    "blocking": False,
    "stateInvalidated": False,
    "openedAtSequence": 0,
    "latestSequence": 0,
    "totalUrgentEntries": 0,
}
"""What Lib.GAB's ``AttentionItem`` holds for members a caller does not set."""


_ALIASES = {name: field.alias or name for name, field in Attention.model_fields.items()}


def read_item(item: Attention | Mapping[str, Any]) -> dict[str, Any]:
    """The wire form of a published item: a model, or a mapping (camelCase or snake_case keys),
    with Lib.GAB's defaults for what a mapping leaves out. Checked when it is normalized."""
    if isinstance(item, Attention):
        return item.to_wire()
    if not isinstance(item, Mapping):
        raise TypeError(
            f"an attention item is an Attention or a mapping, not {type(item).__name__}"
        )
    wire = {_ALIASES.get(key, key): value for key, value in item.items()}
    return {**_DEFAULTS, **{key: value for key, value in wire.items() if value is not None}}


def _check(wire: dict[str, Any]) -> Attention:
    try:
        return Attention.model_validate(wire)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ValueError(f"invalid attention item: {problems}") from None


def normalize_published(incoming: dict[str, Any], current: dict[str, Any] | None) -> Attention:
    """The item to hold open after publishing ``incoming`` over ``current`` (both wire form)."""
    item = dict(incoming)
    if _blank(item.get("attentionId")):  # Lib.GAB: ArgumentException, nothing published
        raise ValueError("an attention item needs a non-blank attentionId")
    item["state"] = "open"
    if current is not None and current["attentionId"] == item["attentionId"]:
        for key in ("openedAtSequence", "latestSequence", "totalUrgentEntries"):
            if item.get(key, 0) == 0:
                item[key] = current[key]
    elif item.get("latestSequence", 0) == 0:
        item["latestSequence"] = item.get("openedAtSequence", 0)
    return _check(item)


def normalize_cleared(given: dict[str, Any] | None, current: dict[str, Any]) -> Attention:
    """The ``attention/cleared`` payload for clearing ``current`` with ``given`` (or itself)."""
    item = dict(given if given is not None else current)
    if _blank(item.get("attentionId")):
        item["attentionId"] = current["attentionId"]
    item["state"] = "cleared"
    item["blocking"] = False
    for key in ("openedAtSequence", "latestSequence", "totalUrgentEntries"):
        if item.get(key, 0) == 0:
            item[key] = current[key]
    for key in ("severity", "summary", "causalOperationId", "causalMethod"):
        if _blank(item.get(key)) and current.get(key):
            item[key] = current[key]
    if item.get("diagnosticsCursor") is None and current.get("diagnosticsCursor") is not None:
        item["diagnosticsCursor"] = current["diagnosticsCursor"]
    if not item.get("sample") and current.get("sample"):
        item["sample"] = current["sample"]
    return _check(item)


def _blank(value: Any) -> bool:
    """Missing, empty or white space only: what Lib.GAB's ``IsNullOrWhiteSpace`` treats as
    not given."""
    return value is None or (isinstance(value, str) and not value.strip())
