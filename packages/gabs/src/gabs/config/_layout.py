"""The bytes of a written ``config.json``, laid out as the Go bridge writes them.

The Go bridge decodes the file into its structs and encodes them again, so after ``games add``
or ``games remove`` the file has its keys in the structs' order, the defaults it filled in on
loading (``toolNormalization``, ``portRanges``, the startup and session timeouts), game ids
and other map keys sorted, two-space indentation, ``<``, ``>`` and ``&`` escaped, and no
newline at the end. We write the same bytes, except that keys the Go bridge does not know
(ours, or a user's) are kept, after the known ones, instead of being dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

__all__ = ["encode_document"]

_TOP_ORDER: Final = (
    "version",
    "games",
    "toolNormalization",
    "apiKey",
    "portRanges",
    "timeouts",
    "stripOutputSchema",
)
_GAME_ORDER: Final = (
    "id",
    "name",
    "launchMode",
    "target",
    "args",
    "workingDir",
    "stopProcessName",
    "gabpMode",
    "description",
    "env",
    "unsetEnv",
    "defaultProfile",
    "profiles",
    "launchInputs",
    "lifecycle",
)
#: Game keys the Go bridge always writes, even when empty.
_GAME_ALWAYS: Final = frozenset({"id", "name", "launchMode", "target"})
#: Game keys that are maps in the Go bridge, written with their keys sorted.
_GAME_MAPS: Final = frozenset({"env", "profiles", "launchInputs"})
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
#: What the Go encoder escapes inside strings (it writes other characters as they are).
_ESCAPES: Final = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _blank(value: Any) -> bool:
    """An empty value of any type: what the Go bridge leaves out of a game entry (a wrong
    type, which only a broken entry can hold, is kept as written)."""
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


def _game(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry
    sorted_maps = {
        key: dict(sorted(value.items())) if key in _GAME_MAPS and isinstance(value, dict) else value
        for key, value in entry.items()
    }

    def keep(key: str, value: Any) -> bool:
        if key in _GAME_ALWAYS:
            return True
        if key == "lifecycle":
            return value is not None
        return not _blank(value)

    return _ordered(sorted_maps, _GAME_ORDER, keep)


def _tool_normalization(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return dict(_DEFAULT_TOOL_NORMALIZATION)
    filled = dict(value)
    if not filled.get("maxToolNameLength"):
        filled["maxToolNameLength"] = 64
    return _ordered(filled, _TOOL_NORMALIZATION, lambda _key, item: not _empty(item))


def _port_ranges(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    ranges = value.get("customRanges")
    filled = dict(value)
    if isinstance(ranges, list):
        filled["customRanges"] = [
            _ordered(item, ("min", "max"), lambda _key, _item: True)
            if isinstance(item, dict)
            else item
            for item in ranges
        ]
    return _ordered(filled, ("customRanges",), lambda _key, item: not _empty(item))


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
    games = filled.get("games")
    if isinstance(games, dict):
        filled["games"] = {key: _game(games[key]) for key in sorted(games)}
    filled["toolNormalization"] = _tool_normalization(filled.get("toolNormalization"))
    filled["portRanges"] = _port_ranges(filled.get("portRanges"))
    if "timeouts" in filled:
        filled["timeouts"] = _timeouts(filled["timeouts"])

    def keep(key: str, value: Any) -> bool:
        if key in ("version", "games", "toolNormalization", "portRanges"):
            return True
        if key == "timeouts":
            return value is not None
        return not _empty(value)

    return _ordered(filled, _TOP_ORDER, keep)


def encode_document(document: dict[str, Any]) -> bytes:
    """The file's bytes for ``document``: the Go bridge's layout, without a final newline."""
    text = json.dumps(_document(document), indent=2, ensure_ascii=False)
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return text.encode("utf-8")
