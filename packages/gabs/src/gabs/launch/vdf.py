"""Valve's KeyValues text format (``libraryfolders.vdf``, ``appmanifest_<id>.acf``), read
as leniently as the Go bridge reads it: ``//`` and ``/* */`` comments, quoted strings with
``\\"`` and ``\\\\`` escapes, bare words; an object left open at the end of the text is
closed there, and one stray ``}`` at the very end is ignored."""

from __future__ import annotations

from typing import Any

from gabs.go_format import go_quote

__all__ = ["SteamError", "VdfError", "parse_vdf"]


class SteamError(Exception):
    """The app cannot be found or resolved on this machine."""


class VdfError(SteamError):
    """The text is not KeyValues."""


def _quoted(text: str, i: int) -> tuple[str, int]:
    """The string opening at ``text[i]`` (a quote) and the index after its closing quote."""
    out: list[str] = []
    i += 1
    while i < len(text):
        char = text[i]
        if char == '"':
            return "".join(out), i + 1
        if char == "\\" and i + 1 < len(text) and text[i + 1] in '"\\':
            out.append(text[i + 1])
            i += 2
            continue
        out.append(char)
        i += 1
    raise VdfError("unterminated quoted string")


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise VdfError("unterminated block comment")
            i = end + 2
        elif char in "{}":
            tokens.append(char)
            i += 1
        elif char == '"':
            token, i = _quoted(text, i)
            tokens.append(token)
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in "{}":
                i += 1
            tokens.append(text[start:i])
    return tokens


def parse_vdf(text: str) -> dict[str, Any]:
    """The text as nested dicts of strings (a repeated key keeps its last value)."""
    tokens = _tokens(text)
    position = 0

    def read_object() -> dict[str, Any]:
        nonlocal position
        result: dict[str, Any] = {}
        while position < len(tokens):
            key = tokens[position]
            if key == "}":
                position += 1
                return result
            if key == "{":
                raise VdfError("unexpected object start")
            position += 1
            if position >= len(tokens) or tokens[position] == "}":
                raise VdfError(f"missing value for key {go_quote(key)}")
            if tokens[position] == "{":
                position += 1
                result[key] = read_object()
            else:
                result[key] = tokens[position]
                position += 1
        return result

    parsed = read_object()
    if position < len(tokens):
        raise VdfError(f"unexpected token {go_quote(tokens[position])}")
    return parsed
