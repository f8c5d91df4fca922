"""The single-character pieces of a Go ``regexp`` pattern: escapes, ``\\d``-style and
``\\p{...}`` classes, bracketed classes and POSIX names, read as Go's ``regexp/syntax`` reads
them and turned into code point ranges.

Case folding is done here, not by ``re``: under ``(?i)`` a literal stands for its orbit under
Go's ``unicode.SimpleFold``, a range or a ``\\d``/``[:alpha:]`` group for its fold closure, and
a ``\\p{...}`` for its table plus Go's fold table of that name (only some names have one), with
any negation applied after folding, as Go does. ``re`` never sees ``re.IGNORECASE``, so its own
(and its Unicode version's) idea of case plays no part.
"""

from __future__ import annotations

import re
from typing import Final

from gabs.config._unicode_classes import (
    Ranges,
    complement,
    fold_closure,
    fold_orbit,
    named_class,
    normalize,
)

__all__ = ["AtomReader", "Re2Error", "literal_ranges", "literal_text", "perl_error", "set_text"]

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
_SIMPLE_ESCAPES: Final = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_OCTAL: Final = frozenset("01234567")
#: What ``re`` is given for a class no code point is in (``[]`` is no class in ``re``).
_NOTHING: Final = "[^\\U00000000-\\U0010ffff]"


class Re2Error(ValueError):
    """A pattern RE2 refuses (Go's words after ``error parsing regexp: ``), or one ``re``
    cannot express."""


def perl_error(kind: str, text: str) -> Re2Error:
    return Re2Error(f"error parsing regexp: {kind}: `{text}`")


def set_text(ranges: Ranges) -> str:
    """``ranges`` as an ``re`` class."""
    if not ranges:
        return _NOTHING

    def one(point: int) -> str:
        return f"\\U{point:08x}"

    return "[" + "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges) + "]"


def literal_ranges(point: int, fold: bool) -> Ranges:
    """The code points one character stands for: itself, or under ``(?i)`` its fold orbit."""
    orbit = fold_orbit(point) if fold else (point,)
    return normalize(tuple((partner, partner) for partner in orbit))


def literal_text(point: int, fold: bool) -> str:
    """One character as ``re`` text; under ``(?i)`` the class of its fold orbit."""
    ranges = literal_ranges(point, fold)
    if ranges == ((point, point),):
        return re.escape(chr(point))
    return set_text(ranges)


def _group(ranges: Ranges, negated: bool, fold: bool) -> Ranges:
    """A ``\\d`` or ``[:alpha:]`` group (Go's ``appendGroup``): folded first, then negated."""
    if fold:
        ranges = fold_closure(ranges)
    return complement(ranges) if negated else ranges


class AtomReader:
    """Reads escapes and classes from ``src`` at ``pos`` (Go's ``parseEscape``,
    ``parseClass``, ``parseUnicodeClass``, ``parsePerlClassEscape``, ``parseNamedClass``)."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.pos = 0

    def class_escape(self, fold: bool) -> Ranges | None:
        """``\\d``, ``\\s``, ``\\w``, ``\\p{...}`` and their negations, or None."""
        src, start = self.src, self.pos
        char = src[start + 1 : start + 2]
        if char and char.lower() in _PERL:
            self.pos = start + 2
            return _group(_PERL[char.lower()], char.isupper(), fold)
        if char in ("p", "P"):
            self.pos = start + 2
            return self._unicode_class(char == "P", fold)
        return None

    def char_escape(self) -> int:
        """The character an escape stands for (Go's ``parseEscape``)."""
        src, start = self.src, self.pos
        if start + 1 >= len(src):
            raise Re2Error("error parsing regexp: trailing backslash at end of expression: ``")
        char, index = src[start + 1], start + 2

        def refused() -> Re2Error:
            return perl_error("invalid escape sequence", src[start:index])

        if char.isascii() and not char.isalnum():
            value = ord(char)
        elif char == "0" or (char in "1234567" and src[index : index + 1] in _OCTAL):
            value = int(char)
            for _ in range(2):
                if index < len(src) and src[index] in _OCTAL:
                    value, index = value * 8 + int(src[index]), index + 1
        elif char == "x":
            if index >= len(src):
                raise refused()
            first, index = src[index], index + 1
            if first == "{":
                value = digits = 0
                while True:
                    if index >= len(src):
                        raise refused()
                    digit, index = src[index], index + 1
                    if digit == "}":
                        break
                    if digit not in _HEX or (value := value * 16 + int(digit, 16)) > 0x10FFFF:
                        raise refused()
                    digits += 1
                if not digits:
                    raise refused()
            else:
                second = src[index : index + 1]
                index += 1
                if first not in _HEX or second not in _HEX or not second:
                    raise refused()
                value = int(first + second, 16)
        elif char in _SIMPLE_ESCAPES:
            value = _SIMPLE_ESCAPES[char]
        else:
            raise refused()
        self.pos = index
        return value

    def _unicode_class(self, negated: bool, fold: bool) -> Ranges:
        src, start = self.src, self.pos
        if src.startswith("{", start):
            close = src.find("}", start)
            if close < 0:
                raise perl_error("invalid character class range", src[start - 2 :])
            name, self.pos = src[start + 1 : close], close + 1
        else:
            name, self.pos = src[start : start + 1], start + 1
        if name.startswith("^"):
            name, negated = name[1:], not negated
        ranges = named_class(name, fold)
        if ranges is None:
            raise perl_error("invalid character class range", src[start - 2 : self.pos])
        return complement(ranges) if negated else ranges

    def bracket(self, fold: bool) -> Ranges:
        """A bracketed class (Go's ``parseClass``) as the code points it matches."""
        src, start = self.src, self.pos
        whole = src[start:]
        self.pos += 1
        negated = src.startswith("^", self.pos)
        self.pos += negated
        parts: list[tuple[int, int]] = []
        first = True
        while first or not src.startswith("]", self.pos):
            first = False
            ranges = self._posix_class(fold) if src.startswith("[:", self.pos) else None
            if ranges is None and src.startswith("\\", self.pos):
                ranges = self.class_escape(fold)
            if ranges is None:
                atom = self.pos
                low = high = self._class_char(whole)
                after = src[self.pos + 1 : self.pos + 2]
                if src.startswith("-", self.pos) and after not in ("", "]"):
                    self.pos += 1
                    high = self._class_char(whole)
                    if high < low:
                        raise perl_error("invalid character class range", src[atom : self.pos])
                ranges = fold_closure(((low, high),)) if fold else ((low, high),)
            parts.extend(ranges)
        self.pos += 1
        merged = normalize(tuple(parts))
        return complement(merged) if negated else merged

    def _class_char(self, whole: str) -> int:
        if self.pos >= len(self.src):
            raise perl_error("missing closing ]", whole)
        if self.src[self.pos] == "\\":
            return self.char_escape()
        self.pos += 1
        return ord(self.src[self.pos - 1])

    def _posix_class(self, fold: bool) -> Ranges | None:
        """``[:alpha:]`` and the like, or None when the text is no such name."""
        src = self.src
        close = src.find(":]", self.pos + 2)
        if close < 0:
            return None
        name = src[self.pos : close + 2]
        inner = name[2:-2]
        ranges = _POSIX.get(inner.removeprefix("^"))
        if ranges is None:
            raise perl_error("invalid character class range", name)
        self.pos = close + 2
        return _group(ranges, inner.startswith("^"), fold)
