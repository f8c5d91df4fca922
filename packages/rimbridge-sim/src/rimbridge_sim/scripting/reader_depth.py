"""How deep a ``run_script`` payload may nest, as the mod's JSON reader decides it.

The mod reads ``scriptJson`` with Newtonsoft.Json 13, whose reader refuses a document that nests
more than 64 objects and arrays (its default ``MaxDepth``): the 65th container opened inside the
others fails the read, and ``run_script`` answers that the payload could not be parsed, with the
reader's exception text. :func:`depth_refusal` finds that container in a JSON text and words
the refusal as that reader does: the path of the containers around it, and the line and the
position just after its bracket. The scan is one pass without recursion, so a text nested
thousands deep costs no more than a flat one; it assumes the text is JSON up to that point.
:mod:`rimbridge_sim.scripting.script_json` reads a payload with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_DEPTH", "DepthRefusal", "depth_refusal", "line_position"]

MAX_DEPTH: Final = 64
"""The most objects and arrays nested in one another (the root counts as one)."""

# property names the reader writes in brackets and quotes in a path, not after a dot
_QUOTED_NAME_CHARACTERS: Final = frozenset(".' /\"[]()\t\n\r\f\b\\\u0085\u2028\u2029")
_ESCAPES: Final = {"'": "\\'", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPES_MORE: Final = {"\f": "\\f", "\b": "\\b", "\u0085": "\\u0085"}
_WHITESPACE: Final = " \t\n\r"


@dataclass(frozen=True)
class DepthRefusal:
    """Where the first container past :data:`MAX_DEPTH` opens, and the reader's words."""

    offset: int
    """The index of its bracket in the text."""
    message: str


@dataclass
class _Container:
    is_object: bool
    name: str | None = None
    """An object's property being read."""
    index: int = -1
    """An array's element being read."""
    wants_name: bool = True
    """An object's next string is a property name."""


def depth_refusal(text: str, max_depth: int = MAX_DEPTH) -> DepthRefusal | None:
    """The refusal of the first object or array nested deeper than ``max_depth``, if any."""
    stack: list[_Container] = []
    at = 0
    size = len(text)
    while at < size:
        char = text[at]
        if char in "{[":
            _value_starts(stack)
            if len(stack) >= max_depth:
                return DepthRefusal(at, _message(text, at, stack, max_depth))
            stack.append(_Container(is_object=char == "{"))
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == '"':
            end = _string_end(text, at)
            if stack and stack[-1].is_object and stack[-1].wants_name:
                stack[-1].name = _decoded(text[at:end])
                stack[-1].wants_name = False
            else:
                _value_starts(stack)
            at = end
            continue
        elif char == ",":
            if stack and stack[-1].is_object:
                stack[-1].wants_name = True
        elif char not in _WHITESPACE and char != ":":
            # a number or a literal: one value, read to its end
            _value_starts(stack)
            while at + 1 < size and text[at + 1] not in _WHITESPACE and text[at + 1] not in ",:]}":
                at += 1
        at += 1
    return None


def _value_starts(stack: list[_Container]) -> None:
    if stack and not stack[-1].is_object:
        stack[-1].index += 1


def _string_end(text: str, at: int) -> int:
    """The index just after the string that starts at ``at`` (or the text's end)."""
    at += 1
    while at < len(text):
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == '"':
            return at + 1
        at += 1
    return len(text)


def _decoded(literal: str) -> str:
    try:
        value = json.loads(literal)
    except ValueError:
        return literal.strip('"')
    return value if isinstance(value, str) else literal


def _message(text: str, at: int, stack: list[_Container], max_depth: int) -> str:
    line, position = line_position(text, at + 1)
    return (
        f"The reader's MaxDepth of {max_depth} has been exceeded. Path '{_path(stack)}', "
        f"line {line}, position {position}."
    )


def line_position(text: str, end: int) -> tuple[int, int]:
    """The line (from 1) and position Newtonsoft's reader reports once it has read
    ``text[:end]``: the characters read on that line."""
    line_start, line = 0, 1
    index = 0
    while index < end - 1:
        char = text[index]
        if char == "\n" or (char == "\r" and text[index + 1 : index + 2] != "\n"):
            line += 1
            line_start = index + 1
        index += 1
    return line, end - line_start


def _path(stack: list[_Container]) -> str:
    path = ""
    for container in stack:
        if not container.is_object:
            path += f"[{container.index}]"
        elif container.name is not None:
            name = container.name
            if any(char in _QUOTED_NAME_CHARACTERS for char in name):
                escaped = "".join(_ESCAPES.get(c, _ESCAPES_MORE.get(c, c)) for c in name)
                path += f"['{escaped}']"
            else:
                path += ("." if path else "") + name
    return path
