"""Tokens of the Lua subset: names, keywords, numbers, strings, symbols; comments skipped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["KEYWORDS", "LuaCompileError", "Token", "tokenize"]

KEYWORDS: Final = frozenset(
    {
        "and",
        "break",
        "do",
        "else",
        "elseif",
        "end",
        "false",
        "for",
        "function",
        "goto",
        "if",
        "in",
        "local",
        "nil",
        "not",
        "or",
        "repeat",
        "return",
        "then",
        "true",
        "until",
        "while",
    }
)
_SYMBOLS: Final = (
    "...",
    "..",
    "==",
    "~=",
    "<=",
    ">=",
    "::",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "#",
    "<",
    ">",
    "=",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ":",
    ",",
    ".",
)
_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0"}
MAX_SOURCE: Final = 200_000


class LuaCompileError(Exception):
    """The source is not in the supported subset; ``code`` says why, line/column where."""

    def __init__(self, code: str, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} (line {line}, column {column})")
        self.code = code
        self.message = f"{message} (line {line}, column {column})"
        self.line = line
        self.column = column

    def to_wire(self) -> dict[str, object]:
        return {
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            # the mod's details name the place too, and MoonSharp's node class (nodeType),
            # which has no counterpart here
            "details": {"line": self.line, "column": self.column},
        }


@dataclass(frozen=True)
class Token:
    kind: str
    """``name``, ``keyword``, ``number``, ``string``, ``symbol`` or ``eof``."""
    value: object
    line: int
    column: int


def tokenize(source: str) -> list[Token]:
    if len(source) > MAX_SOURCE:
        raise LuaCompileError(
            "lua.invalid_source", f"source is longer than {MAX_SOURCE} characters", 1, 1
        )
    tokens: list[Token] = []
    i, line, line_start = 0, 1, 0
    length = len(source)
    while i < length:
        ch = source[i]
        column = i - line_start + 1
        if ch == "\n":
            i += 1
            line, line_start = line + 1, i
            continue
        if ch in " \t\r":
            i += 1
            continue
        if source.startswith("--", i):
            if source.startswith("--[[", i):
                end = source.find("]]", i + 4)
                if end < 0:
                    raise LuaCompileError(
                        "lua.syntax_error", "unfinished block comment", line, column
                    )
                newlines = source.count("\n", i, end)
                if newlines:
                    line += newlines
                    line_start = source.rfind("\n", i, end) + 1
                i = end + 2
            else:
                end = source.find("\n", i)
                i = length if end < 0 else end
            continue
        if ch.isalpha() or ch == "_":
            start = i
            while i < length and (source[i].isalnum() or source[i] == "_"):
                i += 1
            word = source[start:i]
            tokens.append(Token("keyword" if word in KEYWORDS else "name", word, line, column))
            continue
        if ch.isdigit() or (ch == "." and i + 1 < length and source[i + 1].isdigit()):
            start = i
            if source.startswith(("0x", "0X"), i):
                i += 2
                while i < length and source[i] in "0123456789abcdefABCDEF":
                    i += 1
                tokens.append(Token("number", int(source[start:i], 16), line, column))
                continue
            while i < length and (
                source[i].isdigit()
                or source[i] in ".eE"
                or (source[i] in "+-" and source[i - 1] in "eE")
            ):
                i += 1
            text = source[start:i]
            try:
                value: object = float(text) if any(c in text for c in ".eE") else int(text)
            except ValueError:
                raise LuaCompileError(
                    "lua.syntax_error", f"malformed number {text!r}", line, column
                ) from None
            tokens.append(Token("number", _whole(value), line, column))
            continue
        if ch in "\"'":
            i, text = _string(source, i, line, column)
            tokens.append(Token("string", text, line, column))
            continue
        if source.startswith("[[", i):
            end = source.find("]]", i + 2)
            if end < 0:
                raise LuaCompileError("lua.syntax_error", "unfinished long string", line, column)
            text = source[i + 2 : end].removeprefix("\n")
            line += source.count("\n", i, end)
            i = end + 2
            tokens.append(Token("string", text, line, column))
            continue
        symbol = next((s for s in _SYMBOLS if source.startswith(s, i)), None)
        if symbol is None:
            raise LuaCompileError("lua.syntax_error", f"unexpected character {ch!r}", line, column)
        tokens.append(Token("symbol", symbol, line, column))
        i += len(symbol)
    tokens.append(Token("eof", None, line, i - line_start + 1))
    return tokens


def _whole(value: object) -> object:
    """A number literal as the mod reads it: every Lua number is a double, and one without a
    fraction that fits in 64 bits becomes a whole number (``2.0`` and ``1e3`` are ``2`` and
    ``1000``; a whole number too large for 64 bits stays a double)."""
    if isinstance(value, float) and value.is_integer() and -(2**63) <= value < 2**63:
        return int(value)
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return float(value)
    return value


def _string(source: str, i: int, line: int, column: int) -> tuple[int, str]:
    quote = source[i]
    i += 1
    parts: list[str] = []
    while True:
        if i >= len(source) or source[i] == "\n":
            raise LuaCompileError("lua.syntax_error", "unfinished string", line, column)
        ch = source[i]
        if ch == quote:
            return i + 1, "".join(parts)
        if ch == "\\":
            following = source[i + 1 : i + 2]
            if following in _ESCAPES:
                parts.append(_ESCAPES[following])
                i += 2
                continue
            raise LuaCompileError(
                "lua.syntax_error", f"unsupported escape \\{following}", line, column
            )
        parts.append(ch)
        i += 1
