"""Launch-input patterns in the Go bridge's syntax (RE2, Go's ``regexp``) run by Python's ``re``.

The pattern is rewritten, not reinterpreted: RE2's meaning of each construct is spelled out in
``re`` terms (``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII; ``$`` is the end of the text
unless ``(?m)``; ``(?i)`` may stand anywhere; ``\\z``, ``\\Q...\\E``, ``\\x{...}``,
``\\p{...}``, ``[[:alpha:]]``), and what RE2 refuses is refused with Go's words (lookarounds,
backreferences, possessive repeats). Unicode scripts (``\\p{Greek}``) have no ``re``
counterpart and are refused.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import unicodedata
from typing import Final

__all__ = ["Re2Error", "compile_re2"]

_WORD: Final = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_PERL: Final = {
    "d": ((0x30, 0x39),),
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),
    "w": _WORD,
}
_POSIX: Final = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": _WORD,
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
_WORD_CLASS: Final = "[0-9A-Za-z_]"
_BOUNDARY: Final = f"(?:(?<={_WORD_CLASS})(?!{_WORD_CLASS})|(?<!{_WORD_CLASS})(?={_WORD_CLASS}))"
_NOT_BOUNDARY: Final = (
    f"(?:(?<={_WORD_CLASS})(?={_WORD_CLASS})|(?<!{_WORD_CLASS})(?!{_WORD_CLASS}))"
)
_REFUSED_GROUPS: Final = ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?#", "(?(", "(?P=", "(?P>")
_FLAGS: Final = frozenset("imsU-")

Ranges = tuple[tuple[int, int], ...]


class Re2Error(ValueError):
    """A pattern RE2 refuses (Go's words after ``error parsing regexp: ``), or one ``re``
    cannot express."""


def _perl_error(kind: str, text: str) -> Re2Error:
    return Re2Error(f"error parsing regexp: {kind}: `{text}`")


@functools.lru_cache(maxsize=64)
def compile_re2(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled with RE2's meaning; :class:`Re2Error` or :class:`re.error`."""
    return re.compile(_Translator(pattern).run())


def _complement(ranges: Ranges) -> Ranges:
    result, low = [], 0
    for start, end in sorted(ranges):
        if start > low:
            result.append((low, start - 1))
        low = max(low, end + 1)
    if low <= sys.maxunicode:
        result.append((low, sys.maxunicode))
    return tuple(result)


@functools.lru_cache(maxsize=1)
def _categories() -> dict[str, Ranges]:
    """Every Unicode general category (``Lu``, ...) and its major class (``L``), as ranges.

    Planes 4 to 13 are unassigned and planes 15 and 16 private use (but for their last two
    points), so only the other planes are looked at point by point."""
    found: dict[str, list[tuple[int, int]]] = {}

    def add(kind: str, start: int, end: int) -> None:
        for name in (kind, kind[0]):
            ranges = found.setdefault(name, [])
            if ranges and ranges[-1][1] == start - 1:
                ranges[-1] = (ranges[-1][0], end)
            else:
                ranges.append((start, end))

    def scan(start: int, end: int) -> None:
        kinds = map(unicodedata.category, map(chr, range(start, end)))
        for kind, run in itertools.groupby(kinds):
            length = sum(1 for _ in run)
            add(kind, start, start + length - 1)
            start += length

    scan(0, 0x40000)
    add("Cn", 0x40000, 0xDFFFF)
    scan(0xE0000, 0xF0000)
    for plane in (15, 16):
        add("Co", plane << 16, (plane << 16) + 0xFFFD)
        add("Cn", (plane << 16) + 0xFFFE, (plane << 16) + 0xFFFF)
    result = {name: tuple(ranges) for name, ranges in found.items()}
    result["Any"] = ((0, sys.maxunicode),)
    return result


def _set_text(ranges: Ranges) -> str:
    def one(point: int) -> str:
        return f"\\U{point:08x}"

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.out: list[str] = []
        # per open group: (closing parentheses owed by scoped flags, the mode before it)
        self.groups: list[tuple[int, tuple[bool, bool]]] = [(0, (False, False))]
        self.multiline = False
        self.ungreedy = False
        self.after_repeat = False
        self.last_repeat = ""

    def run(self) -> str:
        while self.pos < len(self.src):
            self._step()
        if len(self.groups) > 1:
            return "".join(self.out)  # an unclosed group: re says so
        self.out.append(")" * self.groups[0][0])
        return "".join(self.out)

    def _step(self) -> None:
        src, char = self.src, self.src[self.pos]
        repeat = False
        if char == "\\":
            self.out.append(self._escape(in_class=False))
            return self._done(False)
        if char == "[":
            self.out.append(self._class())
            return self._done(False)
        if char == "(":
            self._open()
            return self._done(False)
        if char == ")":
            owed, outer = self.groups.pop() if len(self.groups) > 1 else (0, self._mode())
            self.out.append(")" * owed + ")")
            self.multiline, self.ungreedy = outer
            self.pos += 1
            return self._done(False)
        if char == "$":
            self.out.append("$" if self.multiline else r"\Z")
        elif char in "*+?" or (char == "{" and re.match(r"\{\d+(,\d*)?\}", src[self.pos :])):
            found = re.match(r"[*+?]|\{\d+(,\d*)?\}", src[self.pos :])
            assert found is not None
            token = found.group()
            if self.after_repeat:
                raise _perl_error("invalid nested repetition operator", self.last_repeat + token)
            self.pos += len(token)
            lazy = src.startswith("?", self.pos)
            self.pos += lazy
            self.out.append(token + ("?" if lazy != self.ungreedy else ""))
            self.last_repeat = token + ("?" if lazy else "")
            return self._done(True)
        elif char == "{":  # not a repeat: a literal brace in RE2 (`x{,3}` too)
            self.out.append("\\{")
        else:
            self.out.append(char)
        self.pos += 1
        self._done(repeat)

    def _done(self, repeat: bool) -> None:
        self.after_repeat = repeat

    def _open(self) -> None:
        src, start = self.src, self.pos
        for refused in _REFUSED_GROUPS:
            if src.startswith(refused, start):
                raise _perl_error("invalid or unsupported Perl syntax", refused)
        if src.startswith("(?P<", start) or src.startswith("(?<", start):
            self.pos = start + (4 if src[start + 2] == "P" else 3)
            self.groups.append((0, self._mode()))
            self.out.append("(?P<")
            return
        if not src.startswith("(?", start):
            self.pos += 1
            self.groups.append((0, self._mode()))
            self.out.append("(")
            return
        end = start + 2
        while end < len(src) and src[end] in _FLAGS:
            end += 1
        flags = src[start + 2 : end]
        if end >= len(src) or src[end] not in ":)" or not flags or flags.endswith("-"):
            raise _perl_error("invalid or unsupported Perl syntax", src[start : end + 1])
        on, _, off = flags.partition("-")
        multiline = ("m" in on) or (self.multiline and "m" not in off)
        ungreedy = ("U" in on) or (self.ungreedy and "U" not in off)
        on, off = on.replace("U", ""), off.replace("U", "")
        text = on + (f"-{off}" if off else "")
        self.pos = end + 1
        if src[end] == ":":
            self.groups.append((0, self._mode()))
            self.out.append(f"(?{text}:" if text else "(?:")
        else:  # (?i) applies to the rest of the enclosing group
            owed, outer = self.groups[-1]
            self.groups[-1] = (owed + 1, outer)
            self.out.append(f"(?{text}:" if text else "(?:")
        self.multiline, self.ungreedy = multiline, ungreedy

    def _mode(self) -> tuple[bool, bool]:
        return self.multiline, self.ungreedy

    def _escape(self, *, in_class: bool) -> str:
        src, start = self.src, self.pos
        if start + 1 >= len(src):
            raise Re2Error("error parsing regexp: trailing backslash at end of expression: ``")
        char = src[start + 1]
        self.pos = start + 2
        if char in "123456789":
            raise _perl_error("invalid escape sequence", src[start : start + 2])
        if char.lower() in _PERL:
            ranges = _PERL[char.lower()]
            ranges = _complement(ranges) if char.isupper() else ranges
            return _set_text(ranges) if in_class else f"[{_set_text(ranges)}]"
        if char in "pP":
            ranges = self._unicode_class(char == "P")
            return _set_text(ranges) if in_class else f"[{_set_text(ranges)}]"
        if char == "x" and src.startswith("{", self.pos):
            close = src.find("}", self.pos)
            digits = src[self.pos + 1 : close] if close > 0 else ""
            if not re.fullmatch(r"[0-9A-Fa-f]{1,6}", digits) or int(digits, 16) > sys.maxunicode:
                raise _perl_error("invalid escape sequence", src[start : close + 1 or None])
            self.pos = close + 1
            return f"\\U{int(digits, 16):08x}"
        if in_class:
            if char in "bBAzQCZ":
                raise _perl_error("invalid escape sequence", src[start : start + 2])
            return "\\" + char
        if char == "b":
            return _BOUNDARY
        if char == "B":
            return _NOT_BOUNDARY
        if char == "z":
            return r"\Z"
        if char == "Z":
            raise _perl_error("invalid escape sequence", src[start : start + 2])
        if char == "C":
            return "(?s:.)"
        if char == "Q":
            close = src.find(r"\E", self.pos)
            literal = src[self.pos :] if close < 0 else src[self.pos : close]
            self.pos = len(src) if close < 0 else close + 2
            return re.escape(literal)
        return "\\" + char

    def _unicode_class(self, negated: bool) -> Ranges:
        src, start = self.src, self.pos
        if src.startswith("{", start):
            close = src.find("}", start)
            if close < 0:
                raise _perl_error("invalid character class range", src[start - 2 :])
            name, self.pos = src[start + 1 : close], close + 1
        else:
            name, self.pos = src[start : start + 1], start + 1
        if name.startswith("^"):
            name, negated = name[1:], not negated
        ranges = _categories().get(name) if re.fullmatch(r"Any|[CLMNPSZ][a-z]?", name) else None
        if ranges is None:
            if name and name[0].isupper() and len(name) > 2:
                raise Re2Error(f"Unicode scripts such as \\p{{{name}}} have no counterpart here")
            raise _perl_error("invalid character class range", src[start - 2 : self.pos])
        return _complement(ranges) if negated else ranges

    def _class(self) -> str:
        src = self.src
        self.pos += 1
        parts = ["["]
        if src.startswith("^", self.pos):
            parts.append("^")
            self.pos += 1
        first = True
        while self.pos < len(src):
            char = src[self.pos]
            if char == "]" and not first:
                self.pos += 1
                parts.append("]")
                return "".join(parts)
            first = False
            if char == "\\":
                parts.append(self._escape(in_class=True))
            elif char == "[" and (found := re.match(r"\[:(\^?)([a-z]+):\]", src[self.pos :])):
                ranges = _POSIX.get(found.group(2))
                if ranges is None:
                    raise _perl_error("invalid character class range", found.group())
                parts.append(_set_text(_complement(ranges) if found.group(1) else ranges))
                self.pos += len(found.group())
            else:
                parts.append("\\" + char if char in "[&~|" else char)
                self.pos += 1
        return "".join(parts)  # unterminated: re says so
