"""The track record's buckets: which combinations of launch inputs a context has started with.

A verified start records, beside its context's counters, one bucket for the launch inputs it
applied: their sorted names, a hash of their declarations (``declHash``, and one per input,
``perInputDecl``) and a digest of their values keyed with the game's random ``bucketKey``
(``valueDigest``), so ``scenario=arena`` and ``scenario=tutorial`` are two buckets while no
value is ever written. A start without inputs records the bare bucket (all three empty). At
most :data:`BUCKET_VALUE_CAP` buckets are kept per set of input names, the least recently used
leaving first. Editing an input's declaration drops the buckets that used it, and nothing
else. A failure that ran with an unproven combination keeps the class its outcome implies and
says so in ``candidateInputNote`` (the Go bridge's ``history.json`` shape and texts).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from gabs.config import GameConfig
from gabs.launch.resolve import Resolved

__all__ = [
    "BUCKET_VALUE_CAP",
    "candidate_input_note",
    "drop_changed_declarations",
    "has_bucket",
    "input_decl_hash",
    "new_bucket_key",
    "record_bucket",
    "success_bucket",
    "value_digest",
]

#: Buckets kept per set of input names (Go's ``bucketValueCap``).
BUCKET_VALUE_CAP: Final = 16


def new_bucket_key() -> str:
    """A game's random key for value digests (so digests of two games cannot be compared)."""
    return secrets.token_hex(16)


def input_decl_hash(game: GameConfig, names: Sequence[str]) -> str:
    """The hash of the declarations (never the values) of the inputs ``names``; ``""`` for
    none."""
    if not names:
        return ""
    views = [
        {"name": name, "decl": spec.to_json() if (spec := game.launch_inputs.get(name)) else {}}
        for name in sorted(names)
    ]
    encoded = json.dumps(views, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()


def value_digest(key: str, values: Mapping[str, str]) -> str:
    """The digest of ``name=value`` pairs keyed with ``key``; ``""`` for no values."""
    if not values:
        return ""
    digest = hashlib.sha256(key.encode())
    for name in sorted(values):
        digest.update(b"\x00" + name.encode() + b"=" + values[name].encode())
    return digest.hexdigest()


def success_bucket(game: GameConfig, resolved: Resolved, key: str) -> dict[str, Any]:
    """The bucket identity of a start (Go's ``SuccessBucket``: ``InputNames``,
    ``PerInputDecl``, ``DeclHash``, ``ValueDigest``); ``key`` ``""`` leaves the value digest
    empty (no key was minted yet, so no combination can be proven)."""
    names = list(resolved.applied_inputs)
    if not names:
        return {"InputNames": None, "PerInputDecl": None, "DeclHash": "", "ValueDigest": ""}
    values = {name: resolved.input_values.get(name, "") for name in names}
    return {
        "InputNames": names,
        "PerInputDecl": {name: input_decl_hash(game, [name]) for name in names},
        "DeclHash": input_decl_hash(game, names),
        "ValueDigest": value_digest(key, values) if key else "",
    }


def has_bucket(entry: Mapping[str, Any] | None, bucket: Mapping[str, Any]) -> bool:
    """Whether ``entry`` holds a proven bucket with ``bucket``'s identity."""
    found = (entry or {}).get("buckets")
    if not isinstance(found, list):
        return False
    wanted = (bucket.get("DeclHash") or "", bucket.get("ValueDigest") or "")
    return any(
        isinstance(b, dict) and (b.get("declHash") or "", b.get("valueDigest") or "") == wanted
        for b in found
    )


def _names_key(bucket: Mapping[str, Any]) -> tuple[str, ...]:
    names = bucket.get("inputNames")
    return tuple(sorted(n for n in names if isinstance(n, str))) if isinstance(names, list) else ()


def record_bucket(entry: dict[str, Any], bucket: Mapping[str, Any], at: str) -> None:
    """Count a verified start in its bucket (added if new, the least recently used of its
    input-name set evicted over the cap)."""
    found = entry.get("buckets")
    buckets = [b for b in found if isinstance(b, dict)] if isinstance(found, list) else []
    decl, digest = bucket.get("DeclHash") or "", bucket.get("ValueDigest") or ""
    for item in buckets:
        if (item.get("declHash") or "", item.get("valueDigest") or "") == (decl, digest):
            item["count"] = int(item.get("count") or 0) + 1
            item["lastAt"] = at
            entry["buckets"] = buckets
            return
    added: dict[str, Any] = {}
    if bucket.get("InputNames"):
        added["inputNames"] = list(bucket["InputNames"])
    if bucket.get("PerInputDecl"):
        added["perInputDecl"] = dict(bucket["PerInputDecl"])
    added.update(declHash=decl, valueDigest=digest, count=1, lastAt=at)
    buckets.append(added)
    same = [b for b in buckets if _names_key(b) == _names_key(added)]
    if len(same) > BUCKET_VALUE_CAP:
        buckets.remove(min(same, key=lambda b: _moment(b.get("lastAt"))))
    entry["buckets"] = buckets


def _moment(value: Any) -> datetime:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)


def drop_changed_declarations(entry: dict[str, Any], game: GameConfig) -> bool:
    """Drop the buckets whose inputs' declarations changed or were removed since they were
    recorded; whether any was dropped."""
    found = entry.get("buckets")
    if not isinstance(found, list) or not found:
        return False
    current = {name: input_decl_hash(game, [name]) for name in game.launch_inputs}

    def unchanged(item: Any) -> bool:
        recorded = item.get("perInputDecl") if isinstance(item, dict) else None
        if not isinstance(recorded, dict):
            return isinstance(item, dict)
        return all(current.get(name) == decl for name, decl in recorded.items())

    kept = [b for b in found if unchanged(b)]
    if len(kept) == len(found):
        return False
    if kept:
        entry["buckets"] = kept
    else:
        del entry["buckets"]
    return True


def candidate_input_note(input_names: Sequence[str]) -> str:
    """The note of a failure that ran with an input combination never proven on its context."""
    return (
        f"first run with this input combination ({', '.join(input_names)}); the input is a "
        "candidate cause"
    )
