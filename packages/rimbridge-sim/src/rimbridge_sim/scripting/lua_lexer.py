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
_ESCAPES: Final = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "[": "[",
    "]": "]",
    "\n": "\n",
}
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
            long = _long_bracket(source, i + 2, line, column, "block comment")
            if long is not None:
                end = long[0]
                newlines = source.count("\n", i, end)
                if newlines:
                    line += newlines
                    line_start = source.rfind("\n", i, end) + 1
                i = end
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
        long = _long_bracket(source, i, line, column, "long string") if ch == "[" else None
        if ch in "\"'" or long is not None:
            start = i
            if long is not None:
                i, text = long
            else:
                i, text = _string(source, i, line, column)
            tokens.append(Token("string", text, line, column))
            newlines = source.count("\n", start, i)  # a long string, or an escaped line break
            if newlines:
                line += newlines
                line_start = source.rfind("\n", start, i) + 1
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


def _long_bracket(source: str, i: int, line: int, column: int, what: str) -> tuple[int, str] | None:
    """A long bracket at ``i`` (``[[...]]``, ``[==[...]==]``): the index after it and its text
    (a first line break dropped, nothing unescaped); ``None`` when none starts there."""
    if not source.startswith("[", i):
        return None
    level = 0
    while source.startswith("=", i + 1 + level):
        level += 1
    if not source.startswith("[", i + 1 + level):
        return None
    body = i + 2 + level
    closing = "]" + "=" * level + "]"
    end = source.find(closing, body)
    if end < 0:
        raise LuaCompileError("lua.syntax_error", f"unfinished {what}", line, column)
    text = source[body:end]
    if text.startswith("\r\n"):
        text = text[2:]
    elif text.startswith("\n"):
        text = text[1:]
    return end + len(closing), text


def _string(source: str, i: int, line: int, column: int) -> tuple[int, str]:
    """A quoted string at ``i`` with Lua's escapes: the index after it and its text."""
    quote = source[i]
    i += 1
    parts: list[str] = []
    length = len(source)
    while True:
        if i >= length or source[i] == "\n":
            raise LuaCompileError("lua.syntax_error", "unfinished string", line, column)
        ch = source[i]
        if ch == quote:
            return i + 1, "".join(parts)
        if ch != "\\":
            parts.append(ch)
            i += 1
            continue
        following = source[i + 1 : i + 2]
        if following in _ESCAPES:
            parts.append(_ESCAPES[following])
            i += 2
        elif source.startswith("\r\n", i + 1):  # an escaped Windows line break
            parts.append("\n")
            i += 3
        elif following == "z":  # skips the white space after it, line breaks included
            i += 2
            while i < length and source[i] in " \t\r\n\f\v":
                i += 1
        elif following.isdigit():  # \ddd: a byte, up to three decimal digits
            digits = source[i + 1 : i + 4]
            digits = digits[: len(digits) - len(digits.lstrip("0123456789"))] or digits[:1]
            if int(digits) > 255:
                raise LuaCompileError(
                    "lua.syntax_error", f"escape \\{digits} is too large", line, column
                )
            parts.append(chr(int(digits)))
            i += 1 + len(digits)
        elif following == "x" and _hex(source[i + 2 : i + 4], 2):
            parts.append(chr(int(source[i + 2 : i + 4], 16)))
            i += 4
        elif following == "u" and source.startswith("{", i + 2) and "}" in source[i + 3 : i + 12]:
            digits = source[i + 3 : source.index("}", i + 3)]
            if not _hex(digits, len(digits)) or int(digits, 16) > 0x10FFFF:
                raise LuaCompileError(
                    "lua.syntax_error", f"invalid escape \\u{{{digits}}}", line, column
                )
            parts.append(chr(int(digits, 16)))
            i += 4 + len(digits)
        else:
            raise LuaCompileError(
                "lua.syntax_error", f"invalid escape sequence \\{following}", line, column
            )


def _hex(text: str, count: int) -> bool:
    return 0 < len(text) == count and all(c in "0123456789abcdefABCDEF" for c in text)
