"""Decoding ``config.json`` strictly: UTF-8, no NaN, and every duplicated member reported.

Both a struct and a map silently keep the last of two members with the same name, so a
duplicated key would validate while the bridge launched something other than what a reader of
the file saw; each duplicate is an issue at its JSON pointer.
"""

from __future__ import annotations

import json
from typing import Any

from ._issues import ConfigIssue, escape_pointer

__all__ = ["DecodeError", "JsonObject", "decode_document", "duplicate_members"]


class JsonObject(dict[str, Any]):
    """A decoded object that remembers which of its keys appeared more than once."""

    duplicates: tuple[str, ...] = ()


def _object(pairs: list[tuple[str, Any]]) -> JsonObject:
    result = JsonObject()
    repeated: list[str] = []
    for key, value in pairs:
        if key in result:
            repeated.append(key)
        result[key] = value
    if repeated:
        result.duplicates = tuple(repeated)
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class DecodeError(ValueError):
    """The bytes are not one JSON document (the message says where)."""


def decode_document(raw: bytes) -> Any:
    """Parse bytes as JSON; :class:`DecodeError` when they are not.

    A byte order mark is refused, as the Go bridge refuses it: a file it cannot read must not
    look fine here.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"not UTF-8 (byte {exc.start})") from None
    if text.startswith("\ufeff"):
        raise DecodeError("not valid JSON: a byte order mark (U+FEFF) before the value (line 1)")
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise DecodeError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise DecodeError(f"not valid JSON: {exc}") from None


def duplicate_members(document: Any, path: str = "") -> list[ConfigIssue]:
    """Every member name that appears twice in one object, at its JSON pointer."""
    issues: list[ConfigIssue] = []
    if isinstance(document, dict):
        for key in getattr(document, "duplicates", ()):
            issues.append(ConfigIssue(f"{path}/{escape_pointer(key)}", "duplicate JSON member"))
        for key, value in document.items():
            issues.extend(duplicate_members(value, f"{path}/{escape_pointer(key)}"))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            issues.extend(duplicate_members(value, f"{path}/{index}"))
    return issues
