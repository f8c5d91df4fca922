"""The bytes of a written ``config.json``, laid out as the Go bridge writes them.

The Go bridge decodes the file into its structs and encodes them again, so after ``games add``
or ``games remove`` the file has, at every level, its keys in the structs' order, empty values
left out where the struct says so (a pointer field, such as a hook's ``timeoutSeconds`` or a
launch input's ``minimum``, is left out only when ``null``), ``null`` written as the field's
zero value where it cannot be left out, the defaults it filled in on loading
(``toolNormalization``, ``portRanges``, the startup and session timeouts), game ids and other
map keys sorted, two-space indentation, ``<``, ``>`` and ``&`` escaped, and no newline at the
end. We write the same bytes, except that keys the Go bridge does not know (ours, or a user's)
are kept, after the known ones, instead of being dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import Enum
from typing import Any, Final

from ..go_format import go_html_escape
from ._read import GO_TOP_KEYS

__all__ = ["encode_document"]

Encoder = Callable[[Any], Any]


class _Rule(Enum):
    """How the Go bridge writes a struct field (its type and ``omitempty``)."""

    #: Always written; ``null`` or missing becomes ``""`` (a string without ``omitempty``).
    TEXT = "text"
    #: Always written; ``null`` or missing becomes ``0`` (an integer without ``omitempty``).
    NUMBER = "number"
    #: Left out when missing, ``null``, ``""``, ``[]`` or ``{}`` (``omitempty``).
    OMIT_EMPTY = "omit-empty"
    #: Left out only when missing or ``null`` (a pointer with ``omitempty``).
    OMIT_NULL = "omit-null"


_Field = tuple[str, _Rule, Encoder | None]


def _blank(value: Any) -> bool:
    """An empty value of any type: what ``omitempty`` leaves out of a string, list or map
    field (a wrong type, which only a broken entry can hold, is kept as written)."""
    return value is None or (isinstance(value, str | list | dict) and not value)


def _empty(value: Any) -> bool:
    """An empty value, ``false`` or ``0`` included (top-level and toolNormalization keys)."""
    return _blank(value) or value is False or (type(value) is int and value == 0)


def _ordered(
    source: dict[str, Any], order: tuple[str, ...], keep: Callable[[str, Any], bool]
) -> dict[str, Any]:
    """The known keys in ``order`` (those ``keep`` accepts), then the others as they were."""
    result = {key: source[key] for key in order if key in source and keep(key, source[key])}
    result.update((key, value) for key, value in source.items() if key not in order)
    return result


def _text(value: Any) -> Any:
    return "" if value is None else value


def _number(value: Any) -> Any:
    return 0 if value is None else value


def _list_of(item: Encoder) -> Encoder:
    def encode(value: Any) -> Any:
        return [item(element) for element in value] if isinstance(value, list) else value

    return encode


def _map_of(item: Encoder) -> Encoder:
    """A Go map: its keys sorted, each value encoded as the map's value type."""

    def encode(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {key: item(value[key]) for key in sorted(value)}

    return encode


def _struct(fields: tuple[_Field, ...]) -> Encoder:
    """A Go struct: ``null`` is its zero value; known keys in order, then unknown ones."""
    order = tuple(key for key, _, _ in fields)

    def encode(value: Any) -> Any:
        if value is None:
            value = {}
        if not isinstance(value, dict):
            return value
        result: dict[str, Any] = {}
        for key, rule, inner in fields:
            item = value.get(key)
            if rule is _Rule.TEXT:
                item = _text(item)
            elif rule is _Rule.NUMBER:
                item = _number(item)
            elif item is None or (rule is _Rule.OMIT_EMPTY and _blank(item)):
                continue
            result[key] = inner(item) if inner is not None else item
        result.update((key, item) for key, item in value.items() if key not in order)
        return result

    return encode


_TEXTS: Final = _list_of(_text)
_NUMBERS: Final = _list_of(_number)
_ENV: Final = _map_of(_text)

_HOOK: Final = _struct(
    (
        ("command", _Rule.TEXT, None),
        ("args", _Rule.OMIT_EMPTY, _TEXTS),
        ("workingDir", _Rule.OMIT_EMPTY, None),
        ("env", _Rule.OMIT_EMPTY, _ENV),
        ("unsetEnv", _Rule.OMIT_EMPTY, _TEXTS),
        ("timeoutSeconds", _Rule.OMIT_NULL, None),
        ("verifyTimeoutSeconds", _Rule.OMIT_NULL, None),
        ("runningExitCodes", _Rule.OMIT_EMPTY, _NUMBERS),
        ("stoppedExitCodes", _Rule.OMIT_EMPTY, _NUMBERS),
    )
)
_LIFECYCLE: Final = _struct(
    (
        ("status", _Rule.OMIT_NULL, _HOOK),
        ("stop", _Rule.OMIT_NULL, _HOOK),
        ("kill", _Rule.OMIT_NULL, _HOOK),
    )
)
_PROFILE: Final = _struct(
    (
        ("description", _Rule.OMIT_EMPTY, None),
        ("args", _Rule.OMIT_EMPTY, _TEXTS),
        ("env", _Rule.OMIT_EMPTY, _ENV),
        ("unsetEnv", _Rule.OMIT_EMPTY, _TEXTS),
        ("workingDir", _Rule.OMIT_EMPTY, None),
        ("lifecycle", _Rule.OMIT_NULL, _LIFECYCLE),
    )
)
_LAUNCH_INPUT: Final = _struct(
    (
        ("description", _Rule.TEXT, None),
        ("type", _Rule.TEXT, None),
        ("enum", _Rule.OMIT_EMPTY, _TEXTS),
        ("minimum", _Rule.OMIT_NULL, None),
        ("maximum", _Rule.OMIT_NULL, None),
        ("maxLength", _Rule.OMIT_NULL, None),
        ("pattern", _Rule.OMIT_EMPTY, None),
        ("profiles", _Rule.OMIT_EMPTY, _TEXTS),
        ("args", _Rule.OMIT_EMPTY, _TEXTS),
        ("env", _Rule.OMIT_EMPTY, _ENV),
    )
)
_GAME: Final = _struct(
    (
        ("id", _Rule.TEXT, None),
        ("name", _Rule.TEXT, None),
        ("launchMode", _Rule.TEXT, None),
        ("target", _Rule.TEXT, None),
        ("args", _Rule.OMIT_EMPTY, _TEXTS),
        ("workingDir", _Rule.OMIT_EMPTY, None),
        ("stopProcessName", _Rule.OMIT_EMPTY, None),
        ("gabpMode", _Rule.OMIT_EMPTY, None),
        ("description", _Rule.OMIT_EMPTY, None),
        ("env", _Rule.OMIT_EMPTY, _ENV),
        ("unsetEnv", _Rule.OMIT_EMPTY, _TEXTS),
        ("defaultProfile", _Rule.OMIT_EMPTY, None),
        ("profiles", _Rule.OMIT_EMPTY, _map_of(_PROFILE)),
        ("launchInputs", _Rule.OMIT_EMPTY, _map_of(_LAUNCH_INPUT)),
        ("lifecycle", _Rule.OMIT_NULL, _LIFECYCLE),
    )
)
_PORT_RANGE: Final = _struct((("min", _Rule.NUMBER, None), ("max", _Rule.NUMBER, None)))
_PORT_RANGES: Final = _struct((("customRanges", _Rule.OMIT_EMPTY, _list_of(_PORT_RANGE)),))

_TOOL_NORMALIZATION: Final = (
    "enableOpenAINormalization",
    "maxToolNameLength",
    "preserveOriginalName",
)
_DEFAULT_TOOL_NORMALIZATION: Final = {
    "enableOpenAINormalization": True,
    "maxToolNameLength": 64,
    "preserveOriginalName": True,
}
_STARTUP_DEFAULTS: Final = (("processStartSeconds", 10), ("gabpConnectSeconds", 60))
_SESSION_DEFAULTS: Final = (("ownerLeaseSeconds", 30),)


def _tool_normalization(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return dict(_DEFAULT_TOOL_NORMALIZATION)
    filled = dict(value)
    if not filled.get("maxToolNameLength"):
        filled["maxToolNameLength"] = 64
    return _ordered(filled, _TOOL_NORMALIZATION, lambda _key, item: not _empty(item))


def _with_defaults(value: Any, defaults: tuple[tuple[str, int], ...]) -> Any:
    if not isinstance(value, dict):
        return value
    filled = dict(value)
    for key, default in defaults:
        current = filled.get(key)
        if not isinstance(current, int) or isinstance(current, bool) or current <= 0:
            filled[key] = default
    return _ordered(filled, tuple(key for key, _ in defaults), lambda _key, _item: True)


def _timeouts(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    filled = dict(value)
    if "startup" in filled:
        filled["startup"] = _with_defaults(filled["startup"], _STARTUP_DEFAULTS)
    if "session" in filled:
        filled["session"] = _with_defaults(filled["session"], _SESSION_DEFAULTS)
    return _ordered(filled, ("startup", "session"), lambda _key, item: item is not None)


def _document(document: dict[str, Any]) -> dict[str, Any]:
    filled = dict(document)
    filled["version"] = _text(filled.get("version"))
    games = filled.get("games")
    if isinstance(games, dict):
        filled["games"] = _map_of(_GAME)(games)
    filled["toolNormalization"] = _tool_normalization(filled.get("toolNormalization"))
    ranges = filled.get("portRanges")
    filled["portRanges"] = _PORT_RANGES(ranges if isinstance(ranges, dict) else None)
    if "timeouts" in filled:
        filled["timeouts"] = _timeouts(filled["timeouts"])

    def keep(key: str, value: Any) -> bool:
        if key in ("version", "games", "toolNormalization", "portRanges"):
            return True
        if key == "timeouts":
            return value is not None
        return not _empty(value)

    return _ordered(filled, GO_TOP_KEYS, keep)


def encode_document(document: dict[str, Any]) -> bytes:
    """The file's bytes for ``document``: the Go bridge's layout, without a final newline."""
    text = json.dumps(_document(document), indent=2, ensure_ascii=False)
    return go_html_escape(text).encode("utf-8")
