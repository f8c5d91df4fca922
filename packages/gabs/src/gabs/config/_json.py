"""Decoding ``config.json`` strictly: UTF-8, no NaN, and every duplicated member reported.

Both a struct and a map silently keep the last of two members with the same name, so a
duplicated key would validate while the bridge launched something other than what a reader of
the file saw; each duplicate is an issue at its JSON pointer.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

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
    depth = _nesting_depth(text)
    if depth > MAX_DEPTH:
        raise DecodeError(f"not valid JSON: nested {depth} levels deep (at most {MAX_DEPTH})")
    try:
        document = json.loads(text, object_pairs_hook=_object, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise DecodeError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise DecodeError(f"not valid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text):
        where = _lone_surrogate(document, "")
        if where is not None:
            raise DecodeError(
                f"not valid Unicode: a lone surrogate escape in the string at {where}"
            )
    return document


#: Deeper documents are refused before parsing, so no walk over one can exhaust the stack
#: (the Go decoder's own limit is 10000 levels).
MAX_DEPTH: Final = 500

_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET: Final = re.compile(r"[\[\]{}]")
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (brackets inside strings not counted)."""
    deepest = depth = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _lone_surrogate(value: Any, path: str) -> str | None:
    """The pointer of the first string (a value or a member name) holding half of a UTF-16
    surrogate pair: ``\\ud800`` alone decodes to a code point that is no character."""
    if isinstance(value, str):
        return path or "/" if _SURROGATE.search(value) else None
    items: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            pointer = f"{path}/{escape_pointer(key)}"
            if _SURROGATE.search(key):
                return pointer
            items.append((pointer, item))
    elif isinstance(value, list):
        items = [(f"{path}/{index}", item) for index, item in enumerate(value)]
    for pointer, item in items:
        found = _lone_surrogate(item, pointer)
        if found is not None:
            return found
    return None


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
